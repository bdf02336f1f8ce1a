// Variants of batch norm's elementwise passes (Note [Fused batch norm kernels]) timed against
// the library's, on a GPU machine (float32, 256 x 64 x 32 x 32: the "BatchNorm2d fwd+bwd"
// benchmark row, 84% of the copy rate over its eight passes in session 41):
//   nvcc -O3 -std=c++17 --expt-relaxed-constexpr -arch=sm_90 -I. tools/batch_norm_probe.cu \
//     -o /tmp/batch_norm_probe && /tmp/batch_norm_probe
// The statistics pass and the gradient sums read every plane once, all their blocks at once
// (parts x C blocks, each walking its planes in order); the elementwise pass then reads them all
// again. The variants read the planes in the reverse of the order the sums read them ("late
// first": the planes read last, which are still in L2, first) and/or with 16-byte loads, and
// each is timed together with the pass before it (the L2's contents are the point). It includes
// kernels/batch_norm.cu (its kernels and launchers); outputs are compared with the library's.
// A measuring tool, not part of the build.
#include "kernels/batch_norm.cu"

#include "tools/probe_helpers.cuh"

using namespace genesis::kernels;

constexpr int64_t kN = 256, kC = 64, kS = 32 * 32, kItems = kN * kC * kS;
constexpr double kMB = kItems * 4 / 1e6;  // one pass over a tensor

// The plane that elementwise block b takes: in plane order, or late first (the planes the sums
// read at their last step first: step t of part p reads plane n0(p) + t of every channel).
template <bool LateFirst>
__device__ __forceinline__ int64_t plane_of(int64_t b, int64_t parts, int64_t& c) {
  if (!LateFirst) {
    c = b % kC;
    return b;
  }
  const int64_t steps = (kN + parts - 1) / parts;  // the longest part's planes
  const int64_t per_step = parts * kC;
  int64_t t = steps - 1 - b / per_step, r = b % per_step, p = r / kC;
  c = r % kC;
  int64_t n0 = kN * p / parts, n1 = kN * (p + 1) / parts, n = n0 + t;
  return n < n1 ? n * kC + c : -1;  // a shorter part has no plane at this step
}

template <bool LateFirst, bool Wide>
__global__ void __launch_bounds__(256)
    apply_variant(const float* __restrict__ x, int64_t parts, const float* __restrict__ mean,
                  const float* __restrict__ invstd, const float* __restrict__ w,
                  const float* __restrict__ b, float* __restrict__ y) {
  int64_t c, plane = plane_of<LateFirst>(blockIdx.x, parts, c);
  if (plane < 0) return;
  float scale = invstd[c] * w[c], shift = b[c] - mean[c] * scale;
  if (Wide) {
    const float4* src = reinterpret_cast<const float4*>(x + plane * kS);
    float4* dst = reinterpret_cast<float4*>(y + plane * kS);
    for (int i = threadIdx.x; i < kS / 4; i += blockDim.x) {
      float4 v = src[i];
      dst[i] = make_float4(v.x * scale + shift, v.y * scale + shift, v.z * scale + shift,
                           v.w * scale + shift);
    }
  } else {
    for (int i = threadIdx.x; i < kS; i += blockDim.x)
      y[plane * kS + i] = x[plane * kS + i] * scale + shift;
  }
}

template <bool LateFirst, bool Wide>
__global__ void __launch_bounds__(256)
    grad_apply_variant(const float* __restrict__ dy, const float* __restrict__ x, int64_t parts,
                       const float* __restrict__ coef, float* __restrict__ dx) {
  int64_t c, plane = plane_of<LateFirst>(blockIdx.x, parts, c);
  if (plane < 0) return;
  float k1 = coef[c * 3], k2 = coef[c * 3 + 1], k3 = coef[c * 3 + 2];
  if (Wide) {
    const float4* g = reinterpret_cast<const float4*>(dy + plane * kS);
    const float4* v = reinterpret_cast<const float4*>(x + plane * kS);
    float4* out = reinterpret_cast<float4*>(dx + plane * kS);
    for (int i = threadIdx.x; i < kS / 4; i += blockDim.x) {
      float4 a = g[i], u = v[i];
      out[i] = make_float4(k1 * a.x - k2 * u.x + k3, k1 * a.y - k2 * u.y + k3,
                           k1 * a.z - k2 * u.z + k3, k1 * a.w - k2 * u.w + k3);
    }
  } else {
    for (int i = threadIdx.x; i < kS; i += blockDim.x)
      dx[plane * kS + i] = k1 * dy[plane * kS + i] - k2 * x[plane * kS + i] + k3;
  }
}

void report(const char* name, float us, double passes) {
  printf("  %-56s %8.1f us  %5.2f TB/s (%g passes)\n", name, us, passes * kMB / us / 1e6, passes);
}

int main() {
  int device = 0, sms = 0;
  CK(cudaGetDevice(&device));
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  ChannelDims d{kN, kC, kS};
  const int64_t parts = batch_norm_parts(d, sms);
  printf("parts %lld (x %lld channels = %lld blocks), SMs %d\n", static_cast<long long>(parts),
         static_cast<long long>(kC), static_cast<long long>(parts * kC), sms);
  float *x, *dy, *y, *dx, *y_ref, *dx_ref, *w, *b, *dw, *db, *mean, *invstd, *work;
  for (float** p : {&x, &dy, &y, &dx, &y_ref, &dx_ref}) CK(cudaMalloc(p, kItems * 4));
  for (float** p : {&w, &b, &dw, &db, &mean, &invstd}) CK(cudaMalloc(p, kC * 4));
  CK(cudaMalloc(&work, (kC * parts * 2 + kC * 3) * 4));
  const float* coef = work + kC * parts * 2;
  probe::fill<<<1024, 256>>>(x, kItems, 1);
  probe::fill<<<1024, 256>>>(dy, kItems, 2);
  probe::fill<<<1, 64>>>(w, kC, 3);
  probe::fill<<<1, 64>>>(b, kC, 4);
  CK(cudaDeviceSynchronize());
  report("cudaMemcpy device to device",
         probe::median_us([&] { CK(cudaMemcpyAsync(y, x, kItems * 4, cudaMemcpyDeviceToDevice)); }),
         2);
  auto stats = [&] {
    launch_batch_norm_stats(kFloat32, kFloat32, x, d, parts, work, 1e-5, 0.1, mean, invstd, nullptr,
                            nullptr, nullptr);
  };
  auto sums = [&] {  // the backward without dx: the gradient sums and coefficients
    launch_batch_norm_backward(kFloat32, kFloat32, dy, x, d, parts, work, mean, invstd, w, true,
                               nullptr, dw, db, nullptr);
  };
  report("stats (sums + finish)", probe::median_us(stats), 1);
  report("stats + library apply", probe::median_us([&] {
           stats();
           launch_batch_norm_apply(kFloat32, kFloat32, x, d, 0, mean, invstd, w, b, y_ref, nullptr);
         }),
         3);
  report("stats + library apply, late first (parts given)", probe::median_us([&] {
           stats();
           launch_batch_norm_apply(kFloat32, kFloat32, x, d, parts, mean, invstd, w, b, y, nullptr);
         }),
         3);
  const unsigned planes = static_cast<unsigned>(kN * kC);
  const unsigned late = static_cast<unsigned>(((kN + parts - 1) / parts) * parts * kC);
  auto fwd = [&](auto late_first, auto wide, const char* name) {
    constexpr bool L = decltype(late_first)::value, W = decltype(wide)::value;
    report(name, probe::median_us([&] {
             stats();
             apply_variant<L, W><<<L ? late : planes, 256>>>(x, parts, mean, invstd, w, b, y);
           }),
           3);
    CK(cudaDeviceSynchronize());
    printf("    max diff %.3g\n", probe::max_diff(y, y_ref, kItems));
  };
  using F = std::false_type;
  using T = std::true_type;
  fwd(F{}, F{}, "stats + apply, plane order, 4-byte loads");
  fwd(F{}, T{}, "stats + apply, plane order, 16-byte loads");
  fwd(T{}, F{}, "stats + apply, late first, 4-byte loads");
  fwd(T{}, T{}, "stats + apply, late first, 16-byte loads");
  report("gradient sums (+ finish)", probe::median_us(sums), 2);
  report("library backward", probe::median_us([&] {
           launch_batch_norm_backward(kFloat32, kFloat32, dy, x, d, parts, work, mean, invstd, w,
                                      true, dx_ref, dw, db, nullptr);
         }),
         5);
  auto bwd = [&](auto late_first, auto wide, const char* name) {
    constexpr bool L = decltype(late_first)::value, W = decltype(wide)::value;
    report(name, probe::median_us([&] {
             sums();
             grad_apply_variant<L, W><<<L ? late : planes, 256>>>(dy, x, parts, coef, dx);
           }),
           5);
    CK(cudaDeviceSynchronize());
    printf("    max diff %.3g\n", probe::max_diff(dx, dx_ref, kItems));
  };
  bwd(F{}, F{}, "sums + grad apply, plane order, 4-byte loads");
  bwd(F{}, T{}, "sums + grad apply, plane order, 16-byte loads");
  bwd(T{}, F{}, "sums + grad apply, late first, 4-byte loads");
  bwd(T{}, T{}, "sums + grad apply, late first, 16-byte loads");
  return 0;
}
