// genesis.optim's fused steps (Note [Optimizer steps] in ops/optimizer_step.cpp) as
// _C._optim._<name>_step (sgd, adam, rmsprop, adagrad, adamax, adadelta, nadam, radam): the
// optimizer classes check the options with PyTorch's messages and call these once per parameter
// group, under no_grad.
#include "autograd/meta.h"
#include "ops/optimizer_step.h"
#include "python/bindings.h"
#include "python/tensor_lists.h"

namespace genesis::python {

namespace {

// An optional tensor argument: null for None.
const Tensor* optional_ref(const py::object& value) {
  return value.is_none() ? nullptr : &value.cast<const Tensor&>();
}

// `given` with each tensor of `created` (defined where a new one was made) in its place, or None
// when none was made (every step after the first).
py::object with_created(const py::object& given, const std::vector<Tensor>& created) {
  bool any = false;
  for (const Tensor& t : created) any = any || t.defined();
  if (!any) return py::none();
  py::list out;
  auto items = py::reinterpret_borrow<py::list>(given);
  for (size_t i = 0; i < created.size(); ++i)
    out.append(created[i].defined() ? py::cast(created[i]) : py::object(items[i]));
  return out;
}

}  // namespace

void init_optim_adafactor(py::module_& optim);  // optim_adafactor.cpp
void init_optim_muon(py::module_& optim);       // optim_muon.cpp

void init_optim(py::module_& m) {
  py::module_ optim = m.def_submodule("_optim", "genesis.optim's compiled steps");
  init_tensor_list(optim);
  optim.def(
      "_params_and_grads",
      [](const py::iterable& params) {
        // One pass in C++, the gradients held in a TensorList (python/tensor_lists.h): .grad
        // from Python costs about a microsecond a parameter, which over a model's hundreds of
        // tensors is more than the step's own host work.
        py::list with_grad;
        TensorList grads;
        for (py::handle item : params) {
          GENESIS_CHECK_TYPE(py::isinstance<Tensor>(item), "optimizer",
                             "expected each parameter to be a tensor, got ", type_name(item));
          Tensor grad = autograd::grad(item.cast<const Tensor&>());
          if (!grad.defined()) continue;
          with_grad.append(item);
          grads.items.push_back(std::move(grad));
        }
        return py::make_tuple(with_grad, std::move(grads));
      },
      py::arg("params"),
      "The parameters of the list that have a gradient (a list), and their gradients (a\n"
      "TensorList).");
  optim.def(
      "_sgd_step",
      [](const py::list& params, const py::object& grads, const py::list& momentum_buffers,
         double lr, double momentum, double dampening, double weight_decay, bool nesterov,
         bool maximize, const py::list& narrow, const py::object& lr_tensor) {
        const char* op = "sgd_step";
        SgdRule rule{lr, momentum, dampening, weight_decay, nesterov, maximize};
        return with_created(
            momentum_buffers,
            ops::sgd_step(
                borrowed_tensors(params, op, "param"), borrowed_tensors(grads, op, "grad"),
                borrowed_tensors(momentum_buffers, op, "momentum buffer", true), rule,
                borrowed_tensors(narrow, op, "16-bit param", true), optional_ref(lr_tensor)));
      },
      py::arg("params"), py::arg("grads"), py::arg("momentum_buffers"), py::arg("lr"),
      py::arg("momentum"), py::arg("dampening"), py::arg("weight_decay"), py::arg("nesterov"),
      py::arg("maximize"), py::kw_only(), py::arg("narrow") = py::list(),
      py::arg("lr_tensor") = py::none(),
      "One SGD step over the lists in place; momentum_buffers: [] without momentum, else one per\n"
      "param, None where it does not exist yet. Returns the buffers, the new ones made, or None\n"
      "when none was made.");
  optim.def(
      "_adam_step",
      [](const py::list& params, const py::object& grads, const py::list& exp_avgs,
         const py::list& exp_avg_sqs, const py::list& max_exp_avg_sqs, const py::list& steps,
         double lr, double beta1, double beta2, double eps, double weight_decay, bool decoupled,
         bool amsgrad, bool maximize, const py::list& narrow, const py::object& lr_tensor) {
        const char* op = decoupled ? "adamw_step" : "adam_step";
        AdamRule rule{lr, beta1, beta2, eps, weight_decay, decoupled, amsgrad, maximize};
        ops::adam_step(borrowed_tensors(params, op, "param"), borrowed_tensors(grads, op, "grad"),
                       borrowed_tensors(exp_avgs, op, "exp_avg"),
                       borrowed_tensors(exp_avg_sqs, op, "exp_avg_sq"),
                       borrowed_tensors(max_exp_avg_sqs, op, "max_exp_avg_sq"),
                       borrowed_tensors(steps, op, "step"), rule,
                       borrowed_tensors(narrow, op, "16-bit param", true), optional_ref(lr_tensor));
      },
      py::arg("params"), py::arg("grads"), py::arg("exp_avgs"), py::arg("exp_avg_sqs"),
      py::arg("max_exp_avg_sqs"), py::arg("steps"), py::arg("lr"), py::arg("beta1"),
      py::arg("beta2"), py::arg("eps"), py::arg("weight_decay"), py::arg("decoupled"),
      py::arg("amsgrad"), py::arg("maximize"), py::kw_only(), py::arg("narrow") = py::list(),
      py::arg("lr_tensor") = py::none(),
      "One Adam (AdamW when decoupled) step over the lists in place; each step count (a 0-d\n"
      "float32 CPU tensor) is incremented first. max_exp_avg_sqs: [] unless amsgrad.");
  optim.def(
      "_rmsprop_step",
      [](const py::list& params, const py::object& grads, const py::list& square_avgs,
         const py::list& grad_avgs, const py::list& momentum_buffers, const py::list& steps,
         double lr, double alpha, double eps, double weight_decay, double momentum, bool centered,
         bool maximize, const py::list& narrow, const py::object& lr_tensor) {
        const char* op = "rmsprop_step";
        RmspropRule rule{lr, alpha, eps, weight_decay, momentum, centered, maximize};
        ops::rmsprop_step(
            borrowed_tensors(params, op, "param"), borrowed_tensors(grads, op, "grad"),
            borrowed_tensors(square_avgs, op, "square_avg"),
            borrowed_tensors(grad_avgs, op, "grad_avg"),
            borrowed_tensors(momentum_buffers, op, "momentum buffer"),
            borrowed_tensors(steps, op, "step"), rule,
            borrowed_tensors(narrow, op, "16-bit param", true), optional_ref(lr_tensor));
      },
      py::arg("params"), py::arg("grads"), py::arg("square_avgs"), py::arg("grad_avgs"),
      py::arg("momentum_buffers"), py::arg("steps"), py::arg("lr"), py::arg("alpha"),
      py::arg("eps"), py::arg("weight_decay"), py::arg("momentum"), py::arg("centered"),
      py::arg("maximize"), py::kw_only(), py::arg("narrow") = py::list(),
      py::arg("lr_tensor") = py::none(),
      "One RMSprop step over the lists in place; grad_avgs: [] unless centered,\n"
      "momentum_buffers: [] unless momentum > 0; step counts incremented first.");
  optim.def(
      "_adagrad_step",
      [](const py::list& params, const py::object& grads, const py::list& sums,
         const py::list& steps, double lr, double lr_decay, double eps, double weight_decay,
         bool maximize, const py::list& narrow) {
        const char* op = "adagrad_step";
        AdagradRule rule{eps, weight_decay, maximize};
        ops::adagrad_step(borrowed_tensors(params, op, "param"),
                          borrowed_tensors(grads, op, "grad"), borrowed_tensors(sums, op, "sum"),
                          borrowed_tensors(steps, op, "step"), lr, lr_decay, rule,
                          borrowed_tensors(narrow, op, "16-bit param", true));
      },
      py::arg("params"), py::arg("grads"), py::arg("sums"), py::arg("steps"), py::arg("lr"),
      py::arg("lr_decay"), py::arg("eps"), py::arg("weight_decay"), py::arg("maximize"),
      py::kw_only(), py::arg("narrow") = py::list(),
      "One Adagrad step over the lists in place; step counts incremented first.");
  optim.def(
      "_adamax_step",
      [](const py::list& params, const py::object& grads, const py::list& exp_avgs,
         const py::list& exp_infs, const py::list& steps, double lr, double beta1, double beta2,
         double eps, double weight_decay, bool maximize, const py::list& narrow,
         const py::object& lr_tensor) {
        const char* op = "adamax_step";
        AdamaxRule rule{lr, beta1, beta2, eps, weight_decay, maximize};
        ops::adamax_step(
            borrowed_tensors(params, op, "param"), borrowed_tensors(grads, op, "grad"),
            borrowed_tensors(exp_avgs, op, "exp_avg"), borrowed_tensors(exp_infs, op, "exp_inf"),
            borrowed_tensors(steps, op, "step"), rule,
            borrowed_tensors(narrow, op, "16-bit param", true), optional_ref(lr_tensor));
      },
      py::arg("params"), py::arg("grads"), py::arg("exp_avgs"), py::arg("exp_infs"),
      py::arg("steps"), py::arg("lr"), py::arg("beta1"), py::arg("beta2"), py::arg("eps"),
      py::arg("weight_decay"), py::arg("maximize"), py::kw_only(), py::arg("narrow") = py::list(),
      py::arg("lr_tensor") = py::none(),
      "One Adamax step over the lists in place; step counts incremented first.");
  optim.def(
      "_adadelta_step",
      [](const py::list& params, const py::object& grads, const py::list& square_avgs,
         const py::list& acc_deltas, const py::list& steps, double lr, double rho, double eps,
         double weight_decay, bool maximize, const py::list& narrow, const py::object& lr_tensor) {
        const char* op = "adadelta_step";
        AdadeltaRule rule{lr, rho, eps, weight_decay, maximize};
        ops::adadelta_step(
            borrowed_tensors(params, op, "param"), borrowed_tensors(grads, op, "grad"),
            borrowed_tensors(square_avgs, op, "square_avg"),
            borrowed_tensors(acc_deltas, op, "acc_delta"), borrowed_tensors(steps, op, "step"),
            rule, borrowed_tensors(narrow, op, "16-bit param", true), optional_ref(lr_tensor));
      },
      py::arg("params"), py::arg("grads"), py::arg("square_avgs"), py::arg("acc_deltas"),
      py::arg("steps"), py::arg("lr"), py::arg("rho"), py::arg("eps"), py::arg("weight_decay"),
      py::arg("maximize"), py::kw_only(), py::arg("narrow") = py::list(),
      py::arg("lr_tensor") = py::none(),
      "One Adadelta step over the lists in place; step counts incremented first.");
  optim.def(
      "_nadam_step",
      [](const py::list& params, const py::object& grads, const py::list& exp_avgs,
         const py::list& exp_avg_sqs, const py::list& mu_products, const py::list& steps, double lr,
         double beta1, double beta2, double eps, double weight_decay, double momentum_decay,
         bool decoupled, bool maximize, const py::list& narrow, const py::object& lr_tensor) {
        const char* op = "nadam_step";
        NadamRule rule{lr, beta1, beta2, eps, weight_decay, momentum_decay, decoupled, maximize};
        ops::nadam_step(
            borrowed_tensors(params, op, "param"), borrowed_tensors(grads, op, "grad"),
            borrowed_tensors(exp_avgs, op, "exp_avg"),
            borrowed_tensors(exp_avg_sqs, op, "exp_avg_sq"),
            borrowed_tensors(mu_products, op, "mu_product"), borrowed_tensors(steps, op, "step"),
            rule, borrowed_tensors(narrow, op, "16-bit param", true), optional_ref(lr_tensor));
      },
      py::arg("params"), py::arg("grads"), py::arg("exp_avgs"), py::arg("exp_avg_sqs"),
      py::arg("mu_products"), py::arg("steps"), py::arg("lr"), py::arg("beta1"), py::arg("beta2"),
      py::arg("eps"), py::arg("weight_decay"), py::arg("momentum_decay"), py::arg("decoupled"),
      py::arg("maximize"), py::kw_only(), py::arg("narrow") = py::list(),
      py::arg("lr_tensor") = py::none(),
      "One NAdam step over the lists in place; step counts and mu_products (0-d float32 tensors,\n"
      "on the CPU or, capturable, on the parameters' device) updated first.");
  optim.def(
      "_lion_step",
      [](const py::list& params, const py::object& grads, const py::list& exp_avgs, double lr,
         double beta1, double beta2, double weight_decay, bool maximize, const py::list& narrow) {
        const char* op = "lion_step";
        LionRule rule{lr, beta1, beta2, weight_decay, maximize};
        ops::lion_step(borrowed_tensors(params, op, "param"), borrowed_tensors(grads, op, "grad"),
                       borrowed_tensors(exp_avgs, op, "exp_avg"), rule,
                       borrowed_tensors(narrow, op, "16-bit param", true));
      },
      py::arg("params"), py::arg("grads"), py::arg("exp_avgs"), py::arg("lr"), py::arg("beta1"),
      py::arg("beta2"), py::arg("weight_decay"), py::arg("maximize"), py::kw_only(),
      py::arg("narrow") = py::list(), "One Lion step over the lists in place.");
  optim.def(
      "_radam_step",
      [](const py::list& params, const py::object& grads, const py::list& exp_avgs,
         const py::list& exp_avg_sqs, const py::list& steps, double lr, double beta1, double beta2,
         double eps, double weight_decay, bool decoupled, bool maximize, const py::list& narrow,
         const py::object& lr_tensor) {
        const char* op = "radam_step";
        RadamRule rule{lr, beta1, beta2, eps, weight_decay, decoupled, maximize};
        ops::radam_step(
            borrowed_tensors(params, op, "param"), borrowed_tensors(grads, op, "grad"),
            borrowed_tensors(exp_avgs, op, "exp_avg"),
            borrowed_tensors(exp_avg_sqs, op, "exp_avg_sq"), borrowed_tensors(steps, op, "step"),
            rule, borrowed_tensors(narrow, op, "16-bit param", true), optional_ref(lr_tensor));
      },
      py::arg("params"), py::arg("grads"), py::arg("exp_avgs"), py::arg("exp_avg_sqs"),
      py::arg("steps"), py::arg("lr"), py::arg("beta1"), py::arg("beta2"), py::arg("eps"),
      py::arg("weight_decay"), py::arg("decoupled"), py::arg("maximize"), py::kw_only(),
      py::arg("narrow") = py::list(), py::arg("lr_tensor") = py::none(),
      "One RAdam step over the lists in place; step counts incremented first.");
  optim.def(
      "_rprop_step",
      [](const py::list& params, const py::object& grads, const py::list& prevs,
         const py::list& step_sizes, const py::list& steps, double etaminus, double etaplus,
         double step_size_min, double step_size_max, bool maximize, const py::list& narrow) {
        const char* op = "rprop_step";
        RpropRule rule{etaminus, etaplus, step_size_min, step_size_max, maximize};
        ops::rprop_step(borrowed_tensors(params, op, "param"), borrowed_tensors(grads, op, "grad"),
                        borrowed_tensors(prevs, op, "prev"),
                        borrowed_tensors(step_sizes, op, "step_size"),
                        borrowed_tensors(steps, op, "step"), rule,
                        borrowed_tensors(narrow, op, "16-bit param", true));
      },
      py::arg("params"), py::arg("grads"), py::arg("prevs"), py::arg("step_sizes"),
      py::arg("steps"), py::arg("etaminus"), py::arg("etaplus"), py::arg("step_size_min"),
      py::arg("step_size_max"), py::arg("maximize"), py::kw_only(), py::arg("narrow") = py::list(),
      "One Rprop step over the lists in place; step counts incremented first.");
  optim.def(
      "_asgd_step",
      [](const py::list& params, const py::object& grads, const py::list& axs,
         const py::list& steps, const py::list& etas, const py::list& mus, double lr, double lambd,
         double alpha, double t0, double weight_decay, bool maximize, const py::list& narrow,
         const py::object& lr_tensor) {
        const char* op = "asgd_step";
        AsgdRule rule{lr, lambd, alpha, t0, weight_decay, maximize};
        ops::asgd_step(borrowed_tensors(params, op, "param"), borrowed_tensors(grads, op, "grad"),
                       borrowed_tensors(axs, op, "ax"), borrowed_tensors(steps, op, "step"),
                       borrowed_tensors(etas, op, "eta"), borrowed_tensors(mus, op, "mu"), rule,
                       borrowed_tensors(narrow, op, "16-bit param", true), optional_ref(lr_tensor));
      },
      py::arg("params"), py::arg("grads"), py::arg("axs"), py::arg("steps"), py::arg("etas"),
      py::arg("mus"), py::arg("lr"), py::arg("lambd"), py::arg("alpha"), py::arg("t0"),
      py::arg("weight_decay"), py::arg("maximize"), py::kw_only(), py::arg("narrow") = py::list(),
      py::arg("lr_tensor") = py::none(),
      "One ASGD step over the lists in place, with each parameter's eta and mu (0-d float32\n"
      "tensors, on the CPU or, capturable, on the parameters' device); then the step counts,\n"
      "etas and mus are updated.");
  init_optim_adafactor(optim);
  init_optim_muon(optim);
}

}  // namespace genesis::python
