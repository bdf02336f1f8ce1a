// Random numbers: manual_seed, initial_seed, seed, rand, randn, randint and the *_like forms.
#include <algorithm>
#include <string>
#include <vector>

#include "core/errors.h"
#include "ops/random.h"
#include "python/bindings.h"
#include "python/operand.h"

namespace genesis::python {

// Any Python integer in [-2^63, 2^64): negatives wrap to their two's complement.
uint64_t to_seed(py::handle obj) {
  GENESIS_CHECK_TYPE(!PyFloat_Check(obj.ptr()) && PyIndex_Check(obj.ptr()), "manual_seed",
                     "seed must be an integer, got ", type_name(obj));
  py::object index = py::reinterpret_steal<py::object>(PyNumber_Index(obj.ptr()));
  if (!index) throw py::error_already_set();
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
  if (!overflow) return static_cast<uint64_t>(v);
  if (overflow > 0) {
    unsigned long long u = PyLong_AsUnsignedLongLong(index.ptr());
    if (!PyErr_Occurred()) return u;
    PyErr_Clear();
  }
  GENESIS_FAIL(ErrorKind::Value, "manual_seed", "seed must be in [-2**63, 2**64), got ",
               py::str(obj).cast<std::string>());
}

namespace {

// randint's arguments after the positional ones and keywords are matched to `names`, as
// Python would bind them; dtype and device are keyword-only.
struct Bound {
  std::vector<py::object> slots;  // one per name; empty where not given
  py::object dtype = py::none(), device = py::none(), generator = py::none();
};

Bound bind_args(const py::args& args, const py::kwargs& kwargs,
                const std::vector<std::string>& names, const char* op) {
  Bound b;
  b.slots.resize(names.size());
  GENESIS_CHECK_TYPE(args.size() <= names.size(), op, "takes at most ", names.size(),
                     " positional arguments (", args.size(), " given)");
  for (size_t i = 0; i < args.size(); ++i) b.slots[i] = py::reinterpret_borrow<py::object>(args[i]);
  for (auto kv : kwargs) {
    std::string key = py::str(kv.first).cast<std::string>();
    py::object value = py::reinterpret_borrow<py::object>(kv.second);
    if (key == "dtype") {
      b.dtype = value;
      continue;
    }
    if (key == "device") {
      b.device = value;
      continue;
    }
    if (key == "generator") {
      b.generator = value;
      continue;
    }
    auto it = std::find(names.begin(), names.end(), key);
    GENESIS_CHECK_TYPE(it != names.end(), op, "unexpected keyword argument '", key, "'");
    size_t i = static_cast<size_t>(it - names.begin());
    GENESIS_CHECK_TYPE(!b.slots[i], op, "got multiple values for argument '", key, "'");
    b.slots[i] = value;
  }
  for (size_t i = 0; i < names.size(); ++i)
    GENESIS_CHECK_TYPE(static_cast<bool>(b.slots[i]), op, "missing required argument '", names[i],
                       "'");
  return b;
}

// torch's two overloads, f(high, ...) and f(low, high, ...): low is there when named or when
// every other argument is given besides it.
std::vector<std::string> randint_names(const py::args& args, const py::kwargs& kwargs,
                                       std::vector<std::string> rest) {
  size_t given = args.size();
  for (const std::string& name : rest) given += kwargs.contains(name.c_str()) ? 1 : 0;
  bool has_low = kwargs.contains("low") || given > rest.size();
  if (has_low) rest.insert(rest.begin(), "low");
  return rest;
}

}  // namespace

void init_random(py::module_& m, py::class_<Tensor>& /*cls*/) {
  m.def("manual_seed", [](py::handle seed) { ops::manual_seed(to_seed(seed)); }, py::arg("seed"));
  m.def("initial_seed", [] { return ops::initial_seed(); });
  m.def("seed", [] { return ops::seed(); });

  m.def(
      "rand",
      [](py::args size, py::handle generator, py::handle dtype, py::handle device) {
        return ops::rand(to_sizes(size, "rand"),
                         to_optional_dtype(dtype, "rand").value_or(default_float()),
                         to_device_or(device, default_device(), "rand"), "rand",
                         generator_of(generator, "rand"));
      },
      py::kw_only(), py::arg("generator") = py::none(), py::arg("dtype") = py::none(),
      py::arg("device") = py::none());
  m.def(
      "randn",
      [](py::args size, py::handle generator, py::handle dtype, py::handle device) {
        return ops::randn(to_sizes(size, "randn"),
                          to_optional_dtype(dtype, "randn").value_or(default_float()),
                          to_device_or(device, default_device(), "randn"), "randn",
                          generator_of(generator, "randn"));
      },
      py::kw_only(), py::arg("generator") = py::none(), py::arg("dtype") = py::none(),
      py::arg("device") = py::none());
  m.def("randint", [](py::args args, py::kwargs kwargs) {
    const char* op = "randint";
    // out= as PyTorch: the result takes out's dtype and device unless dtype= is given.
    py::object out = kwargs.attr("pop")("out", py::none());
    std::vector<std::string> names = randint_names(args, kwargs, {"high", "size"});
    Bound b = bind_args(args, kwargs, names, op);
    size_t k = names.size() == 3 ? 1 : 0;
    int64_t low = k ? to_int(b.slots[0], op, "low") : 0;
    int64_t high = to_int(b.slots[k], op, "high");
    Shape sizes = checked_sizes(to_shape(b.slots[k + 1], op), op);
    const Tensor* o = out.is_none() ? nullptr : &tensor_arg(out, op);
    ScalarType dtype = to_optional_dtype(b.dtype, op).value_or(o ? o->dtype() : ScalarType::Int64);
    Device device = to_device_or(b.device, o ? o->device() : default_device(), op);
    return finish_out(
        ops::randint(low, high, sizes, dtype, device, op, generator_of(b.generator, op)), out, op);
  });

  m.def(
      "rand_like",
      [](py::handle input, py::handle dtype, py::handle device) {
        const Tensor& t = tensor_arg(input, "rand_like");
        return ops::rand(t.sizes(), to_optional_dtype(dtype, "rand_like").value_or(t.dtype()),
                         to_device_or(device, t.device(), "rand_like"), "rand_like");
      },
      py::arg("input"), py::kw_only(), py::arg("dtype") = py::none(),
      py::arg("device") = py::none());
  m.def(
      "randn_like",
      [](py::handle input, py::handle dtype, py::handle device) {
        const Tensor& t = tensor_arg(input, "randn_like");
        return ops::randn(t.sizes(), to_optional_dtype(dtype, "randn_like").value_or(t.dtype()),
                          to_device_or(device, t.device(), "randn_like"), "randn_like");
      },
      py::arg("input"), py::kw_only(), py::arg("dtype") = py::none(),
      py::arg("device") = py::none());
  m.def("randint_like", [](py::handle input, py::args args, py::kwargs kwargs) {
    const char* op = "randint_like";
    const Tensor& t = tensor_arg(input, op);
    std::vector<std::string> names = randint_names(args, kwargs, {"high"});
    Bound b = bind_args(args, kwargs, names, op);
    size_t k = names.size() == 2 ? 1 : 0;
    int64_t low = k ? to_int(b.slots[0], op, "low") : 0;
    int64_t high = to_int(b.slots[k], op, "high");
    return ops::randint(low, high, t.sizes(), to_optional_dtype(b.dtype, op).value_or(t.dtype()),
                        to_device_or(b.device, t.device(), op), op, generator_of(b.generator, op));
  });
}

}  // namespace genesis::python
