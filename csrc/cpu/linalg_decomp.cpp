// The decompositions on the CPU (csrc/cpu/linalg_decomp.h): one LAPACK call per matrix.
#include "cpu/linalg_decomp.h"

#include <algorithm>
#include <exception>
#include <mutex>

#include "cpu/lapack.h"
#include "cpu/parallel.h"

// Note [Batches of small matrices]
// OpenBLAS threads inside each call, which pays only for large matrices: on a batch of small
// ones its threads mostly wake and wait (a batch of 64 x 64 solves ran 8x faster with
// OPENBLAS_NUM_THREADS=1). So a batch of matrices up to kSmall on a side goes one matrix per
// genesis thread, each thread holding its LAPACK calls to one thread (OpenBLAS's per-thread
// setting, which leaves NumPy's calls alone); larger ones, or a library without that setting,
// loop on the calling thread and let LAPACK thread. An error in a worker is rethrown after the
// region (an exception must not leave an OpenMP region).

namespace genesis::cpu {

namespace {

struct Dims {
  int64_t batch, cols, rows, ld;
};

Dims dims_of(const Tensor& a) {
  const int64_t rows = a.sizes()[2], cols = a.sizes()[1];
  return {a.sizes()[0], cols, rows, std::max<int64_t>(1, rows)};
}

// Calls f<T> with T the C++ type of a float32/float64 tensor.
template <typename F>
void with_type(const Tensor& a, F&& f) {
  if (a.dtype() == ScalarType::Float64)
    f(double{});
  else
    f(float{});
}

template <typename T>
T* ptr(const Tensor& t) {
  return static_cast<T*>(t.mutable_data());
}

constexpr int64_t kSmall = 128;

// Calls f(b) for each matrix b < batch of n x n (Note [Batches of small matrices]).
template <typename F>
void for_each_matrix(int64_t batch, int64_t n, const char* op, const F& f) {
  if (batch < 2 || n > kSmall || !lapack::can_limit_threads(op)) {
    for (int64_t b = 0; b < batch; ++b) f(b);
    return;
  }
  std::mutex mutex;
  std::exception_ptr error;
  const int64_t flops = std::max<int64_t>(1, n * n * n);
  parallel_for(batch, std::max<int64_t>(1, kDefaultGrain / flops), [&](int64_t begin, int64_t end) {
    try {
      lapack::SingleThreaded one(op);
      for (int64_t b = begin; b < end; ++b) f(b);
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex);
      if (!error) error = std::current_exception();
    }
  });
  if (error) std::rethrow_exception(error);
}

}  // namespace

void linalg_getrf(const Tensor& a, const Tensor& ipiv, const Tensor& info, const char* op) {
  const Dims d = dims_of(a);
  if (d.rows == 0) return;
  with_type(a, [&](auto tag) {
    using T = decltype(tag);
    for_each_matrix(d.batch, d.rows, op, [&](int64_t b) {
      ptr<int32_t>(info)[b] = static_cast<int32_t>(lapack::getrf(
          d.rows, ptr<T>(a) + b * d.rows * d.rows, d.ld, ptr<int32_t>(ipiv) + b * d.rows, op));
    });
  });
}

void linalg_getrs(const Tensor& lu, const Tensor& ipiv, const Tensor& b, const char* op) {
  const Dims d = dims_of(lu), rhs = dims_of(b);
  if (d.rows == 0 || rhs.cols == 0) return;
  with_type(lu, [&](auto tag) {
    using T = decltype(tag);
    for_each_matrix(d.batch, d.rows, op, [&](int64_t i) {
      lapack::getrs(d.rows, rhs.cols, ptr<T>(lu) + i * d.rows * d.rows, d.ld,
                    ptr<int32_t>(ipiv) + i * d.rows, ptr<T>(b) + i * rhs.rows * rhs.cols, rhs.ld,
                    op);
    });
  });
}

void linalg_potrf(const Tensor& a, bool lower, const Tensor& info, const char* op) {
  const Dims d = dims_of(a);
  if (d.rows == 0) return;
  with_type(a, [&](auto tag) {
    using T = decltype(tag);
    for_each_matrix(d.batch, d.rows, op, [&](int64_t b) {
      ptr<int32_t>(info)[b] = static_cast<int32_t>(
          lapack::potrf(lower ? 'L' : 'U', d.rows, ptr<T>(a) + b * d.rows * d.rows, d.ld, op));
    });
  });
}

void linalg_geqrf(const Tensor& a, const Tensor& tau, const char* op) {
  const Dims d = dims_of(a);
  const int64_t k = std::min(d.rows, d.cols);
  if (k == 0) return;
  with_type(a, [&](auto tag) {
    using T = decltype(tag);
    for_each_matrix(d.batch, std::max(d.rows, d.cols), op, [&](int64_t b) {
      lapack::geqrf(d.rows, d.cols, ptr<T>(a) + b * d.rows * d.cols, d.ld, ptr<T>(tau) + b * k, op);
    });
  });
}

void linalg_orgqr(const Tensor& q, const Tensor& tau, const char* op) {
  const Dims d = dims_of(q);
  const int64_t k = tau.sizes()[1];
  if (d.rows == 0 || d.cols == 0) return;
  with_type(q, [&](auto tag) {
    using T = decltype(tag);
    for_each_matrix(d.batch, d.rows, op, [&](int64_t b) {
      lapack::orgqr(d.rows, d.cols, k, ptr<T>(q) + b * d.rows * d.cols, d.ld, ptr<T>(tau) + b * k,
                    op);
    });
  });
}

void linalg_gesvd(const Tensor& a, const Tensor& s, const Tensor& u, const Tensor& vt, bool full,
                  const Tensor& info, const char* op) {
  const Dims d = dims_of(a);
  const int64_t k = std::min(d.rows, d.cols);
  if (k == 0) return;
  const bool vectors = u.defined();
  const char jobz = !vectors ? 'N' : full ? 'A' : 'S';
  const int64_t ucols = vectors ? u.sizes()[1] : 0, vrows = vectors ? vt.sizes()[2] : 0;
  with_type(a, [&](auto tag) {
    using T = decltype(tag);
    for_each_matrix(d.batch, d.rows, op, [&](int64_t b) {
      T* pu = vectors ? ptr<T>(u) + b * d.rows * ucols : nullptr;
      T* pv = vectors ? ptr<T>(vt) + b * vrows * d.cols : nullptr;
      ptr<int32_t>(info)[b] = static_cast<int32_t>(
          lapack::gesdd(jobz, d.rows, d.cols, ptr<T>(a) + b * d.rows * d.cols, d.ld,
                        ptr<T>(s) + b * k, pu, d.ld, pv, std::max<int64_t>(1, vrows), op));
    });
  });
}

void linalg_syevd(const Tensor& a, bool lower, bool vectors, const Tensor& w, const Tensor& info,
                  const char* op) {
  const Dims d = dims_of(a);
  if (d.rows == 0) return;
  with_type(a, [&](auto tag) {
    using T = decltype(tag);
    for_each_matrix(d.batch, d.rows, op, [&](int64_t b) {
      ptr<int32_t>(info)[b] = static_cast<int32_t>(
          lapack::syevd(vectors ? 'V' : 'N', lower ? 'L' : 'U', d.rows,
                        ptr<T>(a) + b * d.rows * d.rows, d.ld, ptr<T>(w) + b * d.rows, op));
    });
  });
}

}  // namespace genesis::cpu
