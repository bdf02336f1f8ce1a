// Creation and conversion helpers with PyTorch's names: Tensor.new_* (dtype and device default to
// the tensor's), genesis.as_tensor / asarray (share when they can), Tensor.type_as, and the small
// queries genesis.numel, can_cast, is_floating_point and is_nonzero.
#include <string>

#include "autograd/ops.h"
#include "core/errors.h"
#include "ops/convert.h"
#include "ops/creation.h"
#include "ops/elementwise.h"
#include "python/bindings.h"

namespace genesis::python {

namespace {

struct Like {
  ScalarType dtype;
  Device device;
};

Like like(const Tensor& t, py::handle dtype, py::handle device, const char* op) {
  return {to_optional_dtype(dtype, op).value_or(t.dtype()), to_device_or(device, t.device(), op)};
}

Tensor new_filled(const Tensor& t, const Shape& size, const Scalar& value, py::handle dtype,
                  py::handle device, const char* op) {
  Like o = like(t, dtype, device, op);
  return ops::full(checked_sizes(size, op), value, o.dtype, o.device, op);
}

// What genesis.asarray / as_tensor can share: a genesis tensor, a NumPy array (on the CPU), or a
// DLPack producer; nullopt for data that has to be read (sequences, numbers).
std::optional<Tensor> shareable(py::handle obj) {
  if (py::isinstance<Tensor>(obj)) return obj.cast<Tensor>();
  if (py::isinstance<py::array>(obj))
    return tensor_from_numpy(py::reinterpret_borrow<py::array>(obj), "asarray");
  if (!PyList_Check(obj.ptr()) && !PyTuple_Check(obj.ptr()) && py::hasattr(obj, "__dlpack__") &&
      py::hasattr(obj, "__dlpack_device__"))
    return py::module_::import("genesis._C").attr("from_dlpack")(obj).cast<Tensor>();
  return std::nullopt;
}

// A genesis tensor that needs no conversion comes back as the same object, as in PyTorch.
py::object asarray(py::handle obj, py::handle dtype, py::handle device, py::handle copy) {
  const char* op = "asarray";
  GENESIS_CHECK_TYPE(copy.is_none() || PyBool_Check(copy.ptr()), op,
                     "copy must be None, True or False");
  std::optional<ScalarType> dt = to_optional_dtype(dtype, op);
  if (std::optional<Tensor> shared = shareable(obj)) {
    const Tensor& t = *shared;
    ScalarType want_dtype = dt.value_or(t.dtype());
    Device want_device = to_device_or(device, t.device(), op);
    if (copy.ptr() == Py_True) return py::cast(ag::copy_to(t, want_dtype, want_device));
    bool same = want_dtype == t.dtype() && want_device == t.device();
    GENESIS_CHECK_VALUE(same || copy.is_none(), op, "copy=False, but the data is ",
                        scalar_type_name(t.dtype()), " on ", t.device().str(), " and ",
                        scalar_type_name(want_dtype), " on ", want_device.str(),
                        " was asked for: a copy is needed");
    if (same && py::isinstance<Tensor>(obj)) return py::reinterpret_borrow<py::object>(obj);
    return py::cast(ag::to(t, want_dtype, want_device, false));
  }
  GENESIS_CHECK_VALUE(copy.ptr() != Py_False, op, "copy=False, but the data (", type_name(obj),
                      ") is not an array genesis can share: a copy is needed");
  return py::cast(tensor_from_data(obj, dt, to_device_or(device, default_device(), op)));
}

}  // namespace

void init_creation_helpers(py::module_& m, py::class_<Tensor>& cls) {
  cls.def(
      "new_empty",
      [](const Tensor& t, py::args size, py::handle dtype, py::handle device) {
        Like o = like(t, dtype, device, "new_empty");
        return Tensor::empty(to_sizes(size, "new_empty"), o.dtype, o.device);
      },
      py::kw_only(), py::arg("dtype") = py::none(), py::arg("device") = py::none());
  cls.def(
      "new_zeros",
      [](const Tensor& t, py::args size, py::handle dtype, py::handle device) {
        return new_filled(t, to_shape(size, "new_zeros"), Scalar(int64_t{0}), dtype, device,
                          "new_zeros");
      },
      py::kw_only(), py::arg("dtype") = py::none(), py::arg("device") = py::none());
  cls.def(
      "new_ones",
      [](const Tensor& t, py::args size, py::handle dtype, py::handle device) {
        return new_filled(t, to_shape(size, "new_ones"), Scalar(int64_t{1}), dtype, device,
                          "new_ones");
      },
      py::kw_only(), py::arg("dtype") = py::none(), py::arg("device") = py::none());
  cls.def(
      "new_full",
      [](const Tensor& t, py::handle size, py::handle fill_value, py::handle dtype,
         py::handle device) {
        return new_filled(t, to_shape(size, "new_full"), to_scalar(fill_value, "new_full"), dtype,
                          device, "new_full");
      },
      py::arg("size"), py::arg("fill_value"), py::kw_only(), py::arg("dtype") = py::none(),
      py::arg("device") = py::none());
  cls.def(
      "new_tensor",
      [](const Tensor& t, py::handle data, py::handle dtype, py::handle device) {
        Like o = like(t, dtype, device, "new_tensor");
        return tensor_from_data(data, o.dtype, o.device);  // always a copy, as in PyTorch
      },
      py::arg("data"), py::kw_only(), py::arg("dtype") = py::none(),
      py::arg("device") = py::none());
  cls.def(
      "type_as",
      [](py::object self, const Tensor& other) -> py::object {
        // As PyTorch's self.type(other.type()): other's dtype and device; self when it has them.
        const Tensor& t = self.cast<const Tensor&>();
        if (t.dtype() == other.dtype() && t.device() == other.device()) return self;
        return py::cast(ag::to(t, other.dtype(), other.device(), false));
      },
      py::arg("other"));

  m.def("asarray", &asarray, py::arg("obj"), py::kw_only(), py::arg("dtype") = py::none(),
        py::arg("device") = py::none(), py::arg("copy") = py::none());
  m.def(
      "as_tensor",
      [](py::handle data, py::handle dtype, py::handle device) {
        return asarray(data, dtype, device, py::none());
      },
      py::arg("data"), py::arg("dtype") = py::none(), py::arg("device") = py::none());
  m.def("numel", &Tensor::numel, py::arg("input"));
  m.def(
      "can_cast",
      [](py::handle from, py::handle to) {
        return ops::can_cast(to_dtype(from, "can_cast"), to_dtype(to, "can_cast"));
      },
      py::arg("from_"), py::arg("to"));
  m.def(
      "is_floating_point", [](const Tensor& t) { return is_floating_point(t.dtype()); },
      py::arg("input"));
  auto is_nonzero = [](const Tensor& t) {
    GENESIS_CHECK(t.numel() == 1, "is_nonzero", "expects a tensor with exactly one element, got ",
                  t.numel());
    return item(t, "is_nonzero").cast<double>() != 0.0;
  };
  m.def("is_nonzero", is_nonzero, py::arg("input"));
  cls.def("is_nonzero", is_nonzero);
}

}  // namespace genesis::python
