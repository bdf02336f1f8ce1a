// genesis._C._memory_profiler: the recorder's controls, its events as raw bytes for NumPy, and
// the Python stacks of events, captured here from the interpreter's frames.
//
// Note [Stacks captured in C++]
// A stack is taken when an allocator reports an event (csrc/memory/event_recorder.cpp), on the
// thread that allocates. Python frames are read only when that thread holds the interpreter
// lock (an allocation inside a region that let it go, or on a thread Python never saw, gets no
// Python frames): PyEval_GetFrame, then PyFrame_GetBack outwards, the code object and line of
// each. Frames are interned by (code object, line), the code object kept alive by the table so
// its address is never reused; a stack is interned as its list of frame ids, innermost first,
// and an event stores only the stack's id. So a loop allocating on the same line costs a walk
// and two hash lookups per event, and names are turned into Python strings only when the
// timeline is read. With stacks="python" frames from the genesis package itself are left out,
// so a stack starts at the user's line; stacks="all" keeps them and adds the C++ frames
// (backtrace(), named with dladdr when read). The walk may run while the caching pool holds its
// mutex (it reports under it), so it must not run Python code that could free a tensor: the
// frame objects PyFrame_GetBack makes could start the garbage collector, so the collector is
// paused for the walk (and a thread-local flag leaves an event reported from inside a capture
// without a stack rather than recursing). The tables have their own mutex, held while no
// Python is called.
// Python.h first, as Python asks (frameobject.h needs it).
#include <Python.h>
// clang-format off
#include <cxxabi.h>
#include <dlfcn.h>
#include <execinfo.h>
#include <frameobject.h>
// clang-format on

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "core/allocator.h"
#include "core/errors.h"
#include "core/scalar_type.h"
#include "memory/event_recorder.h"
#include "python/bindings.h"

namespace genesis::python {

namespace {

using memory::StackMode;

struct Frame {
  std::string file;
  std::string name;
  int line = 0;
  bool internal = false;  // inside the genesis package
  uintptr_t pc = 0;       // a C++ frame: its return address, named when read
};

struct CodeLine {
  PyObject* code;
  int line;
  bool operator==(const CodeLine& o) const { return code == o.code && line == o.line; }
};
struct CodeLineHash {
  size_t operator()(const CodeLine& k) const {
    return std::hash<const void*>()(k.code) * 31 + static_cast<size_t>(k.line);
  }
};

struct StackTables {
  std::mutex mutex;
  std::vector<Frame> frames;
  std::unordered_map<CodeLine, uint32_t, CodeLineHash> python_ids;  // holds a code reference
  std::unordered_map<uintptr_t, uint32_t> native_ids;
  std::vector<std::vector<uint32_t>> stacks{{}};  // id 0: the empty stack
  std::unordered_map<std::string, uint32_t> stack_ids;
  std::string package_dir;  // frames under it are genesis's own
};

StackTables& tables() {
  static auto* t = new StackTables();  // never destroyed, like the recorder
  return *t;
}

constexpr int kMaxPythonFrames = 64;
constexpr int kMaxNativeFrames = 32;
thread_local bool capturing = false;

std::string utf8(PyObject* text) {
  if (text == nullptr || !PyUnicode_Check(text)) return "";
  Py_ssize_t n = 0;
  const char* s = PyUnicode_AsUTF8AndSize(text, &n);
  if (s == nullptr) {
    PyErr_Clear();
    return "";
  }
  return std::string(s, static_cast<size_t>(n));
}

uint32_t intern_python(StackTables& t, PyObject* code, int line) {
  auto it = t.python_ids.find({code, line});
  if (it != t.python_ids.end()) return it->second;
  auto* c = reinterpret_cast<PyCodeObject*>(code);
  Frame f;
  f.file = utf8(c->co_filename);
#if PY_VERSION_HEX >= 0x030B0000
  f.name = utf8(c->co_qualname);
#else
  f.name = utf8(c->co_name);
#endif
  f.line = line;
  f.internal =
      !t.package_dir.empty() && f.file.compare(0, t.package_dir.size(), t.package_dir) == 0;
  auto id = static_cast<uint32_t>(t.frames.size());
  t.frames.push_back(std::move(f));
  Py_INCREF(code);  // Note [Stacks captured in C++]: the address stays this code object's
  t.python_ids.emplace(CodeLine{code, line}, id);
  return id;
}

uint32_t intern_native(StackTables& t, uintptr_t pc) {
  auto it = t.native_ids.find(pc);
  if (it != t.native_ids.end()) return it->second;
  Frame f;
  f.pc = pc;
  auto id = static_cast<uint32_t>(t.frames.size());
  t.frames.push_back(std::move(f));
  t.native_ids.emplace(pc, id);
  return id;
}

uint32_t intern_stack(StackTables& t, const std::vector<uint32_t>& ids) {
  if (ids.empty()) return 0;
  std::string key(reinterpret_cast<const char*>(ids.data()), ids.size() * sizeof(uint32_t));
  auto it = t.stack_ids.find(key);
  if (it != t.stack_ids.end()) return it->second;
  auto id = static_cast<uint32_t>(t.stacks.size());
  t.stacks.push_back(ids);
  t.stack_ids.emplace(std::move(key), id);
  return id;
}

uint32_t capture_stack(StackMode mode) {
  if (capturing) return 0;  // an event reported while this thread captures (garbage collector)
  capturing = true;
  CodeLine python[kMaxPythonFrames];
  int n_python = 0;
  void* native[kMaxNativeFrames];
  int n_native = mode == StackMode::All ? backtrace(native, kMaxNativeFrames) : 0;
  if (PyGILState_Check()) {
#if PY_VERSION_HEX >= 0x030A0000
    int gc_was_on = PyGC_Disable();
#endif
    PyFrameObject* frame = PyEval_GetFrame();  // borrowed
    Py_XINCREF(frame);
    while (frame != nullptr && n_python < kMaxPythonFrames) {
      python[n_python++] = {reinterpret_cast<PyObject*>(PyFrame_GetCode(frame)),
                            PyFrame_GetLineNumber(frame)};
      PyFrameObject* back = PyFrame_GetBack(frame);
      Py_DECREF(frame);
      frame = back;
    }
    Py_XDECREF(frame);
#if PY_VERSION_HEX >= 0x030A0000
    if (gc_was_on) PyGC_Enable();
#endif
  }
  uint32_t id = 0;
  {
    StackTables& t = tables();
    std::lock_guard<std::mutex> lock(t.mutex);
    std::vector<uint32_t> ids;
    ids.reserve(static_cast<size_t>(n_native + n_python));
    for (int i = 0; i < n_native; ++i)
      ids.push_back(intern_native(t, reinterpret_cast<uintptr_t>(native[i])));
    for (int i = 0; i < n_python; ++i) {
      uint32_t f = intern_python(t, python[i].code, python[i].line);
      if (mode == StackMode::Python && t.frames[f].internal) continue;
      ids.push_back(f);
    }
    id = intern_stack(t, ids);
  }
  for (int i = 0; i < n_python; ++i) Py_DECREF(python[i].code);  // the table holds its own
  capturing = false;
  return id;
}

// A C++ frame's name: the demangled symbol and its library, from the return address.
void name_native(Frame& f) {
  Dl_info info{};
  f.file = "??";
  f.name = "??";
  if (dladdr(reinterpret_cast<void*>(f.pc), &info) == 0) return;
  if (info.dli_fname != nullptr) f.file = info.dli_fname;
  if (info.dli_sname == nullptr) return;
  int status = 0;
  char* demangled = abi::__cxa_demangle(info.dli_sname, nullptr, nullptr, &status);
  f.name = status == 0 && demangled != nullptr ? demangled : info.dli_sname;
  std::free(demangled);
}

StackMode stack_mode(const std::string& stacks) {
  if (stacks == "python") return StackMode::Python;
  if (stacks == "all") return StackMode::All;
  GENESIS_CHECK_VALUE(stacks == "none", "record", "stacks must be 'python', 'all' or None, got '",
                      stacks, "'");
  return StackMode::None;
}

template <typename T>
py::dict layout(const std::vector<std::pair<const char*, std::pair<const char*, size_t>>>& f) {
  py::list names, formats, offsets;
  for (const auto& [name, rest] : f) {
    names.append(name);
    formats.append(rest.first);
    offsets.append(rest.second);
  }
  py::dict d;
  d["names"] = names;
  d["formats"] = formats;
  d["offsets"] = offsets;
  d["itemsize"] = sizeof(T);
  return d;
}

#define GENESIS_FIELD(T, name, fmt)   \
  {                                   \
    #name, { fmt, offsetof(T, name) } \
  }

py::dict event_layout() {
  using E = memory::RecordedEvent;
  return layout<E>({GENESIS_FIELD(E, time_ns, "<i8"),
                    GENESIS_FIELD(E, sequence, "<u8"),
                    GENESIS_FIELD(E, address, "<u8"),
                    GENESIS_FIELD(E, size, "<u8"),
                    GENESIS_FIELD(E, requested, "<u8"),
                    GENESIS_FIELD(E, stream, "<u8"),
                    GENESIS_FIELD(E, stack_id, "<u4"),
                    GENESIS_FIELD(E, shape_id, "<u4"),
                    GENESIS_FIELD(E, kind, "u1"),
                    GENESIS_FIELD(E, pool, "u1"),
                    GENESIS_FIELD(E, device_index, "<i2"),
                    {"dtype_code", {"i1", offsetof(E, dtype)}}});
}

py::dict live_layout() {
  using L = memory::LiveAllocation;
  return layout<L>({GENESIS_FIELD(L, address, "<u8"),
                    GENESIS_FIELD(L, size, "<u8"),
                    GENESIS_FIELD(L, requested, "<u8"),
                    GENESIS_FIELD(L, sequence, "<u8"),
                    GENESIS_FIELD(L, time_ns, "<i8"),
                    GENESIS_FIELD(L, stack_id, "<u4"),
                    GENESIS_FIELD(L, shape_id, "<u4"),
                    GENESIS_FIELD(L, pool, "u1"),
                    GENESIS_FIELD(L, device_index, "<i2"),
                    {"dtype_code", {"i1", offsetof(L, dtype)}}});
}

#undef GENESIS_FIELD

template <typename T>
py::bytes as_bytes(const std::vector<T>& items) {
  return py::bytes(reinterpret_cast<const char*>(items.data()), items.size() * sizeof(T));
}

// Threads that never held the interpreter lock allocate and free CPU memory at once, for the
// test that recording from several threads neither crashes nor loses events.
int64_t allocate_from_threads(int threads, int iterations, size_t nbytes) {
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([=] {
      for (int i = 0; i < iterations; ++i) DataPtr p = cpu_allocator()->allocate(nbytes);
    });
  }
  for (auto& w : workers) w.join();
  return static_cast<int64_t>(threads) * iterations;
}

}  // namespace

void init_memory_profiler(py::module_& m) {
  memory::install_stack_capture(&capture_stack);
  py::module_ p = m.def_submodule("_memory_profiler", "genesis.memory_profiler's recorder");
  p.def(
      "start",
      [](int64_t max_events, const std::string& stacks) {
        GENESIS_CHECK_VALUE(max_events > 0, "record", "max_events must be positive, got ",
                            max_events);
        memory::start_recording(static_cast<size_t>(max_events), stack_mode(stacks));
      },
      py::arg("max_events"), py::arg("stacks"));
  p.def("stop", &memory::stop_recording);
  p.def("is_recording", &memory::is_recording);
  p.def("set_debugging", &memory::set_debugging, py::arg("on"));
  p.def("is_debugging", &memory::is_debugging);
  p.def("sequence", &memory::current_sequence);
  p.def("now_ns", [] {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  });
  p.def("event_layout", &event_layout);
  p.def("live_layout", &live_layout);
  p.def("events", [] {
    uint64_t dropped = 0;
    std::vector<memory::RecordedEvent> events = memory::recorded_events(&dropped);
    return py::make_tuple(as_bytes(events), dropped);
  });
  p.def(
      "live_allocations", [](uint64_t since) { return as_bytes(memory::live_allocations(since)); },
      py::arg("since"));
  p.def("shapes", [] {
    // Note [Recorded shapes]: entry 0 (unknown) is None.
    std::vector<std::vector<int64_t>> shapes = memory::recorded_shapes();
    py::list out;
    out.append(py::none());
    for (size_t i = 1; i < shapes.size(); ++i) {
      py::tuple t(shapes[i].size());
      for (size_t k = 0; k < shapes[i].size(); ++k) t[k] = shapes[i][k];
      out.append(t);
    }
    return out;
  });
  p.def("dtype_names", [] {
    py::list out;
    for (int i = 0; i < kNumScalarTypes; ++i)
      out.append(scalar_type_name(static_cast<ScalarType>(i)));
    return out;
  });
  p.def(
      "set_package_dir",
      [](const std::string& dir) {
        StackTables& t = tables();
        std::lock_guard<std::mutex> lock(t.mutex);
        t.package_dir = dir;
      },
      py::arg("dir"));
  p.def("frames", [] {
    // Copied under the mutex, turned into Python objects after it (Note [Stacks captured in
    // C++]).
    std::vector<Frame> frames;
    {
      StackTables& t = tables();
      std::lock_guard<std::mutex> lock(t.mutex);
      for (Frame& f : t.frames)
        if (f.pc != 0 && f.file.empty()) name_native(f);
      frames = t.frames;
    }
    py::list out;
    for (const Frame& f : frames) out.append(py::make_tuple(f.file, f.line, f.name));
    return out;
  });
  p.def("stacks", [] {
    std::vector<std::vector<uint32_t>> stacks;
    {
      StackTables& t = tables();
      std::lock_guard<std::mutex> lock(t.mutex);
      stacks = t.stacks;
    }
    py::list out;
    for (const auto& s : stacks) {
      py::tuple ids(s.size());
      for (size_t i = 0; i < s.size(); ++i) ids[i] = s[i];
      out.append(ids);
    }
    return out;
  });
  p.def("_allocate_from_threads", &allocate_from_threads, py::arg("threads"), py::arg("iterations"),
        py::arg("nbytes"), py::call_guard<py::gil_scoped_release>());
}

}  // namespace genesis::python
