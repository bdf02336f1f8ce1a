// The CUDA backend of a CPU-only build: queries say "no CUDA", everything else raises.
#include "core/errors.h"
#include "cuda/backend.h"

namespace genesis::cuda {

namespace {
[[noreturn]] void unavailable() {
  GENESIS_FAIL(ErrorKind::Runtime, "cuda",
               "genesis was built without CUDA support, so no CUDA device is available; "
               "use device='cpu' or rebuild with the CUDA toolkit (GENESIS_CUDA=ON)");
}
}  // namespace

bool compiled() { return false; }
std::string architectures() { return ""; }
std::string runtime_version() { return ""; }
int device_count() { return 0; }
int current_device() { unavailable(); }
void set_device(int) { unavailable(); }
Device resolve(Device) { unavailable(); }
Allocator* allocator(int) { unavailable(); }
void copy_bytes(void*, Device, const void*, Device, size_t) { unavailable(); }
void fill(void*, int64_t, int, uint64_t, int) { unavailable(); }

}  // namespace genesis::cuda
