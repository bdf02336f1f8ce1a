#include "ops/scan.h"

#include "core/errors.h"
#include "core/shape.h"
#include "cpu/scan.h"
#include "cuda/scan.h"
#include "ops/convert.h"
#include "ops/copy.h"
#include "ops/views.h"

namespace genesis::ops {

namespace {

// The tensor as (outer, len, inner) around the scanned dim d (a 0-d tensor is one item).
struct Lines {
  int64_t outer = 1, len = 1, inner = 1;
};

Lines lines_of(const Tensor& t, int64_t d) {
  Lines l;
  for (int64_t i = 0; i < t.ndim(); ++i) {
    int64_t s = t.sizes()[i];
    if (i < d)
      l.outer *= s;
    else if (i == d)
      l.len = s;
    else
      l.inner *= s;
  }
  return l;
}

// Note [Scan layout]: the CPU walks (outer, len, inner) of a contiguous input directly; CUDA
// scans rows with one CUB call over every row (cuda/scan.h), so the scanned dim is moved
// innermost first (a copy unless it is already there) and the result moved back.
template <typename Cpu, typename Cuda>
void run(const Tensor& x, int64_t d, const Cpu& on_cpu, const Cuda& on_cuda) {
  Lines l = lines_of(x, d);
  if (!x.is_cuda()) return on_cpu(contiguous(x), l);
  if (l.inner == 1) return on_cuda(contiguous(x), l.len, false);
  on_cuda(contiguous(movedim(x, Shape{d}, Shape{-1})), l.len, true);
}

Tensor scan(ScanOp op, const Tensor& x, int64_t d) {
  if (x.numel() == 0) return Tensor::empty(x.sizes(), x.dtype(), x.device());
  Tensor result;
  run(
      x, d,
      [&](const Tensor& in, const Lines& l) {
        result = Tensor::empty(x.sizes(), x.dtype(), x.device());
        cpu::scan(op, in, result, l.outer, l.len, l.inner);
      },
      [&](const Tensor& rows, int64_t len, bool moved) {
        Tensor out = Tensor::empty(rows.sizes(), x.dtype(), x.device());
        cuda::scan_rows(op, rows, out, len);
        result = moved ? contiguous(movedim(out, Shape{-1}, Shape{d})) : out;
      });
  return result;
}

std::pair<Tensor, Tensor> extreme(const Tensor& t, int64_t dim, bool is_max) {
  const char* name = is_max ? "cummax" : "cummin";
  int64_t d = wrap_dim(dim, t.ndim(), name);
  auto empty_pair = [&](const Shape& sizes) {
    return std::pair<Tensor, Tensor>{Tensor::empty(sizes, t.dtype(), t.device()),
                                     Tensor::empty(sizes, ScalarType::Int64, t.device())};
  };
  if (t.numel() == 0) return empty_pair(t.sizes());
  std::pair<Tensor, Tensor> r;
  run(
      t, d,
      [&](const Tensor& in, const Lines& l) {
        r = empty_pair(t.sizes());
        cpu::scan_extreme(is_max, in, r.first, r.second, l.outer, l.len, l.inner);
      },
      [&](const Tensor& rows, int64_t len, bool moved) {
        r = empty_pair(rows.sizes());
        cuda::scan_extreme_rows(is_max, rows, r.first, r.second, len);
        if (moved)
          r = {contiguous(movedim(r.first, Shape{-1}, Shape{d})),
               contiguous(movedim(r.second, Shape{-1}, Shape{d}))};
      });
  return r;
}

// cumsum/cumprod's result dtype: `dtype`, else int64 for integers and bool, else the input's.
ScalarType sum_dtype(const Tensor& t, std::optional<ScalarType> dtype, const char* name) {
  ScalarType d = dtype ? *dtype : is_integral(t.dtype(), true) ? ScalarType::Int64 : t.dtype();
  GENESIS_CHECK_KIND_(ErrorKind::Type, d != ScalarType::Bool, name,
                      "a bool result is not supported; pass dtype=genesis.int64");
  return d;
}

Tensor cumulative(ScanOp op, const Tensor& t, int64_t dim, std::optional<ScalarType> dtype,
                  const char* name) {
  int64_t d = wrap_dim(dim, t.ndim(), name);
  ScalarType r = sum_dtype(t, dtype, name);
  return scan(op, to(t, r, t.device(), false), d);
}

void cumulative_(ScanOp op, const Tensor& self, int64_t dim, std::optional<ScalarType> dtype,
                 const char* name) {
  check_writable(self, name);  // Note [Read-only storages]
  GENESIS_CHECK(!dtype || *dtype == self.dtype(), name, "dtype ", scalar_type_name(*dtype),
                " does not match the tensor's dtype ", scalar_type_name(self.dtype()));
  GENESIS_CHECK_KIND_(ErrorKind::Type, self.dtype() != ScalarType::Bool, name,
                      "a bool result is not supported");
  int64_t d = wrap_dim(dim, self.ndim(), name);
  copy_(self, scan(op, self, d));
}

}  // namespace

Tensor cumsum(const Tensor& t, int64_t dim, std::optional<ScalarType> dtype) {
  return cumulative(ScanOp::Sum, t, dim, dtype, "cumsum");
}

Tensor cumprod(const Tensor& t, int64_t dim, std::optional<ScalarType> dtype) {
  return cumulative(ScanOp::Prod, t, dim, dtype, "cumprod");
}

Tensor logcumsumexp(const Tensor& t, int64_t dim) {
  int64_t d = wrap_dim(dim, t.ndim(), "logcumsumexp");
  GENESIS_CHECK_KIND_(ErrorKind::Type, is_floating_point(t.dtype()), "logcumsumexp",
                      "expects a floating point dtype, got ", scalar_type_name(t.dtype()));
  return scan(ScanOp::LogSumExp, t, d);
}

std::pair<Tensor, Tensor> cummax(const Tensor& t, int64_t dim) { return extreme(t, dim, true); }
std::pair<Tensor, Tensor> cummin(const Tensor& t, int64_t dim) { return extreme(t, dim, false); }

void cumsum_(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  cumulative_(ScanOp::Sum, self, dim, dtype, "cumsum_");
}

void cumprod_(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  cumulative_(ScanOp::Prod, self, dim, dtype, "cumprod_");
}

}  // namespace genesis::ops
