// Note [Loading NVRTC]: as cuBLAS and cuDNN, NVRTC is never linked: it is large (140 MB) and
// only genesis.compile's CUDA groups need it. The first group dlopen()s libnvrtc.so.13 (or 12),
// trying $GENESIS_NVRTC_PATH, the loader's own search, the nvidia-cuda-nvrtc wheel's directory
// that genesis/_compile.py finds in the Python environment, and the toolkit under $CUDA_HOME,
// $CUDA_PATH and /usr/local/cuda. Its functions are declared here with opaque handles, so no
// NVRTC header is needed to build genesis. NVRTC needs no GPU: it is also what tests use on a
// machine without one to check the generated programs.
#include "fusion/nvrtc.h"

#include <dlfcn.h>

#include <cstdlib>
#include <initializer_list>
#include <mutex>

#include "core/errors.h"

namespace genesis::fusion {

namespace {

using Program = void*;
using Result = int;  // nvrtcResult: 0 is NVRTC_SUCCESS

struct Api {
  const char* (*error_string)(Result) = nullptr;
  Result (*version)(int*, int*) = nullptr;
  Result (*create)(Program*, const char*, const char*, int, const char* const*,
                   const char* const*) = nullptr;
  Result (*destroy)(Program*) = nullptr;
  Result (*compile)(Program, int, const char* const*) = nullptr;
  Result (*log_size)(Program, size_t*) = nullptr;
  Result (*log)(Program, char*) = nullptr;
  Result (*cubin_size)(Program, size_t*) = nullptr;
  Result (*cubin)(Program, char*) = nullptr;
};

struct Loaded {
  Api api;
  int version = 0;
  std::string error;  // empty when loaded
};

std::mutex g_dirs_mutex;
std::vector<std::string> g_dirs;

std::vector<std::string> candidates() {
  std::vector<std::string> names;
  if (const char* path = std::getenv("GENESIS_NVRTC_PATH"); path && *path) names.push_back(path);
  for (const char* major : {"13", "12"}) names.push_back(str_cat("libnvrtc.so.", major));
  {
    std::lock_guard<std::mutex> lock(g_dirs_mutex);
    for (const std::string& dir : g_dirs)
      for (const char* major : {"13", "12"}) names.push_back(str_cat(dir, "/libnvrtc.so.", major));
  }
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* home = std::getenv(var); home && *home)
      for (const char* major : {"13", "12"})
        names.push_back(str_cat(home, "/lib64/libnvrtc.so.", major));
  for (const char* major : {"13", "12"})
    names.push_back(str_cat("/usr/local/cuda/lib64/libnvrtc.so.", major));
  return names;
}

template <typename Fn>
void find(void* lib, const char* name, Fn* fn, std::string& missing) {
  *fn = reinterpret_cast<Fn>(dlsym(lib, name));
  if (!*fn && missing.empty()) missing = name;
}

Loaded load() {
  Loaded out;
  void* lib = nullptr;
  std::string tried;
  for (const std::string& name : candidates()) {
    lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lib) break;
    tried += tried.empty() ? name : ", " + name;
  }
  if (!lib) {
    out.error = str_cat("NVRTC could not be loaded (tried ", tried,
                        "; install nvidia-cuda-nvrtc or set GENESIS_NVRTC_PATH)");
    return out;
  }
  Api& a = out.api;
  std::string missing;
  find(lib, "nvrtcGetErrorString", &a.error_string, missing);
  find(lib, "nvrtcVersion", &a.version, missing);
  find(lib, "nvrtcCreateProgram", &a.create, missing);
  find(lib, "nvrtcDestroyProgram", &a.destroy, missing);
  find(lib, "nvrtcCompileProgram", &a.compile, missing);
  find(lib, "nvrtcGetProgramLogSize", &a.log_size, missing);
  find(lib, "nvrtcGetProgramLog", &a.log, missing);
  find(lib, "nvrtcGetCUBINSize", &a.cubin_size, missing);
  find(lib, "nvrtcGetCUBIN", &a.cubin, missing);
  if (!missing.empty()) {
    out.error = str_cat("NVRTC lacks ", missing);
    return out;
  }
  int major = 0, minor = 0;
  if (a.version(&major, &minor) == 0) out.version = major * 1000 + minor * 10;
  return out;
}

const Loaded& loaded() {
  static const Loaded l = load();  // once per process (dlopen handle kept)
  return l;
}

}  // namespace

bool nvrtc_available(std::string* why) {
  const Loaded& l = loaded();
  if (why) *why = l.error;
  return l.error.empty();
}

int nvrtc_version() { return loaded().version; }

void set_nvrtc_search_dirs(std::vector<std::string> dirs) {
  std::lock_guard<std::mutex> lock(g_dirs_mutex);
  g_dirs = std::move(dirs);
}

std::string nvrtc_compile(const std::string& source, const std::string& program_name,
                          const std::vector<std::pair<std::string, std::string>>& headers,
                          int arch) {
  const Loaded& l = loaded();
  GENESIS_CHECK(l.error.empty(), "compile", l.error);
  const Api& a = l.api;
  std::vector<const char*> texts, names;
  for (const auto& [name, text] : headers) {
    names.push_back(name.c_str());
    texts.push_back(text.c_str());
  }
  Program prog = nullptr;
  Result r = a.create(&prog, source.c_str(), program_name.c_str(), static_cast<int>(texts.size()),
                      texts.data(), names.data());
  GENESIS_CHECK(r == 0, "compile", "nvrtcCreateProgram failed: ", a.error_string(r));
  std::string arch_flag = str_cat("--gpu-architecture=sm_", arch);
  const char* options[] = {arch_flag.c_str(), "--std=c++17", "-default-device"};
  r = a.compile(prog, 3, options);
  std::string cubin;
  std::string log;
  size_t log_size = 0;
  if (a.log_size(prog, &log_size) == 0 && log_size > 1) {
    log.resize(log_size);
    a.log(prog, log.data());
    log.resize(log_size - 1);
  }
  if (r == 0) {
    size_t size = 0;
    if (a.cubin_size(prog, &size) == 0) {
      cubin.resize(size);
      if (a.cubin(prog, cubin.data()) != 0) cubin.clear();
    }
  }
  a.destroy(&prog);
  GENESIS_CHECK(r == 0, "compile", "NVRTC could not compile a fused kernel (", a.error_string(r),
                "):\n", log, "\n--- program ", program_name, " ---\n", source);
  GENESIS_CHECK(!cubin.empty(), "compile", "NVRTC returned no cubin for ", program_name);
  return cubin;
}

}  // namespace genesis::fusion
