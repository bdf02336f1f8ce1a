// The group norm kernels (Note [Fused group norm kernels]) timed against a copy, on a GPU machine
// (float32, 64 x 256 x 32 x 32 in 32 groups: the "GroupNorm fwd+bwd" benchmark row):
//   nvcc -O3 -std=c++17 --expt-relaxed-constexpr -arch=sm_90 -I. tools/group_norm_probe.cu \
//     -o /tmp/group_norm_probe && /tmp/group_norm_probe
// It includes kernels/group_norm.cu (its kernels, launchers and helpers) and times the
// library's launchers, its global-memory kernels unrolled 4 and 8 times, and its staged kernels
// (Note [Rows staged by the copy engine]) in blocks of 4 to 16 warps; each variant's output is
// compared with the library's (max difference). Session 44 on an H100: staged forward 51.4 us
// and backward 73.9 against the global-memory kernels' 68.9 and 103.9, five passes at the copy's
// rate (51.0 us for two). Earlier variants, measured slower and removed: lanes keeping their
// packs in registers between the passes (sessions 41-42) and rows over clusters of blocks
// (session 43: 117.0 against 105.4 us backward on an H100). A measuring tool, not part of the
// build.
#include "kernels/group_norm.cu"
#include "tools/probe_helpers.cuh"

using namespace genesis::kernels;

constexpr int64_t kN = 64, kGroups = 32, kPer = 8, kSpatial = 1024;
constexpr int64_t kRows = kN * kGroups, kItems = kRows * kPer * kSpatial;
constexpr double kMB = kItems * 4 / 1e6;  // one pass over a tensor

void report(const char* name, float us, double passes) {
  printf("  %-52s %8.1f us  %5.2f TB/s\n", name, us, passes * kMB / us);  // MB/us = TB/s
}

// Times a variant's forward and backward kernels (each named with its registers), then compares
// their outputs with the library's.
template <typename FwdKernel, typename BwdKernel, typename Fwd, typename Bwd>
void time_variant(const char* label, FwdKernel fwd_kernel, BwdKernel bwd_kernel, Fwd fwd, Bwd bwd,
                  const float* y, const float* dx, const float* y_ref, const float* dx_ref) {
  cudaFuncAttributes attr;
  char name[112];
  CK(cudaFuncGetAttributes(&attr, fwd_kernel));
  snprintf(name, sizeof name, "fwd %s (%d regs)", label, attr.numRegs);
  report(name, probe::median_us(fwd), 2);
  CK(cudaFuncGetAttributes(&attr, bwd_kernel));
  snprintf(name, sizeof name, "bwd kernel %s (%d regs)", label, attr.numRegs);
  report(name, probe::median_us(bwd), 3);
  fwd();
  bwd();
  CK(cudaDeviceSynchronize());
  printf("    max diff y %.3g dx %.3g\n", probe::max_diff(y, y_ref, kItems),
         probe::max_diff(dx, dx_ref, kItems));
}

// The library's kernels (8 warps) with their pack loops unrolled U times.
template <int U>
void unrolled_variant(const float* x, const float* w, const float* b, const float* dy, float* y,
                      float* dx, float* mean, float* rstd, float* partial, const float* y_ref,
                      const float* dx_ref) {
  constexpr int W = 8, V = 4;
  auto fwd = [&] {
    group_norm_forward<float, float, W, V, U>
        <<<kRows, W * 32>>>(x, w, b, y, mean, rstd, kRows, kGroups, kPer, kSpatial, 1e-5f);
  };
  auto bwd = [&] {
    group_norm_backward<float, float, W, V, U>
        <<<kRows, W * 32>>>(dy, x, mean, rstd, w, dx, partial, kRows, kGroups, kPer, kSpatial);
  };
  char label[64];
  snprintf(label, sizeof label, "library, unrolled %d", U);
  time_variant(label, group_norm_forward<float, float, W, V, U>,
               group_norm_backward<float, float, W, V, U>, fwd, bwd, y, dx, y_ref, dx_ref);
}

// The library's staged kernels (rows in shared memory by the copy engine) with W warps a block,
// their pack loops unrolled U times.
template <int W, int U>
void staged_variant(const float* x, const float* w, const float* b, const float* dy, float* y,
                    float* dx, float* mean, float* rstd, float* partial, const float* y_ref,
                    const float* dx_ref) {
  constexpr int V = 4;
  constexpr size_t kRowBytes = kPer * kSpatial * 4;
  auto fk = group_norm_forward_staged<float, float, W, V, U>;
  auto bk = group_norm_backward_staged<float, float, W, V, U>;
  CK(cudaFuncSetAttribute(fk, cudaFuncAttributeMaxDynamicSharedMemorySize, 2 * kRowBytes));
  CK(cudaFuncSetAttribute(bk, cudaFuncAttributeMaxDynamicSharedMemorySize, 2 * kRowBytes));
  int fblocks = 0, bblocks = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fblocks, fk, W * 32, kRowBytes));
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&bblocks, bk, W * 32, 2 * kRowBytes));
  auto fwd = [&] {
    fk<<<kRows, W * 32, kRowBytes>>>(x, w, b, y, mean, rstd, kRows, kGroups, kPer, kSpatial, 1e-5f);
  };
  auto bwd = [&] {
    bk<<<kRows, W * 32, 2 * kRowBytes>>>(dy, x, mean, rstd, w, dx, partial, kRows, kGroups, kPer,
                                         kSpatial);
  };
  char label[80];
  snprintf(label, sizeof label, "staged, %d warps, unrolled %d, %d/%d blocks/SM", W, U, fblocks,
           bblocks);
  time_variant(label, fk, bk, fwd, bwd, y, dx, y_ref, dx_ref);
}

int main() {
  float *x, *dy, *y, *dx, *y_ref, *dx_ref, *w, *b, *dw, *db, *mean, *rstd, *partial;
  CK(cudaMalloc(&x, kItems * 4));
  CK(cudaMalloc(&dy, kItems * 4));
  CK(cudaMalloc(&y, kItems * 4));
  CK(cudaMalloc(&dx, kItems * 4));
  CK(cudaMalloc(&y_ref, kItems * 4));
  CK(cudaMalloc(&dx_ref, kItems * 4));
  CK(cudaMalloc(&w, kGroups * kPer * 4));
  CK(cudaMalloc(&b, kGroups * kPer * 4));
  CK(cudaMalloc(&dw, kGroups * kPer * 4));
  CK(cudaMalloc(&db, kGroups * kPer * 4));
  CK(cudaMalloc(&mean, kRows * 4));
  CK(cudaMalloc(&rstd, kRows * 4));
  CK(cudaMalloc(&partial, 2 * kRows * kPer * 4));
  probe::fill<<<1024, 256>>>(x, kItems, 1);
  probe::fill<<<1024, 256>>>(dy, kItems, 2);
  probe::fill<<<1, 256>>>(w, kGroups * kPer, 3);
  probe::fill<<<1, 256>>>(b, kGroups * kPer, 4);
  CK(cudaDeviceSynchronize());
  const int f32 = kFloat32;
  report("cudaMemcpy device to device (2 passes)",
         probe::median_us([&] { CK(cudaMemcpyAsync(y, x, kItems * 4, cudaMemcpyDeviceToDevice)); }),
         2);
  auto lib_fwd = [&] {
    launch_group_norm_forward(f32, x, w, b, y_ref, mean, rstd, kRows, kGroups, kPer, kSpatial, 1e-5,
                              nullptr);
  };
  report("fwd library", probe::median_us(lib_fwd), 2);
  report("bwd library + column sums", probe::median_us([&] {
           launch_group_norm_backward(f32, dy, x, mean, rstd, w, dx_ref, dw, db, partial, kRows,
                                      kGroups, kPer, kSpatial, nullptr);
         }),
         3);
  report("bwd library kernel alone", probe::median_us([&] {
           launch_group_norm_backward(f32, dy, x, mean, rstd, w, dx_ref, nullptr, nullptr, partial,
                                      kRows, kGroups, kPer, kSpatial, nullptr);
         }),
         3);
  report("fwd + bwd library", probe::median_us([&] {
           lib_fwd();
           launch_group_norm_backward(f32, dy, x, mean, rstd, w, dx_ref, dw, db, partial, kRows,
                                      kGroups, kPer, kSpatial, nullptr);
         }),
         5);
  unrolled_variant<4>(x, w, b, dy, y, dx, mean, rstd, partial, y_ref, dx_ref);
  unrolled_variant<8>(x, w, b, dy, y, dx, mean, rstd, partial, y_ref, dx_ref);
  staged_variant<8, 1>(x, w, b, dy, y, dx, mean, rstd, partial, y_ref, dx_ref);
  staged_variant<8, 4>(x, w, b, dy, y, dx, mean, rstd, partial, y_ref, dx_ref);
  staged_variant<8, 8>(x, w, b, dy, y, dx, mean, rstd, partial, y_ref, dx_ref);
  staged_variant<4, 4>(x, w, b, dy, y, dx, mean, rstd, partial, y_ref, dx_ref);
  staged_variant<16, 2>(x, w, b, dy, y, dx, mean, rstd, partial, y_ref, dx_ref);
  staged_variant<16, 4>(x, w, b, dy, y, dx, mean, rstd, partial, y_ref, dx_ref);
  return 0;
}
