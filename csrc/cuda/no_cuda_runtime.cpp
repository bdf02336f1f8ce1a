// The CUDA runtime of a CPU-only build (Note [CUDA backend layout] in cuda/runtime.h): queries
// say "no CUDA", everything else raises no_device().
#include "core/device_backend.h"
#include "core/errors.h"
#include "cuda/runtime.h"

namespace genesis::cuda {

void no_device() {
  GENESIS_FAIL(ErrorKind::Runtime, "cuda",
               "no CUDA device is available (genesis was built without CUDA support); use "
               "device='cpu', or rebuild with the CUDA toolkit (GENESIS_CUDA=ON)");
}

bool compiled() { return false; }
std::string architectures() { return ""; }
std::string runtime_version() { return ""; }
int device_count() { return 0; }
bool forked_after_cuda_started() { return false; }
void forked_child_error() { no_device(); }
int current_device() { no_device(); }
void set_device(int) { no_device(); }
void synchronize_device(int) { no_device(); }
Device resolve(Device) { no_device(); }
DeviceProperties device_properties(int) { no_device(); }
int multiprocessor_count(int) { no_device(); }
int compute_capability_major(int) { no_device(); }
void memory_info(int, size_t*, size_t*) { no_device(); }

void register_backend() {
  register_device_backend(DeviceType::CUDA,
                          DeviceBackend{[](int) -> Allocator* { no_device(); }, resolve});
}

}  // namespace genesis::cuda
