#pragma once
// The lists of tensors genesis.optim's compiled steps take: a Python sequence of tensors, or a
// TensorList, the gradients _C._optim._params_and_grads reads, held in C++ (one Python object for
// the whole list: a Python list would make one per tensor, about half a microsecond each, which
// over a model's hundreds of parameters was half of a step's host work).
#include <vector>

#include "core/tensor.h"
#include "python/bindings.h"

namespace genesis::python {

struct TensorList {
  std::vector<Tensor> items;
};

// The tensors of `items` (a list of tensors, or a TensorList), borrowed: `items` (an argument
// of the call) outlives the result. None entries become null where `none_ok`; any other entry
// that is not a tensor raises TypeError "[op] expected <what> <i> to be a tensor, got ...".
TensorRefs borrowed_tensors(py::handle items, const char* op, const char* what,
                            bool none_ok = false);

// The same, copied (None entries as undefined tensors).
std::vector<Tensor> owned_tensors(py::handle items, const char* op, const char* what,
                                  bool none_ok = false);

// Binds _C._optim.TensorList (len, indexing, iteration).
void init_tensor_list(py::module_& optim);

}  // namespace genesis::python
