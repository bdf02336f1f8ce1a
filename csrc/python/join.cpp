// genesis.cat (concat, concatenate) and genesis.stack.
#include <limits>

#include "autograd/ops.h"
#include "core/errors.h"
#include "ops/join.h"
#include "python/bindings.h"

namespace genesis::python {

namespace {

// Any Python sequence of tensors; a tensor itself is rejected although it is indexable, as in
// PyTorch.
std::vector<Tensor> to_tensors(py::handle seq, const char* op) {
  GENESIS_CHECK_TYPE(
      PySequence_Check(seq.ptr()) && !py::isinstance<Tensor>(seq) && !py::isinstance<py::str>(seq),
      op, "expected a sequence of tensors, got ", type_name(seq));
  std::vector<Tensor> out;
  size_t i = 0;
  for (const py::object& item :
       sequence_items(seq, op, "the sequence of tensors", std::numeric_limits<int64_t>::max())) {
    GENESIS_CHECK_TYPE(py::isinstance<Tensor>(item), op,
                       "expected a sequence of tensors, but element ", i, " is ", type_name(item));
    out.push_back(item.cast<Tensor>());
    ++i;
  }
  return out;
}

}  // namespace

void init_join(py::module_& m, py::class_<Tensor>& /*cls*/) {
  for (const char* name : {"cat", "concat", "concatenate"})
    m.def(
        name,
        [](py::handle tensors, int64_t dim) { return ag::cat(to_tensors(tensors, "cat"), dim); },
        py::arg("tensors"), py::arg("dim") = 0);
  m.def(
      "stack",
      [](py::handle tensors, int64_t dim) { return ag::stack(to_tensors(tensors, "stack"), dim); },
      py::arg("tensors"), py::arg("dim") = 0);
}

}  // namespace genesis::python
