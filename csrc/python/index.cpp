// x[key] and x[key] = value: the key becomes a C++ IndexList; csrc/index plans and runs it.
#include "autograd/ops.h"
#include "core/errors.h"
#include "index/plan.h"
#include "ops/indexing.h"
#include "python/bindings.h"
#include "python/tensor_object.h"

namespace genesis::python {

namespace {

std::optional<int64_t> slice_bound(PyObject* v) {
  if (v == Py_None) return std::nullopt;
  return to_int(v, "index", "slice bound");
}

IndexItem to_item(py::handle obj) {
  PyObject* p = obj.ptr();
  if (PyBool_Check(p)) return IndexItem::make_boolean(p == Py_True);
  if (PyLong_Check(p)) return IndexItem::make_integer(to_int(obj, "index", "index"));
  if (PySlice_Check(p)) {
    auto* s = reinterpret_cast<PySliceObject*>(p);
    int64_t step = s->step == Py_None ? 1 : to_int(s->step, "index", "slice step");
    GENESIS_CHECK_VALUE(step != 0, "index", "slice step cannot be zero");
    return IndexItem::make_slice(slice_bound(s->start), slice_bound(s->stop), step);
  }
  if (p == Py_None) return IndexItem::make(IndexItem::Kind::None);
  if (p == Py_Ellipsis) return IndexItem::make(IndexItem::Kind::Ellipsis);
  if (const Tensor* found = tensor_of(p)) {
    const Tensor& t = *found;
    GENESIS_CHECK_INDEX(is_integral(t.dtype(), true), "index",
                        "tensors used as indices must be integer or boolean, got ",
                        scalar_type_name(t.dtype()));
    return IndexItem::make_tensor(t);
  }
  if (py::isinstance<py::array>(obj) || PyList_Check(p) || PyTuple_Check(p)) {
    Tensor t = tensor_from_data(obj, std::nullopt, kCPU);
    // An empty list holds no values to infer from: it is an empty integer index, as in NumPy.
    if (t.numel() == 0 && is_floating_point(t.dtype()) && !py::isinstance<py::array>(obj))
      t = Tensor::empty(t.sizes(), ScalarType::Int64, kCPU);
    GENESIS_CHECK_INDEX(is_integral(t.dtype(), true), "index",
                        "arrays used as indices must be of integer or boolean type, got ",
                        scalar_type_name(t.dtype()));
    return IndexItem::make_tensor(t);
  }
  if (!PyFloat_Check(p) && PyIndex_Check(p))
    return IndexItem::make_integer(to_int(obj, "index", "index"));
  GENESIS_FAIL(ErrorKind::Index, "index",
               "only integers, slices (`:`), ellipsis (`...`), None and integer or boolean "
               "tensors are valid indices (got ",
               type_name(obj), ")");
}

IndexList to_index_list(py::handle key) {
  IndexList items;
  if (PyTuple_Check(key.ptr())) {
    for (py::handle k : py::reinterpret_borrow<py::tuple>(key)) items.push_back(to_item(k));
  } else {
    items.push_back(to_item(key));
  }
  return items;
}

// x[key] without pybind11's dispatch: the planner's result goes straight into a new object
// (Note [Operator slots], Note [Unregistered results]).
PyObject* getitem_slot(PyObject* self, PyObject* key) {
  try {
    const Tensor* t = tensor_of(self);
    GENESIS_CHECK_TYPE(t != nullptr, "index", "expects a genesis.Tensor");
    return new_tensor_object(ag::index_get(*t, to_index_list(key)));
  } catch (...) {
    py::detail::try_translate_exceptions();
    return nullptr;
  }
}

}  // namespace

void install_index_slot(py::handle tensor_class) {
  auto* type = reinterpret_cast<PyTypeObject*>(tensor_class.ptr());
  type->tp_as_mapping->mp_subscript = getitem_slot;  // the heap type's own table
}

void init_index(py::module_& m, py::class_<Tensor>& cls) {
  py::enum_<IndexPlanKind>(m, "IndexKind")
      .value("VIEW", IndexPlanKind::VIEW)
      .value("GATHER", IndexPlanKind::GATHER)
      .value("SCATTER", IndexPlanKind::SCATTER)
      .value("COPY", IndexPlanKind::COPY)
      .value("FILL", IndexPlanKind::FILL);
  py::enum_<IndexPath>(m, "IndexPath")
      .value("VIEW", IndexPath::VIEW)
      .value("OFFSETS", IndexPath::OFFSETS)
      .value("ONE_INDEX", IndexPath::ONE_INDEX)
      .value("FIRST_DIM", IndexPath::FIRST_DIM)
      .value("MASK_COMPACT", IndexPath::MASK_COMPACT)
      .value("MASKED_FILL", IndexPath::MASKED_FILL);
  py::class_<IndexPlan>(m, "IndexPlan")
      .def_readonly("kind", &IndexPlan::kind)
      .def_readonly("path", &IndexPlan::path)
      .def("__repr__", [](const IndexPlan& p) {
        return std::string("IndexPlan(kind=") + index_plan_kind_name(p.kind) +
               ", path=" + index_path_name(p.path) + ")";
      });

  cls.def("__getitem__",
          [](const Tensor& t, py::handle key) { return ag::index_get(t, to_index_list(key)); })
      .def("__setitem__",
           [](const Tensor& t, py::handle key, py::handle value) {
             // Through the out-of-place formula when autograd is involved (a non-leaf that
             // requires grad, or a value that does): Note [In-place ops and autograd].
             IndexList items = to_index_list(key);
             if (!py::isinstance<Tensor>(value) && is_scalar_like(value)) {
               Scalar s = to_scalar(value, "setitem");
               ag::apply_inplace(
                   t, {}, "setitem",
                   [&](const Tensor& old) { return ag::index_put(old, items, ops::Operand(s)); },
                   [&] { ops::index_fill(t, items, s); });
               return;
             }
             Tensor v = py::isinstance<Tensor>(value) ? value.cast<Tensor>()
                                                      : tensor_from_data(value, std::nullopt, kCPU);
             ag::apply_inplace(
                 t, {&v}, "setitem",
                 [&](const Tensor& old) { return ag::index_put(old, items, ops::Operand(v)); },
                 [&] { ops::index_put(t, items, v); });
           })
      .def(
          "_index_plan",
          [](const Tensor& t, py::handle key, py::handle value) {
            IndexList items = to_index_list(key);
            if (value.is_none()) return plan_getitem(t, items);
            if (is_scalar_like(value)) return plan_setitem(t, items, Tensor());
            if (py::isinstance<Tensor>(value))
              return plan_setitem(t, items, value.cast<const Tensor&>());
            return plan_setitem(t, items, tensor_from_data(value, std::nullopt, kCPU));
          },
          py::arg("key"), py::arg("value") = py::none());
}

}  // namespace genesis::python
