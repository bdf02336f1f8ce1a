#pragma once
// NVRTC, loaded at run time (Note [Loading NVRTC] in nvrtc.cpp): CUDA C++ to a cubin for one GPU
// architecture, without a GPU.
#include <string>
#include <utility>
#include <vector>

namespace genesis::fusion {

// Whether NVRTC could be loaded; `why` says why not.
bool nvrtc_available(std::string* why = nullptr);
// NVRTC's version as major * 1000 + minor * 10 (13050 for 13.5); 0 when it is not loaded.
int nvrtc_version();
// Directories of the Python environment's nvidia-cuda-nvrtc wheel, tried before the toolkit's.
void set_nvrtc_search_dirs(std::vector<std::string> dirs);

// Compiles `source` (which may include `headers`, given as (name, text)) for sm_<arch> and
// returns the cubin; raises RuntimeError "[compile] ..." with NVRTC's log when it fails.
std::string nvrtc_compile(const std::string& source, const std::string& program_name,
                          const std::vector<std::pair<std::string, std::string>>& headers,
                          int arch);

}  // namespace genesis::fusion
