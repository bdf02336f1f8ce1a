// PyTorch's index-family functions as index plans (ops/index_ops.h, Note [Index-family ops]):
// genesis.X with out= where PyTorch has it, Tensor.X, and the in-place Tensor.X_.
#include <optional>
#include <string>
#include <vector>

#include "autograd/ops.h"
#include "core/errors.h"
#include "ops/convert.h"
#include "ops/index_ops.h"
#include "ops/index_reduce.h"
#include "ops/join.h"
#include "ops/views.h"
#include "python/bindings.h"
#include "python/operand.h"

namespace genesis::python {

namespace {

// The copy the out-of-place masked ops write into: input broadcast with the mask, as PyTorch
// (masked_fill(zeros(3, 1), mask of (3, 4), v) has shape (3, 4)).
// A value argument: a Python number or a 0-d tensor.
void masked_fill_any(const Tensor& self, const Tensor& mask, py::handle value, const char* op) {
  if (py::isinstance<Tensor>(value))
    ops::masked_fill_(self, mask, value.cast<const Tensor&>());
  else
    ops::masked_fill_(self, mask, to_scalar(value, op));
}

Scalar value_scalar(py::handle value, const char* op) {
  if (py::isinstance<Tensor>(value)) return ops::scalar_of(value.cast<const Tensor&>(), op);
  return to_scalar(value, op);
}

// A value or source argument as an operand: a tensor, or a Python number.
ops::Operand value_operand(py::handle value, const char* op) {
  if (py::isinstance<Tensor>(value)) return ops::Operand(value.cast<const Tensor&>());
  return ops::Operand(to_scalar(value, op));
}

const Tensor* tensor_of(const ops::Operand& v) { return v.is_scalar() ? nullptr : &v.tensor(); }

// scatter's fourth argument: a source tensor or a value.
void scatter_any(const Tensor& self, int64_t dim, const Tensor& index, py::handle src,
                 py::handle reduce, const char* op) {
  if (!reduce.is_none()) {  // "add" or "multiply": an accumulating scatter (ops/index_reduce.h)
    GENESIS_CHECK_TYPE(py::isinstance<py::str>(reduce), op, "reduce must be a str or None");
    std::string r = reduce.cast<std::string>();
    if (py::isinstance<Tensor>(src))
      ops::scatter_(self, dim, index, src.cast<const Tensor&>(), r, op);
    else
      ops::scatter_value_(self, dim, index, to_scalar(src, op), r, op);
    return;
  }
  if (py::isinstance<Tensor>(src))
    ops::scatter_(self, dim, index, src.cast<const Tensor&>());
  else
    ops::scatter_value_(self, dim, index, to_scalar(src, op));
}

py::object nonzero(const Tensor& input, bool as_tuple) {
  std::vector<Tensor> coords = ops::nonzero(input);
  if (as_tuple) {
    py::tuple out(coords.size());
    for (size_t i = 0; i < coords.size(); ++i) out[i] = py::cast(coords[i]);
    return std::move(out);
  }
  if (input.ndim() == 0)  // PyTorch: shape (count, 0)
    return py::cast(Tensor::empty({coords[0].numel(), 0}, ScalarType::Int64, input.device()));
  // The columns of one [count, ndim] tensor (CUDA's nonzero makes them so) are that tensor.
  const Tensor& first = coords[0];
  int64_t ndim = static_cast<int64_t>(coords.size()), count = first.numel();
  bool columns = true;
  for (int64_t d = 0; d < ndim && columns; ++d) {
    const Tensor& c = coords[d];
    columns = c.storage().is_same(first.storage()) && (count <= 1 || c.strides()[0] == ndim) &&
              c.storage_offset() == first.storage_offset() + d;
  }
  if (columns) return py::cast(first.as_strided({count, ndim}, {ndim, 1}, first.storage_offset()));
  return py::cast(ops::stack(coords, 1));
}

}  // namespace

void init_index_ops(py::module_& m, py::class_<Tensor>& cls) {
  // Readers: genesis.X(input, ..., out=None) and Tensor.X(...).
  m.def(
      "index_select",
      [](const Tensor& input, int64_t dim, const Tensor& index, py::handle out) {
        return finish_out(ag::index_select(input, dim, index), out, "index_select");
      },
      py::arg("input"), py::arg("dim"), py::arg("index"), py::kw_only(),
      py::arg("out") = py::none());
  cls.def("index_select", &ag::index_select, py::arg("dim"), py::arg("index"));
  m.def(
      "gather",
      [](const Tensor& input, int64_t dim, const Tensor& index, bool, py::handle out) {
        return finish_out(ag::gather(input, dim, index), out, "gather");
      },
      py::arg("input"), py::arg("dim"), py::arg("index"), py::kw_only(),
      py::arg("sparse_grad") = false, py::arg("out") = py::none());
  cls.def(
      "gather",
      [](const Tensor& self, int64_t dim, const Tensor& index, bool) {
        return ag::gather(self, dim, index);
      },
      py::arg("dim"), py::arg("index"), py::kw_only(), py::arg("sparse_grad") = false);
  m.def(
      "take_along_dim",
      [](const Tensor& input, const Tensor& indices, std::optional<int64_t> dim, py::handle out) {
        return finish_out(ag::take_along_dim(input, indices, dim), out, "take_along_dim");
      },
      py::arg("input"), py::arg("indices"), py::arg("dim") = py::none(), py::kw_only(),
      py::arg("out") = py::none());
  cls.def("take_along_dim", &ag::take_along_dim, py::arg("indices"), py::arg("dim") = py::none());
  m.def("take", &ag::take, py::arg("input"), py::arg("index"));
  cls.def("take", &ag::take, py::arg("index"));
  m.def(
      "masked_select",
      [](const Tensor& input, const Tensor& mask, py::handle out) {
        return finish_out(ag::masked_select(input, mask), out, "masked_select");
      },
      py::arg("input"), py::arg("mask"), py::kw_only(), py::arg("out") = py::none());
  cls.def("masked_select", &ag::masked_select, py::arg("mask"));

  // Writers: Tensor.X_ in place, Tensor.X and genesis.X on a copy.
  auto masked_fill = [](const Tensor& input, const Tensor& mask, py::handle value) {
    Shape shape = broadcast_shapes(input.sizes(), mask.sizes(), "masked_fill");
    Tensor base = shape == input.sizes() ? input : ag::expand(input, shape);
    return ag::masked_fill(base, mask, value_operand(value, "masked_fill"));
  };
  m.def("masked_fill", masked_fill, py::arg("input"), py::arg("mask"), py::arg("value"));
  cls.def("masked_fill", masked_fill, py::arg("mask"), py::arg("value"));
  cls.def(
      "masked_fill_",
      [](py::object self, const Tensor& mask, py::handle value) {
        const Tensor& t = self.cast<const Tensor&>();
        ops::Operand v = value_operand(value, "masked_fill_");
        ag::apply_inplace(
            t, {tensor_of(v)}, "masked_fill_",
            [&](const Tensor& old) { return ag::masked_fill(old, mask, v); },
            [&] { masked_fill_any(t, mask, value, "masked_fill_"); });
        return self;
      },
      py::arg("mask"), py::arg("value"));

  auto masked_scatter = [](const Tensor& input, const Tensor& mask, const Tensor& source) {
    Shape shape = broadcast_shapes(input.sizes(), mask.sizes(), "masked_scatter");
    return ag::masked_scatter(shape == input.sizes() ? input : ag::expand(input, shape), mask,
                              source);
  };
  m.def("masked_scatter", masked_scatter, py::arg("input"), py::arg("mask"), py::arg("source"));
  cls.def("masked_scatter", masked_scatter, py::arg("mask"), py::arg("source"));
  cls.def(
      "masked_scatter_",
      [](py::object self, const Tensor& mask, const Tensor& source) {
        const Tensor& t = self.cast<const Tensor&>();
        ag::apply_inplace(
            t, {&source}, "masked_scatter_",
            [&](const Tensor& old) { return ag::masked_scatter(old, mask, source); },
            [&] { ops::masked_scatter_(t, mask, source); });
        return self;
      },
      py::arg("mask"), py::arg("source"));

  auto index_fill = [](const Tensor& input, int64_t dim, const Tensor& index, py::handle value) {
    return ag::index_fill(input, dim, index, value_operand(value, "index_fill"));
  };
  m.def("index_fill", index_fill, py::arg("input"), py::arg("dim"), py::arg("index"),
        py::arg("value"));
  cls.def("index_fill", index_fill, py::arg("dim"), py::arg("index"), py::arg("value"));
  cls.def(
      "index_fill_",
      [](py::object self, int64_t dim, const Tensor& index, py::handle value) {
        const Tensor& t = self.cast<const Tensor&>();
        ops::Operand v = value_operand(value, "index_fill_");
        ag::apply_inplace(
            t, {tensor_of(v)}, "index_fill_",
            [&](const Tensor& old) { return ag::index_fill(old, dim, index, v); },
            [&] { ops::index_fill_(t, dim, index, value_scalar(value, "index_fill_")); });
        return self;
      },
      py::arg("dim"), py::arg("index"), py::arg("value"));

  auto index_copy = [](const Tensor& input, int64_t dim, const Tensor& index,
                       const Tensor& source) { return ag::index_copy(input, dim, index, source); };
  m.def("index_copy", index_copy, py::arg("input"), py::arg("dim"), py::arg("index"),
        py::arg("source"));
  cls.def("index_copy", index_copy, py::arg("dim"), py::arg("index"), py::arg("source"));
  cls.def(
      "index_copy_",
      [](py::object self, int64_t dim, const Tensor& index, const Tensor& source) {
        const Tensor& t = self.cast<const Tensor&>();
        ag::apply_inplace(
            t, {&source}, "index_copy_",
            [&](const Tensor& old) { return ag::index_copy(old, dim, index, source); },
            [&] { ops::index_copy_(t, dim, index, source); });
        return self;
      },
      py::arg("dim"), py::arg("index"), py::arg("source"));

  auto scatter = [](const Tensor& input, int64_t dim, const Tensor& index, py::handle src,
                    py::handle reduce) {
    if (reduce.is_none()) return ag::scatter(input, dim, index, value_operand(src, "scatter"));
    Tensor r = ag::clone(input);
    scatter_any(r, dim, index, src, reduce, "scatter");
    return r;
  };
  m.def("scatter", scatter, py::arg("input"), py::arg("dim"), py::arg("index"), py::arg("src"),
        py::kw_only(), py::arg("reduce") = py::none());
  cls.def("scatter", scatter, py::arg("dim"), py::arg("index"), py::arg("src"), py::kw_only(),
          py::arg("reduce") = py::none());
  cls.def(
      "scatter_",
      [](py::object self, int64_t dim, const Tensor& index, py::handle src, py::handle reduce) {
        const Tensor& t = self.cast<const Tensor&>();
        if (!reduce.is_none()) {
          scatter_any(t, dim, index, src, reduce, "scatter_");
          return self;
        }
        ops::Operand v = value_operand(src, "scatter_");
        ag::apply_inplace(
            t, {tensor_of(v)}, "scatter_",
            [&](const Tensor& old) { return ag::scatter(old, dim, index, v); },
            [&] { scatter_any(t, dim, index, src, reduce, "scatter_"); });
        return self;
      },
      py::arg("dim"), py::arg("index"), py::arg("src"), py::kw_only(),
      py::arg("reduce") = py::none());

  // nonzero / argwhere
  m.def("nonzero", &nonzero, py::arg("input"), py::kw_only(), py::arg("as_tuple") = false);
  cls.def("nonzero", &nonzero, py::kw_only(), py::arg("as_tuple") = false);
  auto argwhere = [](const Tensor& input) { return nonzero(input, false); };
  m.def("argwhere", argwhere, py::arg("input"));
  cls.def("argwhere", argwhere);
}

// genesis.where(condition) with one argument: nonzero(condition, as_tuple=True).
py::object where_one(const Tensor& condition) { return nonzero(condition, true); }

}  // namespace genesis::python
