// genesis.optim.Muon's step (Note [Muon steps] in ops/muon_step.cpp) as _C._optim._muon_step:
// the class checks the options with PyTorch's messages and calls it once per parameter group,
// under no_grad.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/errors.h"
#include "ops/muon_step.h"
#include "python/bindings.h"
#include "python/tensor_lists.h"

namespace genesis::python {

void init_optim_muon(py::module_& optim) {
  optim.def(
      "_muon_step",
      [](const py::list& params, const py::object& grads, const py::list& momentum_buffers,
         double lr, double weight_decay, double momentum, bool nesterov,
         const std::vector<double>& ns_coefficients, double eps, int64_t ns_steps,
         std::optional<std::string> adjust_lr_fn, const py::list& narrow) {
        ops::MuonOptions options{.lr = lr,
                                 .weight_decay = weight_decay,
                                 .momentum = momentum,
                                 .nesterov = nesterov,
                                 .ns_coefficients = ns_coefficients,
                                 .eps = eps,
                                 .ns_steps = ns_steps,
                                 .adjust_lr_fn = std::move(adjust_lr_fn)};
        ops::muon_step(owned_tensors(params, "muon_step", "param"),
                       owned_tensors(grads, "muon_step", "grad"),
                       owned_tensors(momentum_buffers, "muon_step", "momentum buffer"), options,
                       owned_tensors(narrow, "muon_step", "16-bit param", true));
      },
      py::arg("params"), py::arg("grads"), py::arg("momentum_buffers"), py::arg("lr"),
      py::arg("weight_decay"), py::arg("momentum"), py::arg("nesterov"), py::arg("ns_coefficients"),
      py::arg("eps"), py::arg("ns_steps"), py::arg("adjust_lr_fn"), py::kw_only(),
      py::arg("narrow") = py::list(),
      "One Muon step over the lists of 2-D tensors in place (momentum buffers included);\n"
      "ns_coefficients: (a, b, c); adjust_lr_fn: None, 'original' or 'match_rms_adamw'.");
}

}  // namespace genesis::python
