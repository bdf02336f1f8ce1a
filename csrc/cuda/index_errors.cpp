// The device records of deferred index errors and their mapped host copies (Note [Deferred
// index errors] in core/index_check.h).
#include "cuda/index_errors.h"

#include <cuda_runtime_api.h>

#include <array>
#include <atomic>
#include <mutex>

#include "core/errors.h"
#include "core/index_check.h"
#include "cuda/check.h"
#include "cuda/device_guard.h"
#include "cuda/stream.h"
#include "kernels/index.cuh"
#include "vocab/limits.h"

namespace genesis::cuda {

namespace {

struct Record {
  kernels::IndexError* device;         // what the kernels CAS on
  kernels::IndexError* mirror;         // the host copy's device address, for the kernels
  volatile kernels::IndexError* host;  // the host copy, which the host reads after a wait
};

std::array<std::atomic<Record*>, kMaxCudaDevices> records{};
std::mutex mutex;  // making records, and clearing one that holds an error

// Made once per device under the lock, then read without it; never freed (the process keeps
// its devices' records, as it keeps their contexts). Nothing here waits for the device: the
// record is zeroed on the current stream, ahead of the launch it is made for.
Record* record_of(int device) {
  if (Record* r = records[device].load(std::memory_order_acquire)) return r;
  std::lock_guard<std::mutex> lock(mutex);
  if (Record* r = records[device].load(std::memory_order_relaxed)) return r;
  DeviceGuard guard(device);
  void* host = nullptr;
  GENESIS_CUDA_CHECK(cudaHostAlloc(&host, sizeof(kernels::IndexError),
                                   cudaHostAllocMapped | cudaHostAllocPortable));
  *static_cast<kernels::IndexError*>(host) = kernels::IndexError{};
  void* mirror = nullptr;
  GENESIS_CUDA_CHECK(cudaHostGetDevicePointer(&mirror, host, 0));
  kernels::IndexError* dev = nullptr;
  GENESIS_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&dev), sizeof(kernels::IndexError)));
  GENESIS_CUDA_CHECK(cudaMemsetAsync(dev, 0, sizeof(kernels::IndexError),
                                     reinterpret_cast<cudaStream_t>(current_stream(device))));
  auto* r = new Record{dev, static_cast<kernels::IndexError*>(mirror),
                       static_cast<kernels::IndexError*>(host)};
  records[device].store(r, std::memory_order_release);
  return r;
}

}  // namespace

unsigned next_index_seq() {
  unsigned scope = current_index_seq();  // the launches of one op share its number
  return scope != 0 ? scope : fresh_index_seq();
}

kernels::IndexSite index_site(int device, unsigned seq) {
  Record* r = record_of(device);
  return kernels::IndexSite{r->device, r->mirror, index_op_code(current_index_op()),
                            seq != 0 ? seq : next_index_seq()};
}

bool index_error_pending(int device) {
  if (device < 0 || device >= kMaxCudaDevices) return false;
  Record* r = records[device].load(std::memory_order_acquire);
  return r != nullptr && r->host->flag != 0;
}

void raise_index_error(int device, const char* where) {
  if (device < 0 || device >= kMaxCudaDevices) return;
  Record* r = records[device].load(std::memory_order_acquire);
  if (r == nullptr || r->host->flag == 0) return;  // the common case: one load
  kernels::IndexError e;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (r->host->flag == 0) return;                       // another thread raised it
    std::atomic_thread_fence(std::memory_order_acquire);  // the kernel wrote the flag last
    e.op = r->host->op;
    e.value = r->host->value;
    e.dim = r->host->dim;
    e.size = r->host->size;
    r->host->flag = 0;
    note_index_error_raised();  // Note [Validated index memo]: provisional memos lapse
    // The device record last, in stream order: until it is clear no kernel writes the host copy.
    DeviceGuard guard(device);
    GENESIS_CUDA_CHECK(cudaMemsetAsync(r->device, 0, sizeof(kernels::IndexError),
                                       reinterpret_cast<cudaStream_t>(current_stream(device))));
  }
  const char* op = index_op_name(e.op);
  if (where == nullptr)
    GENESIS_FAIL(ErrorKind::Index, op, "index ", e.value, " is out of bounds for dimension ", e.dim,
                 " with size ", e.size);
  GENESIS_FAIL(ErrorKind::Index, op, "index ", e.value, " is out of bounds for dimension ", e.dim,
               " with size ", e.size, " (recorded on cuda:", device, ", raised at ", where,
               ": CUDA index errors are raised at the next wait for the device, see "
               "genesis.cuda.set_index_check)");
}

void raise_index_errors(const char* where) {
  for (int d = 0; d < kMaxCudaDevices; ++d) raise_index_error(d, where);
}

}  // namespace genesis::cuda
