// Shape and rearrangement ops as genesis.X functions and Tensor.X methods: split, chunk,
// tensor_split, unbind, movedim, swapaxes, unflatten, diagonal, broadcast_to/_tensors, flip,
// roll, atleast_Nd, hstack/vstack/dstack/column_stack, and the function forms of the view
// methods (genesis.reshape(x, shape) ...).
#include <string>
#include <vector>

#include "autograd/ops.h"
#include "core/errors.h"
#include "ops/convert.h"
#include "ops/join.h"
#include "ops/rearrange.h"
#include "ops/split.h"
#include "ops/triangular.h"
#include "ops/views.h"
#include "python/bindings.h"

namespace genesis::python {

namespace {

py::tuple tensor_tuple(const std::vector<Tensor>& tensors) {
  py::tuple out(tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) out[i] = py::cast(tensors[i]);
  return out;
}

std::vector<Tensor> tensor_list(py::handle seq, const char* op) {
  GENESIS_CHECK_TYPE(
      PySequence_Check(seq.ptr()) && !py::isinstance<Tensor>(seq) && !py::isinstance<py::str>(seq),
      op, "expected a sequence of tensors, got ", type_name(seq));
  std::vector<Tensor> out;
  for (const py::object& item : sequence_items(seq, op, "the sequence of tensors", INT64_MAX)) {
    GENESIS_CHECK_TYPE(py::isinstance<Tensor>(item), op, "expected a sequence of tensors, but got ",
                       type_name(item));
    out.push_back(item.cast<Tensor>());
  }
  return out;
}

// An int, or a sequence of ints (a dims or shifts argument).
Shape int_or_ints(py::handle obj, const char* op) {
  if (PyIndex_Check(obj.ptr()) && !py::isinstance<Tensor>(obj))
    return Shape{to_int(obj, op, "dim")};
  return to_shape(obj, op);
}

// Varargs or one sequence: f(0, 1) and f((0, 1)) alike.
Shape int_args(const py::args& args, const char* op) { return to_shape(args, op); }

py::object split_any(const Tensor& t, py::handle sizes, int64_t dim) {
  if (PyIndex_Check(sizes.ptr()) && !py::isinstance<Tensor>(sizes))
    return tensor_tuple(ag::split(t, to_int(sizes, "split", "split_size"), dim));
  return tensor_tuple(ag::split_with_sizes(t, to_shape(sizes, "split"), dim));
}

py::object tensor_split_any(const Tensor& t, py::handle what, int64_t dim) {
  const char* op = "tensor_split";
  if (py::isinstance<Tensor>(what)) {
    const Tensor& i = what.cast<const Tensor&>();
    GENESIS_CHECK_TYPE(i.dtype() == ScalarType::Int64 && i.ndim() <= 1 && !i.is_cuda(), op,
                       "indices_or_sections must be a 0-d or 1-d int64 CPU tensor");
    const int64_t* p = i.data_as<int64_t>();
    if (i.ndim() == 0) return tensor_tuple(ag::tensor_split(t, p[0], dim));
    Shape indices(static_cast<size_t>(i.numel()));
    for (int64_t k = 0; k < i.numel(); ++k) indices[k] = p[k * i.strides()[0]];
    return tensor_tuple(ag::tensor_split_at(t, indices, dim));
  }
  if (PyIndex_Check(what.ptr()))
    return tensor_tuple(ag::tensor_split(t, to_int(what, op, "sections"), dim));
  return tensor_tuple(ag::tensor_split_at(t, to_shape(what, op), dim));
}

Tensor roll_any(const Tensor& t, py::handle shifts, py::handle dims) {
  return ag::roll(t, int_or_ints(shifts, "roll"),
                  dims.is_none() ? Shape{} : int_or_ints(dims, "roll"));
}

Tensor fliplr(const Tensor& t) {
  GENESIS_CHECK_VALUE(t.ndim() >= 2, "fliplr", "expects a tensor with at least 2 dimensions");
  return ag::flip(t, {1});
}

Tensor flipud(const Tensor& t) {
  GENESIS_CHECK_VALUE(t.ndim() >= 1, "flipud", "expects a tensor with at least 1 dimension");
  return ag::flip(t, {0});
}

// atleast_Nd(x) -> tensor; atleast_Nd(x, y) and atleast_Nd((x, y)) -> tuple, as in PyTorch.
py::object atleast(const py::args& args, Tensor (*f)(const Tensor&), const char* op) {
  if (args.size() == 1 && py::isinstance<Tensor>(args[0]))
    return py::cast(f(args[0].cast<Tensor>()));
  std::vector<Tensor> tensors;
  if (args.size() == 1)
    tensors = tensor_list(args[0], op);
  else
    tensors = tensor_list(args, op);
  for (Tensor& t : tensors) t = f(t);
  return tensor_tuple(tensors);
}

Tensor broadcast_to(const Tensor& t, py::handle size) {
  return ag::expand(t, to_shape(size, "broadcast_to"));
}

py::tuple broadcast_tensors(const py::args& args) {
  std::vector<Tensor> tensors = tensor_list(args, "broadcast_tensors");
  Shape shape;
  for (const Tensor& t : tensors) shape = broadcast_shapes(shape, t.sizes(), "broadcast_tensors");
  for (Tensor& t : tensors) t = ag::expand(t, shape);
  return tensor_tuple(tensors);
}

Tensor repeat_interleave_any(const Tensor& t, py::handle repeats, std::optional<int64_t> dim) {
  const char* op = "repeat_interleave";
  if (py::isinstance<Tensor>(repeats)) {
    const Tensor& r = repeats.cast<const Tensor&>();
    if (r.numel() == 1) return ag::repeat_interleave(t, to_int(item(r, op), op, "repeats"), dim);
    return ag::repeat_interleave(t, r, dim);
  }
  return ag::repeat_interleave(t, to_int(repeats, op, "repeats"), dim);
}

py::tuple meshgrid(const py::args& args, const std::string& indexing) {
  const char* op = "meshgrid";
  GENESIS_CHECK_VALUE(indexing == "ij" || indexing == "xy", op,
                      "indexing must be 'ij' or 'xy', got '", indexing, "'");
  std::vector<Tensor> tensors = args.size() == 1 && !py::isinstance<Tensor>(args[0])
                                    ? tensor_list(args[0], op)
                                    : tensor_list(args, op);
  return tensor_tuple(ops::meshgrid(tensors, indexing == "xy"));
}

}  // namespace

void init_shape_ops(py::module_& m, py::class_<Tensor>& cls) {
  // Splits: tuples of views.
  m.def("split", &split_any, py::arg("tensor"), py::arg("split_size_or_sections"),
        py::arg("dim") = 0);
  cls.def("split", &split_any, py::arg("split_size"), py::arg("dim") = 0);
  auto chunk = [](const Tensor& t, int64_t chunks, int64_t dim) {
    return tensor_tuple(ag::chunk(t, chunks, dim));
  };
  m.def("chunk", chunk, py::arg("input"), py::arg("chunks"), py::arg("dim") = 0);
  cls.def("chunk", chunk, py::arg("chunks"), py::arg("dim") = 0);
  m.def("tensor_split", &tensor_split_any, py::arg("input"), py::arg("indices_or_sections"),
        py::arg("dim") = 0);
  cls.def("tensor_split", &tensor_split_any, py::arg("indices_or_sections"), py::arg("dim") = 0);
  auto unbind = [](const Tensor& t, int64_t dim) { return tensor_tuple(ag::unbind(t, dim)); };
  m.def("unbind", unbind, py::arg("input"), py::arg("dim") = 0);
  cls.def("unbind", unbind, py::arg("dim") = 0);

  // Views that move or split dims.
  auto movedim = [](const Tensor& t, py::handle source, py::handle destination) {
    return ag::movedim(t, int_or_ints(source, "movedim"), int_or_ints(destination, "movedim"));
  };
  for (const char* name : {"movedim", "moveaxis"}) {
    m.def(name, movedim, py::arg("input"), py::arg("source"), py::arg("destination"));
    cls.def(name, movedim, py::arg("source"), py::arg("destination"));
  }
  m.def("swapaxes", &ag::transpose, py::arg("input"), py::arg("axis0"), py::arg("axis1"));
  cls.def("swapaxes", &ag::transpose, py::arg("axis0"), py::arg("axis1"));
  m.def("swapdims", &ag::transpose, py::arg("input"), py::arg("dim0"), py::arg("dim1"));
  cls.def("swapdims", &ag::transpose, py::arg("dim0"), py::arg("dim1"));
  auto unflatten = [](const Tensor& t, int64_t dim, py::handle sizes) {
    return ag::unflatten(t, dim, to_shape(sizes, "unflatten"));
  };
  m.def("unflatten", unflatten, py::arg("input"), py::arg("dim"), py::arg("sizes"));
  cls.def("unflatten", unflatten, py::arg("dim"), py::arg("sizes"));
  m.def("diagonal", &ag::diagonal, py::arg("input"), py::arg("offset") = 0, py::arg("dim1") = 0,
        py::arg("dim2") = 1);
  cls.def("diagonal", &ag::diagonal, py::arg("offset") = 0, py::arg("dim1") = 0,
          py::arg("dim2") = 1);
  m.def("broadcast_to", &broadcast_to, py::arg("input"), py::arg("size"));
  cls.def("broadcast_to", &broadcast_to, py::arg("size"));
  m.def("broadcast_tensors", &broadcast_tensors);

  // Copies that rearrange.
  m.def(
      "flip",
      [](const Tensor& t, py::handle dims) { return ag::flip(t, int_or_ints(dims, "flip")); },
      py::arg("input"), py::arg("dims"));
  cls.def("flip", [](const Tensor& t, const py::args& dims) {
    return ag::flip(t, int_args(dims, "flip"));
  });
  m.def("fliplr", &fliplr, py::arg("input"));
  cls.def("fliplr", &fliplr);
  m.def("flipud", &flipud, py::arg("input"));
  cls.def("flipud", &flipud);
  auto rot90 = [](const Tensor& t, int64_t k, py::handle dims) {
    return ag::rot90(t, k, to_shape(dims, "rot90"));
  };
  m.def("rot90", rot90, py::arg("input"), py::arg("k") = 1, py::arg("dims") = py::make_tuple(0, 1));
  cls.def("rot90", rot90, py::arg("k") = 1, py::arg("dims") = py::make_tuple(0, 1));
  cls.def("unfold", &ag::unfold, py::arg("dimension"), py::arg("size"), py::arg("step"));
  m.def("roll", &roll_any, py::arg("input"), py::arg("shifts"), py::arg("dims") = py::none());
  cls.def("roll", &roll_any, py::arg("shifts"), py::arg("dims") = py::none());

  // Joins of at-least-N-d views.
  m.def("atleast_1d", [](const py::args& a) { return atleast(a, ag::atleast_1d, "atleast_1d"); });
  m.def("atleast_2d", [](const py::args& a) { return atleast(a, ag::atleast_2d, "atleast_2d"); });
  m.def("atleast_3d", [](const py::args& a) { return atleast(a, ag::atleast_3d, "atleast_3d"); });
  m.def(
      "hstack", [](py::handle s) { return ag::hstack(tensor_list(s, "hstack")); },
      py::arg("tensors"));
  m.def(
      "vstack", [](py::handle s) { return ag::vstack(tensor_list(s, "vstack")); },
      py::arg("tensors"));
  m.def(
      "dstack", [](py::handle s) { return ag::dstack(tensor_list(s, "dstack")); },
      py::arg("tensors"));
  m.def(
      "column_stack", [](py::handle s) { return ag::column_stack(tensor_list(s, "column_stack")); },
      py::arg("tensors"));

  // Triangles, diagonals, repeats and grids.
  // tril/triu (functions and methods) and their in-place methods, which return the tensor
  // itself as PyTorch's do.
  struct Triangle {
    const char *name, *in_place;
    bool upper;
    void (*fill)(const Tensor&, int64_t);
  };
  for (const Triangle& tri : {Triangle{"tril", "tril_", false, ops::tril_},
                              Triangle{"triu", "triu_", true, ops::triu_}}) {
    auto out_of_place = [upper = tri.upper](const Tensor& t, int64_t k) {
      return ag::tril(t, k, upper);
    };
    m.def(tri.name, out_of_place, py::arg("input"), py::arg("diagonal") = 0);
    cls.def(tri.name, out_of_place, py::arg("diagonal") = 0);
    cls.def(
        tri.in_place,
        [fill = tri.fill](py::object self, int64_t k) {
          fill(self.cast<const Tensor&>(), k);
          return self;
        },
        py::arg("diagonal") = 0);
  }
  auto indices = [](bool lower) {
    return [lower](int64_t row, int64_t col, int64_t offset, py::handle dtype, py::handle device) {
      const char* op = lower ? "tril_indices" : "triu_indices";
      ScalarType dt = to_optional_dtype(dtype, op).value_or(ScalarType::Int64);
      Device dev = to_device_or(device, default_device(), op);
      return lower ? ops::tril_indices(row, col, offset, dt, dev)
                   : ops::triu_indices(row, col, offset, dt, dev);
    };
  };
  m.def("tril_indices", indices(true), py::arg("row"), py::arg("col"), py::arg("offset") = 0,
        py::kw_only(), py::arg("dtype") = py::none(), py::arg("device") = py::none());
  m.def("triu_indices", indices(false), py::arg("row"), py::arg("col"), py::arg("offset") = 0,
        py::kw_only(), py::arg("dtype") = py::none(), py::arg("device") = py::none());
  m.def("diag", &ag::diag, py::arg("input"), py::arg("diagonal") = 0);
  cls.def("diag", &ag::diag, py::arg("diagonal") = 0);
  m.def("diag_embed", &ag::diag_embed, py::arg("input"), py::arg("offset") = 0,
        py::arg("dim1") = -2, py::arg("dim2") = -1);
  cls.def("diag_embed", &ag::diag_embed, py::arg("offset") = 0, py::arg("dim1") = -2,
          py::arg("dim2") = -1);
  cls.def("repeat", [](const Tensor& t, const py::args& sizes) {
    return ag::repeat(t, to_shape(sizes, "repeat"));
  });
  auto tile = [](const Tensor& t, py::handle dims) { return ag::tile(t, to_shape(dims, "tile")); };
  m.def("tile", tile, py::arg("input"), py::arg("dims"));
  cls.def("tile", tile, py::arg("dims"));
  m.def("repeat_interleave", &repeat_interleave_any, py::arg("input"), py::arg("repeats"),
        py::arg("dim") = py::none());
  cls.def("repeat_interleave", &repeat_interleave_any, py::arg("repeats"),
          py::arg("dim") = py::none());
  m.def("meshgrid", &meshgrid, py::arg("indexing") = "ij");
  m.def(
      "expand_copy",
      [](const Tensor& t, py::handle size) {
        return ag::clone(ag::expand(t, to_shape(size, "expand_copy")));
      },
      py::arg("input"), py::arg("size"));

  // Function forms of the view methods.
  m.def(
      "reshape",
      [](const Tensor& t, py::handle shape) { return ag::reshape(t, to_shape(shape, "reshape")); },
      py::arg("input"), py::arg("shape"));
  m.def("transpose", &ag::transpose, py::arg("input"), py::arg("dim0"), py::arg("dim1"));
  m.def(
      "permute",
      [](const Tensor& t, py::handle dims) { return ag::permute(t, to_shape(dims, "permute")); },
      py::arg("input"), py::arg("dims"));
  m.def(
      "squeeze",
      [](const Tensor& t, py::handle dim) {
        return dim.is_none() ? ag::squeeze(t) : ag::squeeze(t, int_or_ints(dim, "squeeze"));
      },
      py::arg("input"), py::arg("dim") = py::none());
  m.def("unsqueeze", &ag::unsqueeze, py::arg("input"), py::arg("dim"));
  m.def("flatten", &ag::flatten, py::arg("input"), py::arg("start_dim") = 0,
        py::arg("end_dim") = -1);
  m.def("narrow", &ag::narrow, py::arg("input"), py::arg("dim"), py::arg("start"),
        py::arg("length"));
  m.def("select", &ag::select, py::arg("input"), py::arg("dim"), py::arg("index"));
  m.def("t", &ag::t, py::arg("input"));
}

}  // namespace genesis::python
