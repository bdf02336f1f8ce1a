#include "dlpack/convert.h"

#include <vector>

#include "core/errors.h"
#include "cuda/runtime.h"

namespace genesis::dlpack {

DLDataType to_dl_dtype(ScalarType t) {
  uint8_t bits = static_cast<uint8_t>(itemsize(t) * 8);
  switch (t) {
    case ScalarType::Bool:
      return {kDLBool, 8, 1};
    case ScalarType::UInt8:
      return {kDLUInt, 8, 1};
    case ScalarType::BFloat16:
      return {kDLBfloat, 16, 1};
    case ScalarType::Float16:
    case ScalarType::Float32:
    case ScalarType::Float64:
      return {kDLFloat, bits, 1};
    default:
      return {kDLInt, bits, 1};
  }
}

ScalarType from_dl_dtype(DLDataType t) {
  GENESIS_CHECK_KIND_(ErrorKind::Buffer, t.lanes == 1, "from_dlpack",
                      "vector dtypes (lanes=", t.lanes, ") are not supported");
  switch (t.code) {
    case kDLBool:
      if (t.bits == 8) return ScalarType::Bool;
      break;
    case kDLUInt:
      if (t.bits == 8) return ScalarType::UInt8;
      break;
    case kDLInt:
      if (t.bits == 8) return ScalarType::Int8;
      if (t.bits == 16) return ScalarType::Int16;
      if (t.bits == 32) return ScalarType::Int32;
      if (t.bits == 64) return ScalarType::Int64;
      break;
    case kDLFloat:
      if (t.bits == 16) return ScalarType::Float16;
      if (t.bits == 32) return ScalarType::Float32;
      if (t.bits == 64) return ScalarType::Float64;
      break;
    case kDLBfloat:
      if (t.bits == 16) return ScalarType::BFloat16;
      break;
  }
  GENESIS_FAIL(ErrorKind::Buffer, "from_dlpack", "unsupported DLPack dtype (code ",
               static_cast<int>(t.code), ", ", static_cast<int>(t.bits), " bits)");
}

DLDevice to_dl_device(Device d) {
  if (d.is_cpu()) return {kDLCPU, 0};
  return {kDLCUDA, d.index};
}

Device from_dl_device(DLDevice d) {
  if (d.device_type == kDLCPU || d.device_type == kDLCUDAHost) return kCPU;
  if (d.device_type == kDLCUDA) {
    GENESIS_CHECK_KIND_(ErrorKind::Buffer, cuda::device_count() > d.device_id, "from_dlpack",
                        "the tensor is on cuda:", d.device_id, ", but ", cuda::device_count(),
                        " CUDA device(s) are available to genesis");
    return cuda::resolve(Device{DeviceType::CUDA, d.device_id});
  }
  GENESIS_FAIL(ErrorKind::Buffer, "from_dlpack", "unsupported DLPack device type ",
               static_cast<int>(d.device_type), "; genesis takes CPU and CUDA memory");
}

namespace {

// What a managed tensor owns: the tensor (so its storage stays alive) and the shape/strides
// arrays the DLTensor points into.
struct Context {
  Tensor tensor;
  std::vector<int64_t> shape, strides;
};

template <typename Managed>
Managed* make(const Tensor& t) {
  auto* ctx = new Context{t, t.sizes(), t.strides()};
  auto* m = new Managed{};
  m->manager_ctx = ctx;
  DLTensor& dl = m->dl_tensor;
  dl.data = t.share_data();  // the storage offset is folded in; byte_offset stays 0
  dl.device = to_dl_device(t.device());
  dl.ndim = static_cast<int32_t>(t.ndim());
  dl.dtype = to_dl_dtype(t.dtype());
  dl.shape = ctx->shape.data();
  dl.strides = ctx->strides.data();
  dl.byte_offset = 0;
  m->deleter = [](Managed* self) {
    delete static_cast<Context*>(self->manager_ctx);
    delete self;
  };
  return m;
}

}  // namespace

DLManagedTensorVersioned* export_versioned(const Tensor& t, uint64_t flags) {
  auto* m = make<DLManagedTensorVersioned>(t);
  m->version = {GENESIS_DLPACK_MAJOR_VERSION, GENESIS_DLPACK_MINOR_VERSION};
  m->flags = flags;
  return m;
}

DLManagedTensor* export_legacy(const Tensor& t) { return make<DLManagedTensor>(t); }

Tensor import(const DLTensor& dl, void* owner, void (*release)(void*, void*), bool writable) {
  GENESIS_CHECK_KIND_(ErrorKind::Buffer, dl.ndim >= 0, "from_dlpack", "negative ndim ", dl.ndim);
  ScalarType dtype = from_dl_dtype(dl.dtype);
  Device device = from_dl_device(dl.device);
  Shape sizes(dl.shape, dl.shape + dl.ndim);
  Shape strides = dl.strides ? Shape(dl.strides, dl.strides + dl.ndim) : contiguous_strides(sizes);
  for (int64_t s : sizes)
    GENESIS_CHECK_KIND_(ErrorKind::Buffer, s >= 0, "from_dlpack", "negative size in shape ",
                        shape_str(sizes));
  int64_t item = static_cast<int64_t>(itemsize(dtype));
  GENESIS_CHECK_KIND_(ErrorKind::Buffer, dl.byte_offset % static_cast<uint64_t>(item) == 0,
                      "from_dlpack", "byte_offset ", dl.byte_offset,
                      " is not a multiple of the item size ", item);
  char* first = static_cast<char*>(dl.data) + dl.byte_offset;
  // The storage spans every element, from the lowest address (negative strides reach below
  // the first element) to the highest; size-1 dims contribute nothing whatever their stride.
  int64_t lo = 0, hi = 0;
  bool empty = numel_of(sizes) == 0;
  for (size_t d = 0; d < sizes.size() && !empty; ++d)
    (strides[d] < 0 ? lo : hi) += (sizes[d] - 1) * strides[d];
  size_t nbytes = empty ? 0 : static_cast<size_t>((hi - lo + 1) * item);
  char* base = empty ? first : first + lo * item;
  Storage storage = Storage::wrap(DataPtr(base, owner, release, device), nbytes, writable);
  storage.mark_shared();  // the producer may write it
  return Tensor(storage, std::move(sizes), std::move(strides), empty ? 0 : -lo, dtype);
}

}  // namespace genesis::dlpack
