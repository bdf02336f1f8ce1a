#include "ops/convolution.h"

#include <climits>

#include "core/errors.h"
#include "cpu/convolution.h"
#include "cuda/cudnn.h"
#include "ops/convert.h"
#include "ops/copy.h"
#include "ops/layout.h"

namespace genesis::ops {

namespace {

std::string sizes_text(const Shape& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += str_cat(i ? ", " : "", s[i]);
  return out + "]";
}

void check_tensor(const Tensor& t, const Tensor& like, const char* what, const char* op) {
  const ScalarType d = t.dtype();
  GENESIS_CHECK_TYPE(d == ScalarType::Float16 || d == ScalarType::BFloat16 ||
                         d == ScalarType::Float32 || d == ScalarType::Float64,
                     op, "expected a floating point ", what, ", got ", scalar_type_name(d));
  GENESIS_CHECK(d == like.dtype() && t.device() == like.device(), op, what, " is ",
                scalar_type_name(d), " on ", t.device().str(), " but the other operand is ",
                scalar_type_name(like.dtype()), " on ", like.device().str());
}

// The output sizes of convolving x_sizes with w_sizes, checking the channels and geometry.
Shape output_sizes(const Shape& x, const Shape& w, const ConvolutionOptions& o, const char* op) {
  const size_t nd = o.padding.size();
  GENESIS_CHECK(nd >= 1 && nd <= 3 && o.stride.size() == nd && o.dilation.size() == nd &&
                    x.size() == nd + 2 && w.size() == nd + 2,
                op, "expected (N, C, *spatial) operands with 1 to 3 spatial dims and one ",
                "padding, stride and dilation per spatial dim, got input ", sizes_text(x),
                " and weight ", sizes_text(w));
  GENESIS_CHECK(o.groups > 0 && w[0] % o.groups == 0 && x[1] == w[1] * o.groups, op, "input ",
                sizes_text(x), " and weight ", sizes_text(w), " do not match for ", o.groups,
                " groups");
  Shape y{x[0], w[0]};
  for (size_t i = 0; i < nd; ++i) {
    GENESIS_CHECK(o.padding[i] >= 0 && o.stride[i] > 0 && o.dilation[i] > 0, op,
                  "expected non-negative padding and positive strides and dilations");
    const int64_t span = o.dilation[i] * (w[2 + i] - 1) + 1;
    const int64_t room = x[2 + i] + 2 * o.padding[i] - span;
    GENESIS_CHECK(room >= 0, op, "the kernel ", sizes_text(w), " is larger than the padded input ",
                  sizes_text(x));
    y.push_back(room / o.stride[i] + 1);
  }
  return y;
}

int as_int(int64_t v, const char* op) {
  GENESIS_CHECK(v >= 0 && v <= INT_MAX, op, "cuDNN takes sizes below 2^31, got ", v);
  return static_cast<int>(v);
}

// The cuDNN view of the convolution: a 1-D one lifted to 2-D with a unit height.
cuda::CudnnConvolution describe(const Tensor& like, const Shape& x, const Shape& w, const Shape& y,
                                const ConvolutionOptions& o, bool channels_last, const char* op) {
  cuda::CudnnConvolution c;
  c.dtype = like.dtype();
  c.channels_last = channels_last;
  const bool lift = o.padding.size() == 1;
  c.rank = static_cast<int>(x.size()) + (lift ? 1 : 0);
  for (const Shape* s : {&x, &w, &y}) {
    int64_t numel = 1;
    for (int64_t v : *s) numel *= v;
    GENESIS_CHECK(numel <= INT_MAX, op, "cuDNN takes tensors of fewer than 2^31 items, got ",
                  sizes_text(*s));
  }
  auto fill = [&](int* dst, const Shape& s) {
    int j = 0;
    for (size_t i = 0; i < s.size(); ++i) {
      if (lift && i == 2) dst[j++] = 1;
      dst[j++] = as_int(s[i], op);
    }
  };
  fill(c.x, x);
  fill(c.w, w);
  fill(c.y, y);
  for (size_t i = 0, j = lift ? 1 : 0; i < o.padding.size(); ++i, ++j) {
    c.pad[j] = as_int(o.padding[i], op);
    c.stride[j] = as_int(o.stride[i], op);
    c.dilation[j] = as_int(o.dilation[i], op);
  }
  if (lift) c.pad[0] = 0, c.stride[0] = 1, c.dilation[0] = 1;
  c.groups = as_int(o.groups, op);
  c.benchmark = o.benchmark;
  c.deterministic = o.deterministic;
  c.allow_tf32 = o.allow_tf32;
  return c;
}

// Note [Convolution layouts]
// cuDNN reads and writes NCHW (NCDHW) or NHWC (NDHWC) tensors, and its fastest Hopper engines
// for 16-bit types are NHWC: handed NCHW operands it transposes them in and out (about a fifth
// of a small ResNet's step). So, as PyTorch, a 2-D or 3-D convolution runs channels-last when
// either operand it reads is laid out channels-last (genesis.channels_last, channels_last_3d;
// a tensor that is also contiguous, as a 1x1 kernel or a single channel, does not count): the
// other operand is copied to channels-last if it is not, and the result (the output, or
// the input's or the weight's gradient) is channels-last. Otherwise all three are contiguous,
// and a 1-D convolution (lifted to 2-D with a unit height) and a float64 one always are.
Tensor empty_in_layout(const Shape& sizes, const Tensor& like, bool channels_last) {
  return channels_last ? empty_channels_last(sizes, like.dtype(), like.device())
                       : Tensor::empty(sizes, like.dtype(), like.device());
}

// t in the pass's layout: itself when it already is, else a copy.
Tensor in_layout(const Tensor& t, bool channels_last) {
  return channels_last ? as_channels_last(t) : contiguous(t);
}

Tensor zeroed(const Tensor& t, const char* op) {
  fill_(t, Scalar(0.0), op);
  return t;
}

bool empty(const Shape& s) {
  for (int64_t v : s)
    if (v == 0) return true;
  return false;
}

// Note [Convolution over shifted windows] (cpu/convolution.cpp): the CPU's passes take 1-D and
// 2-D convolutions of stride 1 and one group with enough channels; genesis.nn.functional asks
// cpu_convolution_usable first and keeps its own path for the others.
cpu::WindowGeometry cpu_geometry(const Tensor& like, const Shape& x, const Shape& w,
                                 const ConvolutionOptions& o, const char* op) {
  GENESIS_CHECK(cpu_convolution_usable(like.dtype(), x, w, o), op,
                "the CPU convolution takes 1-D and 2-D convolutions of stride 1 and one group "
                "with at least 16 channels each way, got input ",
                sizes_text(x), " and weight ", sizes_text(w));
  if (o.padding.size() == 1) return {0, o.padding[0], 1, o.dilation[0]};
  return {o.padding[0], o.padding[1], o.dilation[0], o.dilation[1]};
}

// A 1-D operand seen as 2-D with a unit height (a view); a 2-D one as it is.
Tensor as_planes(const Tensor& t) {
  if (t.ndim() != 3) return t;
  const Shape& s = t.sizes();
  const Shape& st = t.strides();
  return t.as_strided({s[0], s[1], 1, s[2]}, {st[0], st[1], s[2] * st[2], st[2]},
                      t.storage_offset());
}

}  // namespace

bool cpu_convolution_usable(ScalarType dtype, const Shape& x, const Shape& w,
                            const ConvolutionOptions& o) {
  const size_t nd = o.padding.size();
  if (nd < 1 || nd > 2 || o.groups != 1 || x.size() != nd + 2 || w.size() != nd + 2) return false;
  for (int64_t s : o.stride)
    if (s != 1) return false;
  int64_t taps = 1;
  for (size_t i = 2; i < w.size(); ++i) taps *= w[i];
  return cpu::shifted_convolution_usable(dtype, x[1], w[0], taps);
}

bool channels_last_pass(const Tensor& a, const Tensor& b) {
  // cuDNN has no channels-last float64 algorithms for every pass: float64 stays contiguous,
  // as in PyTorch
  return a.dtype() != ScalarType::Float64 && (prefers_channels_last(a) || prefers_channels_last(b));
}

Tensor convolution(const Tensor& x, const Tensor& w, const ConvolutionOptions& o, const char* op) {
  check_tensor(x, w, "input", op);
  const Shape y = output_sizes(x.sizes(), w.sizes(), o, op);
  const bool cl = channels_last_pass(x, w);
  Tensor out = empty_in_layout(y, x, cl);
  if (empty(y)) return out;
  if (empty(x.sizes())) return zeroed(out, op);  // no input channels: every sum is empty
  if (!x.is_cuda()) {
    cpu::shifted_convolution(as_planes(out), as_planes(x), as_planes(w),
                             cpu_geometry(x, x.sizes(), w.sizes(), o, op));
    return out;
  }
  cuda::cudnn_convolution_forward(describe(x, x.sizes(), w.sizes(), y, o, cl, op), in_layout(x, cl),
                                  in_layout(w, cl), out, op);
  return out;
}

Tensor convolution_backward_input(const Tensor& dy, const Tensor& w, const Shape& input_sizes,
                                  const ConvolutionOptions& o, const char* op) {
  check_tensor(dy, w, "grad_output", op);
  const Shape y = output_sizes(input_sizes, w.sizes(), o, op);
  GENESIS_CHECK(y == dy.sizes(), op, "grad_output ", sizes_text(dy.sizes()), " is not the ",
                sizes_text(y), " that input ", sizes_text(input_sizes), " gives");
  const bool cl = channels_last_pass(dy, w);
  Tensor dx = empty_in_layout(input_sizes, dy, cl);
  if (empty(input_sizes)) return dx;
  if (empty(y) || empty(w.sizes())) return zeroed(dx, op);
  if (!dy.is_cuda()) {
    cpu::shifted_convolution_backward_input(as_planes(dx), as_planes(dy), as_planes(w),
                                            cpu_geometry(dy, input_sizes, w.sizes(), o, op));
    return dx;
  }
  cuda::cudnn_convolution_backward_data(describe(dy, input_sizes, w.sizes(), y, o, cl, op),
                                        in_layout(dy, cl), in_layout(w, cl), dx, op);
  return dx;
}

Tensor convolution_backward_weight(const Tensor& x, const Tensor& dy, const Shape& weight_sizes,
                                   const ConvolutionOptions& o, const char* op) {
  check_tensor(x, dy, "input", op);
  const Shape y = output_sizes(x.sizes(), weight_sizes, o, op);
  GENESIS_CHECK(y == dy.sizes(), op, "grad_output ", sizes_text(dy.sizes()), " is not the ",
                sizes_text(y), " that input ", sizes_text(x.sizes()), " gives");
  const bool cl = channels_last_pass(x, dy);
  Tensor dw = empty_in_layout(weight_sizes, x, cl);
  if (empty(weight_sizes)) return dw;
  if (empty(y) || empty(x.sizes())) return zeroed(dw, op);
  if (!x.is_cuda()) {
    cpu::shifted_convolution_backward_weight(as_planes(dw), as_planes(x), as_planes(dy),
                                             cpu_geometry(x, x.sizes(), weight_sizes, o, op));
    return dw;
  }
  cuda::cudnn_convolution_backward_filter(describe(x, x.sizes(), weight_sizes, y, o, cl, op),
                                          in_layout(x, cl), in_layout(dy, cl), dw, op);
  return dw;
}

}  // namespace genesis::ops
