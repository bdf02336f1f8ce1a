#include "dlpack/convert.h"

#include <cstdint>
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
void delete_exported(Managed* self) {
  delete static_cast<Context*>(self->manager_ctx);
  delete self;
}

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
  m->deleter = &delete_exported<Managed>;
  return m;
}

// Note [Round trips through DLPack]
// A capsule genesis exported holds the exported tensor (Context), and its deleter is genesis's
// own: from_dlpack of it takes that tensor's storage back rather than wrapping the capsule in a
// new storage that owns it. Otherwise each round trip would add a link to a chain of owners
// (storage -> capsule -> tensor -> storage ...) that a few hundred thousand round trips made
// too deep to free without running out of stack (as Note [Round trips through NumPy]).
template <typename Managed>
const Tensor* exported_tensor_of(const Managed* m) {
  if (m == nullptr || m->deleter != &delete_exported<Managed>) return nullptr;
  return &static_cast<const Context*>(m->manager_ctx)->tensor;
}

}  // namespace

const Tensor* exported_tensor(const DLManagedTensorVersioned* m) { return exported_tensor_of(m); }
const Tensor* exported_tensor(const DLManagedTensor* m) { return exported_tensor_of(m); }

DLManagedTensorVersioned* export_versioned(const Tensor& t, uint64_t flags) {
  auto* m = make<DLManagedTensorVersioned>(t);
  m->version = {GENESIS_DLPACK_MAJOR_VERSION, GENESIS_DLPACK_MINOR_VERSION};
  m->flags = flags;
  return m;
}

DLManagedTensor* export_legacy(const Tensor& t) { return make<DLManagedTensor>(t); }

// Note [Checked capsules]: a capsule's fields come from another library or from a hand-made
// ctypes structure, and nothing says how big the producer's buffer is. What can be checked is
// that the fields describe a tensor at all: at most kMaxDims dims, a shape array where ndim > 0,
// an element count, a byte span and an address range that fit 64 bits (Note [Checked sizes]).
// A capsule that fails raises BufferError and is left unconsumed.
#define GENESIS_CAPSULE_CHECK(cond, ...) \
  GENESIS_CHECK_KIND_(ErrorKind::Buffer, cond, "from_dlpack", __VA_ARGS__)

Tensor import(const DLTensor& dl, void* owner, void (*release)(void*, void*), bool writable) {
  GENESIS_CAPSULE_CHECK(dl.ndim >= 0, "negative ndim ", dl.ndim);
  GENESIS_CAPSULE_CHECK(dl.ndim <= kMaxDims, "ndim ", dl.ndim, " is more than the ", kMaxDims,
                        " dims a tensor may have");
  GENESIS_CAPSULE_CHECK(dl.ndim == 0 || dl.shape != nullptr, "the shape array is NULL");
  ScalarType dtype = from_dl_dtype(dl.dtype);
  Device device = from_dl_device(dl.device);
  Shape sizes(dl.shape, dl.shape + dl.ndim);
  int64_t numel = 1;
  for (int64_t s : sizes) {
    GENESIS_CAPSULE_CHECK(s >= 0, "negative size in shape ", shape_str(sizes));
    GENESIS_CAPSULE_CHECK(!__builtin_mul_overflow(numel, s, &numel), "shape ", shape_str(sizes),
                          " has more elements than fit 64 bits");
  }
  Shape strides = dl.strides ? Shape(dl.strides, dl.strides + dl.ndim) : contiguous_strides(sizes);
  int64_t item = static_cast<int64_t>(itemsize(dtype));
  GENESIS_CAPSULE_CHECK(dl.byte_offset % static_cast<uint64_t>(item) == 0, "byte_offset ",
                        dl.byte_offset, " is not a multiple of the item size ", item);
  // The storage spans every element, from the lowest address (negative strides reach below
  // the first element) to the highest; size-1 dims contribute nothing whatever their stride.
  bool empty = numel == 0;
  int64_t lo = 0, hi = 0, span_bytes = 0;
  bool fits = true;
  for (size_t d = 0; d < sizes.size() && !empty; ++d) {
    if (sizes[d] == 1) continue;
    int64_t reach = 0;
    fits = fits && !__builtin_mul_overflow(sizes[d] - 1, strides[d], &reach);
    fits = fits &&
           !__builtin_add_overflow(strides[d] < 0 ? lo : hi, reach, strides[d] < 0 ? &lo : &hi);
  }
  int64_t span = 0;
  fits = fits && (empty || (!__builtin_sub_overflow(hi, lo, &span) &&
                            !__builtin_add_overflow(span, int64_t{1}, &span) &&
                            !__builtin_mul_overflow(span, item, &span_bytes)));
  // The first element's address and the span's ends, as addresses that must not wrap.
  uintptr_t first = 0, low_end = 0, high_end = 0, low_offset = 0;
  fits = fits && dl.byte_offset <= static_cast<uint64_t>(INT64_MAX) &&
         !__builtin_add_overflow(reinterpret_cast<uintptr_t>(dl.data), dl.byte_offset, &first) &&
         !__builtin_mul_overflow(uintptr_t{0} - static_cast<uintptr_t>(lo),
                                 static_cast<uintptr_t>(item), &low_offset) &&
         !__builtin_sub_overflow(first, low_offset, &low_end) &&
         !__builtin_add_overflow(low_end, static_cast<uintptr_t>(span_bytes), &high_end);
  GENESIS_CAPSULE_CHECK(fits, "shape ", shape_str(sizes), " with strides ", shape_str(strides),
                        " and byte_offset ", dl.byte_offset,
                        " spans more bytes than fit 64 bits or wraps the address space");
  size_t nbytes = empty ? 0 : static_cast<size_t>(span_bytes);
  char* base = empty ? reinterpret_cast<char*>(first) : reinterpret_cast<char*>(low_end);
  Storage storage = Storage::wrap(DataPtr(base, owner, release, device), nbytes, writable);
  storage.mark_shared();  // the producer may write it
  return Tensor(storage, std::move(sizes), std::move(strides), empty ? 0 : -lo, dtype);
}

}  // namespace genesis::dlpack
