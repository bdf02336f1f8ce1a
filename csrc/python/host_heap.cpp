// genesis._C._host_heap: the CPU heap's cache of freed large blocks (Note [Host block cache] in
// core/cpu_allocator.cpp), which genesis.empty_cache() releases.
#include "core/allocator.h"
#include "python/bindings.h"

namespace genesis::python {

void init_host_heap(py::module_& m) {
  py::module_ h = m.def_submodule("_host_heap", "the CPU heap's cache of freed large blocks");
  h.def("empty_cache", &release_cached_host_blocks,
        "Unmaps every cached block; returns their bytes.");
  h.def("cached_bytes", &cached_host_bytes, "Bytes of freed blocks the heap keeps for reuse.");
  h.def("cap", &host_cache_cap,
        "The most bytes it keeps: 2 GiB, or an eighth of the machine's memory if less.");
}

}  // namespace genesis::python
