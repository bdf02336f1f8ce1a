#include "cuda/ipc.h"

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <map>
#include <mutex>
#include <utility>

#include "core/errors.h"
#include "cuda/check.h"
#include "cuda/device_guard.h"
#include "cuda/driver_entry.h"
#include "cuda/stream.h"

namespace genesis::cuda {

// Note [CUDA storages between processes]
// A CUDA storage is sent as the IPC handle of the allocation that holds it (a pool segment,
// cudaMalloc'd, found with the driver's cuMemGetAddressRange), its offset there, and an
// interprocess event recorded on the sender's current stream behind the work queued so far.
// The receiver opens the allocation once per process (cudaIpcOpenMemHandle; the handle string
// is the key, counted by its storages, closed with the last), makes its current stream wait for
// the event, and lays a storage over base + offset. Lifetime: the sender keeps the storage (so
// the pool cannot reuse the block) and the event until a two-int64 counter in shared memory,
// sent along, says the receiver is done: the receiver writes its process id into [1] when it
// opens the memory, and 0 into [0] when its storage is gone, after waiting for the device, so
// no kernel of the receiver still reads the memory the sender's pool may hand out again. The
// sender checks the counters at each CUDA send (genesis/multiprocessing/reductions.py) and also
// lets go when the receiver's process has died, so a killed worker leaks nothing for good.

namespace {

const char* const kOp = "share";

using GetAddressRange = CUresult (*)(CUdeviceptr*, size_t*, CUdeviceptr);

uintptr_t allocation_start(const void* ptr) {
  static const GetAddressRange get = driver_entry<GetAddressRange>("cuMemGetAddressRange");
  GENESIS_CHECK(get != nullptr, kOp, "the CUDA driver has no cuMemGetAddressRange");
  CUdeviceptr base = 0;
  size_t size = 0;
  CUresult r = get(&base, &size, reinterpret_cast<CUdeviceptr>(ptr));
  GENESIS_CHECK(r == CUDA_SUCCESS, kOp,
                "cannot find the allocation of a CUDA storage (driver error ", static_cast<int>(r),
                ")");
  return static_cast<uintptr_t>(base);
}

struct OpenAllocation {
  void* base;
  int storages;
};

std::mutex& opened_mutex() {
  static std::mutex m;
  return m;
}

std::map<std::string, OpenAllocation>& opened() {
  static auto* table = new std::map<std::string, OpenAllocation>();  // never destroyed
  return *table;
}

void* open_allocation(const std::string& memory) {
  std::lock_guard<std::mutex> lock(opened_mutex());
  auto it = opened().find(memory);
  if (it != opened().end()) {
    ++it->second.storages;
    return it->second.base;
  }
  cudaIpcMemHandle_t handle;
  std::memcpy(&handle, memory.data(), sizeof(handle));
  void* base = nullptr;
  GENESIS_CUDA_CHECK(cudaIpcOpenMemHandle(&base, handle, cudaIpcMemLazyEnablePeerAccess));
  opened()[memory] = {base, 1};
  return base;
}

void close_allocation(const std::string& memory) {
  std::lock_guard<std::mutex> lock(opened_mutex());
  auto it = opened().find(memory);
  if (it == opened().end() || --it->second.storages > 0) return;
  cudaIpcCloseMemHandle(it->second.base);  // at exit the context may be gone: errors ignored
  opened().erase(it);
}

int64_t* counter_words(const Storage& counter) {
  return static_cast<int64_t*>(counter.mutable_data());
}

struct Imported {
  std::string memory;
  int device;
  Storage counter;
};

void release_imported(void*, void* context) {
  auto* imported = static_cast<Imported*>(context);
  try {
    DeviceGuard guard(imported->device);
    cudaDeviceSynchronize();  // no kernel here may still use memory the sender will reuse
    close_allocation(imported->memory);
  } catch (...) {  // a deleter must not throw (at exit CUDA may be gone)
  }
  std::atomic_ref<int64_t>(counter_words(imported->counter)[0]).store(0, std::memory_order_release);
  delete imported;
}

}  // namespace

IpcExport export_storage(const Storage& storage) {
  GENESIS_CHECK(storage.device().is_cuda() && storage.nbytes() > 0, kOp,
                "expected a CUDA storage of at least one byte");
  int device = storage.device().index;
  DeviceGuard guard(device);
  const void* ptr = storage.data();
  uintptr_t base = allocation_start(ptr);
  cudaIpcMemHandle_t memory;
  GENESIS_CUDA_CHECK(cudaIpcGetMemHandle(&memory, reinterpret_cast<void*>(base)));
  cudaEvent_t event = nullptr;
  GENESIS_CUDA_CHECK(
      cudaEventCreateWithFlags(&event, cudaEventDisableTiming | cudaEventInterprocess));
  cudaIpcEventHandle_t event_handle;
  cudaError_t err = cudaEventRecord(event, reinterpret_cast<cudaStream_t>(current_stream(device)));
  if (err == cudaSuccess) err = cudaIpcGetEventHandle(&event_handle, event);
  if (err != cudaSuccess) {
    cudaEventDestroy(event);
    GENESIS_CUDA_CHECK(err);
  }
  storage.mark_shared();  // the receiver may write it
  return {std::string(reinterpret_cast<const char*>(&memory), sizeof(memory)),
          static_cast<int64_t>(reinterpret_cast<uintptr_t>(ptr) - base),
          std::string(reinterpret_cast<const char*>(&event_handle), sizeof(event_handle)),
          reinterpret_cast<uintptr_t>(event)};
}

void destroy_exported_event(uintptr_t event_id) {
  cudaEventDestroy(reinterpret_cast<cudaEvent_t>(event_id));
}

Storage import_storage(const std::string& memory, int64_t offset, size_t nbytes, int device,
                       const std::string& event, const Storage& release_counter) {
  GENESIS_CHECK_VALUE(memory.size() == sizeof(cudaIpcMemHandle_t) &&
                          event.size() == sizeof(cudaIpcEventHandle_t) && offset >= 0 && nbytes > 0,
                      kOp, "malformed CUDA IPC handles");
  GENESIS_CHECK_VALUE(release_counter.device().is_cpu() && release_counter.nbytes() >= 16, kOp,
                      "malformed release counter");
  DeviceGuard guard(device);
  char* base = static_cast<char*>(open_allocation(memory));
  cudaIpcEventHandle_t event_handle;
  std::memcpy(&event_handle, event.data(), sizeof(event_handle));
  cudaEvent_t sender_event = nullptr;
  cudaError_t err = cudaIpcOpenEventHandle(&sender_event, event_handle);
  if (err == cudaSuccess) {
    err = cudaStreamWaitEvent(reinterpret_cast<cudaStream_t>(current_stream(device)), sender_event,
                              0);
    cudaEventDestroy(sender_event);
  }
  if (err != cudaSuccess) {
    close_allocation(memory);
    GENESIS_CUDA_CHECK(err);
  }
  std::atomic_ref<int64_t>(counter_words(release_counter)[1])
      .store(static_cast<int64_t>(getpid()), std::memory_order_release);
  DataPtr data(base + offset, new Imported{memory, device, release_counter}, &release_imported,
               Device{DeviceType::CUDA, device});
  Storage storage = Storage::wrap(std::move(data), nbytes);
  storage.mark_shared();  // the sender may write it
  return storage;
}

}  // namespace genesis::cuda
