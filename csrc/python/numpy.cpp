// Zero-copy exchange with NumPy on the CPU: t.numpy(), np.asarray(t), genesis.from_numpy(a).
#include "autograd/node.h"
#include "autograd/ops.h"
#include "core/errors.h"
#include "fusion/group.h"
#include "ops/convert.h"
#include "python/bindings.h"

namespace genesis::python {

namespace {

// A NumPy array's memory, owned by a reference to the array. The deleter may run on any thread
// (the last view can die anywhere), so it takes the GIL; after interpreter shutdown it leaks.
void release_array(void*, void* context) {
  if (!Py_IsInitialized()) return;
  py::gil_scoped_acquire gil;
  Py_DECREF(static_cast<PyObject*>(context));
}

// Note [Round trips through NumPy]
// t.numpy() gives an array whose base is a capsule holding t's storage; from_numpy of that
// array (or of a view of it) takes the storage itself back, instead of wrapping the array in a
// new storage that would own it. Otherwise each round trip would add a link to a chain
// (storage -> array -> capsule -> storage -> ...), and freeing a chain of a few hundred
// thousand links ran out of stack. A read-only array over a writable storage is still wrapped,
// so that the tensor made from it stays read-only.
constexpr const char* kStorageCapsule = "genesis.storage";

// The genesis storage an array's memory belongs to, when the array was exported by numpy().
const Storage* exported_storage(const py::array& array) {
  py::object base = array.base();
  while (py::isinstance<py::array>(base)) base = py::reinterpret_borrow<py::array>(base).base();
  if (!PyCapsule_IsValid(base.ptr(), kStorageCapsule)) return nullptr;
  return static_cast<const Storage*>(PyCapsule_GetPointer(base.ptr(), kStorageCapsule));
}

}  // namespace

Tensor tensor_from_numpy(py::array array, const char* op) {
  ScalarType dtype = from_numpy_dtype(array.dtype(), op);
  GENESIS_CHECK_TYPE(array.dtype().byteorder() != '>', op,
                     "arrays in non-native byte order cannot be shared; use a native copy");
  int64_t item = static_cast<int64_t>(itemsize(dtype));
  Shape sizes(array.ndim()), strides(array.ndim());
  int64_t lo = 0, hi = 0;  // byte reach below and above the first element
  bool empty = array.size() == 0;
  for (py::ssize_t d = 0; d < array.ndim(); ++d) {
    sizes[d] = array.shape(d);
    int64_t byte_stride = array.strides(d);
    GENESIS_CHECK_VALUE(byte_stride % item == 0, op, "the array's strides (",
                        py::str(py::tuple(array.attr("strides"))).cast<std::string>(),
                        ") are not multiples of its item size ", item,
                        "; genesis strides count elements");
    strides[d] = byte_stride / item;
    if (!empty) (byte_stride < 0 ? lo : hi) += (sizes[d] - 1) * byte_stride;
  }
  char* first = static_cast<char*>(const_cast<void*>(array.data()));
  GENESIS_CHECK_VALUE(empty || reinterpret_cast<uintptr_t>(first) % item == 0, op,
                      "the array's data is not aligned to its item size");
  size_t nbytes = empty ? 0 : static_cast<size_t>(hi - lo + item);
  if (const Storage* exported = exported_storage(array); exported != nullptr && !empty) {
    const char* start = static_cast<const char*>(exported->data());
    int64_t from = (first + lo) - start;  // bytes from the storage's start to the lowest item
    bool inside = from >= 0 && static_cast<size_t>(from) + nbytes <= exported->nbytes();
    if (inside && (first - start) % item == 0 && exported->is_writable() == array.writeable())
      return Tensor(*exported, std::move(sizes), std::move(strides), (first - start) / item, dtype);
  }
  PyObject* owner = array.ptr();
  Py_INCREF(owner);
  // A read-only array (np.frombuffer of bytes, a memmap with mode='r') gives a read-only storage
  // (Note [Read-only storages] in core/storage.h).
  Storage storage =
      Storage::wrap(DataPtr(first + lo, owner, &release_array, kCPU), nbytes, array.writeable());
  storage.mark_shared();  // NumPy may write it (through another, writable view)
  return Tensor(storage, std::move(sizes), std::move(strides), empty ? 0 : -lo / item, dtype);
}

py::array tensor_to_numpy(const Tensor& t, const char* op) {
  GENESIS_CHECK_TYPE(!t.is_cuda(), op, "can't convert a ", t.device().str(),
                     " tensor to NumPy; copy it to the host first with .cpu()");
  py::dtype dt = numpy_dtype(t.dtype(), op);
  std::vector<py::ssize_t> shape(t.sizes().begin(), t.sizes().end());
  std::vector<py::ssize_t> strides(t.ndim());
  for (int64_t d = 0; d < t.ndim(); ++d)
    strides[d] = t.strides()[d] * static_cast<int64_t>(t.itemsize());
  if (t.numel() == 0 || t.data() == nullptr) return py::array(dt, shape);  // nothing to share
  // The array keeps the storage alive through a capsule that owns a Storage handle.
  auto* keep = new Storage(t.storage());
  py::capsule base(keep, kStorageCapsule, [](void* p) { delete static_cast<Storage*>(p); });
  py::array out(dt, shape, strides, t.share_data(), base);
  // As it came in, or read-only while autograd may read it (Note [Exports of saved tensors]).
  if (autograd::export_read_only(t)) out.attr("flags").attr("writeable") = false;
  return out;
}

void init_numpy(py::module_& m, py::class_<Tensor>& cls) {
  cls.def(
         "numpy",
         [](const Tensor& t, bool force) {
           fusion::check_python_read("numpy");
           if (force) {
             Tensor host =
                 ag::to(t, t.dtype() == ScalarType::BFloat16 ? ScalarType::Float32 : t.dtype(),
                        kCPU, false);
             return tensor_to_numpy(host, "numpy");
           }
           return tensor_to_numpy(t, "numpy");
         },
         py::kw_only(), py::arg("force") = false)
      .def(
          "__array__",
          [](const Tensor& t, py::object dtype, py::object copy) {
            py::object arr = tensor_to_numpy(t, "__array__");
            bool must_copy = !copy.is_none() && copy.cast<bool>();
            bool no_copy = !copy.is_none() && !copy.cast<bool>();
            if (!dtype.is_none() &&
                !py::dtype(arr.attr("dtype")).equal(py::dtype::from_args(dtype))) {
              // NumPy 2's protocol: copy=False must not copy, so a cast is an error.
              GENESIS_CHECK_VALUE(!no_copy, "__array__",
                                  "a dtype conversion needs a copy, but copy=False was given");
              return arr.attr("astype")(dtype);
            }
            return must_copy ? arr.attr("copy")() : arr;
          },
          py::arg("dtype") = py::none(), py::arg("copy") = py::none());
  m.def("from_numpy", [](py::handle obj) {
    GENESIS_CHECK_TYPE(py::isinstance<py::array>(obj), "from_numpy",
                       "expected a numpy.ndarray, got ", type_name(obj));
    return tensor_from_numpy(py::reinterpret_borrow<py::array>(obj), "from_numpy");
  });
}

}  // namespace genesis::python
