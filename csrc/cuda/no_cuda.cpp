// The CUDA backend of a CPU-only build: queries say "no CUDA", everything else raises.
#include "cuda/no_cuda.h"
#include "core/errors.h"
#include "cuda/backend.h"

namespace genesis::cuda {

void unavailable() {
  GENESIS_FAIL(ErrorKind::Runtime, "cuda",
               "genesis was built without CUDA support, so no CUDA device is available; "
               "use device='cpu' or rebuild with the CUDA toolkit (GENESIS_CUDA=ON)");
}

bool compiled() { return false; }
std::string architectures() { return ""; }
std::string runtime_version() { return ""; }
int device_count() { return 0; }
int current_device() { unavailable(); }
void set_device(int) { unavailable(); }
Device resolve(Device) { unavailable(); }
Allocator* allocator(int) { unavailable(); }
void copy_bytes(void*, Device, const void*, Device, size_t) { unavailable(); }
void copy_bytes_async(void*, const void*, size_t, uintptr_t, int) { unavailable(); }
void fill(void*, int64_t, int, uint64_t, int) { unavailable(); }
void copy(const Tensor&, const Tensor&) { unavailable(); }
void sequence_f64(const Tensor&, double, double, double, int64_t) { unavailable(); }
void sequence_i64(const Tensor&, int64_t, int64_t) { unavailable(); }
void add_index_offsets(const Tensor&, const Tensor&, int64_t, int64_t, int64_t, bool) {
  unavailable();
}
void check_index_offsets(const Tensor&) { unavailable(); }
void gather(const Tensor&, const Tensor&, const Tensor&) { unavailable(); }
void scatter(const Tensor&, const Tensor&, const Tensor&) { unavailable(); }
void masked_fill(const Tensor&, const Tensor&, uint64_t) { unavailable(); }
void gather_index(const Tensor&, const Tensor&, const Tensor&, int64_t, int64_t, int64_t) {
  unavailable();
}
void scatter_index(const Tensor&, const Tensor&, const Tensor&, const Tensor&, int64_t, int64_t,
                   int64_t, bool) {
  unavailable();
}
int64_t index_check_waits() { return 0; }
Tensor masked_select(const Tensor&, const Tensor&) { unavailable(); }
std::vector<Tensor> nonzero(const Tensor&) { unavailable(); }

StreamId current_stream(int) { unavailable(); }
void set_current_stream(int, StreamId) { unavailable(); }
StreamId create_stream(int, int) { unavailable(); }
void destroy_stream(int, StreamId) {}
void synchronize_stream(int, StreamId) { unavailable(); }
bool query_stream(int, StreamId) { unavailable(); }
void synchronize_device(int) { unavailable(); }
EventId create_event(int, bool, bool) { unavailable(); }
void destroy_event(EventId) {}
void record_event(EventId, StreamId, int) { unavailable(); }
bool query_event(EventId) { unavailable(); }
void synchronize_event(EventId) { unavailable(); }
float elapsed_ms(EventId, EventId) { unavailable(); }
void stream_wait_event(StreamId, EventId, int) { unavailable(); }
DeviceProperties device_properties(int) { unavailable(); }
int multiprocessor_count(int) { unavailable(); }
void memory_info(int, size_t*, size_t*) { unavailable(); }

memory::CachingPool* device_pool(int) { return nullptr; }
memory::CachingPool* pinned_pool() { return nullptr; }
Allocator* pinned_allocator() { unavailable(); }
bool is_pinned(const void*) { return false; }
void record_stream(const DataPtr&, StreamId) {}

}  // namespace genesis::cuda
