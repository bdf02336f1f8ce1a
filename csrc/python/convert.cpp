// Tensor conversions: to / cuda / cpu / clone / contiguous / copy_ / item / tolist / casts.
#include <cstring>

#include "autograd/ops.h"
#include "core/errors.h"
#include "cuda/copy.h"
#include "cuda/memory.h"
#include "cuda/runtime.h"
#include "cuda/stream.h"
#include "fusion/group.h"
#include "ops/convert.h"
#include "ops/copy.h"
#include "python/bindings.h"

namespace genesis::python {

namespace {

// Reads one element at `ptr` (host memory) as a Python number.
py::object element_object(const char* ptr, ScalarType dtype) {
  return GENESIS_DISPATCH_ALL_TYPES(dtype, "item", [&]() -> py::object {
    scalar_t v;
    std::memcpy(&v, ptr, sizeof(scalar_t));
    if constexpr (std::is_same_v<scalar_t, bool>)
      return py::bool_(v);
    else if constexpr (std::is_integral_v<scalar_t>)
      return py::int_(static_cast<int64_t>(v));
    else
      return py::float_(static_cast<double>(v));
  });
}

// `self` itself when an op handed back the very tensor it was given (to(), cpu(), contiguous()
// with nothing to do), as PyTorch does; else a new Python tensor.
py::object same_or(py::object self, const Tensor& result) {
  return result.is_same_view(self.cast<const Tensor&>()) ? self : py::cast(result);
}

// The memory_format= keyword of to / contiguous / clone: any format given goes to
// genesis._memory_format (Note [Memory formats]), so calls without one stay here.
py::object with_format(const char* fn, py::object t, py::handle memory_format) {
  return py::module_::import("genesis._memory_format").attr(fn)(t, memory_format);
}

Tensor on_host(const Tensor& t) { return t.is_cuda() ? ag::to(t, t.dtype(), kCPU, false) : t; }

py::object nested_list(const char* ptr, const Tensor& t, int64_t dim) {
  if (dim == t.ndim()) return element_object(ptr, t.dtype());
  int64_t n = t.sizes()[dim];
  int64_t step = t.strides()[dim] * static_cast<int64_t>(t.itemsize());
  py::list out(n);
  for (int64_t i = 0; i < n; ++i) out[i] = nested_list(ptr + i * step, t, dim + 1);
  return out;
}

// Parses to()'s flexible arguments: to(dtype), to(device), to(device, dtype), to(tensor),
// plus dtype=, device=, copy=, non_blocking= keywords.
py::object to_impl(py::object self, py::args args, py::kwargs kwargs) {
  const Tensor& t = self.cast<const Tensor&>();
  ScalarType dtype = t.dtype();
  Device device = t.device();
  bool copy = false, non_blocking = false;
  py::handle memory_format = py::none();
  for (py::handle a : args) {
    if (py::isinstance<Tensor>(a)) {
      const Tensor& o = a.cast<const Tensor&>();
      dtype = o.dtype();
      device = o.device();
    } else if (py::isinstance<Device>(a) || (PyLong_Check(a.ptr()) && !PyBool_Check(a.ptr()))) {
      device = to_device(a, "to");
    } else if (py::isinstance<py::str>(a)) {
      std::string s = a.cast<std::string>();
      bool is_device = s == "cpu" || s.rfind("cuda", 0) == 0;
      if (is_device)
        device = to_device(a, "to");
      else
        dtype = to_dtype(a, "to");
    } else {
      dtype = to_dtype(a, "to");
    }
  }
  for (auto kv : kwargs) {
    std::string key = kv.first.cast<std::string>();
    if (key == "dtype") {
      if (!kv.second.is_none()) dtype = to_dtype(kv.second, "to");
    } else if (key == "device") {
      if (!kv.second.is_none()) device = to_device(kv.second, "to");
    } else if (key == "copy") {
      copy = kv.second.cast<bool>();
    } else if (key == "memory_format") {
      memory_format = kv.second;
    } else if (key == "non_blocking") {
      non_blocking = kv.second.cast<bool>();
    } else {
      GENESIS_FAIL(ErrorKind::Type, "to", "unexpected keyword argument '", key, "'");
    }
  }
  py::object out = same_or(self, ag::to(t, dtype, device, copy, non_blocking));
  if (memory_format.is_none()) return out;
  return py::module_::import("genesis._memory_format").attr("to_format")(self, out, memory_format);
}

py::object one_item(const Tensor& t, const char* op) {
  GENESIS_CHECK_VALUE(t.numel() == 1, op,
                      "only a tensor with one element can be converted to a "
                      "Python scalar, but it has ",
                      t.numel(), " elements");
  return item(t, op);
}

}  // namespace

py::object item(const Tensor& t, const char* op) {
  fusion::check_python_read(op);
  GENESIS_CHECK_VALUE(t.numel() == 1, op, "a tensor with ", t.numel(),
                      " elements cannot be converted to a Python scalar");
  char buf[8];
  if (t.is_cuda()) {
    cuda::copy_bytes(buf, kCPU, t.data(), t.device(), t.itemsize());
    return element_object(buf, t.dtype());
  }
  return element_object(static_cast<const char*>(t.data()), t.dtype());
}

void init_convert(py::module_& m, py::class_<Tensor>& cls) {
  auto cast_to = [](ScalarType dtype) {
    return [dtype](py::object self) {
      const Tensor& t = self.cast<const Tensor&>();
      return same_or(self, ag::to(t, dtype, t.device(), false));
    };
  };
  cls.def("to", &to_impl)
      .def(
          "cuda",
          [](py::object self, py::object device, bool non_blocking) {
            const Tensor& t = self.cast<const Tensor&>();
            Device d = device.is_none() ? cuda::resolve(Device{DeviceType::CUDA, -1})
                                        : to_device(device, "cuda");
            GENESIS_CHECK_VALUE(d.is_cuda(), "cuda", "expected a CUDA device, got ", d.str());
            return same_or(self, ag::to(t, t.dtype(), d, false, non_blocking));
          },
          py::arg("device") = py::none(), py::arg("non_blocking") = false)
      .def("cpu",
           [](py::object self) {
             const Tensor& t = self.cast<const Tensor&>();
             return same_or(self, ag::to(t, t.dtype(), kCPU, false));
           })
      .def(
          "clone",
          [](py::object self, py::handle memory_format) -> py::object {
            if (memory_format.is_none()) return py::cast(ag::clone(self.cast<const Tensor&>()));
            return with_format("clone", self, memory_format);
          },
          py::arg("memory_format") = py::none())
      .def("pin_memory",
           [](py::object self) {
             return same_or(self, ops::pin_memory(self.cast<const Tensor&>()));
           })
      .def("is_pinned", &ops::is_pinned)
      .def(
          "record_stream",
          [](const Tensor& t, py::handle stream) {
            GENESIS_CHECK_TYPE(t.is_cuda(), "record_stream", "expects a CUDA tensor, got a ",
                               t.device().str(), " tensor");
            py::handle handle = py::hasattr(stream, "cuda_stream")
                                    ? py::handle(stream.attr("cuda_stream"))
                                    : stream;
            cuda::record_stream(t.storage().data_ptr(), static_cast<cuda::StreamId>(to_int(
                                                            handle, "record_stream", "stream")));
          },
          py::arg("stream"))
      .def(
          "contiguous",
          [](py::object self, py::handle memory_format) {
            if (memory_format.is_none())
              return same_or(self, ag::contiguous(self.cast<const Tensor&>()));
            return with_format("contiguous", self, memory_format);
          },
          py::arg("memory_format") = py::none())
      .def(
          "is_contiguous",
          [](py::object self, py::handle memory_format) -> py::object {
            if (memory_format.is_none())
              return py::bool_(self.cast<const Tensor&>().is_contiguous());
            return with_format("is_contiguous", self, memory_format);
          },
          py::arg("memory_format") = py::none())
      .def(
          "copy_",
          [](py::object self, py::object src, bool non_blocking) {
            const Tensor& dst = self.cast<const Tensor&>();
            if (py::isinstance<Tensor>(src)) {
              ag::check_untracked_source(src.cast<const Tensor&>(), "copy_");
              ops::copy_(dst, src.cast<const Tensor&>(), non_blocking);
            } else {
              ops::copy_(dst, tensor_from_data(src, std::nullopt, kCPU));
            }
            return self;
          },
          py::arg("src"), py::arg("non_blocking") = false)
      .def("fill_",
           [](py::object self, py::handle value) {
             const Tensor& t = self.cast<const Tensor&>();
             ops::fill_(t, to_scalar(value, "fill_"));
             return self;
           })
      .def("zero_",
           [](py::object self) {
             ops::fill_(self.cast<const Tensor&>(), Scalar(int64_t{0}), "zero_");
             return self;
           })
      .def("item", [](const Tensor& t) { return item(t, "item"); })
      .def("tolist",
           [](const Tensor& t) {
             fusion::check_python_read("tolist");
             Tensor h = on_host(t);
             return nested_list(static_cast<const char*>(h.data()), h, 0);
           })
      .def("float", cast_to(ScalarType::Float32))
      .def("half", cast_to(ScalarType::Float16))
      .def("bfloat16", cast_to(ScalarType::BFloat16))
      .def("double", cast_to(ScalarType::Float64))
      .def("int", cast_to(ScalarType::Int32))
      .def("long", cast_to(ScalarType::Int64))
      .def("short", cast_to(ScalarType::Int16))
      .def("char", cast_to(ScalarType::Int8))
      .def("byte", cast_to(ScalarType::UInt8))
      .def("bool", cast_to(ScalarType::Bool))
      .def(
          "type",
          [](const Tensor& t, py::object dtype) -> py::object {
            if (dtype.is_none())
              return py::str(std::string("genesis.") + scalar_type_name(t.dtype()));
            return py::cast(ag::to(t, to_dtype(dtype, "type"), t.device(), false));
          },
          py::arg("dtype") = py::none())
      .def("__bool__",
           [](const Tensor& t) {
             GENESIS_CHECK(t.numel() == 1, "bool", "Boolean value of a tensor with ",
                           t.numel() == 0 ? "no values" : "more than one value", " is ambiguous");
             return item(t, "bool").cast<bool>();
           })
      .def("__float__", [](const Tensor& t) { return one_item(t, "float").cast<double>(); })
      .def("__int__",
           [](const Tensor& t) {
             py::object v = one_item(t, "int");
             PyObject* n = PyNumber_Long(v.ptr());
             if (n == nullptr) {  // nan, inf: a ValueError naming the op, as PyTorch's
               PyErr_Clear();
               GENESIS_FAIL(ErrorKind::Value, "int", "cannot convert ",
                            py::repr(v).cast<std::string>(), " to an integer");
             }
             return py::reinterpret_steal<py::object>(n);
           })
      .def("__index__", [](const Tensor& t) {
        GENESIS_CHECK_TYPE(is_integral(t.dtype(), true), "index",
                           "only integer tensors of a single element can be converted to an "
                           "index");
        return one_item(t, "index").cast<int64_t>();
      });
}

}  // namespace genesis::python
