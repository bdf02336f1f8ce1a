// Tensor attributes and view ops.
#include "autograd/ops.h"
#include "core/errors.h"
#include "ops/convert.h"
#include "ops/copy.h"
#include "ops/views.h"
#include "python/bindings.h"

namespace genesis::python {

namespace {

py::tuple shape_tuple(const Shape& s) {
  py::tuple out(s.size());
  for (size_t i = 0; i < s.size(); ++i) out[i] = py::int_(s[i]);
  return out;
}

// genesis.Size (a tuple subclass defined in Python, registered at import): shape and size()
// return one, as PyTorch's torch.Size. Allocated as the tuple it is, without a Python call.
PyTypeObject* g_size_type = nullptr;

py::tuple size_object(const Shape& s) {
  if (g_size_type == nullptr) return shape_tuple(s);
  PyObject* o = g_size_type->tp_alloc(g_size_type, static_cast<Py_ssize_t>(s.size()));
  if (o == nullptr) throw py::error_already_set();
  py::tuple out = py::reinterpret_steal<py::tuple>(o);  // a genesis.Size is a tuple
  for (size_t i = 0; i < s.size(); ++i) {
    PyObject* v = PyLong_FromLongLong(s[i]);
    if (v == nullptr) throw py::error_already_set();
    PyTuple_SET_ITEM(o, static_cast<Py_ssize_t>(i), v);
  }
  return out;
}

// The whole storage as a 1-D uint8 tensor, for byte-level copies.
Tensor as_bytes(const Storage& s) {
  int64_t n = static_cast<int64_t>(s.nbytes());
  return Tensor(s, {n}, {1}, 0, ScalarType::UInt8);
}

Shape dims_arg(const py::args& args, const char* op) { return to_shape(args, op); }

}  // namespace

void init_tensor(py::module_& m, py::class_<Tensor>& cls) {
  m.def("_set_size_type", [](py::handle type) {
    GENESIS_CHECK_TYPE(
        PyType_Check(type.ptr()) &&
            PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(type.ptr()), &PyTuple_Type),
        "_set_size_type", "expected a subclass of tuple");
    type.inc_ref();  // kept for the life of the process
    g_size_type = reinterpret_cast<PyTypeObject*>(type.ptr());
  });
  cls.def_property_readonly("shape", [](const Tensor& t) { return size_object(t.sizes()); })
      .def("size", [](const Tensor& t) { return size_object(t.sizes()); })
      .def(
          "size", [](const Tensor& t, int64_t dim) { return t.size(dim); },
          py::arg("dim"))  // on the last overload: pybind11 prints it after both signatures
      .def_property_readonly("strides", [](const Tensor& t) { return shape_tuple(t.strides()); })
      .def("stride", [](const Tensor& t) { return shape_tuple(t.strides()); })
      .def(
          "stride", [](const Tensor& t, int64_t dim) { return t.stride(dim); }, py::arg("dim"))
      .def_property_readonly("dtype", [](const Tensor& t) { return dtype_object(t.dtype()); })
      .def_property_readonly("device", [](const Tensor& t) { return device_object(t.device()); })
      .def_property_readonly("ndim", &Tensor::ndim)
      .def("dim", &Tensor::ndim)
      .def("numel", &Tensor::numel)
      .def_property_readonly("itemsize", &Tensor::itemsize)
      .def("element_size", &Tensor::itemsize)
      .def_property_readonly("nbytes", &Tensor::nbytes)
      .def("storage_offset", &Tensor::storage_offset)
      .def("data_ptr", [](const Tensor& t) { return reinterpret_cast<uintptr_t>(t.share_data()); })
      .def_property_readonly("is_cuda", &Tensor::is_cuda)
      .def_property_readonly("is_writable", &Tensor::is_writable)
      .def_property_readonly("is_cpu", [](const Tensor& t) { return !t.is_cuda(); })
      .def("is_floating_point", [](const Tensor& t) { return is_floating_point(t.dtype()); })
      .def("untyped_storage", [](const Tensor& t) { return t.storage(); })
      .def("__len__",
           [](const Tensor& t) {
             GENESIS_CHECK_TYPE(t.ndim() > 0, "len", "len() of a 0-d tensor");
             return t.sizes()[0];
           })
      // Views.
      .def("view",
           [](const Tensor& t, py::args shape) { return ag::view(t, to_shape(shape, "view")); })
      .def("view_as", [](const Tensor& t, const Tensor& o) { return ag::view(t, o.sizes()); })
      .def("reshape", [](const Tensor& t,
                         py::args shape) { return ag::reshape(t, to_shape(shape, "reshape")); })
      .def("reshape_as", [](const Tensor& t, const Tensor& o) { return ag::reshape(t, o.sizes()); })
      .def("transpose", &ag::transpose, py::arg("dim0"), py::arg("dim1"))
      .def("permute",
           [](const Tensor& t, py::args dims) { return ag::permute(t, dims_arg(dims, "permute")); })
      .def("t", &ag::t)
      .def_property_readonly("T", &ag::reverse_dims)
      .def_property_readonly("mT",
                             [](const Tensor& t) {
                               GENESIS_CHECK_VALUE(t.ndim() >= 2, "mT",
                                                   "expects a tensor with at least 2 dimensions");
                               return ag::transpose(t, -2, -1);
                             })
      .def("flatten", &ag::flatten, py::arg("start_dim") = 0, py::arg("end_dim") = -1)
      .def(
          "squeeze",
          [](const Tensor& t, py::object dim) {
            if (dim.is_none()) return ag::squeeze(t);
            if (py::isinstance<py::tuple>(dim) || py::isinstance<py::list>(dim))
              return ag::squeeze(t, to_shape(dim, "squeeze"));
            return ag::squeeze(t, Shape{to_int(dim, "squeeze", "dim")});
          },
          py::arg("dim") = py::none())
      .def("unsqueeze", &ag::unsqueeze, py::arg("dim"))
      .def("expand",
           [](const Tensor& t, py::args sizes) { return ag::expand(t, to_shape(sizes, "expand")); })
      .def("expand_as", [](const Tensor& t, const Tensor& o) { return ag::expand(t, o.sizes()); })
      .def("narrow", &ag::narrow, py::arg("dim"), py::arg("start"), py::arg("length"))
      .def("select", &ag::select, py::arg("dim"), py::arg("index"))
      .def("__iter__", [](const Tensor& t) {
        GENESIS_CHECK_TYPE(t.ndim() > 0, "iter", "iteration over a 0-d tensor");
        py::list rows;
        for (int64_t i = 0; i < t.sizes()[0]; ++i) rows.append(py::cast(ag::select(t, 0, i)));
        return py::iter(rows);
      });

  py::class_<Storage>(m, "UntypedStorage")
      .def("nbytes", &Storage::nbytes)
      .def("size", &Storage::nbytes)
      .def_property_readonly("device", [](const Storage& s) { return device_object(s.device()); })
      .def("data_ptr", [](const Storage& s) { return reinterpret_cast<uintptr_t>(s.share_data()); })
      .def("use_count", [](const Storage& s) { return s.use_count() - 1; })  // minus this handle
      .def("__len__", &Storage::nbytes)
      .def("clone", [](const Storage& s) { return ag::clone(as_bytes(s)).storage(); })
      .def(
          "to",
          [](const Storage& s, py::handle device) {
            return ag::to(as_bytes(s), ScalarType::UInt8, to_device(device, "to"), false).storage();
          })
      .def("copy_",
           [](const Storage& s, const Storage& other) {
             check_writable(as_bytes(s), "copy_");  // before the size: Note [Read-only storages]
             GENESIS_CHECK_VALUE(s.nbytes() == other.nbytes(), "copy_",
                                 "storages differ in size: ", s.nbytes(), " and ", other.nbytes(),
                                 " bytes");
             ops::copy_(as_bytes(s), as_bytes(other));
             return s;
           })
      .def("__repr__", [](const Storage& s) {
        return str_cat("genesis.UntypedStorage(nbytes=", s.nbytes(), ", device='", s.device().str(),
                       "')");
      });
}

}  // namespace genesis::python
