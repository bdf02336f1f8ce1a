// A CPU-only build has no device records (cuda/index_errors.h).
#include "cuda/index_errors.h"

namespace genesis::cuda {

unsigned next_index_seq() { return 0; }
bool index_error_pending(int) { return false; }
void raise_index_error(int, const char*) {}
void raise_index_errors(const char*) {}

}  // namespace genesis::cuda
