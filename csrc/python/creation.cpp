// Factory functions: tensor, empty, zeros, ones, full, arange, linspace, eye and the *_like forms.
#include <cstring>

#include "autograd/ops.h"
#include "core/errors.h"
#include "ops/convert.h"
#include "ops/copy.h"
#include "ops/creation.h"
#include "ops/layout.h"
#include "python/bindings.h"

namespace genesis::python {

namespace {

bool is_nested_sequence(py::handle obj) {
  if (py::isinstance<Tensor>(obj)) return obj.cast<const Tensor&>().ndim() > 0;
  if (py::isinstance<py::array>(obj)) return py::reinterpret_borrow<py::array>(obj).ndim() > 0;
  return PyList_Check(obj.ptr()) || PyTuple_Check(obj.ptr()) ||
         (PySequence_Check(obj.ptr()) && !py::isinstance<py::str>(obj) &&
          !py::isinstance<py::bytes>(obj) && !is_scalar_like(obj));
}

// Note [Nested data]: genesis.tensor(nested lists) walks the data once, finding the shape
// (checking it is not ragged), the dtype PyTorch would infer (bool < int64 < float32) and the
// leaves, which it keeps; the leaves are then written, converted, into a contiguous host buffer.
// One walk, because the data is the user's: a sequence whose length changed between two walks
// would overflow the buffer or leave it half written. The depth is bounded by kMaxDims, which
// also stops a list that contains itself.
struct Leaves {
  Shape shape;
  bool shape_known = false;         // a leaf was seen: no deeper dims can appear
  std::optional<ScalarType> dtype;  // promoted over the leaves, as torch.tensor infers it
  std::vector<py::object> values;   // the leaves in row-major order (owned references)
};

// The dtype one leaf asks for: Python numbers the defaults, NumPy scalars and 0-d arrays or
// tensors their own dtype.
ScalarType leaf_dtype(py::handle obj) {
  PyObject* p = obj.ptr();
  if (py::isinstance<Tensor>(obj)) return obj.cast<const Tensor&>().dtype();
  if (is_numpy_scalar(obj) || py::isinstance<py::array>(obj))
    return from_numpy_dtype(py::reinterpret_borrow<py::object>(obj.attr("dtype")), "tensor");
  if (PyBool_Check(p)) return ScalarType::Bool;
  if (PyLong_Check(p)) return ScalarType::Int64;
  if (PyFloat_Check(p)) return default_float();
  GENESIS_FAIL(ErrorKind::Type, "tensor", "can't convert an element of type ", type_name(obj),
               " to a number; tensor data must be bools, ints, floats or nested sequences "
               "of them");
}

void scan(py::handle obj, size_t depth, Leaves& info) {
  if (is_nested_sequence(obj)) {
    GENESIS_CHECK_VALUE(static_cast<int64_t>(depth) < kMaxDims, "tensor",
                        "the nested data is more than ", kMaxDims,
                        " levels deep (a tensor has at most ", kMaxDims, " dimensions)");
    py::sequence seq = py::reinterpret_borrow<py::sequence>(obj);
    int64_t n = static_cast<int64_t>(py::len(seq));
    if (depth == info.shape.size()) {
      GENESIS_CHECK_VALUE(!info.shape_known, "tensor", "found a sequence where a number was ",
                          "expected at dim ", depth, ": the nested data is ragged");
      info.shape.push_back(n);
    } else {
      GENESIS_CHECK_VALUE(depth < info.shape.size() && info.shape[depth] == n, "tensor",
                          "expected a sequence of length ",
                          depth < info.shape.size() ? info.shape[depth] : 0, " at dim ", depth,
                          " (got ", n, "): the nested data is ragged");
    }
    int64_t seen = 0;
    // The iteration protocol, as list(seq) sees it; items are owned (they may be new objects).
    for (py::handle h : py::iter(seq)) {
      scan(py::reinterpret_borrow<py::object>(h), depth + 1, info);
      ++seen;
    }
    // A sequence whose iteration disagrees with its len() is ragged too.
    GENESIS_CHECK_VALUE(seen == n, "tensor", "a sequence of length ", n, " yielded ", seen,
                        " items at dim ", depth);
    return;
  }
  GENESIS_CHECK_VALUE(depth == info.shape.size(), "tensor",
                      "found a number where a sequence was expected at dim ", depth,
                      ": the nested data is ragged");
  info.shape_known = true;
  ScalarType t = leaf_dtype(obj);
  info.dtype = info.dtype ? promote_types(*info.dtype, t) : t;
  info.values.push_back(py::reinterpret_borrow<py::object>(obj));
}

template <typename T>
constexpr ScalarType scalar_type_of_value() {
  return scalar_type_of<T>::value;
}

template <typename T>
void write_leaves(const std::vector<py::object>& leaves, T* out) {
  for (const py::object& leaf : leaves) {
    Scalar v = to_scalar(leaf, "tensor");
    // 300 into uint8 raises, as in PyTorch; floats round (to inf where they must), as there.
    if constexpr (std::is_integral_v<T>) v.check_fits(scalar_type_of_value<T>(), "tensor");
    *out++ = v.to<T>();
  }
}

Tensor from_nested(py::handle data, std::optional<ScalarType> dtype) {
  Leaves info;
  scan(data, 0, info);
  ScalarType type = dtype.value_or(info.dtype.value_or(default_float()));  // empty data: float32
  Tensor out = Tensor::empty(info.shape, type, kCPU);
  GENESIS_CHECK(static_cast<int64_t>(info.values.size()) == out.numel(), "tensor",
                "the nested data has ", info.values.size(), " numbers for shape ",
                shape_str(info.shape));
  GENESIS_DISPATCH_ALL_TYPES(type, "tensor",
                             [&] { write_leaves(info.values, out.mutable_data_as<scalar_t>()); });
  return out;
}

struct Options {
  ScalarType dtype;
  Device device;
};
Options options(py::handle dtype, py::handle device, ScalarType default_dtype, const char* op) {
  return {to_optional_dtype(dtype, op).value_or(default_dtype),
          to_device_or(device, default_device(), op)};
}

}  // namespace

Tensor tensor_from_data(py::handle data, std::optional<ScalarType> dtype, Device device) {
  Tensor host;
  if (py::isinstance<Tensor>(data)) {
    const Tensor& t = data.cast<const Tensor&>();
    return ag::copy_to(t, dtype.value_or(t.dtype()), device);
  }
  if (py::isinstance<py::array>(data)) {
    host = tensor_from_numpy(py::reinterpret_borrow<py::array>(data), "tensor");
  } else if (is_numpy_scalar(data)) {
    host = tensor_from_numpy(py::array::ensure(data), "tensor");  // NumPy scalar keeps its dtype
  } else if (!PyList_Check(data.ptr()) && !PyTuple_Check(data.ptr()) &&
             py::hasattr(data, "__dlpack__") && py::hasattr(data, "__dlpack_device__")) {
    // Other libraries' tensors (PyTorch, CuPy, JAX) on any device, sequences or not: read
    // through DLPack, then copied.
    Tensor shared = py::module_::import("genesis._C").attr("from_dlpack")(data).cast<Tensor>();
    return ag::copy_to(shared, dtype.value_or(shared.dtype()), device);
  } else if (is_nested_sequence(data) || is_scalar_like(data)) {
    host = from_nested(data, dtype);
  } else if (py::hasattr(data, "__array__")) {  // other array-likes on the CPU
    host = tensor_from_numpy(py::module_::import("numpy").attr("asarray")(data), "tensor");
  } else {
    GENESIS_FAIL(ErrorKind::Type, "tensor", "can't build a tensor from an object of type ",
                 type_name(data), "; expected a number, a (nested) sequence or an array");
  }
  return ag::copy_to(host, dtype.value_or(host.dtype()), device);
}

void init_creation(py::module_& m) {
  m.def(
      "tensor",
      [](py::handle data, py::handle dtype, py::handle device) {
        // A tensor (genesis or, through DLPack, foreign) stays on its device unless told
        // otherwise, as in PyTorch.
        Device fallback = default_device();
        if (py::isinstance<Tensor>(data)) {
          fallback = data.cast<const Tensor&>().device();
        } else if (!py::isinstance<py::array>(data) && py::hasattr(data, "__dlpack_device__")) {
          py::tuple where = data.attr("__dlpack_device__")();
          if (where[0].cast<int>() == 2) fallback = Device{DeviceType::CUDA, where[1].cast<int>()};
        }
        return tensor_from_data(data, to_optional_dtype(dtype, "tensor"),
                                to_device_or(device, fallback, "tensor"));
      },
      py::arg("data"), py::kw_only(), py::arg("dtype") = py::none(),
      py::arg("device") = py::none());

  m.def(
      "empty",
      [](py::args size, py::handle dtype, py::handle device, bool pin_memory) {
        Options o = options(dtype, device, default_float(), "empty");
        Shape sizes = to_sizes(size, "empty");
        if (pin_memory) {
          GENESIS_CHECK_VALUE(o.device.is_cpu(), "empty",
                              "pin_memory=True needs a CPU tensor, "
                              "got device ",
                              o.device.str());
          return ops::empty_pinned(sizes, o.dtype);
        }
        return Tensor::empty(sizes, o.dtype, o.device);
      },
      py::kw_only(), py::arg("dtype") = py::none(), py::arg("device") = py::none(),
      py::arg("pin_memory") = false);
  m.def(
      "zeros",
      [](py::args size, py::handle dtype, py::handle device) {
        Options o = options(dtype, device, default_float(), "zeros");
        return ops::full(to_sizes(size, "zeros"), Scalar(int64_t{0}), o.dtype, o.device);
      },
      py::kw_only(), py::arg("dtype") = py::none(), py::arg("device") = py::none());
  m.def(
      "ones",
      [](py::args size, py::handle dtype, py::handle device) {
        Options o = options(dtype, device, default_float(), "ones");
        return ops::full(to_sizes(size, "ones"), Scalar(int64_t{1}), o.dtype, o.device);
      },
      py::kw_only(), py::arg("dtype") = py::none(), py::arg("device") = py::none());
  m.def(
      "full",
      [](py::handle size, py::handle fill_value, py::handle dtype, py::handle device) {
        Scalar value = to_scalar(fill_value, "full");
        Options o = options(dtype, device, value.default_dtype(), "full");
        return ops::full(checked_sizes(to_shape(size, "full"), "full"), value, o.dtype, o.device);
      },
      py::arg("size"), py::arg("fill_value"), py::kw_only(), py::arg("dtype") = py::none(),
      py::arg("device") = py::none());
  m.def(
      "arange",
      [](py::handle start, py::handle end, py::handle step, py::handle dtype, py::handle device) {
        Scalar s = to_scalar(start, "arange"), st = to_scalar(step, "arange");
        Scalar e = end.is_none() ? s : to_scalar(end, "arange");
        if (end.is_none()) s = Scalar(int64_t{0});
        Options o = options(dtype, device, ops::arange_dtype(s, e, st), "arange");
        return ops::arange(s, e, st, o.dtype, o.device);
      },
      py::arg("start"), py::arg("end") = py::none(), py::arg("step") = 1, py::kw_only(),
      py::arg("dtype") = py::none(), py::arg("device") = py::none());
  m.def(
      "linspace",
      [](py::handle start, py::handle end, py::handle steps, py::handle dtype, py::handle device) {
        Options o = options(dtype, device, default_float(), "linspace");
        return ops::linspace(to_scalar(start, "linspace").to_double(),
                             to_scalar(end, "linspace").to_double(),
                             to_int(steps, "linspace", "steps"), o.dtype, o.device);
      },
      py::arg("start"), py::arg("end"), py::arg("steps"), py::kw_only(),
      py::arg("dtype") = py::none(), py::arg("device") = py::none());
  m.def(
      "eye",
      [](py::handle n, py::handle m_, py::handle dtype, py::handle device) {
        Options o = options(dtype, device, default_float(), "eye");
        int64_t rows = to_int(n, "eye", "n");
        int64_t cols = m_.is_none() ? rows : to_int(m_, "eye", "m");
        return ops::eye(rows, cols, o.dtype, o.device);
      },
      py::arg("n"), py::arg("m") = py::none(), py::kw_only(), py::arg("dtype") = py::none(),
      py::arg("device") = py::none());

  // *_like: same shape, and dtype/device unless given; a channels-last input's layout (Note
  // [Layouts that results keep] in ops/layout.cpp).
  auto like = [](const char* op) {
    return [op](py::handle input, py::handle dtype, py::handle device) {
      const Tensor& t = tensor_arg(input, op);
      ScalarType dt = to_optional_dtype(dtype, op).value_or(t.dtype());
      Device dev = to_device_or(device, t.device(), op);
      return std::make_pair(t.sizes(), std::make_pair(dt, dev));
    };
  };
  m.def(
      "empty_like",
      [like](py::handle input, py::handle dtype, py::handle device) {
        auto [sizes, o] = like("empty_like")(input, dtype, device);
        return ops::uniform_in_layout_of(Tensor::empty(sizes, o.first, o.second),
                                         tensor_arg(input, "empty_like"));
      },
      py::arg("input"), py::kw_only(), py::arg("dtype") = py::none(),
      py::arg("device") = py::none());
  m.def(
      "zeros_like",
      [like](py::handle input, py::handle dtype, py::handle device) {
        auto [sizes, o] = like("zeros_like")(input, dtype, device);
        return ops::uniform_in_layout_of(ops::full(sizes, Scalar(int64_t{0}), o.first, o.second),
                                         tensor_arg(input, "zeros_like"));
      },
      py::arg("input"), py::kw_only(), py::arg("dtype") = py::none(),
      py::arg("device") = py::none());
  m.def(
      "ones_like",
      [like](py::handle input, py::handle dtype, py::handle device) {
        auto [sizes, o] = like("ones_like")(input, dtype, device);
        return ops::uniform_in_layout_of(ops::full(sizes, Scalar(int64_t{1}), o.first, o.second),
                                         tensor_arg(input, "ones_like"));
      },
      py::arg("input"), py::kw_only(), py::arg("dtype") = py::none(),
      py::arg("device") = py::none());
  m.def(
      "full_like",
      [like](py::handle input, py::handle fill_value, py::handle dtype, py::handle device) {
        auto [sizes, o] = like("full_like")(input, dtype, device);
        return ops::uniform_in_layout_of(
            ops::full(sizes, to_scalar(fill_value, "full_like"), o.first, o.second, "full_like"),
            tensor_arg(input, "full_like"));
      },
      py::arg("input"), py::arg("fill_value"), py::kw_only(), py::arg("dtype") = py::none(),
      py::arg("device") = py::none());
}

}  // namespace genesis::python
