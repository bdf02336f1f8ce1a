// Autocast's state, cast cache and policies, and _C._amp (the functions genesis.amp builds on).
#include "python/autocast.h"

#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "autograd/meta.h"
#include "autograd/ops.h"
#include "core/errors.h"
#include "python/tensor_object.h"

namespace genesis::python::autocast {

// Note [Autocast]
// ~~~~~~~~~~~~~~~
// PyTorch runs autocast as a dispatch key above autograd: a listed op casts its floating inputs
// (as recorded `to` casts, so gradients flow back in the inputs' dtypes), then runs with the key
// excluded. genesis has no dispatcher, but every bound function already enters through one C
// function (`dispatch` in call_habits.cpp, Note [Call habits]); while a region is on
// (active(): one thread-local flag) it hands the call to call_bound, which looks the function
// up by its pybind11 record, casts the arguments as the function's policy says, and runs it
// with autocast off until it returns. The nn.functional functions written in Python carry the
// same policies through a decorator (genesis/amp/_policies.py) that calls _C._amp._call, and
// the operator slots hand `**` and a number divided by a tensor to their bound methods while a
// region is on. The policies are PyTorch's (aten/src/ATen/autocast_mode.{h,cpp}), per device
// type, from one table: genesis/amp/_policies.py registers it at import.
// - lower: every eligible tensor (floating, not float64, on the region's device type) to the
//   region's dtype; float32 leaves that require grad are cast once per region (the cache,
//   cleared when the outermost region ends), as PyTorch does for weights.
// - fp32: every eligible tensor to float32.
// - fp32_unless_dtype: as fp32, unless the call gives dtype= or its first tensor is not
//   eligible (PyTorch's fp32_set_opt_dtype; casting first gives the dtype= result).
// - promote: every eligible tensor to float32 if any of them is not in the region's dtype.
// - none: the arguments as they are (a Python-written op that PyTorch writes natively, such as
//   avg_pool2d, still runs as one op: its own calls are not cast).
// - banned: a RuntimeError (binary_cross_entropy under CUDA autocast, as PyTorch).
// - lower_products: lower when the call has two tensors or more (einsum on the CPU, which
//   PyTorch runs through bmm).
// A call with out= is left alone. The device type is CUDA when any tensor argument is on CUDA.
// State and cache are per thread, as PyTorch's state (its cache is global; per thread here, so
// no lock is needed and one thread's region never hands another its casts).

namespace detail {
thread_local bool active_flag = false;
}  // namespace detail

namespace {

namespace au = genesis::autograd;

enum class Policy : uint8_t { None, Lower, Fp32, Fp32UnlessDtype, Promote, Banned, LowerProducts };

struct Policies {
  Policy cuda = Policy::None;
  Policy cpu = Policy::None;
};

struct Region {
  bool enabled;
  ScalarType dtype;
};

struct State {
  Region cpu{false, ScalarType::BFloat16};
  Region cuda{false, ScalarType::Float16};
  bool cache_enabled = true;
  int nesting = 0;
  int running = 0;  // listed ops running below: their own calls are not cast
  // A float32 leaf's autograd record -> (the leaf, its cast to the lower dtype).
  std::unordered_map<const void*, std::pair<Tensor, Tensor>> cache;
};

thread_local State state;

void refresh() {
  detail::active_flag = (state.cpu.enabled || state.cuda.enabled) && state.running == 0;
}

// Set once at import under the GIL, read only afterwards.
std::unordered_map<const void*, Policies>& by_record() {
  static auto* table = new std::unordered_map<const void*, Policies>();
  return *table;
}
std::unordered_map<std::string, Policies>& by_name() {
  static auto* table = new std::unordered_map<std::string, Policies>();
  return *table;
}

Region& region(const std::string& device_type, const char* op) {
  if (device_type == "cuda") return state.cuda;
  if (device_type == "cpu") return state.cpu;
  GENESIS_FAIL(ErrorKind::Value, op, "device_type must be 'cuda' or 'cpu', got '", device_type,
               "'");
}

// Runs a listed op's body with autocast off (PyTorch's excluded dispatch key).
class Running {
 public:
  Running() {
    ++state.running;
    refresh();
  }
  ~Running() {
    --state.running;
    refresh();
  }
  Running(const Running&) = delete;
  Running& operator=(const Running&) = delete;
};

bool eligible(const Tensor& t, bool cuda) {
  return t.defined() && t.is_cuda() == cuda && is_floating_point(t.dtype()) &&
         t.dtype() != ScalarType::Float64;
}

Tensor cast(const Tensor& t, ScalarType to, ScalarType lower) {
  if (t.dtype() == to) return t;
  bool cacheable = to == lower && t.dtype() == ScalarType::Float32 && state.cache_enabled &&
                   au::requires_grad(t) && au::is_leaf(t);
  if (!cacheable) return ag::to(t, to, t.device(), false);
  const void* key = t.autograd_meta().get();
  auto it = state.cache.find(key);
  if (it != state.cache.end() && it->second.first.is_same_view(t)) return it->second.second;
  Tensor out = ag::to(t, to, t.device(), false);
  state.cache[key] = {t, out};
  return out;
}

// What a call's tensor arguments (and tensors in list or tuple arguments) say.
struct Scan {
  bool cuda = false, cpu = false;
  int count = 0;
  const Tensor* first = nullptr;
  void add(const Tensor& t) {
    ++count;
    if (first == nullptr) first = &t;
    (t.is_cuda() ? cuda : cpu) = true;
  }
};

template <typename Visit>
void for_each_tensor(PyObject* obj, const Visit& visit) {
  if (const Tensor* t = tensor_of(obj)) {
    visit(*t);
    return;
  }
  if (PyList_Check(obj) || PyTuple_Check(obj)) {
    Py_ssize_t n = PySequence_Fast_GET_SIZE(obj);
    PyObject** items = PySequence_Fast_ITEMS(obj);
    for (Py_ssize_t i = 0; i < n; ++i)
      if (const Tensor* t = tensor_of(items[i])) visit(*t);
  }
}

struct Target {
  bool cuda;
  ScalarType to, lower;
};

// `obj` with its eligible tensors cast (the object itself when nothing changes).
py::object cast_argument(PyObject* obj, const Target& target) {
  auto cast_one = [&](PyObject* item) -> py::object {
    const Tensor* t = tensor_of(item);
    if (t == nullptr || !eligible(*t, target.cuda) || t->dtype() == target.to)
      return py::reinterpret_borrow<py::object>(item);
    return py::reinterpret_steal<py::object>(new_tensor_object(cast(*t, target.to, target.lower)));
  };
  if (!PyList_Check(obj) && !PyTuple_Check(obj)) return cast_one(obj);
  Py_ssize_t n = PySequence_Fast_GET_SIZE(obj);
  PyObject** items = PySequence_Fast_ITEMS(obj);
  bool changed = false;
  std::vector<py::object> cast_items;
  cast_items.reserve(static_cast<size_t>(n));
  for (Py_ssize_t i = 0; i < n; ++i) {
    cast_items.push_back(cast_one(items[i]));
    changed = changed || cast_items.back().ptr() != items[i];
  }
  if (!changed) return py::reinterpret_borrow<py::object>(obj);
  py::list out;
  for (auto& item : cast_items) out.append(item);
  if (PyTuple_Check(obj)) return py::tuple(out);
  return std::move(out);
}

// The value of keyword `name` in a vectorcall, or null.
PyObject* keyword(PyObject* const* args, size_t nargs, PyObject* kwnames, std::string_view name) {
  Py_ssize_t k = kwnames == nullptr ? 0 : PyTuple_GET_SIZE(kwnames);
  for (Py_ssize_t i = 0; i < k; ++i) {
    const char* key = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, i));
    if (key != nullptr && std::string_view(key) == name) return args[nargs + i];
  }
  return nullptr;
}

bool gives(PyObject* const* args, size_t nargs, PyObject* kwnames, std::string_view name) {
  PyObject* value = keyword(args, nargs, kwnames, name);
  return value != nullptr && value != Py_None;
}

bool gives_dtype(PyObject* const* args, size_t nargs, PyObject* kwnames) {
  for (size_t i = 0; i < nargs; ++i)
    if (py::isinstance<DType>(args[i])) return true;
  return gives(args, nargs, kwnames, "dtype");
}

// The call with its arguments cast as `policies` says (Note [Autocast]); `call` takes the
// (possibly new) vectorcall arguments.
template <typename Call>
PyObject* with_policy(const Policies& policies, const char* name, PyObject* const* args,
                      size_t nargs, PyObject* kwnames, const Call& call) {
  size_t total = nargs + (kwnames == nullptr ? 0 : PyTuple_GET_SIZE(kwnames));
  // A listed function runs with autocast off whatever its policy does with its arguments: a
  // Python-written op is one op, as PyTorch's native one (its own calls are not cast).
  Running running;
  Scan scan;
  for (size_t i = 0; i < total; ++i)
    for_each_tensor(args[i], [&](const Tensor& t) { scan.add(t); });
  if (!scan.cuda && !scan.cpu) return call(args, nargs, kwnames);
  const Region& r = scan.cuda ? state.cuda : state.cpu;
  Policy policy = scan.cuda ? policies.cuda : policies.cpu;
  if (!r.enabled || policy == Policy::None || gives(args, nargs, kwnames, "out"))
    return call(args, nargs, kwnames);
  if (policy == Policy::Banned)
    GENESIS_FAIL(ErrorKind::Runtime, name,
                 "genesis.nn.functional.binary_cross_entropy and genesis.nn.BCELoss are unsafe "
                 "to autocast.\nMany models use a sigmoid layer right before the binary cross "
                 "entropy layer.\nIn this case, combine the two layers using "
                 "genesis.nn.functional.binary_cross_entropy_with_logits\nor "
                 "genesis.nn.BCEWithLogitsLoss.  binary_cross_entropy_with_logits and "
                 "BCEWithLogits are\nsafe to autocast.");
  if (policy == Policy::Fp32UnlessDtype &&
      (gives_dtype(args, nargs, kwnames) || !eligible(*scan.first, scan.cuda)))
    return call(args, nargs, kwnames);
  if (policy == Policy::LowerProducts && scan.count < 2) return call(args, nargs, kwnames);
  Target target{scan.cuda, ScalarType::Float32, r.dtype};
  if (policy == Policy::Lower || policy == Policy::LowerProducts) target.to = r.dtype;
  if (policy == Policy::Promote) {
    target.to = r.dtype;
    for (size_t i = 0; i < total; ++i)
      for_each_tensor(args[i], [&](const Tensor& t) {
        if (eligible(t, scan.cuda) && t.dtype() != r.dtype) target.to = ScalarType::Float32;
      });
  }
  std::vector<py::object> held;
  std::vector<PyObject*> cast_args;
  held.reserve(total);
  for (size_t i = 0; i < total; ++i) {
    held.push_back(cast_argument(args[i], target));
    cast_args.push_back(held.back().ptr());
  }
  return call(cast_args.data(), nargs, kwnames);
}

const py::detail::function_record* record_of(py::handle obj) {
  PyObject* f = obj.ptr();
  if (PyInstanceMethod_Check(f)) f = PyInstanceMethod_GET_FUNCTION(f);
  if (!PyCFunction_Check(f)) return nullptr;
  return py::detail::function_record_ptr_from_PyObject(PyCFunction_GET_SELF(f));
}

Policy to_policy(py::handle code) {
  int c = code.cast<int>();
  GENESIS_CHECK_VALUE(c >= 0 && c <= static_cast<int>(Policy::LowerProducts), "_register_policies",
                      "unknown policy code ", c);
  return static_cast<Policy>(c);
}

// The table {name: (cuda policy, cpu policy)}; the bound functions of that name in `scopes`.
void register_policies(const py::dict& table, const py::list& scopes) {
  for (auto [key, value] : table) {
    auto pair = value.cast<py::tuple>();
    by_name()[key.cast<std::string>()] = Policies{to_policy(pair[0]), to_policy(pair[1])};
  }
  for (py::handle scope : scopes) {
    py::dict d = scope.attr("__dict__");
    for (auto [key, value] : d) {
      auto it = by_name().find(key.cast<std::string>());
      if (it == by_name().end()) continue;
      if (const auto* rec = record_of(value)) by_record()[rec] = it->second;
    }
  }
}

// A decorated Python function's call (genesis/amp/_policies.py).
py::object call_python(const std::string& name, const py::object& fn, const py::tuple& args,
                       const py::dict& kwargs) {
  auto it = by_name().find(name);
  GENESIS_CHECK_VALUE(it != by_name().end(), "autocast", "no policy is registered for ", name);
  std::vector<PyObject*> flat;
  for (py::handle a : args) flat.push_back(a.ptr());
  py::tuple names(kwargs.size());
  size_t i = 0;
  for (auto [k, v] : kwargs) {
    names[i++] = k;
    flat.push_back(v.ptr());
  }
  PyObject* kwnames = kwargs.empty() ? nullptr : names.ptr();
  auto call = [&fn](PyObject* const* a, size_t n, PyObject* kw) {
    return PyObject_Vectorcall(fn.ptr(), a, n, kw);
  };
  PyObject* r = active()
                    ? with_policy(it->second, name.c_str(), flat.data(), args.size(), kwnames, call)
                    : call(flat.data(), args.size(), kwnames);
  if (r == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(r);
}

}  // namespace

PyObject* call_bound(PyObject* self, PyObject* const* args, size_t nargsf, PyObject* kwnames,
                     Vectorcall call) {
  const auto* rec = py::detail::function_record_ptr_from_PyObject(self);
  auto it = rec == nullptr ? by_record().end() : by_record().find(rec);
  if (it == by_record().end()) return call(self, args, nargsf, kwnames);
  // CPython called this function pointer: no C++ exception may leave it.
  try {
    return with_policy(
        it->second, rec->name, args, PyVectorcall_NARGS(nargsf), kwnames,
        [&](PyObject* const* a, size_t n, PyObject* kw) { return call(self, a, n, kw); });
  } catch (py::error_already_set& e) {
    e.restore();
  } catch (...) {
    py::detail::try_translate_exceptions();
  }
  return nullptr;
}

void init(py::module_& m) {
  py::module_ amp = m.def_submodule("_amp", "autocast's state and policies (genesis.amp)");
  amp.def(
      "_set_enabled",
      [](const std::string& device_type, bool enabled) {
        region(device_type, "set_autocast_enabled").enabled = enabled;
        refresh();
      },
      py::arg("device_type"), py::arg("enabled"));
  amp.def(
      "_is_enabled",
      [](const std::string& device_type) {
        return region(device_type, "is_autocast_enabled").enabled;
      },
      py::arg("device_type"));
  amp.def(
      "_set_dtype",
      [](const std::string& device_type, py::handle dtype) {
        region(device_type, "set_autocast_dtype").dtype = to_dtype(dtype, "set_autocast_dtype");
      },
      py::arg("device_type"), py::arg("dtype"));
  amp.def(
      "_get_dtype",
      [](const std::string& device_type) {
        return dtype_object(region(device_type, "get_autocast_dtype").dtype);
      },
      py::arg("device_type"));
  amp.def(
      "_set_cache_enabled", [](bool enabled) { state.cache_enabled = enabled; },
      py::arg("enabled"));
  amp.def("_is_cache_enabled", []() { return state.cache_enabled; });
  amp.def("_clear_cache", []() { state.cache.clear(); });
  amp.def("_increment_nesting", []() { return ++state.nesting; });
  amp.def("_decrement_nesting", []() { return --state.nesting; });
  amp.def("_active", []() { return active(); });
  amp.def("_register_policies", &register_policies, py::arg("table"), py::arg("scopes"));
  amp.def("_call", &call_python, py::arg("name"), py::arg("fn"), py::arg("args"),
          py::arg("kwargs"));
}

}  // namespace genesis::python::autocast
