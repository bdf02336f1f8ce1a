#include "index/index_memo.h"

#include "core/index_check.h"

namespace genesis {

namespace {

bool same_view(const ContentMemo& m, const Tensor& t) {
  return m.offset == t.storage_offset() && m.dtype == t.dtype() && m.sizes == t.sizes() &&
         m.strides == t.strides();
}

// A smaller remembered size is the stronger fact: [-m.value, m.value) lies inside the range.
bool covers(const ContentMemo& m, const Tensor& index, int64_t size, uint64_t version) {
  return m.version == version && m.value <= size && same_view(m, index) &&
         m.epoch == index_error_epoch();
}

}  // namespace

bool index_known_in_range(const Tensor& index, int64_t size) {
  const Storage& s = index.storage();
  if (s.is_shared()) return false;
  uint64_t version = s.write_version();
  return s.memo_holds([&](const ContentMemo& m) { return covers(m, index, size, version); });
}

void remember_index_in_range(const Tensor& index, int64_t size, uint64_t version, uint64_t epoch) {
  const Storage& s = index.storage();
  if (s.is_shared()) return;
  if (epoch != index_error_epoch()) return;  // an error was raised meanwhile: it may be this one
  if (s.memo_holds([&](const ContentMemo& m) { return covers(m, index, size, version); })) return;
  ContentMemo m;
  m.version = version;
  m.offset = index.storage_offset();
  m.sizes = index.sizes();
  m.strides = index.strides();
  m.dtype = index.dtype();
  m.value = size;
  m.epoch = epoch;
  s.set_memo(std::move(m));
}

}  // namespace genesis
