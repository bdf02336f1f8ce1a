#include <cstdlib>

#include "core/allocator.h"
#include "core/errors.h"

namespace genesis {

namespace {
void free_cpu(void* ptr, void*) { std::free(ptr); }

class CpuAllocator final : public Allocator {
 public:
  DataPtr allocate(size_t nbytes) override {
    if (nbytes == 0) return DataPtr(nullptr, nullptr, nullptr, kCPU);
    size_t rounded = (nbytes + kCpuAlignment - 1) / kCpuAlignment * kCpuAlignment;
    void* ptr = std::aligned_alloc(kCpuAlignment, rounded);
    GENESIS_CHECK_KIND_(ErrorKind::OutOfMemory, ptr != nullptr, "empty",
                        "CPU out of memory: tried to allocate ", nbytes, " bytes");
    return DataPtr(ptr, nullptr, &free_cpu, kCPU);
  }
};
}  // namespace

Allocator* cpu_allocator() {
  static CpuAllocator instance;
  return &instance;
}

}  // namespace genesis
