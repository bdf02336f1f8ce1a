// Autograd's Python face: Tensor.requires_grad / grad / grad_fn / is_leaf / detach /
// retain_grad / _version, the graph's nodes, grad mode, and the engine entry points that
// genesis/autograd wraps (backward, grad, hooks).
#include <memory>
#include <vector>

#include "autograd/engine.h"
#include "autograd/grad_mode.h"
#include "autograd/meta.h"
#include "autograd/node.h"
#include "autograd/ops.h"
#include "core/errors.h"
#include "python/bindings.h"

namespace genesis::python {

namespace {

namespace au = genesis::autograd;

py::object optional_tensor(Tensor t) { return t.defined() ? py::cast(std::move(t)) : py::none(); }

// A Python callable as a gradient hook; the callable is released under the GIL, wherever the
// last reference to the hook goes.
// A hook's replacement must be a gradient of the same tensor: a Tensor of the gradient's shape,
// dtype and device, or None to keep it. Anything else raises, naming the hook (PyTorch's
// messages), where broadcasting would have changed .grad silently.
GradHook python_hook(py::function fn) {
  std::string name = py::hasattr(fn, "__qualname__")
                         ? py::str(fn.attr("__qualname__")).cast<std::string>()
                         : type_name(fn);
  auto held = std::shared_ptr<py::object>(new py::object(std::move(fn)), [](py::object* o) {
    py::gil_scoped_acquire gil;
    delete o;
  });
  return [held, name](const Tensor& g) -> Tensor {
    const char* op = "backward";
    py::gil_scoped_acquire gil;
    py::object r = (*held)(py::cast(g));
    if (r.is_none()) return Tensor();
    GENESIS_CHECK_TYPE(py::isinstance<Tensor>(r), op, "hook '", name,
                       "' returned an object of type ", type_name(r),
                       "; a gradient hook must return a Tensor or None");
    Tensor out = r.cast<Tensor>();
    GENESIS_CHECK(out.sizes() == g.sizes(), op, "hook '", name,
                  "' has changed the size of value (was ", shape_str(g.sizes()), ", got ",
                  shape_str(out.sizes()), ")");
    GENESIS_CHECK(out.dtype() == g.dtype(), op, "hook '", name,
                  "' has changed the type of value (was ", scalar_type_name(g.dtype()), ", got ",
                  scalar_type_name(out.dtype()), ")");
    GENESIS_CHECK(out.device() == g.device(), op, "hook '", name,
                  "' has changed the device of value (was ", g.device().str(), ", got ",
                  out.device().str(), ")");
    return out;
  };
}

// What Tensor.register_hook returns: remove() takes the hook off again.
struct HookHandle {
  Tensor tensor;
  int64_t id;
  bool removed = false;
  void remove() {
    if (!removed) au::remove_hook(tensor, id);
    removed = true;
  }
};

// A tensor or a sequence of tensors (None entries stay undefined); None is no tensors.
std::vector<Tensor> tensor_list(py::handle obj, const char* op) {
  if (obj.is_none()) return {};
  if (py::isinstance<Tensor>(obj)) return {obj.cast<Tensor>()};
  GENESIS_CHECK_TYPE(PySequence_Check(obj.ptr()) && !py::isinstance<py::str>(obj), op,
                     "expected a tensor or a sequence of tensors, got ", type_name(obj));
  std::vector<Tensor> out;
  for (py::handle h : py::reinterpret_borrow<py::sequence>(obj))
    out.push_back(h.is_none() ? Tensor() : h.cast<Tensor>());
  return out;
}

bool keep_graph(py::handle retain_graph, bool create_graph) {
  return retain_graph.is_none() ? create_graph : py::cast<bool>(retain_graph);
}

void run_backward(py::handle tensors, py::handle grad_tensors, py::handle retain_graph,
                  bool create_graph, py::handle inputs) {
  const char* op = "backward";
  au::backward(tensor_list(tensors, op), tensor_list(grad_tensors, op),
               keep_graph(retain_graph, create_graph), create_graph, tensor_list(inputs, op));
}

}  // namespace

void init_autograd(py::module_& m, py::class_<Tensor>& cls) {
  ag::install_write_guard();
  py::class_<au::Node, std::shared_ptr<au::Node>>(m, "_Node",
                                                  "A node of the autograd graph (Tensor.grad_fn)")
      .def("name", &au::Node::name, "The node's name, PyTorch's: 'MulBackward0', ...")
      .def_property_readonly(
          "next_functions",
          [](const au::Node& n) {
            py::tuple out(n.next_edges.size());
            for (size_t i = 0; i < n.next_edges.size(); ++i) {
              const au::Edge& e = n.next_edges[i];
              out[i] = py::make_tuple(e.fn ? py::cast(e.fn) : py::none(), e.input_nr);
            }
            return out;
          },
          "(node, input_nr) for each input; None where an input needs no gradient")
      .def_property_readonly(
          "variable",
          [](const au::Node& n) -> py::object {
            auto* acc = dynamic_cast<const au::AccumulateGrad*>(&n);
            return acc ? py::cast(acc->leaf) : py::none();
          },
          "The leaf an AccumulateGrad node adds into")
      .def("__repr__", [](const au::Node& n) { return "<" + n.name() + " object>"; });

  py::class_<HookHandle>(m, "_HookHandle", "What Tensor.register_hook returns")
      .def("remove", &HookHandle::remove, "Takes the hook off (a second call does nothing)");

  cls.def_property(
         "requires_grad", [](const Tensor& t) { return au::requires_grad(t); },
         [](const Tensor& t, bool flag) { au::set_requires_grad(t, flag); })
      .def(
          "requires_grad_",
          [](py::object self, bool flag) {
            au::set_requires_grad(self.cast<const Tensor&>(), flag);
            return self;
          },
          py::arg("requires_grad") = true)
      .def_property(
          "grad", [](const Tensor& t) { return optional_tensor(au::grad(t)); },
          [](const Tensor& t, py::object g) {
            au::set_grad(t, g.is_none() ? Tensor() : g.cast<Tensor>());
          })
      .def_property_readonly("grad_fn",
                             [](const Tensor& t) -> py::object {
                               const auto& fn = au::grad_fn(t);
                               return fn ? py::cast(fn) : py::none();
                             })
      .def_property_readonly("is_leaf", [](const Tensor& t) { return au::is_leaf(t); })
      .def("detach", [](const Tensor& t) { return au::detach(t); })
      .def("detach_",
           [](py::object self) {
             const Tensor& t = self.cast<const Tensor&>();
             t.set_autograd_meta(nullptr);
             return self;
           })
      .def_property(
          "data", [](const Tensor& t) { return au::detach(t); },
          [](Tensor& t, const Tensor& value) {
            // Tensor.data = other: this tensor now views other's memory; its autograd
            // record stays.
            auto meta = t.autograd_meta();
            t = au::detach(value);
            t.set_autograd_meta(std::move(meta));
          })
      .def("retain_grad", [](const Tensor& t) { au::retain_grad(t); })
      .def_property_readonly("retains_grad", [](const Tensor& t) { return au::retains_grad(t); })
      .def(
          "register_hook",
          [](const Tensor& t, py::function fn) {
            return HookHandle{t, au::register_hook(t, python_hook(std::move(fn)))};
          },
          py::arg("hook"))
      .def(
          "register_post_accumulate_grad_hook",
          [](const Tensor& t, py::function fn) {
            auto held =
                std::shared_ptr<py::object>(new py::object(std::move(fn)), [](py::object* o) {
                  py::gil_scoped_acquire gil;
                  delete o;
                });
            PostAccumulateHook hook = [held](const Tensor& leaf) {
              py::gil_scoped_acquire gil;
              (*held)(py::cast(leaf));
            };
            return HookHandle{t, au::register_post_accumulate_grad_hook(t, std::move(hook))};
          },
          py::arg("hook"))
      .def(
          "backward",
          [](py::handle self, py::handle gradient, py::handle retain_graph, bool create_graph,
             py::handle inputs) {
            // One root: its gradient is a tensor or None, never a list of them.
            py::object grads = py::make_tuple(gradient);
            run_backward(py::make_tuple(self), grads, retain_graph, create_graph, inputs);
          },
          py::arg("gradient") = py::none(), py::arg("retain_graph") = py::none(),
          py::arg("create_graph") = false, py::arg("inputs") = py::none())
      .def_property_readonly("_version", [](const Tensor& t) { return au::version(t); });

  m.def("is_grad_enabled", &au::GradMode::is_enabled, "Whether grad mode is on in this thread");
  m.def("_set_grad_enabled", &au::GradMode::set_enabled, py::arg("enabled"));
  py::module_ ag = m.def_submodule("_autograd", "genesis.autograd's compiled functions");
  ag.def("backward", &run_backward, py::arg("tensors"), py::arg("grad_tensors") = py::none(),
         py::arg("retain_graph") = py::none(), py::arg("create_graph") = false,
         py::arg("inputs") = py::none());
  ag.def(
      "grad",
      [](py::handle outputs, py::handle inputs, py::handle grad_outputs, py::handle retain_graph,
         bool create_graph, bool allow_unused) {
        const char* op = "grad";
        std::vector<Tensor> got = au::grad(
            tensor_list(outputs, op), tensor_list(grad_outputs, op), tensor_list(inputs, op),
            keep_graph(retain_graph, create_graph), create_graph, allow_unused);
        py::tuple out(got.size());
        for (size_t i = 0; i < got.size(); ++i) out[i] = optional_tensor(got[i]);
        return out;
      },
      py::arg("outputs"), py::arg("inputs"), py::arg("grad_outputs") = py::none(),
      py::arg("retain_graph") = py::none(), py::arg("create_graph") = false,
      py::arg("allow_unused") = false);
  init_autograd_function(ag);
}

}  // namespace genesis::python
