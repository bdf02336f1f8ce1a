// The counting ops (ops/counting.h): genesis.bincount / Tensor.bincount and genesis.histc /
// Tensor.histc (with out=), as PyTorch.
#include "ops/counting.h"

#include "core/errors.h"
#include "ops/elementwise_extra.h"
#include "python/bindings.h"
#include "python/docs/counting_docs.h"
#include "python/operand.h"

namespace genesis::python {

void init_counting(py::module_& m, py::class_<Tensor>& cls) {
  namespace d = docs;
  auto bincount = [](const Tensor& t, py::handle weights, int64_t minlength) {
    std::optional<Tensor> w;
    if (!weights.is_none()) {
      GENESIS_CHECK_TYPE(py::isinstance<Tensor>(weights), "bincount",
                         "weights must be a tensor or None");
      w = weights.cast<Tensor>();
    }
    return ops::bincount(t, w, minlength);
  };
  m.def("bincount", bincount, py::arg("input"), py::arg("weights") = py::none(),
        py::arg("minlength") = 0, d::kBincount);
  cls.def("bincount", bincount, py::arg("weights") = py::none(), py::arg("minlength") = 0,
          d::kBincount);
  auto histc = [](const Tensor& t, int64_t bins, double min, double max, py::handle out) {
    if (!out.is_none()) check_writable(out.cast<const Tensor&>(), "histc");
    return finish_out(ops::histc(t, bins, min, max), out, "histc");
  };
  m.def("histc", histc, py::arg("input"), py::arg("bins") = 100, py::arg("min") = 0.0,
        py::arg("max") = 0.0, py::kw_only(), py::arg("out") = py::none(), d::kHistc);
  cls.def(
      "histc",
      [histc](const Tensor& t, int64_t bins, double min, double max) {
        return histc(t, bins, min, max, py::none());
      },
      py::arg("bins") = 100, py::arg("min") = 0.0, py::arg("max") = 0.0, d::kHistc);
}

}  // namespace genesis::python
