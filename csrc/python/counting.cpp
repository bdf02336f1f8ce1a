// The counting ops (ops/counting.h): genesis.bincount / Tensor.bincount and genesis.histc /
// Tensor.histc (with out=), as PyTorch.
#include "ops/counting.h"

#include "core/errors.h"
#include "ops/elementwise_composed.h"
#include "python/bindings.h"
#include "python/operand.h"

namespace genesis::python {

namespace {

// torch.return_types.histogram's shape: a named tuple (hist, bin_edges), made once.
py::object hist_edges(std::pair<Tensor, Tensor> r) {
  static py::object* type = nullptr;
  if (type == nullptr) {
    py::object namedtuple = py::module_::import("collections").attr("namedtuple");
    type = new py::object(namedtuple("histogram", py::make_tuple("hist", "bin_edges")));
    type->attr("__module__") = "genesis.return_types";
  }
  return (*type)(py::cast(std::move(r.first)), py::cast(std::move(r.second)));
}

std::optional<Tensor> optional_tensor(py::handle obj, const char* what, const char* op) {
  if (obj.is_none()) return std::nullopt;
  GENESIS_CHECK_TYPE(py::isinstance<Tensor>(obj), op, what, " must be a tensor or None");
  return obj.cast<Tensor>();
}

}  // namespace

void init_counting(py::module_& m, py::class_<Tensor>& cls) {
  auto bincount = [](const Tensor& t, py::handle weights, int64_t minlength) {
    return ops::bincount(t, optional_tensor(weights, "weights", "bincount"), minlength);
  };
  m.def("bincount", bincount, py::arg("input"), py::arg("weights") = py::none(),
        py::arg("minlength") = 0);
  cls.def("bincount", bincount, py::arg("weights") = py::none(), py::arg("minlength") = 0);
  auto histc = [](const Tensor& t, int64_t bins, double min, double max, py::handle out) {
    if (!out.is_none()) check_writable(out.cast<const Tensor&>(), "histc");
    return finish_out(ops::histc(t, bins, min, max), out, "histc");
  };
  m.def("histc", histc, py::arg("input"), py::arg("bins") = 100, py::arg("min") = 0.0,
        py::arg("max") = 0.0, py::kw_only(), py::arg("out") = py::none());
  cls.def(
      "histc",
      [histc](const Tensor& t, int64_t bins, double min, double max) {
        return histc(t, bins, min, max, py::none());
      },
      py::arg("bins") = 100, py::arg("min") = 0.0, py::arg("max") = 0.0);
  auto histogram = [](const Tensor& t, py::handle bins, py::handle range, py::handle weight,
                      bool density) {
    const char* op = "histogram";
    auto w = optional_tensor(weight, "weight", op);
    if (py::isinstance<Tensor>(bins)) {
      GENESIS_CHECK_TYPE(range.is_none(), op, "range is only for an int number of bins");
      return hist_edges(ops::histogram(t, bins.cast<const Tensor&>(), w, density));
    }
    std::optional<std::pair<double, double>> r;
    if (!range.is_none()) {
      GENESIS_CHECK_TYPE(py::isinstance<py::sequence>(range) && py::len(range) == 2, op,
                         "range must be a (min, max) pair of numbers");
      r = std::make_pair(to_scalar(range[py::int_(0)], op).to_double(),
                         to_scalar(range[py::int_(1)], op).to_double());
    }
    return hist_edges(ops::histogram(t, to_int(bins, op, "bins"), r, w, density));
  };
  m.def("histogram", histogram, py::arg("input"), py::arg("bins") = 100, py::kw_only(),
        py::arg("range") = py::none(), py::arg("weight") = py::none(), py::arg("density") = false);
  cls.def("histogram", histogram, py::arg("bins") = 100, py::kw_only(),
          py::arg("range") = py::none(), py::arg("weight") = py::none(),
          py::arg("density") = false);
}

}  // namespace genesis::python
