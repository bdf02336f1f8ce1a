#include "index/index_memo.h"

namespace genesis {

namespace {

bool same_view(const ContentMemo& m, const Tensor& t) {
  return m.offset == t.storage_offset() && m.dtype == t.dtype() && m.sizes == t.sizes() &&
         m.strides == t.strides();
}

}  // namespace

bool index_known_in_range(const Tensor& index, int64_t size) {
  const Storage& s = index.storage();
  ContentMemo m;
  if (s.is_shared() || !s.memo(&m)) return false;
  // A smaller remembered size is the stronger fact: [-m.value, m.value) lies inside the range.
  return m.version == s.write_version() && same_view(m, index) && m.value <= size;
}

void remember_index_in_range(const Tensor& index, int64_t size, uint64_t version) {
  const Storage& s = index.storage();
  if (s.is_shared()) return;
  ContentMemo m;
  if (s.memo(&m) && m.version == version && same_view(m, index) && m.value <= size) return;
  m.version = version;
  m.offset = index.storage_offset();
  m.sizes = index.sizes();
  m.strides = index.strides();
  m.dtype = index.dtype();
  m.value = size;
  s.set_memo(std::move(m));
}

}  // namespace genesis
