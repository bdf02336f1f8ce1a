#pragma once
// NVIDIA's header-only cuDNN frontend (C++ over cuDNN's graph API), included hidden inside
// genesis's module, for the files that describe graphs with it: cudnn_attention.cpp and
// cudnn_convolution_graph.cpp. CMakeLists.txt compiles those (and cudnn_frontend_symbols.cpp)
// only when it finds the frontend, cudnn.h and nvrtc.h; else the stubs
// no_cuda_cudnn_attention.cpp and no_cuda_cudnn_convolution_graph.cpp.
//
// Note [cuDNN's graph API]
// ~~~~~~~~~~~~~~~~~~~~~~~~
// Loading: cuDNN stays unlinked (Note [Loading cuDNN] in cudnn.cpp). The frontend calls the
// backend API's C functions (cudnnBackendCreateDescriptor, cudnnBackendExecute, ...) by name;
// cudnn_frontend_symbols.cpp defines those names, hidden inside genesis's module, each
// forwarding to the function of the same name in the libcudnn.so.9 that cudnn.cpp loaded. (The
// frontend's own dynamic-loading mode would also dlopen libcudart.so, which genesis, linked to
// the static CUDA runtime, does not have.)
// Visibility: the frontend's classes and functions stay inside genesis's module (PyTorch
// carries its own copy of the frontend, another version, which must not interpose on these).
// Every system and standard header the frontend includes comes first, outside the hidden
// region: a standard header read inside it has libstdc++'s templates instantiated hidden in
// genesis's module (std::ostream::_M_insert<long>, say), which crashed beside another library's
// libstdc++ state (PyTorch imported first).
#include <cuda.h>
#include <cuda_runtime.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdint.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iostream>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <optional>
#include <ostream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <variant>
#include <vector>

#pragma GCC visibility push(hidden)
#include <cudnn.h>
#include <cudnn_frontend.h>
#include <nvrtc.h>
#pragma GCC visibility pop
