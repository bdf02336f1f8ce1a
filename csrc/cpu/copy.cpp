#include "cpu/copy.h"

#include <cstring>

#include "core/errors.h"
#include "core/scalar.h"
#include "cpu/loop.h"

namespace genesis::cpu {

namespace {

template <typename D, typename S>
void cast_run(const std::array<char*, 2>& p, const std::array<int64_t, 2>& st, int64_t n) {
  char* d = p[0];
  const char* s = p[1];
  if (st[0] == sizeof(D) && st[1] == sizeof(S)) {
    D* dst = reinterpret_cast<D*>(d);
    const S* src = reinterpret_cast<const S*>(s);
    for (int64_t i = 0; i < n; ++i) dst[i] = cast_value<D>(src[i]);
  } else {
    for (int64_t i = 0; i < n; ++i)
      *reinterpret_cast<D*>(d + i * st[0]) =
          cast_value<D>(*reinterpret_cast<const S*>(s + i * st[1]));
  }
}

// Same-type strided copy moves bytes only, so it is keyed by item size, not dtype.
template <typename Word>
void move_run(const std::array<char*, 2>& p, const std::array<int64_t, 2>& st, int64_t n) {
  if (st[0] == sizeof(Word) && st[1] == sizeof(Word)) {
    std::memcpy(p[0], p[1], static_cast<size_t>(n) * sizeof(Word));
    return;
  }
  for (int64_t i = 0; i < n; ++i)
    *reinterpret_cast<Word*>(p[0] + i * st[0]) = *reinterpret_cast<const Word*>(p[1] + i * st[1]);
}

template <typename Word>
void fill_words(const Tensor& dst, const LoopPlan& plan, uint64_t pattern) {
  Word value;
  std::memcpy(&value, &pattern, sizeof(Word));
  for_each_run<1>(
      plan, {static_cast<char*>(dst.data())},
      [value](const std::array<char*, 1>& p, const std::array<int64_t, 1>& st, int64_t n) {
        if (st[0] == sizeof(Word)) {
          Word* out = reinterpret_cast<Word*>(p[0]);
          for (int64_t i = 0; i < n; ++i) out[i] = value;
        } else {
          for (int64_t i = 0; i < n; ++i) *reinterpret_cast<Word*>(p[0] + i * st[0]) = value;
        }
      });
}

}  // namespace

void copy(const Tensor& dst, const Tensor& src) {
  if (dst.numel() == 0) return;
  const Shape* strides[2] = {&dst.strides(), &src.strides()};
  int64_t sizes[2] = {static_cast<int64_t>(dst.itemsize()), static_cast<int64_t>(src.itemsize())};
  LoopPlan plan = plan_loop(dst.sizes(), strides, sizes, 2);
  std::array<char*, 2> bases = {static_cast<char*>(dst.data()), static_cast<char*>(src.data())};

  if (dst.dtype() == src.dtype()) {
    switch (dst.itemsize()) {
      case 1:
        return for_each_run<2>(plan, bases, move_run<uint8_t>);
      case 2:
        return for_each_run<2>(plan, bases, move_run<uint16_t>);
      case 4:
        return for_each_run<2>(plan, bases, move_run<uint32_t>);
      case 8:
        return for_each_run<2>(plan, bases, move_run<uint64_t>);
    }
  }
  GENESIS_DISPATCH_ALL_TYPES(dst.dtype(), "copy_", [&] {
    using dst_t = scalar_t;
    GENESIS_DISPATCH_ALL_TYPES(src.dtype(), "copy_",
                               [&] { for_each_run<2>(plan, bases, cast_run<dst_t, scalar_t>); });
  });
}

void fill(const Tensor& dst, uint64_t pattern) {
  if (dst.numel() == 0) return;
  const Shape* strides[1] = {&dst.strides()};
  int64_t size = static_cast<int64_t>(dst.itemsize());
  LoopPlan plan = plan_loop(dst.sizes(), strides, &size, 1);
  switch (dst.itemsize()) {
    case 1:
      return fill_words<uint8_t>(dst, plan, pattern);
    case 2:
      return fill_words<uint16_t>(dst, plan, pattern);
    case 4:
      return fill_words<uint32_t>(dst, plan, pattern);
    case 8:
      return fill_words<uint64_t>(dst, plan, pattern);
  }
  GENESIS_FAIL(ErrorKind::Runtime, "fill_", "unsupported item size ", dst.itemsize());
}

}  // namespace genesis::cpu
