// Reductions and softmax: methods and genesis.* functions with PyTorch's signatures.
#include "ops/reduce.h"
#include "autograd/ops.h"
#include "core/errors.h"
#include "ops/elementwise.h"
#include "python/bindings.h"

namespace genesis::python {

namespace {

// dim=None, an int, or a tuple/list of ints.
ops::Dims to_dims(py::handle dim, const char* op) {
  if (dim.is_none()) return std::nullopt;
  if (py::isinstance<py::tuple>(dim) || py::isinstance<py::list>(dim)) return to_shape(dim, op);
  return Shape{to_int(dim, op, "dim")};
}

// torch.return_types-style named tuples: (values, indices).
py::object values_indices(const char* name, std::pair<Tensor, Tensor> r) {
  static py::object* max_type = nullptr;
  static py::object* min_type = nullptr;
  py::object*& type = name[1] == 'a' ? max_type : min_type;
  if (type == nullptr) {  // made once and kept for the life of the process
    py::object namedtuple = py::module_::import("collections").attr("namedtuple");
    type = new py::object(namedtuple(name, py::make_tuple("values", "indices")));
    type->attr("__module__") = "genesis.return_types";
  }
  return (*type)(py::cast(std::move(r.first)), py::cast(std::move(r.second)));
}

// var/std's correction from `unbiased` (bool) or `correction` (number); default 1.
double correction_of(py::handle unbiased, py::handle correction, const char* op) {
  GENESIS_CHECK_TYPE(unbiased.is_none() || correction.is_none(), op,
                     "pass either unbiased or correction, not both");
  if (!correction.is_none()) return to_scalar(correction, op).to_double();
  if (!unbiased.is_none()) return unbiased.cast<bool>() ? 1.0 : 0.0;
  return 1.0;
}

// max(), max(dim, keepdim) and max(other) in one entry point.
py::object extreme(const Tensor& t, py::handle dim, bool keepdim, bool is_max) {
  const char* name = is_max ? "max" : "min";
  if (dim.is_none()) return py::cast(ag::extreme(t, is_max));
  if (py::isinstance<Tensor>(dim))
    return py::cast(ag::binary(is_max ? ops::BinaryOp::Maximum : ops::BinaryOp::Minimum, t,
                               dim.cast<const Tensor&>(), name));
  return values_indices(name, ag::extreme_dim(t, to_int(dim, name, "dim"), keepdim, is_max));
}

}  // namespace

void init_reduce(py::module_& m, py::class_<Tensor>& cls) {
  auto add = [&](const char* name, auto f, auto... extra) {
    cls.def(name, f, py::arg("dim") = py::none(), extra...);
    m.def(name, f, py::arg("input"), py::arg("dim") = py::none(), extra...);
  };
  auto dtype_of = [](py::handle d, const char* op) { return to_optional_dtype(d, op); };

  add(
      "sum",
      [dtype_of](const Tensor& t, py::handle dim, bool keepdim, py::handle dtype) {
        return ag::sum(t, to_dims(dim, "sum"), keepdim, dtype_of(dtype, "sum"));
      },
      py::arg("keepdim") = false, py::kw_only(), py::arg("dtype") = py::none());
  add(
      "mean",
      [dtype_of](const Tensor& t, py::handle dim, bool keepdim, py::handle dtype) {
        return ag::mean(t, to_dims(dim, "mean"), keepdim, dtype_of(dtype, "mean"));
      },
      py::arg("keepdim") = false, py::kw_only(), py::arg("dtype") = py::none());
  add(
      "prod",
      [dtype_of](const Tensor& t, py::handle dim, bool keepdim, py::handle dtype) {
        return ag::prod(t, to_dims(dim, "prod"), keepdim, dtype_of(dtype, "prod"));
      },
      py::arg("keepdim") = false, py::kw_only(), py::arg("dtype") = py::none());
  for (bool take_sqrt : {false, true}) {
    const char* name = take_sqrt ? "std" : "var";
    add(
        name,
        [take_sqrt, name](const Tensor& t, py::handle dim, py::handle unbiased, bool keepdim,
                          py::handle correction) {
          return ag::var(t, to_dims(dim, name), correction_of(unbiased, correction, name), keepdim,
                         take_sqrt);
        },
        py::arg("unbiased") = py::none(), py::arg("keepdim") = false, py::kw_only(),
        py::arg("correction") = py::none());
  }
  add(
      "all",
      [](const Tensor& t, py::handle dim, bool keepdim) {
        return ops::all(t, to_dims(dim, "all"), keepdim);
      },
      py::arg("keepdim") = false);
  add(
      "any",
      [](const Tensor& t, py::handle dim, bool keepdim) {
        return ops::any(t, to_dims(dim, "any"), keepdim);
      },
      py::arg("keepdim") = false);
  for (bool is_max : {true, false}) {
    add(
        is_max ? "max" : "min",
        [is_max](const Tensor& t, py::handle dim, bool keepdim) {
          return extreme(t, dim, keepdim, is_max);
        },
        py::arg("keepdim") = false);
    const char* arg_name = is_max ? "argmax" : "argmin";
    add(
        arg_name,
        [is_max, arg_name](const Tensor& t, py::handle dim, bool keepdim) {
          std::optional<int64_t> d;
          if (!dim.is_none()) d = to_int(dim, arg_name, "dim");
          return ops::arg_extreme(t, d, keepdim, is_max);
        },
        py::arg("keepdim") = false);
  }
  for (bool log : {false, true}) {
    const char* name = log ? "log_softmax" : "softmax";
    auto f = [log, name, dtype_of](const Tensor& t, int64_t dim, py::handle dtype) {
      return ag::softmax(t, dim, dtype_of(dtype, name), log);
    };
    cls.def(name, f, py::arg("dim"), py::arg("dtype") = py::none());
    m.def(name, f, py::arg("input"), py::arg("dim"), py::arg("dtype") = py::none());
  }
}

}  // namespace genesis::python
