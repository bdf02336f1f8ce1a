#pragma once
// Where the CUDA libraries genesis dlopen()s (cuBLAS, cuBLASLt, cuSOLVER: Note [Batched small
// matrices] in solver.cpp says why they are loaded at run time) are looked for, in order: the
// path in `env_var`, the sonames of `majors` then the bare name (the loader's own search), each
// of those in $CUDA_HOME/lib64 and $CUDA_PATH/lib64, and the toolkit's /usr/local/cuda/lib64.
// Internal to csrc/cuda's implementation files.
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <vector>

#include "core/errors.h"

namespace genesis::cuda {

// library_candidates("GENESIS_CUBLAS_PATH", "libcublas.so", {"13", "12"})
inline std::vector<std::string> library_candidates(const char* env_var, const char* stem,
                                                   std::initializer_list<const char*> majors) {
  std::vector<std::string> names;
  if (const char* path = std::getenv(env_var); path && *path) names.push_back(path);
  for (const char* major : majors) names.push_back(str_cat(stem, ".", major));
  names.push_back(stem);
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
    const char* home = std::getenv(var);
    if (!home || !*home) continue;
    for (const char* major : majors) names.push_back(str_cat(home, "/lib64/", stem, ".", major));
    names.push_back(str_cat(home, "/lib64/", stem));
  }
  for (const char* major : majors)
    names.push_back(str_cat("/usr/local/cuda/lib64/", stem, ".", major));
  return names;
}

}  // namespace genesis::cuda
