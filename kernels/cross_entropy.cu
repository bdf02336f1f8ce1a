// Note [Fused cross-entropy kernels]: the loss of each row of logits from one read of the row,
// and its gradient from one more read and one write; the probabilities are never stored. A
// block takes a row (a grid-stride loop over rows): forward keeps the online softmax's running
// (maximum, sum of exponentials) pair per thread (online_softmax.cuh), updated once a pack
// (MaxSum::add_pack; item by item, the forward read bfloat16 rows of 50304 at 1.5 TB/s on the
// H200, a pack at a time at 2.4 TB/s), and with label smoothing
// the (weighted) sum of the logits, merges them over the block, and one thread reads the
// target's logit and writes the row's loss and logsumexp. Backward recomputes each probability
// as exp(x - lse) and writes the gradient. Rows that are whole aligned 16-byte packs are read a
// pack at a time.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "kernels/cross_entropy.cuh"
#include "kernels/dtype_traits.cuh"
#include "kernels/index_record.cuh"
#include "kernels/online_softmax.cuh"

namespace genesis::kernels {

namespace {

constexpr int kMaxThreads = 512;

template <typename T, int V>
struct alignas(sizeof(T) * V) LogitPack {
  T v[V];
};

// The block's merged (max, sum) pair and the sum of `extra`, returned to every thread.
template <typename C>
__device__ __forceinline__ void block_merge(MaxSum<C>& acc, C& extra) {
  __shared__ C part_m[kMaxThreads / 32], part_s[kMaxThreads / 32], part_e[kMaxThreads / 32];
  __shared__ C total_m, total_s, total_e;
  acc = warp_merge(acc);
#pragma unroll
  for (int delta = 16; delta > 0; delta >>= 1) extra += __shfl_xor_sync(0xffffffffu, extra, delta);
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32, warps = blockDim.x / 32;
  __syncthreads();  // the previous row's readers are done
  if (lane == 0) {
    part_m[warp] = acc.m;
    part_s[warp] = acc.s;
    part_e[warp] = extra;
  }
  __syncthreads();
  if (warp == 0) {
    MaxSum<C> all;
    C e = 0;
    if (lane < warps) {
      all.merge(part_m[lane], part_s[lane]);
      e = part_e[lane];
    }
    all = warp_merge(all);
#pragma unroll
    for (int delta = 16; delta > 0; delta >>= 1) e += __shfl_xor_sync(0xffffffffu, e, delta);
    if (lane == 0) {
      total_m = all.m;
      total_s = all.s;
      total_e = e;
    }
  }
  __syncthreads();
  acc.m = total_m;
  acc.s = total_s;
  extra = total_e;
}

template <typename T, typename C, int V, bool Smooth>
__global__ void __launch_bounds__(kMaxThreads)
    cross_entropy_forward(const T* __restrict__ x, const int64_t* __restrict__ target,
                          const T* __restrict__ w, const C* __restrict__ weight_sum,
                          T* __restrict__ loss, C* __restrict__ lse_out, int64_t rows, int64_t cols,
                          int64_t ignore, C smoothing, IndexSite error) {
  using P = LogitPack<T, V>;
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* row = x + r * cols;
    MaxSum<C> acc;
    // sum of w[c] (x[c] - x[0]) (smoothing only): taken from the first logit so that a large
    // common offset of the row cancels before the sum
    C wx = 0, x0 = Smooth ? convert<C>(row[0]) : C(0);
    for (int64_t p = threadIdx.x; p < cols / V; p += blockDim.x) {
      P pk = reinterpret_cast<const P*>(row)[p];
      C v[V];
#pragma unroll
      for (int j = 0; j < V; ++j) {
        v[j] = convert<C>(pk.v[j]);
        if constexpr (Smooth) wx += w ? convert<C>(w[p * V + j]) * (v[j] - x0) : v[j] - x0;
      }
      acc.add_pack(v);
    }
    block_merge(acc, wx);
    if (threadIdx.x != 0) continue;
    C log_s = log_of(acc.s);
    int64_t t = target[r];
    C l = 0;
    if (t != ignore) {
      if (t < 0 || t >= cols) {
        record_index_error(error, t, 1, cols);
        l = C(NAN);
      } else {
        C wt = w ? convert<C>(w[t]) : C(1);
        // lse - x[t] as (m - x[t]) + log(s): a loss far below the logits keeps its digits
        l = (C(1) - smoothing) * wt * ((acc.m - convert<C>(row[t])) + log_s);
        if constexpr (Smooth) {
          C total_w = weight_sum ? *weight_sum : C(cols);
          l += smoothing / C(cols) * (total_w * ((acc.m - x0) + log_s) - wx);
        }
      }
    }
    loss[r] = convert<T>(l);
    lse_out[2 * r] = acc.m;  // the logsumexp as (m, log s): Note [Fused cross-entropy]
    lse_out[2 * r + 1] = log_s;
  }
}

template <typename T, typename C, int V, bool Smooth>
__global__ void __launch_bounds__(kMaxThreads)
    cross_entropy_backward(const T* __restrict__ x, const int64_t* __restrict__ target,
                           const T* __restrict__ w, const C* __restrict__ weight_sum,
                           const T* __restrict__ grad, const C* __restrict__ lse_in,
                           T* __restrict__ dx, int64_t rows, int64_t cols, int64_t ignore,
                           C smoothing) {
  using P = LogitPack<T, V>;
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const P* row = reinterpret_cast<const P*>(x + r * cols);
    P* out = reinterpret_cast<P*>(dx + r * cols);
    int64_t t = target[r];
    bool live = t != ignore && t >= 0 && t < cols;
    C g = live ? convert<C>(grad[r]) : C(0);
    C m = lse_in[2 * r], log_s = lse_in[2 * r + 1];
    C hit = live ? g * (C(1) - smoothing) * (w ? convert<C>(w[t]) : C(1)) : C(0);
    C spread = Smooth ? g * smoothing / C(cols) : C(0);
    C total_w = Smooth ? (weight_sum ? *weight_sum : C(cols)) : C(0);
    for (int64_t p = threadIdx.x; p < cols / V; p += blockDim.x) {
      P pk = row[p], o;
#pragma unroll
      for (int j = 0; j < V; ++j) {
        int64_t c = p * V + j;
        C prob = exp_of((convert<C>(pk.v[j]) - m) - log_s);
        C d = hit * (prob - (c == t ? C(1) : C(0)));
        if constexpr (Smooth) d += spread * (total_w * prob - (w ? convert<C>(w[c]) : C(1)));
        o.v[j] = convert<T>(live ? d : C(0));
      }
      out[p] = o;
    }
  }
}

int threads_for(int64_t packs) {
  int threads = 32;
  while (threads < kMaxThreads && static_cast<int64_t>(threads) * 4 < packs) threads *= 2;
  return threads;
}

unsigned grid_for(int64_t rows) {
  return static_cast<unsigned>(rows < (int64_t{1} << 30) ? rows : (int64_t{1} << 30));
}

bool packs_fit(const CrossEntropyRows& a, int item, std::initializer_list<const void*> ptrs) {
  int v = 16 / item;
  if (a.cols % v != 0) return false;
  for (const void* p : ptrs)
    if (reinterpret_cast<uintptr_t>(p) % 16 != 0) return false;
  return true;
}

template <typename T, typename C, int V, bool Smooth>
void forward_packed(const CrossEntropyRows& a, void* loss, void* lse, IndexSite error,
                    cudaStream_t stream) {
  cross_entropy_forward<T, C, V, Smooth><<<grid_for(a.rows), threads_for(a.cols / V), 0, stream>>>(
      static_cast<const T*>(a.logits), a.target, static_cast<const T*>(a.weight),
      static_cast<const C*>(a.weight_sum), static_cast<T*>(loss), static_cast<C*>(lse), a.rows,
      a.cols, a.ignore_index, static_cast<C>(a.smoothing), error);
}

template <typename T, typename C, int V, bool Smooth>
void backward_packed(const CrossEntropyRows& a, const void* grad, const void* lse, void* dx,
                     cudaStream_t stream) {
  cross_entropy_backward<T, C, V, Smooth><<<grid_for(a.rows), threads_for(a.cols / V), 0, stream>>>(
      static_cast<const T*>(a.logits), a.target, static_cast<const T*>(a.weight),
      static_cast<const C*>(a.weight_sum), static_cast<const T*>(grad), static_cast<const C*>(lse),
      static_cast<T*>(dx), a.rows, a.cols, a.ignore_index, static_cast<C>(a.smoothing));
}

template <typename T, typename C, bool Smooth>
void forward_typed(const CrossEntropyRows& a, void* loss, void* lse, IndexSite error,
                   cudaStream_t stream) {
  constexpr int V = 16 / sizeof(T);
  if (packs_fit(a, sizeof(T), {a.logits}))
    forward_packed<T, C, V, Smooth>(a, loss, lse, error, stream);
  else
    forward_packed<T, C, 1, Smooth>(a, loss, lse, error, stream);
}

template <typename T, typename C, bool Smooth>
void backward_typed(const CrossEntropyRows& a, const void* grad, const void* lse, void* dx,
                    cudaStream_t stream) {
  constexpr int V = 16 / sizeof(T);
  if (packs_fit(a, sizeof(T), {a.logits, dx}))
    backward_packed<T, C, V, Smooth>(a, grad, lse, dx, stream);
  else
    backward_packed<T, C, 1, Smooth>(a, grad, lse, dx, stream);
}

template <typename F>
void dispatch(const CrossEntropyRows& a, const F& f) {
  auto go = [&](auto smooth) {
    switch (a.dtype) {
      case kFloat16:
        return f(__half{}, float{}, smooth);
      case kBFloat16:
        return f(__nv_bfloat16{}, float{}, smooth);
      case kFloat32:
        return f(float{}, float{}, smooth);
      case kFloat64:
        return f(double{}, double{}, smooth);
      default:
        return;  // the caller checked the dtype
    }
  };
  if (a.smoothing > 0)
    go(std::true_type{});
  else
    go(std::false_type{});
}

}  // namespace

void launch_cross_entropy_forward(const CrossEntropyRows& a, void* loss, void* lse, IndexSite error,
                                  void* stream) {
  dispatch(a, [&](auto t, auto c, auto smooth) {
    forward_typed<decltype(t), decltype(c), decltype(smooth)::value>(
        a, loss, lse, error, static_cast<cudaStream_t>(stream));
  });
}

void launch_cross_entropy_backward(const CrossEntropyRows& a, const void* grad, const void* lse,
                                   void* dlogits, void* stream) {
  dispatch(a, [&](auto t, auto c, auto smooth) {
    backward_typed<decltype(t), decltype(c), decltype(smooth)::value>(
        a, grad, lse, dlogits, static_cast<cudaStream_t>(stream));
  });
}

}  // namespace genesis::kernels
