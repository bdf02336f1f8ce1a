#pragma once
// The CUDA backend as the rest of genesis sees it: plain C++ declarations, no CUDA headers.
// csrc/cuda/*.cpp implement them with the CUDA runtime; csrc/cuda/no_cuda.cpp implements them
// for CPU-only builds (queries answer "nothing", everything else raises RuntimeError).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/allocator.h"
#include "core/device.h"
#include "core/tensor.h"

namespace genesis::memory {
class CachingPool;
}

namespace genesis::cuda {

bool compiled();                // whether this build has the CUDA backend
std::string architectures();    // the architectures the kernels were built for, "80 90"
std::string runtime_version();  // "13.0", or "" without CUDA
int device_count();             // 0 without a driver or GPU; never raises
int current_device();
void set_device(int index);

// Gives a CUDA device its concrete index ("cuda" -> "cuda:<current>") and checks that it exists;
// raises RuntimeError when no CUDA device is available.
Device resolve(Device device);

Allocator* allocator(int device_index);

// Copies bytes between any two devices (host pointers are CPU memory); returns when done.
void copy_bytes(void* dst, Device dst_device, const void* src, Device src_device, size_t nbytes);
// Enqueues the copy on `stream` (of the CUDA side's device) and returns at once; the host side
// must be pinned memory (or the copy is device to device).
void copy_bytes_async(void* dst, const void* src, size_t nbytes, uintptr_t stream,
                      int device_index);

// Streams: opaque handles, 0 is the default (legacy) stream of each device.
using StreamId = uintptr_t;
StreamId current_stream(int device_index);
void set_current_stream(int device_index, StreamId stream);
StreamId create_stream(int device_index, int priority);
void destroy_stream(int device_index, StreamId stream);
void synchronize_stream(int device_index, StreamId stream);
bool query_stream(int device_index, StreamId stream);
void synchronize_device(int device_index);

// Events: opaque handles.
using EventId = uintptr_t;
EventId create_event(int device_index, bool enable_timing, bool blocking);
void destroy_event(EventId event);
void record_event(EventId event, StreamId stream, int device_index);
bool query_event(EventId event);
void synchronize_event(EventId event);
float elapsed_ms(EventId start, EventId end);
void stream_wait_event(StreamId stream, EventId event, int device_index);

struct DeviceProperties {
  std::string name;
  size_t total_memory = 0;
  int multi_processor_count = 0;
  int major = 0, minor = 0;
};
DeviceProperties device_properties(int device_index);
int multiprocessor_count(int device_index);  // looked up once per device
void memory_info(int device_index, size_t* free_bytes, size_t* total_bytes);

// The caching pool of each device and of pinned host memory (csrc/memory).
memory::CachingPool* device_pool(int device_index);  // nullptr before the device is used
memory::CachingPool* pinned_pool();
Allocator* pinned_allocator();
bool is_pinned(const void* ptr);
// Marks that `stream` uses the memory of `storage_context` (a pool block), for record_stream.
void record_stream(const DataPtr& data, StreamId stream);

// dst <- cast(src) for two tensors on the same CUDA device, src already broadcast to dst's
// shape; any strides. Runs on the current stream.
void copy(const Tensor& dst, const Tensor& src);

// The advanced-index loops (csrc/cpu/index.h documents each); on the current stream.
// add_index_offsets records an out-of-range index on the device (it then adds 0, so gathers stay
// in bounds); check_index_offsets waits for the stream and raises IndexError for the first
// one recorded.
void add_index_offsets(const Tensor& offsets, const Tensor& index, int64_t size,
                       int64_t byte_stride, int64_t dim, bool assign);
void check_index_offsets(const Tensor& offsets);
void gather(const Tensor& out, const Tensor& src, const Tensor& offsets);
void scatter(const Tensor& dst, const Tensor& offsets, const Tensor& values);
// out(i) = src(i) at index(i) along one dim of `byte_stride`, checked like add_index_offsets
// (check_index_offsets raises afterwards); no offsets tensor in between.
void gather_index(const Tensor& out, const Tensor& src, const Tensor& index, int64_t size,
                  int64_t byte_stride, int64_t dim);
// dst(i) at index_view(i) along one dim of `byte_stride` = values(i), index_view being `index`
// seen with values' shape: with `check`, one kernel checks every element of `index` like
// add_index_offsets; a second scatters, writing nothing when an out-of-range index was recorded
// (and skipping such indices in any case); the caller then calls check_index_offsets, which
// raises with dst unchanged (Note [Fused scatter]).
void scatter_index(const Tensor& dst, const Tensor& values, const Tensor& index_view,
                   const Tensor& index, int64_t size, int64_t byte_stride, int64_t dim, bool check);
// How many times check_index_offsets has waited for a device (for tests of Note [Validated
// index memo]).
int64_t index_check_waits();
// The elements of a contiguous src where a contiguous mask of the same shape is true, in
// row-major order (one wait, for the count).
Tensor masked_select(const Tensor& src, const Tensor& mask);
void masked_fill(const Tensor& dst, const Tensor& mask, uint64_t pattern);
// Counts on the device, waits once for the count, then compacts in row-major order.
std::vector<Tensor> nonzero(const Tensor& mask);

// Arithmetic sequences on the device (see kernels/fill.cuh), written as float64 or int64.
void sequence_f64(const Tensor& out, double start, double step, double end, int64_t half);
void sequence_i64(const Tensor& out, int64_t start, int64_t step);

// Writes `count` items of `itemsize` bytes (1, 2, 4 or 8), each equal to the low bytes of
// `pattern`, starting at `dst` on a CUDA device.
void fill(void* dst, int64_t count, int itemsize, uint64_t pattern, int device_index);

}  // namespace genesis::cuda
