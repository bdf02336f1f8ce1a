// LAPACK loaded at run time (csrc/cpu/lapack.h).
#include "cpu/lapack.h"

#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <type_traits>

#include "core/errors.h"

// Note [Loading LAPACK]
// genesis links no LAPACK and never factors a matrix itself: its one run-time dependency, NumPy,
// already ships a LAPACK inside its wheels (the scipy-openblas build in site-packages/numpy.libs,
// whose symbols are prefixed and take 64-bit ints: scipy_dgetrf_64_). The first decomposition
// dlopen()s, in order: $GENESIS_LAPACK alone when it is set; the paths genesis/linalg.py found
// next to NumPy; then the system's libopenblas.so.0 and liblapack.so.3 (a NumPy built against
// the system's OpenBLAS has no numpy.libs). A library is taken when every routine below
// resolves under one naming scheme: prefix (scipy_ or none), s/d and the routine, and a suffix
// that also fixes the integer width (_64_ and 64_: 64-bit ints; _: 32-bit ints).
//
// The routines are Fortran: every argument goes by pointer, matrices are column-major, and each
// character argument has a hidden length argument after the others (passed as 1; gfortran's
// size_t). Callers (csrc/cpu/linalg_decomp.cpp) hand column-major buffers.

namespace genesis::cpu::lapack {

namespace {

enum Routine { kGetrf, kGetrs, kPotrf, kGeqrf, kOrgqr, kGesdd, kSyevd, kRoutines };
constexpr std::array<const char*, kRoutines> kNames = {"getrf", "getrs", "potrf", "geqrf",
                                                       "orgqr", "gesdd", "syevd"};

struct Scheme {
  const char* prefix;
  const char* suffix;
  bool ilp64;
};
constexpr std::array<Scheme, 5> kSchemes = {{{"scipy_", "_64_", true},
                                             {"scipy_", "_", false},
                                             {"", "_64_", true},
                                             {"", "64_", true},
                                             {"", "_", false}}};

struct Library {
  std::string path;
  Scheme scheme{};
  std::array<std::array<void*, 2>, kRoutines> fn{};  // [routine][0: float, 1: double]
  int (*set_threads_local)(int) = nullptr;           // OpenBLAS >= 0.3.27 only
};

std::mutex mutex;
std::vector<std::string>& search_paths() {
  static std::vector<std::string> paths;
  return paths;
}

std::vector<std::string> candidates() {
  if (const char* env = std::getenv("GENESIS_LAPACK"); env && *env) return {env};
  std::vector<std::string> names = search_paths();
  for (const char* soname :
       {"libopenblas.so.0", "libopenblas.so", "liblapack.so.3", "liblapack.so"})
    names.push_back(soname);
  return names;
}

bool resolve(void* handle, const Scheme& scheme, Library& lib) {
  for (int r = 0; r < kRoutines; ++r) {
    for (int d = 0; d < 2; ++d) {
      std::string name = str_cat(scheme.prefix, d ? "d" : "s", kNames[r], scheme.suffix);
      lib.fn[r][d] = dlsym(handle, name.c_str());
      if (!lib.fn[r][d]) return false;
    }
  }
  lib.scheme = scheme;
  return true;
}

Library* load(const char* op) {
  std::string tried;
  for (const std::string& path : candidates()) {
    tried += tried.empty() ? path : ", " + path;
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) continue;
    auto lib = std::make_unique<Library>();
    lib->path = path;
    for (const Scheme& scheme : kSchemes) {
      if (!resolve(handle, scheme, *lib)) continue;
      lib->set_threads_local =
          reinterpret_cast<int (*)(int)>(dlsym(handle, "openblas_set_num_threads_local"));
      return lib.release();  // kept for the process's life
    }
    dlclose(handle);
  }
  GENESIS_FAIL(ErrorKind::Runtime, op, "no LAPACK library could be loaded (tried ", tried,
               "); set GENESIS_LAPACK to the path of one, e.g. NumPy's bundled "
               "numpy.libs/libscipy_openblas*.so or the system's liblapack.so.3");
}

// Loaded once; a failed load raises and is tried again on the next call.
const Library& library(const char* op) {
  std::lock_guard<std::mutex> lock(mutex);
  static Library* lib = nullptr;
  if (!lib) lib = load(op);
  return *lib;
}

template <typename T>
void* routine(const Library& lib, Routine r) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>);
  return lib.fn[r][std::is_same_v<T, double> ? 1 : 0];
}

// Runs f with a value of LAPACK's integer type.
template <typename F>
auto with_int(const Library& lib, F&& f) {
  return lib.scheme.ilp64 ? f(int64_t{}) : f(int32_t{});
}

void check_args(int64_t info, Routine r, const char* op) {
  GENESIS_CHECK(info >= 0, op, "LAPACK's ", kNames[r], " rejected argument ", -info,
                " (an internal error in genesis)");
}

// The size of the workspace a query (lwork = -1) returned.
template <typename T>
int64_t work_size(T query) {
  return std::max<int64_t>(1, static_cast<int64_t>(query));
}

template <typename T>
std::vector<T>& work_buffer(int64_t n) {
  thread_local std::vector<T> work;
  if (static_cast<int64_t>(work.size()) < n) work.resize(n);
  return work;
}

template <typename Int>
std::vector<Int>& int_buffer(int64_t n) {
  thread_local std::vector<Int> buf;
  if (static_cast<int64_t>(buf.size()) < n) buf.resize(n);
  return buf;
}

constexpr size_t kCharLen = 1;  // the hidden length of a character argument

}  // namespace

void set_search_paths(std::vector<std::string> paths) {
  std::lock_guard<std::mutex> lock(mutex);
  search_paths() = std::move(paths);
}

std::string describe(const char* op) {
  const Library& lib = library(op);
  return str_cat(lib.path, " (", lib.scheme.prefix, "dgetrf", lib.scheme.suffix, ", ",
                 lib.scheme.ilp64 ? "64" : "32", "-bit ints)");
}

SingleThreaded::SingleThreaded(const char* op) {
  const Library& lib = library(op);
  if (lib.set_threads_local) previous_ = lib.set_threads_local(1);
}

SingleThreaded::~SingleThreaded() {
  if (previous_ > 0) library("linalg").set_threads_local(previous_);
}

bool can_limit_threads(const char* op) { return library(op).set_threads_local != nullptr; }

template <typename T>
int64_t getrf(int64_t n, T* a, int64_t lda, int32_t* ipiv, const char* op) {
  const Library& lib = library(op);
  return with_int(lib, [&](auto tag) -> int64_t {
    using Int = decltype(tag);
    using Fn = void (*)(const Int*, const Int*, T*, const Int*, Int*, Int*);
    Int n_ = n, lda_ = lda, info = 0;
    Int* piv = reinterpret_cast<Int*>(ipiv);
    if constexpr (!std::is_same_v<Int, int32_t>) piv = int_buffer<Int>(n).data();
    reinterpret_cast<Fn>(routine<T>(lib, kGetrf))(&n_, &n_, a, &lda_, piv, &info);
    check_args(info, kGetrf, op);
    if constexpr (!std::is_same_v<Int, int32_t>)
      for (int64_t i = 0; i < n; ++i) ipiv[i] = static_cast<int32_t>(piv[i]);
    return info;
  });
}

template <typename T>
void getrs(int64_t n, int64_t nrhs, const T* a, int64_t lda, const int32_t* ipiv, T* b, int64_t ldb,
           const char* op) {
  const Library& lib = library(op);
  with_int(lib, [&](auto tag) {
    using Int = decltype(tag);
    using Fn = void (*)(const char*, const Int*, const Int*, const T*, const Int*, const Int*, T*,
                        const Int*, Int*, size_t);
    Int n_ = n, nrhs_ = nrhs, lda_ = lda, ldb_ = ldb, info = 0;
    const Int* piv = reinterpret_cast<const Int*>(ipiv);
    if constexpr (!std::is_same_v<Int, int32_t>) {
      Int* wide = int_buffer<Int>(n).data();
      for (int64_t i = 0; i < n; ++i) wide[i] = ipiv[i];
      piv = wide;
    }
    const char trans = 'N';
    reinterpret_cast<Fn>(routine<T>(lib, kGetrs))(&trans, &n_, &nrhs_, a, &lda_, piv, b, &ldb_,
                                                  &info, kCharLen);
    check_args(info, kGetrs, op);
    return 0;
  });
}

template <typename T>
int64_t potrf(char uplo, int64_t n, T* a, int64_t lda, const char* op) {
  const Library& lib = library(op);
  return with_int(lib, [&](auto tag) -> int64_t {
    using Int = decltype(tag);
    using Fn = void (*)(const char*, const Int*, T*, const Int*, Int*, size_t);
    Int n_ = n, lda_ = lda, info = 0;
    reinterpret_cast<Fn>(routine<T>(lib, kPotrf))(&uplo, &n_, a, &lda_, &info, kCharLen);
    check_args(info, kPotrf, op);
    return info;
  });
}

template <typename T>
void geqrf(int64_t m, int64_t n, T* a, int64_t lda, T* tau, const char* op) {
  const Library& lib = library(op);
  with_int(lib, [&](auto tag) {
    using Int = decltype(tag);
    using Fn = void (*)(const Int*, const Int*, T*, const Int*, T*, T*, const Int*, Int*);
    auto fn = reinterpret_cast<Fn>(routine<T>(lib, kGeqrf));
    Int m_ = m, n_ = n, lda_ = lda, lwork = -1, info = 0;
    T query{};
    fn(&m_, &n_, a, &lda_, tau, &query, &lwork, &info);
    check_args(info, kGeqrf, op);
    lwork = work_size(query);
    fn(&m_, &n_, a, &lda_, tau, work_buffer<T>(lwork).data(), &lwork, &info);
    check_args(info, kGeqrf, op);
    return 0;
  });
}

template <typename T>
void orgqr(int64_t m, int64_t n, int64_t k, T* a, int64_t lda, const T* tau, const char* op) {
  const Library& lib = library(op);
  with_int(lib, [&](auto tag) {
    using Int = decltype(tag);
    using Fn = void (*)(const Int*, const Int*, const Int*, T*, const Int*, const T*, T*,
                        const Int*, Int*);
    auto fn = reinterpret_cast<Fn>(routine<T>(lib, kOrgqr));
    Int m_ = m, n_ = n, k_ = k, lda_ = lda, lwork = -1, info = 0;
    T query{};
    fn(&m_, &n_, &k_, a, &lda_, tau, &query, &lwork, &info);
    check_args(info, kOrgqr, op);
    lwork = work_size(query);
    fn(&m_, &n_, &k_, a, &lda_, tau, work_buffer<T>(lwork).data(), &lwork, &info);
    check_args(info, kOrgqr, op);
    return 0;
  });
}

template <typename T>
int64_t gesdd(char jobz, int64_t m, int64_t n, T* a, int64_t lda, T* s, T* u, int64_t ldu, T* vt,
              int64_t ldvt, const char* op) {
  const Library& lib = library(op);
  return with_int(lib, [&](auto tag) -> int64_t {
    using Int = decltype(tag);
    using Fn = void (*)(const char*, const Int*, const Int*, T*, const Int*, T*, T*, const Int*, T*,
                        const Int*, T*, const Int*, Int*, Int*, size_t);
    auto fn = reinterpret_cast<Fn>(routine<T>(lib, kGesdd));
    Int m_ = m, n_ = n, lda_ = lda, ldu_ = ldu, ldvt_ = ldvt, lwork = -1, info = 0;
    Int* iwork = int_buffer<Int>(8 * std::min(m, n)).data();
    T query{};
    fn(&jobz, &m_, &n_, a, &lda_, s, u, &ldu_, vt, &ldvt_, &query, &lwork, iwork, &info, kCharLen);
    check_args(info, kGesdd, op);
    lwork = work_size(query);
    fn(&jobz, &m_, &n_, a, &lda_, s, u, &ldu_, vt, &ldvt_, work_buffer<T>(lwork).data(), &lwork,
       iwork, &info, kCharLen);
    check_args(info, kGesdd, op);
    return info;
  });
}

template <typename T>
int64_t syevd(char jobz, char uplo, int64_t n, T* a, int64_t lda, T* w, const char* op) {
  const Library& lib = library(op);
  return with_int(lib, [&](auto tag) -> int64_t {
    using Int = decltype(tag);
    using Fn = void (*)(const char*, const char*, const Int*, T*, const Int*, T*, T*, const Int*,
                        Int*, const Int*, Int*, size_t, size_t);
    auto fn = reinterpret_cast<Fn>(routine<T>(lib, kSyevd));
    Int n_ = n, lda_ = lda, lwork = -1, liwork = -1, info = 0, iquery = 0;
    T query{};
    fn(&jobz, &uplo, &n_, a, &lda_, w, &query, &lwork, &iquery, &liwork, &info, kCharLen, kCharLen);
    check_args(info, kSyevd, op);
    lwork = work_size(query);
    liwork = std::max<Int>(1, iquery);
    fn(&jobz, &uplo, &n_, a, &lda_, w, work_buffer<T>(lwork).data(), &lwork,
       int_buffer<Int>(liwork).data(), &liwork, &info, kCharLen, kCharLen);
    check_args(info, kSyevd, op);
    return info;
  });
}

#define GENESIS_LAPACK_INSTANTIATE_(T)                                                         \
  template int64_t getrf<T>(int64_t, T*, int64_t, int32_t*, const char*);                      \
  template void getrs<T>(int64_t, int64_t, const T*, int64_t, const int32_t*, T*, int64_t,     \
                         const char*);                                                         \
  template int64_t potrf<T>(char, int64_t, T*, int64_t, const char*);                          \
  template void geqrf<T>(int64_t, int64_t, T*, int64_t, T*, const char*);                      \
  template void orgqr<T>(int64_t, int64_t, int64_t, T*, int64_t, const T*, const char*);       \
  template int64_t gesdd<T>(char, int64_t, int64_t, T*, int64_t, T*, T*, int64_t, T*, int64_t, \
                            const char*);                                                      \
  template int64_t syevd<T>(char, char, int64_t, T*, int64_t, T*, const char*);
GENESIS_LAPACK_INSTANTIATE_(float)
GENESIS_LAPACK_INSTANTIATE_(double)
#undef GENESIS_LAPACK_INSTANTIATE_

}  // namespace genesis::cpu::lapack
