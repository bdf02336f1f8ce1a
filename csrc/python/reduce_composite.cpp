// genesis.amax/amin/aminmax, logsumexp, nansum/nanmean, count_nonzero, var_mean/std_mean,
// norm, diff, and genesis.linalg's vector_norm/matrix_norm (the _C._linalg submodule).
#include <cmath>
#include <limits>
#include <string>

#include "autograd/ops.h"
#include "core/errors.h"
#include "ops/convert.h"
#include "ops/reduce_composite.h"
#include "python/bindings.h"

namespace genesis::python {

namespace {

// dim=None or () for every dim, an int, or a tuple/list of ints.
ops::Dims dims_of(py::handle dim, const char* op) {
  if (dim.is_none()) return std::nullopt;
  if (PyIndex_Check(dim.ptr()) && !py::isinstance<Tensor>(dim))
    return Shape{to_int(dim, op, "dim")};
  return to_shape(dim, op);
}

// torch.return_types.aminmax's shape: a named tuple (min, max), its type made once.
py::object min_max(std::pair<Tensor, Tensor> r) {
  static py::object* type = nullptr;
  if (type == nullptr) {  // kept for the life of the process
    py::object namedtuple = py::module_::import("collections").attr("namedtuple");
    type = new py::object(namedtuple("aminmax", py::make_tuple("min", "max")));
    type->attr("__module__") = "genesis.return_types";
  }
  return (*type)(py::cast(std::move(r.first)), py::cast(std::move(r.second)));
}

double correction_from(py::handle unbiased, py::handle correction, const char* op) {
  GENESIS_CHECK_TYPE(unbiased.is_none() || correction.is_none(), op,
                     "pass either unbiased or correction, not both");
  if (!correction.is_none()) return to_scalar(correction, op).to_double();
  if (!unbiased.is_none()) return unbiased.cast<bool>() ? 1.0 : 0.0;
  return 1.0;
}

// A norm order: a number, or "fro" / "nuc"; inf as float('inf').
std::string order_name(py::handle ord, const char* op) {
  if (py::isinstance<py::str>(ord)) return ord.cast<std::string>();
  double p = to_scalar(ord, op).to_double();
  if (std::isinf(p)) return p > 0 ? "inf" : "-inf";
  GENESIS_CHECK_VALUE(p == std::floor(p) && std::abs(p) < 1e15, op, "unsupported order ", p);
  return std::to_string(static_cast<long long>(p));
}

Tensor vector_norm(const Tensor& t, py::handle ord, py::handle dim, bool keepdim,
                   py::handle dtype) {
  const char* op = "vector_norm";
  GENESIS_CHECK_TYPE(!py::isinstance<py::str>(ord), op, "ord must be a number for a vector norm");
  return ag::vector_norm(t, to_scalar(ord, op).to_double(), dims_of(dim, op), keepdim,
                         to_optional_dtype(dtype, op));
}

// ops::matrix_norm after the dtype= conversion (matrix_norm, linalg.norm and norm share it).
Tensor matrix_norm_as(const Tensor& t, const std::string& ord, const Shape& dims, bool keepdim,
                      std::optional<ScalarType> dtype) {
  Tensor x = dtype && *dtype != t.dtype() ? ag::to(t, *dtype, t.device(), false) : t;
  return ag::matrix_norm(x, ord, dims, keepdim);
}

Tensor matrix_norm(const Tensor& t, py::handle ord, py::handle dim, bool keepdim,
                   py::handle dtype) {
  const char* op = "matrix_norm";
  return matrix_norm_as(t, order_name(ord, op), to_shape(dim, op), keepdim,
                        to_optional_dtype(dtype, op));
}

// torch.linalg.norm: a vector norm over one dim (or every element, when neither ord nor dim is
// given), a matrix norm over two dims; with ord but no dim, the input's own 1 or 2 dims.
Tensor linalg_norm(const Tensor& t, py::handle ord, py::handle dim, bool keepdim,
                   py::handle dtype) {
  const char* op = "linalg.norm";
  std::optional<ScalarType> dt = to_optional_dtype(dtype, op);
  ops::Dims dims = dims_of(dim, op);
  if (dims) {
    GENESIS_CHECK_VALUE(dims->size() == 1 || dims->size() == 2, op,
                        "dim must be an int or a pair of ints, got ", shape_str(*dims));
  } else if (!ord.is_none()) {
    GENESIS_CHECK_VALUE(t.ndim() == 1 || t.ndim() == 2, op,
                        "with ord and no dim, the input must have 1 or 2 dims, got ", t.ndim());
    dims = t.ndim() == 1 ? Shape{0} : Shape{-2, -1};
  }
  if (dims && dims->size() == 2)
    return matrix_norm_as(t, ord.is_none() ? "fro" : order_name(ord, op), *dims, keepdim, dt);
  GENESIS_CHECK_VALUE(!py::isinstance<py::str>(ord), op, "ord '", py::str(ord).cast<std::string>(),
                      "' is a matrix norm: it needs two dims");
  double p = ord.is_none() ? 2.0 : to_scalar(ord, op).to_double();
  return ag::vector_norm(t, p, dims, keepdim, dt);
}

// torch.norm: "fro" (the 2-norm) over the given dims or all; "nuc" and matrix orders over two
// dims go to matrix_norm; a number is a vector norm over the dims.
Tensor norm(const Tensor& t, py::handle p, py::handle dim, bool keepdim, py::handle dtype) {
  const char* op = "norm";
  std::optional<ScalarType> dt = to_optional_dtype(dtype, op);
  if (p.is_none())  // torch: None is the default, the 2-norm over the dims
    return ag::vector_norm(t, 2.0, dims_of(dim, op), keepdim, dt);
  if (py::isinstance<py::str>(p)) {
    std::string name = p.cast<std::string>();
    GENESIS_CHECK_VALUE(name == "fro" || name == "nuc", op,
                        "p must be a number, 'fro' or 'nuc', got '", name, "'");
    if (name == "nuc")
      return matrix_norm_as(t, "nuc", dim.is_none() ? Shape{-2, -1} : to_shape(dim, op), keepdim,
                            dt);
    return ag::vector_norm(t, 2.0, dims_of(dim, op), keepdim, dt);
  }
  return ag::vector_norm(t, to_scalar(p, op).to_double(), dims_of(dim, op), keepdim, dt);
}

Tensor diff(const Tensor& t, int64_t n, int64_t dim, std::optional<Tensor> prepend,
            std::optional<Tensor> append) {
  return ag::diff(t, n, dim, prepend, append);
}

}  // namespace

void init_reduce_composite(py::module_& m, py::class_<Tensor>& cls) {
  for (bool is_max : {true, false}) {
    const char* name = is_max ? "amax" : "amin";
    auto f = [is_max, name](const Tensor& t, py::handle dim, bool keepdim) {
      return ag::amax(t, dims_of(dim, name), keepdim, is_max);
    };
    m.def(name, f, py::arg("input"), py::arg("dim") = py::tuple(), py::arg("keepdim") = false);
    cls.def(name, f, py::arg("dim") = py::tuple(), py::arg("keepdim") = false);
  }
  auto aminmax = [](const Tensor& t, py::handle dim, bool keepdim) {
    return min_max(ag::aminmax(t, dims_of(dim, "aminmax"), keepdim));
  };
  m.def("aminmax", aminmax, py::arg("input"), py::kw_only(), py::arg("dim") = py::none(),
        py::arg("keepdim") = false);
  cls.def("aminmax", aminmax, py::kw_only(), py::arg("dim") = py::none(),
          py::arg("keepdim") = false);
  auto logsumexp = [](const Tensor& t, py::handle dim, bool keepdim) {
    return ag::logsumexp(t, dims_of(dim, "logsumexp"), keepdim);
  };
  m.def("logsumexp", logsumexp, py::arg("input"), py::arg("dim") = py::none(),
        py::arg("keepdim") = false);
  cls.def("logsumexp", logsumexp, py::arg("dim") = py::none(), py::arg("keepdim") = false);
  for (bool mean : {false, true}) {
    const char* name = mean ? "nanmean" : "nansum";
    auto f = [mean, name](const Tensor& t, py::handle dim, bool keepdim, py::handle dtype) {
      auto dt = to_optional_dtype(dtype, name);
      return mean ? ag::nanmean(t, dims_of(dim, name), keepdim, dt)
                  : ag::nansum(t, dims_of(dim, name), keepdim, dt);
    };
    m.def(name, f, py::arg("input"), py::arg("dim") = py::none(), py::arg("keepdim") = false,
          py::kw_only(), py::arg("dtype") = py::none());
    cls.def(name, f, py::arg("dim") = py::none(), py::arg("keepdim") = false, py::kw_only(),
            py::arg("dtype") = py::none());
  }
  auto count = [](const Tensor& t, py::handle dim) {
    return ops::count_nonzero(t, dims_of(dim, "count_nonzero"));
  };
  m.def("count_nonzero", count, py::arg("input"), py::arg("dim") = py::none());
  cls.def("count_nonzero", count, py::arg("dim") = py::none());
  for (bool take_sqrt : {false, true}) {
    const char* name = take_sqrt ? "std_mean" : "var_mean";
    auto f = [take_sqrt, name](const Tensor& t, py::handle dim, py::handle unbiased, bool keepdim,
                               py::handle correction) {
      ops::Dims dims = dims_of(dim, name);
      Tensor spread =
          ag::var(t, dims, correction_from(unbiased, correction, name), keepdim, take_sqrt);
      return py::make_tuple(spread, ag::mean(t, dims, keepdim, std::nullopt));
    };
    m.def(name, f, py::arg("input"), py::arg("dim") = py::none(), py::arg("unbiased") = py::none(),
          py::arg("keepdim") = false, py::kw_only(), py::arg("correction") = py::none());
  }
  m.def("norm", &norm, py::arg("input"), py::arg("p") = "fro", py::arg("dim") = py::none(),
        py::arg("keepdim") = false, py::arg("dtype") = py::none());
  cls.def("norm", &norm, py::arg("p") = "fro", py::arg("dim") = py::none(),
          py::arg("keepdim") = false, py::arg("dtype") = py::none());
  m.def("diff", &diff, py::arg("input"), py::arg("n") = 1, py::arg("dim") = -1,
        py::arg("prepend") = py::none(), py::arg("append") = py::none());
  cls.def("diff", &diff, py::arg("n") = 1, py::arg("dim") = -1, py::arg("prepend") = py::none(),
          py::arg("append") = py::none());

  py::module_ linalg = m.def_submodule("_linalg", "genesis.linalg's compiled functions");
  linalg.def("vector_norm", &vector_norm, py::arg("x"), py::arg("ord") = 2,
             py::arg("dim") = py::none(), py::arg("keepdim") = false, py::kw_only(),
             py::arg("dtype") = py::none());
  linalg.def("norm", &linalg_norm, py::arg("A"), py::arg("ord") = py::none(),
             py::arg("dim") = py::none(), py::arg("keepdim") = false, py::kw_only(),
             py::arg("dtype") = py::none());
  linalg.def("matrix_norm", &matrix_norm, py::arg("A"), py::arg("ord") = "fro",
             py::arg("dim") = py::make_tuple(-2, -1), py::arg("keepdim") = false, py::kw_only(),
             py::arg("dtype") = py::none());
}

}  // namespace genesis::python
