// CUDA device memory, one cudaMalloc per tensor for now; the caching pool of csrc/memory takes
// this place in the next milestone.
#include <memory>
#include <mutex>
#include <vector>

#include "core/errors.h"
#include "cuda/backend.h"
#include "cuda/device_guard.h"

namespace genesis::cuda {

namespace {

void free_device(void* ptr, void* context) {
  int index = static_cast<int>(reinterpret_cast<intptr_t>(context));
  DeviceGuard guard(index);
  cudaFree(ptr);  // a failure here has no caller to report to
}

class DeviceAllocator final : public Allocator {
 public:
  explicit DeviceAllocator(int index) : index_(index) {}
  DataPtr allocate(size_t nbytes) override {
    Device device{DeviceType::CUDA, index_};
    if (nbytes == 0) return DataPtr(nullptr, nullptr, nullptr, device);
    DeviceGuard guard(index_);
    void* ptr = nullptr;
    cudaError_t err = cudaMalloc(&ptr, nbytes);
    if (err == cudaErrorMemoryAllocation) {
      cudaGetLastError();
      size_t free_bytes = 0, total_bytes = 0;
      cudaMemGetInfo(&free_bytes, &total_bytes);
      GENESIS_FAIL(ErrorKind::OutOfMemory, "empty", "CUDA out of memory: tried to allocate ",
                   nbytes, " bytes on cuda:", index_, " (", total_bytes, " bytes total, ",
                   free_bytes, " bytes free)");
    }
    GENESIS_CUDA_CHECK(err);
    return DataPtr(ptr, reinterpret_cast<void*>(static_cast<intptr_t>(index_)), &free_device,
                   device);
  }

 private:
  int index_;
};

}  // namespace

Allocator* allocator(int device_index) {
  static std::once_flag once;
  static std::vector<std::unique_ptr<DeviceAllocator>> allocators;
  std::call_once(once, [] {
    for (int i = 0; i < device_count(); ++i)
      allocators.push_back(std::make_unique<DeviceAllocator>(i));
  });
  Device d = resolve(Device{DeviceType::CUDA, device_index});
  return allocators[d.index].get();
}

}  // namespace genesis::cuda
