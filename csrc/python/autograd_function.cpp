// genesis.autograd.Function's node: a Python backward in the C++ graph (Note [Custom
// Functions]). genesis/autograd/function.py runs forward and calls _record_function here.
#include <memory>
#include <string>
#include <vector>

#include "autograd/grad_mode.h"
#include "autograd/meta.h"
#include "autograd/node.h"
#include "core/errors.h"
#include "python/bindings.h"

namespace genesis::python {

// Note [Custom Functions]
// ~~~~~~~~~~~~~~~~~~~~~~~
// Function.apply runs forward under no_grad, then records one FunctionNode: an edge per
// argument of forward (none for a non-tensor or one that needs no grad), the tensors
// ctx.save_for_backward kept (SavedTensors: the version check and the release after backward
// come with them; an output is saved without its meta, as Recorder::save_output does), and the
// outputs' history. The node holds the ctx (through the Python backward it calls); the ctx
// holds the node only weakly (a FunctionHandle), so the pair is no reference cycle. backward
// runs under the GIL; its exceptions reach the caller of backward() unchanged.

namespace {

namespace au = genesis::autograd;

// A Python object that may be dropped from any thread: the GIL is taken to release it.
std::shared_ptr<py::object> held(py::object obj) {
  return std::shared_ptr<py::object>(new py::object(std::move(obj)), [](py::object* o) {
    py::gil_scoped_acquire gil;
    delete o;
  });
}

class FunctionNode : public au::Node {
 public:
  FunctionNode(std::string name, py::object backward)
      : name_(std::move(name)), backward_(held(std::move(backward))) {}

  au::Grads apply(au::Grads&& grads) override {
    py::gil_scoped_acquire gil;
    py::tuple args(grads.size());
    for (size_t i = 0; i < grads.size(); ++i) args[i] = py::cast(std::move(grads[i]));
    py::object r = (*backward_)(*args);
    py::tuple results = py::isinstance<py::tuple>(r) ? r.cast<py::tuple>() : py::make_tuple(r);
    GENESIS_CHECK(results.size() == next_edges.size(), "backward", "function ", name_,
                  " returned an incorrect number of gradients (expected ", next_edges.size(),
                  ", got ", results.size(), ")");
    au::Grads out(next_edges.size());
    for (size_t i = 0; i < results.size(); ++i) {
      py::handle g = results[i];
      if (g.is_none()) continue;
      GENESIS_CHECK_TYPE(py::isinstance<Tensor>(g), "backward", "function ", name_,
                         " returned a gradient of type ", type_name(g), " at index ", i,
                         "; expected a Tensor or None");
      if (needs_grad(i)) out[i] = g.cast<Tensor>();
    }
    return out;
  }
  std::string name() const override { return name_; }
  void release_saved() override {
    for (au::SavedTensor& s : saved) s.release();
  }

  std::vector<au::SavedTensor> saved;

 private:
  std::string name_;
  std::shared_ptr<py::object> backward_;
};

// What ctx keeps of its node: the way to its saved tensors, without keeping the node alive.
struct FunctionHandle {
  std::weak_ptr<FunctionNode> node;
  py::tuple saved_tensors() const {
    std::shared_ptr<FunctionNode> n = node.lock();
    GENESIS_CHECK(n != nullptr, "saved_tensors",
                  "the graph of this Function is gone: saved tensors are only available while "
                  "its backward can still run");
    py::tuple out(n->saved.size());
    for (size_t i = 0; i < n->saved.size(); ++i) {
      Tensor t = n->saved[i].unpack(*n);
      out[i] = t.defined() ? py::cast(std::move(t)) : py::none();
    }
    return out;
  }
};

// inputs: forward's arguments (a Tensor or None each); outputs: the tensors forward returned
// (aliases of inputs already replaced); saved: ctx.save_for_backward's tensors, each with the
// index of the output it is, or -1; non_differentiable: flags per output.
py::object record_function(const std::string& name, py::object backward, py::list inputs,
                           py::list outputs, py::list saved, std::vector<int64_t> saved_output,
                           std::vector<bool> non_differentiable) {
  auto node = au::make_node<FunctionNode>(name, std::move(backward));
  for (py::handle h : inputs) {
    bool tracked = py::isinstance<Tensor>(h) && au::requires_grad(h.cast<const Tensor&>());
    if (tracked) {
      const Tensor& t = h.cast<const Tensor&>();
      node->next_edges.push_back(au::gradient_edge(t));
      node->input_info.emplace_back(t);
    } else {
      node->next_edges.emplace_back();
      node->input_info.emplace_back();
    }
  }
  std::vector<Tensor*> outs;
  for (py::handle h : outputs) outs.push_back(&h.cast<Tensor&>());
  for (size_t i = 0; i < saved.size(); ++i) {
    py::handle h = saved[i];
    if (h.is_none()) {
      node->saved.emplace_back();
      continue;
    }
    const Tensor& t = h.cast<const Tensor&>();
    int64_t nr = saved_output[i];
    node->saved.push_back(nr >= 0 ? au::SavedTensor::output(t, node, static_cast<uint32_t>(nr))
                                  : au::SavedTensor(t, false));
  }
  au::set_history(node, outs);
  for (size_t i = 0; i < outs.size() && i < non_differentiable.size(); ++i)
    if (non_differentiable[i]) outs[i]->set_autograd_meta(nullptr);
  return py::cast(FunctionHandle{node});
}

}  // namespace

void init_autograd_function(py::module_& autograd) {
  py::class_<FunctionHandle>(autograd, "_FunctionHandle",
                             "A custom Function's node, as its ctx sees it")
      .def_property_readonly("saved_tensors", &FunctionHandle::saved_tensors,
                             "The tensors save_for_backward kept, unpacked (version-checked)");
  autograd.def("_record_function", &record_function, py::arg("name"), py::arg("backward"),
               py::arg("inputs"), py::arg("outputs"), py::arg("saved"), py::arg("saved_output"),
               py::arg("non_differentiable"),
               "Records a custom Function's node (genesis/autograd/function.py)");
}

}  // namespace genesis::python
