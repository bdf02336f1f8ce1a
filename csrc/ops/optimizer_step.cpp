// Note [Optimizer steps]
// ~~~~~~~~~~~~~~~~~~~~~~
// genesis.optim keeps PyTorch's objects (param_groups, per-parameter state dicts) in Python, but
// a step is one C++ call per parameter group: the lists of parameters, gradients and state
// tensors go down together, and every element of every tensor is updated by the rule of
// vocab/optimizer_rules.h (Note [Optimizer rules]). On the CPU that is one pass over each
// tensor (threaded over its elements); on CUDA one multi-tensor kernel launch for up to
// kernels' StepTable::kMaxTensors tensors of one dtype, each block taking a chunk of one tensor
// (Note [Multi-tensor steps] in kernels/optimizer_step.cu). The lists are split here by device
// and dtype, so a group may mix them.
//
// The lists are borrowed (TensorRefs), not copied: a Tensor copy allocates its shape and strides,
// and a step over a model's few hundred tensors made about five copies of each, which cost more
// on the host than the launch (AdamW over 210 tensors on the 2-core CPU machine: 490 us in this
// call before, 82 us after; on the H200 the host work before the launch was 1.0-1.5 ms against
// a 0.9 ms kernel). The optimizers read the gradients in one compiled pass
// (_C._optim._params_and_grads) for the same reason.
//
// Step counts stay 0-d float32 CPU tensors, as PyTorch's non-capturable optimizers keep them
// (their state_dicts are then the same); they are incremented here and turned into each
// tensor's bias corrections on the host, in double, as PyTorch's Python does. The kernels read
// each tensor as its numel items in memory order: a parameter whose gradient and states are all
// contiguous, or all channels-last (one dense order), is stepped where it lies; any other
// tensor (a parameter made by a transposing view, a state loaded with other strides) is
// stepped through a contiguous copy that is copied back.
//
// Note [Master weights]
// ~~~~~~~~~~~~~~~~~~~~~
// A bfloat16 parameter stepped in bfloat16 loses every update smaller than half its last bit
// (2^-8 of its value): late in training most of them. With `master_weights=True` (a genesis
// option of every optimizer; PyTorch users get it from apex or by hand), the optimizer keeps a
// float32 copy of each 16-bit parameter (state "master_param") and float32 states, steps the
// copy with the 16-bit gradient widened, and writes the result rounded back into the parameter,
// in the same pass: the call's `params` are the copies and `narrow` the 16-bit parameters. Per
// element that reads 2 + 4 + 4k bytes and writes 2 + 4 + 4k (k states), against 4 + 4k each way
// for a float32 model; the backends instantiate (float, float16) and (float, bfloat16).
#include "ops/optimizer_step.h"

#include <deque>
#include <map>
#include <tuple>
#include <utility>

#include "core/errors.h"
#include "cpu/optimizer_step.h"
#include "cuda/optimizer_step.h"
#include "ops/convert.h"
#include "ops/copy.h"

namespace genesis::ops {

namespace {

// The tensors of one call: slots[0] parameters, slots[1] gradients, then the rule's states,
// borrowed (Note [Optimizer steps]: the lists hold hundreds of tensors, and a copy of each would
// cost more on the host than the launch).
struct StepCall {
  const char* op;
  std::vector<TensorRefs> slots;
  std::vector<StepFactors> factors;
  // Under master weights, the 16-bit parameters that slots[0]'s float32 copies stand for (Note
  // [Master weights]); else empty.
  TensorRefs narrow;
  // Capturable steps (Note [Capturable steps] in vocab/optimizer_rules.h): the step counts on
  // the parameters' devices (else empty: `factors` are the host's), the learning rate on the
  // device (else null).
  TensorRefs counts;
  std::vector<TensorRefs> scalar_states;  // with counts on the device, the rule's scalar states
  const Tensor* lr = nullptr;
};

void check_lists(const StepCall& call) {
  const TensorRefs& params = call.slots[0];
  GENESIS_CHECK_VALUE(call.narrow.empty() || call.narrow.size() == params.size(), call.op,
                      "expected ", params.size(), " 16-bit parameters, got ", call.narrow.size());
  static const char* const kNames[] = {"param", "grad", "state", "state", "state"};
  for (size_t k = 1; k < call.slots.size(); ++k)
    GENESIS_CHECK_VALUE(call.slots[k].size() == params.size() || (k >= 2 && call.slots[k].empty()),
                        call.op, "expected ", params.size(), " tensors in every list, got ",
                        call.slots[k].size());
  for (size_t i = 0; i < params.size(); ++i) {
    GENESIS_CHECK(params[i] != nullptr && params[i]->defined(), call.op, "param ", i,
                  " is undefined");
    const Tensor& p = *params[i];
    GENESIS_CHECK_TYPE(is_floating_point(p.dtype()), call.op, "param ", i,
                       " must be a floating point tensor of 16, 32 or 64 bits, got ",
                       scalar_type_name(p.dtype()));
    // Under master weights, each 16-bit parameter (null for one that is its own master).
    const Tensor* q = call.narrow.empty() ? nullptr : call.narrow[i];
    const bool mastered = q != nullptr && q->defined();
    if (mastered) {
      GENESIS_CHECK(p.dtype() == ScalarType::Float32 && is_16_bit_float(q->dtype()) &&
                        q->device() == p.device() && q->sizes() == p.sizes(),
                    call.op, "master weight ", i, " (", scalar_type_name(p.dtype()), ", ",
                    shape_str(p.sizes()),
                    ") must be float32 with the shape and device of its "
                    "float16 or bfloat16 parameter");
      check_writable(*q, call.op);
    }
    for (size_t k = 1; k < call.slots.size(); ++k) {
      if (call.slots[k].empty()) continue;  // a state the call does not hold
      const Tensor* t = call.slots[k][i];
      GENESIS_CHECK(t != nullptr && t->defined(), call.op, kNames[k], " ", i, " is undefined");
      // Under master weights the gradients are the 16-bit parameters'.
      ScalarType want = k == 1 && mastered ? q->dtype() : p.dtype();
      GENESIS_CHECK(t->dtype() == want && t->device() == p.device() && t->sizes() == p.sizes(),
                    call.op, kNames[k], " ", i, " (", scalar_type_name(t->dtype()), ", ",
                    shape_str(t->sizes()), ", ", t->device().str(), ") does not match its param (",
                    scalar_type_name(p.dtype()), ", ", shape_str(p.sizes()), ", ", p.device().str(),
                    ")");
    }
  }
  for (size_t k = 0; k < call.slots.size(); ++k)
    if (k != 1)
      for (const Tensor* t : call.slots[k]) check_writable(*t, call.op);
}

// Steps each (device, dtype) part of the call with its backend, with contiguous stand-ins for
// the tensors that are not, copied back afterwards.
template <typename Rule>
void run_parts(const StepCall& call, const Rule& rule) {
  // Parts by device, dtype and gradient dtype (master weights step float32 copies of 16-bit
  // parameters of either kind); the last list of each part holds the 16-bit parameters.
  using Key = std::tuple<int, int, int, int>;  // device type and index, dtype, gradient dtype
  std::map<Key, std::vector<size_t>> parts;
  const TensorRefs& params = call.slots[0];
  for (size_t i = 0; i < params.size(); ++i) {
    const Tensor& p = *params[i];
    if (p.numel() > 0)
      parts[{static_cast<int>(p.device().type), p.device().index, static_cast<int>(p.dtype()),
             static_cast<int>(call.slots[1][i]->dtype())}]
          .push_back(i);
  }
  const size_t lists = call.slots.size() + 1;  // the slots, then the 16-bit parameters
  auto list = [&](size_t k) -> const TensorRefs& {
    return k < call.slots.size() ? call.slots[k] : call.narrow;
  };
  for (const auto& [key, members] : parts) {
    std::vector<TensorRefs> slots(lists);
    std::vector<StepFactors> factors;
    factors.reserve(members.size());
    std::deque<Tensor> dense;                                   // the contiguous stand-ins
    std::vector<std::pair<const Tensor*, Tensor*>> write_back;  // (original, its stand-in)
    for (size_t k = 0; k < lists; ++k)
      if (!list(k).empty()) slots[k].reserve(members.size());
    cuda::DeviceScalars scalars;
    scalars.lr = call.lr;
    scalars.states.resize(call.scalar_states.size());
    for (size_t i : members) {
      // A member whose tensors are all laid out channels-last (a convolution's weight, its
      // gradient and states made by zeros_like or clone) is as flat as a contiguous one.
      bool all_channels_last = true;
      for (size_t k = 0; k < lists && all_channels_last; ++k) {
        const Tensor* t = list(k).empty() ? nullptr : list(k)[i];
        if (t != nullptr && t->defined() && !is_channels_last(t->sizes(), t->strides()))
          all_channels_last = false;
      }
      if (!call.counts.empty()) scalars.counts.push_back(call.counts[i]);
      for (size_t k = 0; k < call.scalar_states.size(); ++k)
        scalars.states[k].push_back(call.scalar_states[k][i]);
      for (size_t k = 0; k < lists; ++k) {
        if (list(k).empty()) continue;
        const Tensor* t = list(k)[i];
        if (t == nullptr || !t->defined()) {  // a parameter without a master
          slots[k].push_back(nullptr);
        } else if (t->is_contiguous() || all_channels_last) {
          slots[k].push_back(t);
        } else {
          Tensor* stand_in = &dense.emplace_back(contiguous(*t));
          slots[k].push_back(stand_in);
          if (k != 1) write_back.emplace_back(t, stand_in);
        }
      }
      factors.push_back(call.factors[i]);
    }
    const Tensor& first = *slots[0][0];
    GENESIS_CHECK(call.lr == nullptr || call.lr->device() == first.device(), call.op,
                  "lr is a tensor on ", call.lr == nullptr ? "" : call.lr->device().str(),
                  ", the parameters are on ", first.device().str(),
                  ": a tensor lr must be on the parameters' device (or on the CPU)");
    if (first.is_cuda())
      cuda::optimizer_step(slots, factors, rule, scalars);
    else
      cpu::optimizer_step(slots, factors, rule);
    for (const auto& [original, stand_in] : write_back) copy_(*original, *stand_in);
  }
}

// PyTorch keeps some scalar states as 0-d float32 CPU tensors (step, NAdam's mu_product).
void check_counters(const TensorRefs& counters, size_t n, const char* op, const char* what) {
  GENESIS_CHECK_VALUE(counters.size() == n, op, "expected ", n, " ", what, "s, got ",
                      counters.size());
  for (const Tensor* s : counters) {
    GENESIS_CHECK(s != nullptr && s->defined() && !s->is_cuda() && s->numel() == 1 &&
                      s->dtype() == ScalarType::Float32 && s->is_contiguous(),
                  op, "expected each ", what, " as a one-element float32 CPU tensor");
    check_writable(*s, op);
  }
}

// Increments each step count (0-d float32 CPU tensors, as PyTorch keeps them) and returns
// factors(step) for each.
template <typename Factors>
std::vector<StepFactors> count_steps(const TensorRefs& steps, size_t n, const char* op,
                                     const Factors& factors) {
  check_counters(steps, n, op, "step count");
  std::vector<StepFactors> out;
  out.reserve(n);
  for (const Tensor* s : steps) {
    float* count = s->mutable_data_as<float>();
    *count += 1;
    out.push_back(factors(static_cast<double>(*count)));
  }
  return out;
}

// A learning rate given as a tensor on a device (Note [Capturable steps]): one float32 or
// float64 element.
void check_device_lr(const Tensor* lr, const char* op) {
  if (lr == nullptr) return;
  GENESIS_CHECK(lr->defined() && lr->is_cuda() && lr->numel() == 1 &&
                    (lr->dtype() == ScalarType::Float32 || lr->dtype() == ScalarType::Float64),
                op, "expected lr as a one-element float32 or float64 CUDA tensor, got ",
                lr->defined() ? scalar_type_name(lr->dtype()) : "an undefined tensor");
}

// Each of `scalars` as a one-element float32 tensor on its parameter's device (capturable).
void check_device_scalars(const TensorRefs& scalars, const TensorRefs& params, const char* op,
                          const char* what) {
  GENESIS_CHECK_VALUE(scalars.size() == params.size(), op, "expected ", params.size(), " ", what,
                      "s, got ", scalars.size());
  for (size_t i = 0; i < scalars.size(); ++i) {
    const Tensor* s = scalars[i];
    GENESIS_CHECK(s != nullptr && s->defined() && s->device() == params[i]->device() &&
                      s->numel() == 1 && s->dtype() == ScalarType::Float32 && s->is_contiguous(),
                  op, what, " ", i,
                  " must be a one-element float32 tensor on its parameter's device (",
                  params[i]->device().str(), ") when any step count is on a GPU (capturable=True)");
    check_writable(*s, op);
  }
}

// A rule's scalar states beside the step counts (Note [Capturable steps]): each list and the
// name its tensors have in errors.
using ScalarStateLists = std::vector<std::pair<const TensorRefs*, const char*>>;

// The step counts of a rule that can work its factors out on the device (Note [Capturable
// steps]): counts on the CPU are incremented and turned into factors here (with the rule's
// scalar states, `states`, advanced as on the device); counts on the parameters' devices
// (capturable=True) go to the backend with the states, which increments and advances them
// there. `lr`: null, or the device learning rate the call reads (checked, kept in call.lr).
template <typename Rule>
void count_steps_of(StepCall& call, const TensorRefs& steps, const Rule& rule,
                    const Tensor* lr = nullptr, const ScalarStateLists& states = {}) {
  call.lr = lr;
  check_device_lr(lr, call.op);
  const TensorRefs& params = call.slots[0];
  bool on_device = false;
  for (const Tensor* s : steps) on_device = on_device || (s != nullptr && s->is_cuda());
  if (!on_device) {
    GENESIS_CHECK(call.lr == nullptr, call.op,
                  "a CUDA tensor lr needs the step counts on the device (capturable=True)");
    if constexpr (DeviceStatesOf<Rule>::value > 0) {
      for (const auto& [list, name] : states) check_counters(*list, params.size(), call.op, name);
      size_t i = 0;
      call.factors = count_steps(steps, params.size(), call.op, [&](double step) {
        float* values[DeviceStatesOf<Rule>::value];
        for (size_t k = 0; k < states.size(); ++k)
          values[k] = (*states[k].first)[i]->mutable_data_as<float>();
        ++i;
        if (!Rule::kAdvanceAfterStep) rule.advance(step, values);
        StepFactors factors = rule.factors(step, values);
        if (Rule::kAdvanceAfterStep) rule.advance(step, values);
        return factors;
      });
    } else {
      call.factors = count_steps(steps, params.size(), call.op,
                                 [&](double step) { return rule.factors(step); });
    }
    return;
  }
  check_device_scalars(steps, params, call.op, "step count");
  for (const auto& [list, name] : states) {
    check_device_scalars(*list, params, call.op, name);
    call.scalar_states.push_back(*list);
  }
  call.counts = steps;
  call.factors.assign(params.size(), StepFactors{});
}

}  // namespace

std::vector<Tensor> sgd_step(const TensorRefs& params, const TensorRefs& grads,
                             const TensorRefs& momentum_buffers, const SgdRule& rule,
                             const TensorRefs& narrow, const Tensor* lr) {
  const char* op = "sgd_step";
  bool momentum = rule.momentum != 0;
  GENESIS_CHECK_VALUE(momentum_buffers.size() == (momentum ? params.size() : 0), op, "expected ",
                      momentum ? params.size() : 0, " momentum buffers, got ",
                      momentum_buffers.size());
  GENESIS_CHECK_VALUE(grads.size() == params.size(), op, "expected ", params.size(),
                      " gradients, got ", grads.size());
  StepCall call{op, {params, grads}, std::vector<StepFactors>(params.size())};
  call.narrow = narrow;
  std::vector<Tensor> created(momentum ? params.size() : 0);
  TensorRefs buffers = momentum_buffers;
  for (size_t i = 0; i < created.size(); ++i) {
    if (buffers[i] != nullptr || params[i] == nullptr) continue;
    const Tensor& p = *params[i];
    created[i] = Tensor::empty(p.sizes(), p.dtype(), p.device());
    buffers[i] = &created[i];
    call.factors[i].a = 1;  // a new buffer starts as the direction itself
  }
  call.slots.push_back(std::move(buffers));  // empty without momentum: a state not held
  call.lr = lr;
  check_device_lr(lr, op);
  check_lists(call);
  run_parts(call, rule);
  return created;
}

void adam_step(const TensorRefs& params, const TensorRefs& grads, const TensorRefs& exp_avgs,
               const TensorRefs& exp_avg_sqs, const TensorRefs& max_exp_avg_sqs,
               const TensorRefs& steps, const AdamRule& rule, const TensorRefs& narrow,
               const Tensor* lr) {
  const char* op = rule.decoupled ? "adamw_step" : "adam_step";
  GENESIS_CHECK_VALUE(max_exp_avg_sqs.size() == (rule.amsgrad ? params.size() : 0), op, "expected ",
                      rule.amsgrad ? params.size() : 0, " max_exp_avg_sqs, got ",
                      max_exp_avg_sqs.size());
  StepCall call{op, {params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs}, {}};
  call.narrow = narrow;
  check_lists(call);
  count_steps_of(call, steps, rule, lr);
  run_parts(call, rule);
}

void rmsprop_step(const TensorRefs& params, const TensorRefs& grads, const TensorRefs& square_avgs,
                  const TensorRefs& grad_avgs, const TensorRefs& momentum_buffers,
                  const TensorRefs& steps, const RmspropRule& rule, const TensorRefs& narrow,
                  const Tensor* lr) {
  const char* op = "rmsprop_step";
  size_t averages = rule.centered ? params.size() : 0,
         buffers = rule.momentum > 0 ? params.size() : 0;
  GENESIS_CHECK_VALUE(grad_avgs.size() == averages, op, "expected ", averages, " grad_avgs, got ",
                      grad_avgs.size());
  GENESIS_CHECK_VALUE(momentum_buffers.size() == buffers, op, "expected ", buffers,
                      " momentum buffers, got ", momentum_buffers.size());
  StepCall call{op, {params, grads, square_avgs, grad_avgs, momentum_buffers}, {}};
  call.narrow = narrow;
  check_lists(call);
  count_steps_of(call, steps, rule, lr);
  run_parts(call, rule);
}

void adagrad_step(const TensorRefs& params, const TensorRefs& grads, const TensorRefs& sums,
                  const TensorRefs& steps, double lr, double lr_decay, const AdagradRule& rule,
                  const TensorRefs& narrow) {
  const char* op = "adagrad_step";
  StepCall call{op, {params, grads, sums}, {}};
  call.narrow = narrow;
  check_lists(call);
  call.factors = count_steps(steps, params.size(), op, [&](double step) {
    return StepFactors{lr / (1 + (step - 1) * lr_decay), 0};
  });
  run_parts(call, rule);
}

void adamax_step(const TensorRefs& params, const TensorRefs& grads, const TensorRefs& exp_avgs,
                 const TensorRefs& exp_infs, const TensorRefs& steps, const AdamaxRule& rule,
                 const TensorRefs& narrow, const Tensor* lr) {
  const char* op = "adamax_step";
  StepCall call{op, {params, grads, exp_avgs, exp_infs}, {}};
  call.narrow = narrow;
  check_lists(call);
  count_steps_of(call, steps, rule, lr);
  run_parts(call, rule);
}

void adadelta_step(const TensorRefs& params, const TensorRefs& grads, const TensorRefs& square_avgs,
                   const TensorRefs& acc_deltas, const TensorRefs& steps, const AdadeltaRule& rule,
                   const TensorRefs& narrow, const Tensor* lr) {
  const char* op = "adadelta_step";
  StepCall call{op, {params, grads, square_avgs, acc_deltas}, {}};
  call.narrow = narrow;
  check_lists(call);
  count_steps_of(call, steps, rule, lr);
  run_parts(call, rule);
}

void nadam_step(const TensorRefs& params, const TensorRefs& grads, const TensorRefs& exp_avgs,
                const TensorRefs& exp_avg_sqs, const TensorRefs& mu_products,
                const TensorRefs& steps, const NadamRule& rule, const TensorRefs& narrow,
                const Tensor* lr) {
  StepCall call{"nadam_step", {params, grads, exp_avgs, exp_avg_sqs}, {}};
  call.narrow = narrow;
  check_lists(call);
  count_steps_of(call, steps, rule, lr, {{&mu_products, "mu_product"}});
  run_parts(call, rule);
}

void radam_step(const TensorRefs& params, const TensorRefs& grads, const TensorRefs& exp_avgs,
                const TensorRefs& exp_avg_sqs, const TensorRefs& steps, const RadamRule& rule,
                const TensorRefs& narrow, const Tensor* lr) {
  const char* op = "radam_step";
  StepCall call{op, {params, grads, exp_avgs, exp_avg_sqs}, {}};
  call.narrow = narrow;
  check_lists(call);
  count_steps_of(call, steps, rule, lr);
  run_parts(call, rule);
}

void lion_step(const TensorRefs& params, const TensorRefs& grads, const TensorRefs& exp_avgs,
               const LionRule& rule, const TensorRefs& narrow) {
  StepCall call{"lion_step", {params, grads, exp_avgs}, std::vector<StepFactors>(params.size())};
  call.narrow = narrow;
  check_lists(call);
  run_parts(call, rule);
}

void rprop_step(const TensorRefs& params, const TensorRefs& grads, const TensorRefs& prevs,
                const TensorRefs& step_sizes, const TensorRefs& steps, const RpropRule& rule,
                const TensorRefs& narrow) {
  const char* op = "rprop_step";
  StepCall call{op, {params, grads, prevs, step_sizes}, {}};
  call.narrow = narrow;
  check_lists(call);
  count_steps_of(call, steps, rule);
  run_parts(call, rule);
}

void asgd_step(const TensorRefs& params, const TensorRefs& grads, const TensorRefs& axs,
               const TensorRefs& steps, const TensorRefs& etas, const TensorRefs& mus,
               const AsgdRule& rule, const TensorRefs& narrow, const Tensor* lr) {
  StepCall call{"asgd_step", {params, grads, axs}, {}};
  call.narrow = narrow;
  check_lists(call);
  // Each tensor steps with the eta and mu its state holds now; then they follow the new count.
  count_steps_of(call, steps, rule, lr, {{&etas, "eta"}, {&mus, "mu"}});
  run_parts(call, rule);
}

}  // namespace genesis::ops
