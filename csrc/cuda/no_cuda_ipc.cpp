// CPU-only builds: CUDA IPC, never reached (no CUDA tensor can exist).
#include "cuda/ipc.h"
#include "cuda/runtime.h"

namespace genesis::cuda {

IpcExport export_storage(const Storage&) { no_device(); }
void destroy_exported_event(uintptr_t) { no_device(); }
Storage import_storage(const std::string&, int64_t, size_t, int, const std::string&,
                       const Storage&) {
  no_device();
}

}  // namespace genesis::cuda
