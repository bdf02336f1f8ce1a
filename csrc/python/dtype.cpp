// genesis.float32 and friends, and conversions from whatever users pass as a dtype.
#include <array>

#include "core/errors.h"
#include "python/bindings.h"

namespace genesis::python {

namespace {
std::array<py::object, kNumScalarTypes>& dtype_objects() {
  static auto* objects = new std::array<py::object, kNumScalarTypes>();  // lives to the end
  return *objects;
}
}  // namespace

py::object dtype_object(ScalarType type) { return dtype_objects()[static_cast<int>(type)]; }

std::optional<ScalarType> to_optional_dtype(py::handle obj, const char* op) {
  if (obj.is_none()) return std::nullopt;
  return to_dtype(obj, op);
}

ScalarType to_dtype(py::handle obj, const char* op) {
  if (py::isinstance<DType>(obj)) return obj.cast<const DType&>().type;
  if (py::isinstance<py::str>(obj)) return parse_scalar_type(obj.cast<std::string>());
  if (obj.ptr() == reinterpret_cast<PyObject*>(&PyBool_Type)) return ScalarType::Bool;
  if (obj.ptr() == reinterpret_cast<PyObject*>(&PyLong_Type)) return ScalarType::Int64;
  if (obj.ptr() == reinterpret_cast<PyObject*>(&PyFloat_Type)) return default_float();
  if (py::isinstance<py::dtype>(obj) || py::hasattr(obj, "dtype") ||
      py::isinstance<py::type>(obj)) {
    py::dtype dt;
    try {
      dt = py::dtype::from_args(py::reinterpret_borrow<py::object>(obj));
    } catch (py::error_already_set&) {
      GENESIS_FAIL(ErrorKind::Type, op, "expected a dtype such as genesis.float32, got ",
                   py::str(obj).cast<std::string>());
    }
    return from_numpy_dtype(dt, op);
  }
  GENESIS_FAIL(ErrorKind::Type, op, "expected a dtype such as genesis.float32, got ",
               py::str(py::type::of(obj)).cast<std::string>());
}

py::dtype numpy_dtype(ScalarType type, const char* op) {
  GENESIS_CHECK_TYPE(type != ScalarType::BFloat16, op,
                     "NumPy has no bfloat16 dtype; convert with .float() first");
  return py::dtype(scalar_type_name(type));
}

ScalarType from_numpy_dtype(const py::dtype& dt, const char* op) {
  std::string name = py::str(dt.attr("name")).cast<std::string>();
  static const char* supported[] = {"bool",  "uint8",   "int8",    "int16",  "int32",
                                    "int64", "float16", "float32", "float64"};
  for (const char* s : supported)
    if (name == s) return parse_scalar_type(name);
  GENESIS_FAIL(ErrorKind::Type, op, "unsupported NumPy dtype ", name,
               "; genesis supports bool, uint8, int8, int16, int32, int64, float16, float32, "
               "float64 (and bfloat16)");
}

void init_dtype(py::module_& m) {
  py::class_<DType>(m, "dtype")
      .def_property_readonly("itemsize", [](const DType& d) { return itemsize(d.type); })
      .def_property_readonly("is_floating_point",
                             [](const DType& d) { return is_floating_point(d.type); })
      .def_property_readonly("is_signed", [](const DType& d) { return is_signed(d.type); })
      .def_property_readonly("name", [](const DType& d) { return scalar_type_name(d.type); })
      .def("__repr__",
           [](const DType& d) { return std::string("genesis.") + scalar_type_name(d.type); })
      .def("__eq__",
           [](const DType& a, py::handle b) {
             return py::isinstance<DType>(b) && b.cast<const DType&>().type == a.type;
           })
      .def("__hash__", [](const DType& d) { return static_cast<int>(d.type) + 7919; })
      .def("__reduce__",
           // Pickled by name, as the global genesis._C.<name> it is: a restricted unpickler
           // (genesis.load's weights_only) can allow exactly those names.
           [](const DType& d) { return py::str(scalar_type_name(d.type)); });
  for (int i = 0; i < kNumScalarTypes; ++i) {
    ScalarType t = static_cast<ScalarType>(i);
    dtype_objects()[i] = py::cast(DType{t});
    m.attr(scalar_type_name(t)) = dtype_objects()[i];
  }
  m.def("_get_default_dtype", [] { return dtype_object(default_float()); });
  m.def("_set_default_dtype",
        [](py::handle d) { set_default_float(to_dtype(d, "set_default_dtype")); });
  m.def("_dtype_from_name",
        [](const std::string& name) { return dtype_object(parse_scalar_type(name)); });
  m.def("promote_types", [](py::handle a, py::handle b) {
    return dtype_object(promote_types(to_dtype(a, "promote_types"), to_dtype(b, "promote_types")));
  });
}

}  // namespace genesis::python
