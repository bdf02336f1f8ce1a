// genesis.device and conversions from what users pass as a device.
#include "core/errors.h"
#include "cuda/runtime.h"
#include "python/bindings.h"

namespace genesis::python {

Device to_device(py::handle obj, const char* op) {
  Device d;
  if (py::isinstance<Device>(obj)) {
    d = obj.cast<Device>();
  } else if (py::isinstance<py::str>(obj)) {
    d = parse_device(obj.cast<std::string>());
  } else if (PyLong_Check(obj.ptr()) && !PyBool_Check(obj.ptr())) {
    int64_t index = obj.cast<int64_t>();
    GENESIS_CHECK_VALUE(index >= 0, op, "device index must be non-negative, got ", index);
    d = Device{DeviceType::CUDA, static_cast<int>(index)};
  } else {
    GENESIS_FAIL(ErrorKind::Type, op,
                 "expected a device ('cpu', 'cuda', 'cuda:N' or "
                 "genesis.device), got ",
                 py::str(py::type::of(obj)).cast<std::string>());
  }
  return d.is_cuda() ? cuda::resolve(d) : d;
}

Device to_device_or(py::handle obj, Device fallback, const char* op) {
  return obj.is_none() ? fallback : to_device(obj, op);
}

namespace {
Device g_default_device = kCPU;  // read and written with the GIL held
}  // namespace

// "cuda" without an index means the current device when a factory runs, as in PyTorch.
Device default_device() {
  return g_default_device.is_cuda() ? cuda::resolve(g_default_device) : g_default_device;
}

py::object device_object(Device device) { return py::cast(device); }

void init_device(py::module_& m) {
  m.def("_get_default_device", [] { return device_object(g_default_device); });
  m.def("_set_default_device", [](py::handle obj) {
    const char* op = "set_default_device";
    if (obj.is_none()) {
      g_default_device = kCPU;
    } else if (py::isinstance<py::str>(obj)) {
      g_default_device = parse_device(obj.cast<std::string>());
    } else if (py::isinstance<Device>(obj)) {
      g_default_device = obj.cast<Device>();
    } else {
      g_default_device = to_device(obj, op);  // a CUDA index
    }
  });
  py::enum_<DeviceType>(m, "DeviceType")
      .value("cpu", DeviceType::CPU)
      .value("cuda", DeviceType::CUDA);
  py::class_<Device>(m, "device")
      .def(py::init([](const std::string& text) { return parse_device(text); }), py::arg("type"))
      .def(py::init([](const std::string& type, std::optional<int> index) {
             Device d = parse_device(type);
             if (index) {
               GENESIS_CHECK_VALUE(d.is_cuda() && d.index < 0 && *index >= 0, "device",
                                   "invalid device '", type, "' with index ", *index);
               d.index = *index;
             }
             return d;
           }),
           py::arg("type"), py::arg("index"))
      .def(py::init([](const Device& d) { return d; }))
      .def_property_readonly("type", [](const Device& d) { return d.is_cpu() ? "cpu" : "cuda"; })
      .def_property_readonly("index",
                             [](const Device& d) -> py::object {
                               if (d.index < 0) return py::none();
                               return py::int_(d.index);
                             })
      .def("__str__", &Device::str)
      .def("__repr__",
           [](const Device& d) {
             std::string type = d.is_cpu() ? "cpu" : "cuda";
             if (d.index < 0) return "device(type='" + type + "')";
             return "device(type='" + type + "', index=" + std::to_string(d.index) + ")";
           })
      .def("__eq__",
           [](const Device& a, py::handle b) {
             if (py::isinstance<Device>(b)) return a == b.cast<Device>();
             if (py::isinstance<py::str>(b)) return a.str() == b.cast<std::string>();
             return false;
           })
      .def("__hash__", [](const Device& d) { return static_cast<int>(d.type) * 1000 + d.index; })
      .def("__reduce__", [](const Device& d) {
        return py::make_tuple(py::module_::import("genesis").attr("device"),
                              py::make_tuple(d.str()));
      });
}

}  // namespace genesis::python
