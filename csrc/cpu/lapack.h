#pragma once
// LAPACK, loaded at run time (Note [Loading LAPACK] in csrc/cpu/lapack.cpp). Each routine takes
// one column-major matrix, 64-bit sizes and returns LAPACK's info (0: success; > 0: the routine's
// own failure, e.g. a zero pivot); a negative info (a bad argument: a bug here) raises. Workspace
// is queried and allocated inside. `op` names the caller in errors ("linalg.solve").
#include <cstdint>
#include <string>
#include <vector>

namespace genesis::cpu::lapack {

// Libraries to try after $GENESIS_LAPACK and before the system's: genesis/linalg.py passes
// NumPy's bundled OpenBLAS. Takes effect at the first load.
void set_search_paths(std::vector<std::string> paths);
// The library that was loaded and its symbol scheme ("path (scipy_dgetrf_64_, 64-bit ints)");
// loads it if needed.
std::string describe(const char* op);

// Holds the calling thread's LAPACK calls to one thread while alive, through OpenBLAS's
// openblas_set_num_threads_local where the library has it (else does nothing).
class SingleThreaded {
 public:
  explicit SingleThreaded(const char* op);
  ~SingleThreaded();
  SingleThreaded(const SingleThreaded&) = delete;
  SingleThreaded& operator=(const SingleThreaded&) = delete;

 private:
  int previous_ = -1;
};
// Whether SingleThreaded can hold the loaded library to one thread.
bool can_limit_threads(const char* op);

// LU with partial pivoting of an n x n matrix; ipiv gets n 1-based pivots.
template <typename T>
int64_t getrf(int64_t n, T* a, int64_t lda, int32_t* ipiv, const char* op);
// Solves (LU) X = B in place of b (n x nrhs) from getrf's factors.
template <typename T>
void getrs(int64_t n, int64_t nrhs, const T* a, int64_t lda, const int32_t* ipiv, T* b, int64_t ldb,
           const char* op);
// Cholesky of the uplo ('L' or 'U') triangle.
template <typename T>
int64_t potrf(char uplo, int64_t n, T* a, int64_t lda, const char* op);
// Householder QR of m x n: R in the upper triangle, reflectors below it, tau (min(m, n)).
template <typename T>
void geqrf(int64_t m, int64_t n, T* a, int64_t lda, T* tau, const char* op);
// The m x n matrix Q with orthonormal columns from k reflectors (m >= n >= k).
template <typename T>
void orgqr(int64_t m, int64_t n, int64_t k, T* a, int64_t lda, const T* tau, const char* op);
// SVD by divide and conquer; jobz 'A', 'S' or 'N' (u and vt unused).
template <typename T>
int64_t gesdd(char jobz, int64_t m, int64_t n, T* a, int64_t lda, T* s, T* u, int64_t ldu, T* vt,
              int64_t ldvt, const char* op);
// Symmetric eigendecomposition by divide and conquer; jobz 'V' or 'N'; ascending w.
template <typename T>
int64_t syevd(char jobz, char uplo, int64_t n, T* a, int64_t lda, T* w, const char* op);

}  // namespace genesis::cpu::lapack
