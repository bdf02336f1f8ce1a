// The scans (ops/scan.h): genesis.X(input, dim, *, dtype=None, out=None) as PyTorch, Tensor.X,
// and the in-place Tensor.cumsum_/cumprod_.
#include "ops/scan.h"

#include "autograd/ops.h"
#include "core/errors.h"
#include "ops/elementwise_composed.h"
#include "python/bindings.h"
#include "python/operand.h"

namespace genesis::python {

namespace {

// torch.return_types.cummax/cummin's shape: a named tuple (values, indices), each type made
// once and kept for the life of the process.
py::object values_indices(bool is_max, py::object values, py::object indices) {
  static py::object* types[2] = {nullptr, nullptr};
  py::object*& type = types[is_max ? 1 : 0];
  if (type == nullptr) {
    py::object namedtuple = py::module_::import("collections").attr("namedtuple");
    type = new py::object(
        namedtuple(is_max ? "cummax" : "cummin", py::make_tuple("values", "indices")));
    type->attr("__module__") = "genesis.return_types";
  }
  return (*type)(values, indices);
}

py::object values_indices(bool is_max, std::pair<Tensor, Tensor> r) {
  return values_indices(is_max, py::cast(std::move(r.first)), py::cast(std::move(r.second)));
}

// out= before the work: refused when read-only (Note [Read-only storages]).
void check_out(py::handle out, const char* name) {
  if (!out.is_none()) check_writable(out.cast<const Tensor&>(), name);
}

// cummax/cummin's out=(values, indices): values of the input's dtype, int64 indices (PyTorch
// insists on both), each of the result's shape.
py::object extreme(const Tensor& t, int64_t dim, py::handle out, bool is_max) {
  const char* name = is_max ? "cummax" : "cummin";
  if (out.is_none()) return values_indices(is_max, ag::cummax(t, dim, is_max));
  GENESIS_CHECK_TYPE(py::isinstance<py::tuple>(out) && py::len(out) == 2, name,
                     "out must be a tuple of two tensors (values, indices)");
  py::tuple pair = out.cast<py::tuple>();
  GENESIS_CHECK_TYPE(py::isinstance<Tensor>(pair[0]) && py::isinstance<Tensor>(pair[1]), name,
                     "out must be a tuple of two tensors (values, indices)");
  const Tensor& values = pair[0].cast<const Tensor&>();
  const Tensor& indices = pair[1].cast<const Tensor&>();
  check_writable(values, name);
  check_writable(indices, name);
  GENESIS_CHECK(values.dtype() == t.dtype() && indices.dtype() == ScalarType::Int64, name,
                "out must be (values of dtype ", scalar_type_name(t.dtype()),
                ", indices of dtype int64), got (", scalar_type_name(values.dtype()), ", ",
                scalar_type_name(indices.dtype()), ")");
  auto r = ag::cummax(t, dim, is_max);
  write_out_warned(pair[0], r.first, name);
  write_out_warned(pair[1], r.second, name);
  return values_indices(is_max, pair[0], pair[1]);
}

}  // namespace

void init_scan(py::module_& m, py::class_<Tensor>& cls) {
  for (bool prod : {false, true}) {
    const char* name = prod ? "cumprod" : "cumsum";
    auto f = [prod, name](const Tensor& t, int64_t dim, py::handle dtype, py::handle out) {
      check_out(out, name);
      auto dt = to_optional_dtype(dtype, name);
      return finish_out(prod ? ag::cumprod(t, dim, dt) : ag::cumsum(t, dim, dt), out, name);
    };
    m.def(name, f, py::arg("input"), py::arg("dim"), py::kw_only(), py::arg("dtype") = py::none(),
          py::arg("out") = py::none());
    cls.def(
        name,
        [f](const Tensor& t, int64_t dim, py::handle dtype) {
          return f(t, dim, dtype, py::none());
        },
        py::arg("dim"), py::kw_only(), py::arg("dtype") = py::none());
    const char* inplace = prod ? "cumprod_" : "cumsum_";
    cls.def(
        inplace,
        [prod, inplace](py::object self, int64_t dim, py::handle dtype) {
          const Tensor& t = self.cast<const Tensor&>();
          auto dt = to_optional_dtype(dtype, inplace);
          prod ? ops::cumprod_(t, dim, dt) : ops::cumsum_(t, dim, dt);
          return self;
        },
        py::arg("dim"), py::kw_only(), py::arg("dtype") = py::none());
  }
  auto logcumsumexp = [](const Tensor& t, int64_t dim, py::handle out) {
    check_out(out, "logcumsumexp");
    return finish_out(ag::logcumsumexp(t, dim), out, "logcumsumexp");
  };
  m.def("logcumsumexp", logcumsumexp, py::arg("input"), py::arg("dim"), py::kw_only(),
        py::arg("out") = py::none());
  cls.def(
      "logcumsumexp",
      [logcumsumexp](const Tensor& t, int64_t dim) { return logcumsumexp(t, dim, py::none()); },
      py::arg("dim"));
  for (bool is_max : {true, false}) {
    const char* name = is_max ? "cummax" : "cummin";
    m.def(
        name,
        [is_max](const Tensor& t, int64_t dim, py::handle out) {
          return extreme(t, dim, out, is_max);
        },
        py::arg("input"), py::arg("dim"), py::kw_only(), py::arg("out") = py::none());
    cls.def(
        name,
        [is_max](const Tensor& t, int64_t dim) { return extreme(t, dim, py::none(), is_max); },
        py::arg("dim"));
  }
}

}  // namespace genesis::python
