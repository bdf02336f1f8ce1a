#include "python/tensor_lists.h"

#include "core/errors.h"

namespace genesis::python {

TensorRefs borrowed_tensors(py::handle items, const char* op, const char* what, bool none_ok) {
  TensorRefs out;
  if (py::isinstance<TensorList>(items)) {
    const std::vector<Tensor>& held = items.cast<const TensorList&>().items;
    out.reserve(held.size());
    for (const Tensor& t : held) out.push_back(&t);
    return out;
  }
  GENESIS_CHECK_TYPE(py::isinstance<py::list>(items), op, "expected a list of ", what, "s, got ",
                     type_name(items));
  const auto n = static_cast<size_t>(PyList_GET_SIZE(items.ptr()));
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    // Borrowed: the list (an argument of the call) holds its items.
    py::handle item = PyList_GET_ITEM(items.ptr(), static_cast<Py_ssize_t>(i));
    if (none_ok && item.is_none()) {
      out.push_back(nullptr);
      continue;
    }
    GENESIS_CHECK_TYPE(py::isinstance<Tensor>(item), op, "expected ", what, " ", i,
                       " to be a tensor, got ", type_name(item));
    out.push_back(&item.cast<const Tensor&>());
  }
  return out;
}

std::vector<Tensor> owned_tensors(py::handle items, const char* op, const char* what,
                                  bool none_ok) {
  std::vector<Tensor> out;
  for (const Tensor* t : borrowed_tensors(items, op, what, none_ok))
    out.push_back(t != nullptr ? *t : Tensor());
  return out;
}

void init_tensor_list(py::module_& optim) {
  py::class_<TensorList>(optim, "TensorList",
                         "Tensors held in C++: the gradients a step reads (_params_and_grads).")
      .def("__len__", [](const TensorList& l) { return l.items.size(); })
      .def("__getitem__",
           [](const TensorList& l, py::ssize_t i) {
             const auto n = static_cast<py::ssize_t>(l.items.size());
             GENESIS_CHECK_INDEX(-n <= i && i < n, "TensorList", "index ", i,
                                 " is out of range for ", n, " tensors");
             return l.items[static_cast<size_t>(i < 0 ? i + n : i)];
           })
      .def("__iter__", [](const TensorList& l) {
        // Over copies (new handles on the same tensors), as __getitem__ gives.
        py::list copies;
        for (const Tensor& t : l.items) copies.append(py::cast(t));
        return py::iter(copies);
      });
}

}  // namespace genesis::python
