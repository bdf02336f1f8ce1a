// The index loops of a CPU-only build: everything raises no_device() (cuda/index.h).
#include "cuda/index.h"
#include "cuda/runtime.h"

namespace genesis::cuda {

void add_index_offsets(const Tensor&, const Tensor&, int64_t, int64_t, int64_t, bool, unsigned) {
  no_device();
}
bool check_index_offsets(const Tensor&) { no_device(); }
void gather(const Tensor&, const Tensor&, const Tensor&) { no_device(); }
void scatter(const Tensor&, const Tensor&, const Tensor&, ops::ScatterReduce, unsigned) {
  no_device();
}
void gather_index(const Tensor&, const Tensor&, const Tensor&, int64_t, int64_t, int64_t) {
  no_device();
}
void scatter_index(const Tensor&, const Tensor&, const Tensor&, const Tensor&, int64_t, int64_t,
                   int64_t, bool, ops::ScatterReduce) {
  no_device();
}
void gather_rows(const Tensor&, const Tensor&, const Tensor&, int64_t) { no_device(); }
bool gather_last(const Tensor&, const Tensor&, const Tensor&) { no_device(); }
int64_t index_check_waits() { return 0; }
Tensor masked_select(const Tensor&, const Tensor&) { no_device(); }
void masked_fill(const Tensor&, const Tensor&, uint64_t) { no_device(); }
std::vector<Tensor> nonzero(const Tensor&) { no_device(); }

}  // namespace genesis::cuda
