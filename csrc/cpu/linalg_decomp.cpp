// The decompositions on the CPU (csrc/cpu/linalg_decomp.h): a loop over the batch, one LAPACK
// call per matrix. LAPACK (OpenBLAS) threads inside each call.
#include "cpu/linalg_decomp.h"

#include <algorithm>

#include "cpu/lapack.h"

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

}  // namespace

void linalg_getrf(const Tensor& a, const Tensor& ipiv, const Tensor& info, const char* op) {
  const Dims d = dims_of(a);
  if (d.rows == 0) return;
  with_type(a, [&](auto tag) {
    using T = decltype(tag);
    for (int64_t b = 0; b < d.batch; ++b)
      ptr<int32_t>(info)[b] = static_cast<int32_t>(lapack::getrf(
          d.rows, ptr<T>(a) + b * d.rows * d.rows, d.ld, ptr<int32_t>(ipiv) + b * d.rows, op));
  });
}

void linalg_getrs(const Tensor& lu, const Tensor& ipiv, const Tensor& b, const char* op) {
  const Dims d = dims_of(lu), rhs = dims_of(b);
  if (d.rows == 0 || rhs.cols == 0) return;
  with_type(lu, [&](auto tag) {
    using T = decltype(tag);
    for (int64_t i = 0; i < d.batch; ++i)
      lapack::getrs(d.rows, rhs.cols, ptr<T>(lu) + i * d.rows * d.rows, d.ld,
                    ptr<int32_t>(ipiv) + i * d.rows, ptr<T>(b) + i * rhs.rows * rhs.cols, rhs.ld,
                    op);
  });
}

void linalg_potrf(const Tensor& a, bool lower, const Tensor& info, const char* op) {
  const Dims d = dims_of(a);
  if (d.rows == 0) return;
  with_type(a, [&](auto tag) {
    using T = decltype(tag);
    for (int64_t b = 0; b < d.batch; ++b)
      ptr<int32_t>(info)[b] = static_cast<int32_t>(
          lapack::potrf(lower ? 'L' : 'U', d.rows, ptr<T>(a) + b * d.rows * d.rows, d.ld, op));
  });
}

void linalg_geqrf(const Tensor& a, const Tensor& tau, const char* op) {
  const Dims d = dims_of(a);
  const int64_t k = std::min(d.rows, d.cols);
  if (k == 0) return;
  with_type(a, [&](auto tag) {
    using T = decltype(tag);
    for (int64_t b = 0; b < d.batch; ++b)
      lapack::geqrf(d.rows, d.cols, ptr<T>(a) + b * d.rows * d.cols, d.ld, ptr<T>(tau) + b * k, op);
  });
}

void linalg_orgqr(const Tensor& q, const Tensor& tau, const char* op) {
  const Dims d = dims_of(q);
  const int64_t k = tau.sizes()[1];
  if (d.rows == 0 || d.cols == 0) return;
  with_type(q, [&](auto tag) {
    using T = decltype(tag);
    for (int64_t b = 0; b < d.batch; ++b)
      lapack::orgqr(d.rows, d.cols, k, ptr<T>(q) + b * d.rows * d.cols, d.ld, ptr<T>(tau) + b * k,
                    op);
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
    for (int64_t b = 0; b < d.batch; ++b) {
      T* pu = vectors ? ptr<T>(u) + b * d.rows * ucols : nullptr;
      T* pv = vectors ? ptr<T>(vt) + b * vrows * d.cols : nullptr;
      ptr<int32_t>(info)[b] = static_cast<int32_t>(
          lapack::gesdd(jobz, d.rows, d.cols, ptr<T>(a) + b * d.rows * d.cols, d.ld,
                        ptr<T>(s) + b * k, pu, d.ld, pv, std::max<int64_t>(1, vrows), op));
    }
  });
}

void linalg_syevd(const Tensor& a, bool lower, bool vectors, const Tensor& w, const Tensor& info,
                  const char* op) {
  const Dims d = dims_of(a);
  if (d.rows == 0) return;
  with_type(a, [&](auto tag) {
    using T = decltype(tag);
    for (int64_t b = 0; b < d.batch; ++b)
      ptr<int32_t>(info)[b] = static_cast<int32_t>(
          lapack::syevd(vectors ? 'V' : 'N', lower ? 'L' : 'U', d.rows,
                        ptr<T>(a) + b * d.rows * d.rows, d.ld, ptr<T>(w) + b * d.rows, op));
  });
}

}  // namespace genesis::cpu
