#include "cpu/convolution.h"

#include <vector>

#include "cpu/copy.h"
#include "cpu/gemm.h"

namespace genesis::cpu {

// Note [Convolution over shifted windows]
// A convolution of stride 1 is a sum over the kernel's taps of products: tap (kh, kw) multiplies
// the input shifted by (kh * dilation_h, kw * dilation_w) by the weight's (C, O) slice of that
// tap. With the input copied once channels-last into a zero padded plane of Hp x Wp positions
// per sample, output position (oh, ow) read as row oh * Wp + ow, the shifted input of every tap
// is the same matrix of rows C items apart, starting (kh * dilation_h * Wp + kw *
// dilation_w) * C items further on. So the convolution is one GEMM whose A (positions x taps *
// C) has its k in segments of C, one per tap, each at its own offset (GemmSegments in
// cpu/gemm.h): the micro-kernel reads the input where it lies, with no columns copied out (the
// im2col route of genesis/nn/functional/_conv.py wrote and read nine copies of the input and ran
// its product with the positions as columns, 8 x 64 x 32 x 32 -> 64 in float32: 2.44 ms
// forward against torch's 1.41). The rows past each output row's last position (Wp - OW of
// them) are computed and dropped: 6% more work at 32 x 32 with a padding of 1.
// The input's gradient is the same product over the output's gradient, padded by
// dilation * (k - 1) - padding (negative: cropped), with the weight's taps reversed and its
// channels swapped. The weight's gradient contracts over all positions of all samples at once:
// the output's gradient laid out (N * positions, O) with zeros at the dropped positions is A, and
// the shifted inputs are B, one segment of C columns per tap.
// bfloat16 runs by pairs of k (Note [bfloat16 products by pairs] in gemm.cpp) into float32 sums
// where the CPU has AVX512-BF16 (the tile unit's path, Note [bfloat16 products on AMX], takes no
// segments); float16, and bfloat16 elsewhere, run in float32, widened by the copies into the
// planes. The copy out rounds once.

namespace {

// The dtype the operands are multiplied in: float64 and bfloat16 (by pairs, where the CPU has
// AVX512-BF16) as themselves, else float32 (16-bit operands widened by the copies into the
// planes, their products exact).
ScalarType compute_type(ScalarType d) {
  if (d == ScalarType::Float64) return d;
  if (d == ScalarType::BFloat16 && gemm_segmented_bfloat16_usable()) return d;
  return ScalarType::Float32;
}

// The dtype the sums are kept in.
ScalarType sum_type(ScalarType compute) {
  return compute == ScalarType::Float64 ? compute : ScalarType::Float32;
}

// A (N, C, H, W) tensor copied channels-last into zero padded planes: sample n's position
// (i, j) of an hp x wp plane at row n * sample + i * wp + j of `rows` (., C), holding t's
// (i - top, j - left) (negative top or left crop t). `sample` = hp * wp + overhang, and `tail`
// rows of zeros follow the last sample, for windows that reach past it.
struct Planes {
  Tensor rows;
  int64_t wp, sample;
};

Planes planes_of(const Tensor& t, int64_t top, int64_t left, int64_t hp, int64_t wp,
                 int64_t overhang, int64_t tail, ScalarType dtype) {
  const Shape& s = t.sizes();
  const int64_t n = s[0], c = s[1], h = s[2], w = s[3];
  Planes p{Tensor(), wp, hp * wp + overhang};
  p.rows = Tensor::empty({n * p.sample + tail, c}, dtype, kCPU);
  fill(p.rows, 0);
  const int64_t h0 = std::max<int64_t>(0, -top), h1 = std::min(h, hp - top);
  const int64_t w0 = std::max<int64_t>(0, -left), w1 = std::min(w, wp - left);
  if (n == 0 || c == 0 || h1 <= h0 || w1 <= w0) return p;
  const Shape& st = t.strides();
  Tensor src =
      t.as_strided({n, c, h1 - h0, w1 - w0}, st, t.storage_offset() + h0 * st[2] + w0 * st[3]);
  Tensor dst = p.rows.as_strided({n, c, h1 - h0, w1 - w0}, {p.sample * c, 1, wp * c, c},
                                 ((top + h0) * wp + left + w0) * c);
  copy(dst, src);
  return p;
}

// Each tap's offset in the planes' rows of c channels.
std::vector<int64_t> tap_offsets(int64_t kh, int64_t kw, const WindowGeometry& g, int64_t wp,
                                 int64_t c) {
  std::vector<int64_t> offsets;
  offsets.reserve(static_cast<size_t>(kh * kw));
  for (int64_t i = 0; i < kh; ++i)
    for (int64_t j = 0; j < kw; ++j)
      offsets.push_back((i * g.dilation_h * wp + j * g.dilation_w) * c);
  return offsets;
}

// out = a @ b with segments: operands of one dtype, out of its sum_type.
void product(const Tensor& out, const Tensor& a, const int64_t sa[3], GemmSegments a_k,
             const Tensor& b, const int64_t sb[3], GemmSegments b_n, int64_t batch, int64_t m,
             int64_t n, int64_t k) {
  if (a.dtype() == ScalarType::Float64)
    return gemm_segmented(out.mutable_data_as<double>(), a.data_as<double>(), sa, a_k,
                          b.data_as<double>(), sb, b_n, batch, m, n, k);
  if (a.dtype() == ScalarType::BFloat16)
    return gemm_segmented_bfloat16(out.mutable_data_as<float>(),
                                   static_cast<const uint16_t*>(a.data()), sa, a_k,
                                   static_cast<const uint16_t*>(b.data()), sb, b_n, batch, m, n, k);
  gemm_segmented(out.mutable_data_as<float>(), a.data_as<float>(), sa, a_k, b.data_as<float>(), sb,
                 b_n, batch, m, n, k);
}

// w (O, C, KH, KW) as a contiguous (KH, KW, C, O) matrix of dtype, or with `reversed` as the
// transposed convolution's (KH, KW, O, C) with the taps in reverse order.
Tensor weight_by_taps(const Tensor& w, ScalarType dtype, bool reversed) {
  const Shape& s = w.sizes();
  const Shape& st = w.strides();
  const int64_t o = s[0], c = s[1], kh = s[2], kw = s[3];
  Tensor out = Tensor::empty({kh, kw, reversed ? o : c, reversed ? c : o}, dtype, kCPU);
  if (!reversed) {
    copy(out.as_strided({o, c, kh, kw}, {1, o, kw * c * o, c * o}, 0), w);
    return out;
  }
  // tap (i, j) of the result is tap (kh - 1 - i, kw - 1 - j) of w: one copy per tap
  for (int64_t i = 0; i < kh; ++i)
    for (int64_t j = 0; j < kw; ++j) {
      Tensor tap = w.as_strided({o, c}, {st[0], st[1]},
                                w.storage_offset() + (kh - 1 - i) * st[2] + (kw - 1 - j) * st[3]);
      copy(out.as_strided({o, c}, {c, 1}, (i * kw + j) * o * c), tap);
    }
  return out;
}

// out (N, O, OH, OW) = the stride-1 convolution of src (N, C, H, W), padded by top and left
// (and as much after: negative crops), with taps (KH, KW, C, O) of the compute dtype.
void convolve(const Tensor& out, const Tensor& src, int64_t top, int64_t left, const Tensor& taps,
              int64_t kh, int64_t kw, const WindowGeometry& g, ScalarType compute) {
  const int64_t n = src.sizes()[0], c = src.sizes()[1], o = out.sizes()[1];
  const int64_t oh = out.sizes()[2], ow = out.sizes()[3];
  const Planes in = planes_of(src, top, left, src.sizes()[2] + 2 * top, src.sizes()[3] + 2 * left,
                              (kw - 1) * g.dilation_w, 0, compute);
  const std::vector<int64_t> offsets = tap_offsets(kh, kw, g, in.wp, c);
  const int64_t rows = oh * in.wp;
  Tensor sums = Tensor::empty({n, rows, o}, sum_type(compute), kCPU);
  const int64_t sa[3] = {in.sample * c, c, 1}, sb[3] = {0, o, 1};
  product(sums, in.rows, sa, {offsets.data(), c}, taps, sb, {}, n, rows, o, kh * kw * c);
  copy(out, sums.as_strided({n, o, oh, ow}, {rows * o, 1, in.wp * o, o}, 0));
}

}  // namespace

bool shifted_convolution_usable(ScalarType dtype, int64_t c_in, int64_t c_out, int64_t taps) {
  // one tap is a product as it stands, which genesis.nn.functional's own path runs
  if (!is_floating_point(dtype) || taps < 2) return false;
  const ScalarType compute = compute_type(dtype);
  const int64_t panel = gemm_segment_panel(static_cast<int>(itemsize(compute)));
  return c_in >= 16 && c_out >= 16 && c_in % panel == 0;
}

void shifted_convolution(const Tensor& y, const Tensor& x, const Tensor& w,
                         const WindowGeometry& g) {
  const ScalarType compute = compute_type(x.dtype());
  convolve(y, x, g.pad_h, g.pad_w, weight_by_taps(w, compute, false), w.sizes()[2], w.sizes()[3], g,
           compute);
}

void shifted_convolution_backward_input(const Tensor& dx, const Tensor& dy, const Tensor& w,
                                        const WindowGeometry& g) {
  const int64_t kh = w.sizes()[2], kw = w.sizes()[3];
  const ScalarType compute = compute_type(dy.dtype());
  convolve(dx, dy, g.dilation_h * (kh - 1) - g.pad_h, g.dilation_w * (kw - 1) - g.pad_w,
           weight_by_taps(w, compute, true), kh, kw, g, compute);
}

void shifted_convolution_backward_weight(const Tensor& dw, const Tensor& x, const Tensor& dy,
                                         const WindowGeometry& g) {
  const int64_t n = x.sizes()[0], c = x.sizes()[1], h = x.sizes()[2], width = x.sizes()[3];
  const int64_t o = dy.sizes()[1], oh = dy.sizes()[2], ow = dy.sizes()[3];
  const int64_t kh = dw.sizes()[2], kw = dw.sizes()[3];
  const ScalarType compute = compute_type(x.dtype());
  const int64_t hp = h + 2 * g.pad_h, wp = width + 2 * g.pad_w;
  const int64_t reach = (kh - 1) * g.dilation_h * wp + (kw - 1) * g.dilation_w;
  const Planes in = planes_of(x, g.pad_h, g.pad_w, hp, wp, (kw - 1) * g.dilation_w, reach, compute);
  // the output's gradient at each sample's rows of the planes, zero at the dropped positions
  Tensor grad = Tensor::empty({n * in.sample, o}, compute, kCPU);
  fill(grad, 0);
  copy(grad.as_strided({n, o, oh, ow}, {in.sample * o, 1, wp * o, o}, 0), dy);
  const std::vector<int64_t> offsets = tap_offsets(kh, kw, g, wp, c);
  Tensor sums = Tensor::empty({o, kh * kw * c}, sum_type(compute), kCPU);
  const int64_t sa[3] = {0, 1, o}, sb[3] = {0, c, 1};
  product(sums, grad, sa, {}, in.rows, sb, {offsets.data(), c}, 1, o, kh * kw * c, n * in.sample);
  copy(dw, sums.as_strided({o, c, kh, kw}, {kh * kw * c, 1, kw * c, c}, 0));
}

}  // namespace genesis::cpu
