#include "cpu/normalization.h"

#include <cmath>
#include <type_traits>
#include <vector>

#include "core/errors.h"
#include "cpu/float_kernels.h"
#include "cpu/isa.h"
#include "cpu/parallel.h"

namespace genesis::cpu {

namespace {

constexpr int kLanes = 16;  // independent partial sums: lets the compiler vectorize the sums

// Rows are cut into at most one piece per thread, each worth a grain: the pieces (not the
// threads' scheduling) fix the order of the weight gradient's sums, so they are deterministic.
int64_t pieces_for(int64_t rows, int64_t cols) {
  int64_t work = rows * (cols > 0 ? cols : 1);
  int64_t pieces = work / kDefaultGrain + 1;
  return std::max<int64_t>(1, std::min({pieces, max_threads(), rows}));
}

// Note [Norm rows per instruction set]: the per-row loops (a row's sums, then its elementwise
// passes in L1) are compiled for the baseline and again for AVX2 and AVX-512 with everything
// they call inlined (flatten), picked at run time (cpu/isa.h): built for the baseline alone
// they ran 4 floats an instruction, and layer norm took 1.3-1.8x torch's time. flatten alone
// left the row sums (lane_sum) as calls to their baseline copy; they are forced inline now
// (Note [Kernel pieces inline into their callers]): layer norm's float32 forward over 8192
// rows of 768 on 2 cores 2.29 -> 1.37 ms, then 0.92 ms (torch 0.91) with the output in one pass.
// The backward (float32, 8192 x 768): dx written straight from its expression (no row buffer)
// 2.4 -> 2.1 ms; the two column sums in one walk through restrict pointers -> 1.7 ms; the two
// row sums in one walk of two lane arrays took 3.7 ms (GCC left that loop scalar), so they
// stay two lane_sums.

template <typename T, typename C>
struct ForwardRows {
  const T* xs;
  const C *wv, *bv;
  T* ys;
  C *means, *rstds;
  int64_t cols;
  C eps;
  bool rms;
};

template <typename T, typename C>
GENESIS_PIECE_INLINE void forward_rows(const ForwardRows<T, C>& a, int64_t r0, int64_t r1,
                                       std::vector<C>& scratch) {
  const int64_t cols = a.cols;
  for (int64_t r = r0; r < r1; ++r) {
    const C* row = widened<T, C>(a.xs + r * cols, cols, scratch);
    C mu = 0, r_std;
    if (a.rms) {
      C ms = lane_sum<kLanes, C>(cols, [&](int64_t i) { return row[i] * row[i]; }) / C(cols);
      r_std = C(1) / std::sqrt(ms + a.eps);
    } else {
      mu = lane_sum<kLanes, C>(cols, [&](int64_t i) { return row[i]; }) / C(cols);
      C var = lane_sum<kLanes, C>(cols,
                                  [&](int64_t i) {
                                    C d = row[i] - mu;
                                    return d * d;
                                  }) /
              C(cols);
      r_std = C(1) / std::sqrt(var + a.eps);
      a.means[r] = mu;
    }
    a.rstds[r] = r_std;
    // the output in one pass, a loop for each combination of the affine parameters
    T* dst = a.ys + r * cols;
    const C *wv = a.wv, *bv = a.bv;
    if (wv && bv)
      for (int64_t i = 0; i < cols; ++i)
        dst[i] = static_cast<T>((row[i] - mu) * r_std * wv[i] + bv[i]);
    else if (wv)
      for (int64_t i = 0; i < cols; ++i) dst[i] = static_cast<T>((row[i] - mu) * r_std * wv[i]);
    else if (bv)
      for (int64_t i = 0; i < cols; ++i) dst[i] = static_cast<T>((row[i] - mu) * r_std + bv[i]);
    else
      for (int64_t i = 0; i < cols; ++i) dst[i] = static_cast<T>((row[i] - mu) * r_std);
  }
}

template <typename T, typename C>
struct BackwardRows {
  const T *xs, *gs;
  const C *means, *rstds, *wv;
  T* dxs;
  int64_t cols;
  bool rms;
};

// Rows [r0, r1): dx, and the rows' column sums of grad * xhat into dw and of grad into db.
template <typename T, typename C>
GENESIS_PIECE_INLINE void backward_rows(const BackwardRows<T, C>& a, int64_t r0, int64_t r1, C* dw,
                                        C* db, std::vector<C>* buffers) {
  const int64_t cols = a.cols;
  C *xhat = buffers[2].data(), *gw = buffers[3].data();
  for (int64_t r = r0; r < r1; ++r) {
    const C* row = widened<T, C>(a.xs + r * cols, cols, buffers[0]);
    const C* g = widened<T, C>(a.gs + r * cols, cols, buffers[1]);
    C mu = a.rms ? C(0) : a.means[r], r_std = a.rstds[r];
    for (int64_t i = 0; i < cols; ++i) xhat[i] = (row[i] - mu) * r_std;
    if (dw && db) {
      C* __restrict w_sums = dw;
      C* __restrict b_sums = db;
      const C* __restrict gs = g;
      const C* __restrict xh = xhat;
      for (int64_t i = 0; i < cols; ++i) {
        w_sums[i] += gs[i] * xh[i];
        b_sums[i] += gs[i];
      }
    } else if (dw) {
      for (int64_t i = 0; i < cols; ++i) dw[i] += g[i] * xhat[i];
    } else if (db) {
      for (int64_t i = 0; i < cols; ++i) db[i] += g[i];
    }
    if (!a.dxs) continue;
    const C* gwv = g;
    if (a.wv) {
      for (int64_t i = 0; i < cols; ++i) gw[i] = g[i] * a.wv[i];
      gwv = gw;
    }
    C n = C(cols);
    C dot = lane_sum<kLanes, C>(cols, [&](int64_t i) { return gwv[i] * xhat[i]; }) / n;
    C avg = a.rms ? C(0) : lane_sum<kLanes, C>(cols, [&](int64_t i) { return gwv[i]; }) / n;
    T* dst = a.dxs + r * cols;
    for (int64_t i = 0; i < cols; ++i)
      dst[i] = static_cast<T>(r_std * (gwv[i] - avg - xhat[i] * dot));
  }
}

#define GENESIS_NORM_ROWS(isa, attributes)                                                        \
  template <typename T, typename C>                                                               \
  attributes void forward_rows_##isa(const ForwardRows<T, C>& a, int64_t r0, int64_t r1,          \
                                     std::vector<C>& scratch) {                                   \
    forward_rows<T, C>(a, r0, r1, scratch);                                                       \
  }                                                                                               \
  template <typename T, typename C>                                                               \
  attributes void backward_rows_##isa(const BackwardRows<T, C>& a, int64_t r0, int64_t r1, C* dw, \
                                      C* db, std::vector<C>* buffers) {                           \
    backward_rows<T, C>(a, r0, r1, dw, db, buffers);                                              \
  }
GENESIS_NORM_ROWS(base, )
#ifdef GENESIS_ISA_ROWS
GENESIS_NORM_ROWS(avx2, GENESIS_AVX2_ROWS)
GENESIS_NORM_ROWS(avx512, GENESIS_AVX512_ROWS)
#endif

template <typename T, typename C>
void forward_typed(const Tensor& x, const Tensor& weight, const Tensor& bias, double eps, bool rms,
                   const Tensor& out, const Tensor& mean, const Tensor& rstd) {
  int64_t cols = x.sizes().back(), rows = x.numel() / cols;
  const T* w = weight.defined() ? weight.data_as<T>() : nullptr;
  const T* b = bias.defined() ? bias.data_as<T>() : nullptr;
  std::vector<C> wc, bc;  // the affine parameters widened once
  ForwardRows<T, C> a{x.data_as<T>(),
                      w ? widened<T, C>(w, cols, wc) : nullptr,
                      b ? widened<T, C>(b, cols, bc) : nullptr,
                      out.mutable_data_as<T>(),
                      mean.defined() ? mean.mutable_data_as<C>() : nullptr,
                      rstd.mutable_data_as<C>(),
                      cols,
                      C(eps),
                      rms};
  [[maybe_unused]] const Isa isa = cpu_isa();
  int64_t pieces = pieces_for(rows, cols);
  parallel_for(pieces, 1, [&](int64_t p0, int64_t p1) {
    std::vector<C> scratch;
    int64_t r0 = rows * p0 / pieces, r1 = rows * p1 / pieces;
#ifdef GENESIS_ISA_ROWS
    if (isa == Isa::Avx512) return forward_rows_avx512<T, C>(a, r0, r1, scratch);
    if (isa == Isa::Avx2) return forward_rows_avx2<T, C>(a, r0, r1, scratch);
#endif
    forward_rows_base<T, C>(a, r0, r1, scratch);
  });
}

template <typename T, typename C>
void backward_typed(const Tensor& grad, const Tensor& x, const Tensor& mean, const Tensor& rstd,
                    const Tensor& weight, bool rms, const Tensor& grad_input,
                    const Tensor& grad_weight, const Tensor& grad_bias) {
  int64_t cols = x.sizes().back(), rows = x.numel() / cols;
  std::vector<C> wc;
  BackwardRows<T, C> a{x.data_as<T>(),
                       grad.data_as<T>(),
                       mean.defined() ? mean.data_as<C>() : nullptr,
                       rstd.data_as<C>(),
                       weight.defined() ? widened<T, C>(weight.data_as<T>(), cols, wc) : nullptr,
                       grad_input.defined() ? grad_input.mutable_data_as<T>() : nullptr,
                       cols,
                       rms};
  bool want_w = grad_weight.defined(), want_b = grad_bias.defined();
  [[maybe_unused]] const Isa isa = cpu_isa();
  int64_t pieces = pieces_for(rows, cols);
  // Each piece's column sums of grad * xhat and of grad, added in piece order at the end.
  std::vector<C> dw_parts(want_w ? static_cast<size_t>(pieces * cols) : 0);
  std::vector<C> db_parts(want_b ? static_cast<size_t>(pieces * cols) : 0);
  parallel_for(pieces, 1, [&](int64_t p0, int64_t p1) {
    // x and grad widened, then xhat and grad * w
    std::vector<C> buffers[4];
    for (int k = 2; k < 4; ++k) buffers[k].resize(static_cast<size_t>(cols));
    for (int64_t p = p0; p < p1; ++p) {
      C* dw = want_w ? dw_parts.data() + p * cols : nullptr;
      C* db = want_b ? db_parts.data() + p * cols : nullptr;
      int64_t r0 = rows * p / pieces, r1 = rows * (p + 1) / pieces;
#ifdef GENESIS_ISA_ROWS
      if (isa == Isa::Avx512) {
        backward_rows_avx512<T, C>(a, r0, r1, dw, db, buffers);
        continue;
      }
      if (isa == Isa::Avx2) {
        backward_rows_avx2<T, C>(a, r0, r1, dw, db, buffers);
        continue;
      }
#endif
      backward_rows_base<T, C>(a, r0, r1, dw, db, buffers);
    }
  });
  auto finish = [&](const std::vector<C>& parts, const Tensor& into) {
    T* dst = into.mutable_data_as<T>();
    for (int64_t i = 0; i < cols; ++i) {
      C total = 0;
      for (int64_t p = 0; p < pieces; ++p) total += parts[p * cols + i];
      dst[i] = static_cast<T>(total);
    }
  };
  if (want_w) finish(dw_parts, grad_weight);
  if (want_b) finish(db_parts, grad_bias);
}

template <typename T, typename C>
struct Forward {
  template <typename... A>
  static void run(A&&... a) {
    forward_typed<T, C>(a...);
  }
};

template <typename T, typename C>
struct Backward {
  template <typename... A>
  static void run(A&&... a) {
    backward_typed<T, C>(a...);
  }
};

}  // namespace

void row_norm_forward(const Tensor& x, const Tensor& weight, const Tensor& bias, double eps,
                      bool rms, const Tensor& out, const Tensor& mean, const Tensor& rstd) {
  if (x.numel() == 0) return;
  dispatch_floating(x.dtype(), "layer_norm", [&](auto t, auto c) {
    Forward<decltype(t), decltype(c)>::run(x, weight, bias, eps, rms, out, mean, rstd);
  });
}

void row_norm_backward(const Tensor& grad, const Tensor& x, const Tensor& mean, const Tensor& rstd,
                       const Tensor& weight, bool rms, const Tensor& grad_input,
                       const Tensor& grad_weight, const Tensor& grad_bias) {
  dispatch_floating(x.dtype(), "layer_norm", [&](auto t, auto c) {
    Backward<decltype(t), decltype(c)>::run(grad, x, mean, rstd, weight, rms, grad_input,
                                            grad_weight, grad_bias);
  });
}

}  // namespace genesis::cpu
