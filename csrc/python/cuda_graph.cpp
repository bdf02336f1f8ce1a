// CUDA graphs on genesis._C._cuda (Note [CUDA graphs] in cuda/graph.h): the _CUDAGraph handle
// that genesis.cuda.CUDAGraph wraps, private pool ids and what the tests read of the pools.
#include <utility>

#include "core/errors.h"
#include "cuda/graph.h"
#include "cuda/memory.h"
#include "cuda/runtime.h"
#include "cuda/stream.h"
#include "fusion/group.h"
#include "memory/caching_pool.h"
#include "python/bindings.h"

namespace genesis::python {

namespace {

cuda::CaptureMode capture_mode(const std::string& mode) {
  if (mode == "global") return cuda::CaptureMode::Global;
  if (mode == "thread_local") return cuda::CaptureMode::ThreadLocal;
  if (mode == "relaxed") return cuda::CaptureMode::Relaxed;
  GENESIS_FAIL(ErrorKind::Value, "CUDAGraph.capture_begin",
               "capture_error_mode must be 'global', 'thread_local' or 'relaxed', got '", mode,
               "'");
}

memory::CachingPool* graph_device_pool(int device) {
  int index = cuda::resolve(Device{DeviceType::CUDA, device}).index;
  cuda::allocator(index);
  return cuda::device_pool(index);
}

// Note [The replay's own call]
// A replay is host time and nothing else (issue 19 times it against PyTorch's), and a pybind11
// method call is a visible share of it: on an H100 a pybind11 method of this class that does
// nothing took 0.26-0.69 us a call where a METH_NOARGS C function took 0.12-0.21 us, and a
// replay 0.25-0.33 us more than a bare C call of cuGraphLaunch of the same chain (interleaved in
// one process; benchmarks/results/2026-11-28-session10-replay-floor.txt). So `replay` is a plain
// CPython method of _CUDAGraph (the method descriptor checks that self is one) that finds the
// Graph in the pybind11 instance and calls try_replay(); every other case (nothing captured, a
// capture underway, random ops, an error) goes on to `_replay`, the pybind11 method of all of
// replay(), which raises what it finds.
PyObject* replay_method(PyObject* self, PyObject* /*unused*/) {
  auto* instance = reinterpret_cast<py::detail::instance*>(self);
  py::detail::value_and_holder held = instance->get_value_and_holder(nullptr, false);
  auto* graph = held ? held.value_ptr<cuda::Graph>() : nullptr;
  if (graph != nullptr && graph->try_replay()) Py_RETURN_NONE;
  return PyObject_CallMethod(self, "_replay", nullptr);
}

// The docstring is pybind11's signature line, for tools/generate_stubs.py; genesis/_docs adds the
// text (Note [Docstrings in Python]).
PyMethodDef kReplayDef = {"replay", replay_method, METH_NOARGS,
                          "replay(self: genesis._C._cuda._CUDAGraph) -> None\n"};

}  // namespace

void init_cuda_graph(py::module_& m) {
  py::module_ c = m.attr("_cuda").cast<py::module_>();
  // genesis.cuda.CUDAGraph subclasses this handle and takes `replay` from it as it is, so a
  // replay (all host cost, Note [Driver graph launches]) runs no Python frame of its own. The other
  // methods are wrapped in Python.
  py::class_<cuda::Graph> graph(c, "_CUDAGraph");
  graph.def(py::init<>())
      .def(
          "_capture_begin",
          [](cuda::Graph& g, cuda::GraphPoolId pool, const std::string& mode) {
            fusion::flush();  // ops deferred before the capture run now, not in the graph
            g.capture_begin(pool, capture_mode(mode));
          },
          py::arg("pool") = 0, py::arg("capture_error_mode") = "global")
      .def("_capture_end",
           [](cuda::Graph& g) {
             fusion::flush();  // ops deferred during the capture belong to the graph
             g.capture_end();
           })
      .def("_replay", &cuda::Graph::replay)
      .def("_reset", &cuda::Graph::reset)
      .def("_pool", &cuda::Graph::pool)
      .def("_capturing", &cuda::Graph::capturing)
      .def("_captured", &cuda::Graph::captured);
  py::setattr(graph, "replay",
              py::reinterpret_steal<py::object>(
                  PyDescr_NewMethod(reinterpret_cast<PyTypeObject*>(graph.ptr()), &kReplayDef)));
  c.def("graph_pool_id", &cuda::new_graph_pool_id);
  c.def("_graph_launch_through_driver", &cuda::graph_launch_through_driver);
  c.def("is_current_stream_capturing", [] {
    if (cuda::device_count() == 0) return false;
    int device = cuda::current_device();
    return cuda::is_stream_capturing(device, cuda::current_stream(device));
  });
  c.def(
      "graph_pool_bytes",
      [](cuda::GraphPoolId pool, int device) {
        return graph_device_pool(device)->private_pool_bytes(pool);
      },
      py::arg("pool"), py::arg("device") = -1);
  c.def(
      "graph_pool_use_count",
      [](cuda::GraphPoolId pool, int device) {
        return graph_device_pool(device)->pool_use_count(pool);
      },
      py::arg("pool"), py::arg("device") = -1);
}

}  // namespace genesis::python
