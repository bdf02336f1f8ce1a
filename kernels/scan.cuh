#pragma once
// Host launchers for the row scans (device code in scan.cu, Note [CUB row scans]). Each scans
// `n` contiguous items as rows of `len` on `stream` (a cudaStream_t). Called with temp ==
// nullptr, it only stores the scratch bytes it needs in *temp_bytes; called again with that
// much scratch at `temp`, it runs. Returns the cudaError_t as an int.
#include <cstddef>
#include <cstdint>

namespace genesis::kernels {

// Rows of up to this many items are scanned a row per warp (Note [Warp row scans] in scan.cu):
// launch_warp_scan_rows takes the same arguments as launch_scan_rows less the scratch, which it
// does not need.
constexpr int64_t kWarpScanMaxLen = 4096;
bool warp_scan_fits(int64_t len);
int launch_warp_scan_rows(int op, int dtype, const void* in, void* out, int64_t n, int64_t len,
                          void* stream);

// op: ops::ScanOp's value; dtype: the DtypeCode of in and out (not bool).
int launch_scan_rows(int op, int dtype, const void* in, void* out, int64_t n, int64_t len,
                     void* temp, size_t* temp_bytes, void* stream);
// values: dtype, indices: int64 (positions within each row).
int launch_scan_extreme_rows(bool is_max, int dtype, const void* in, void* values, int64_t* indices,
                             int64_t n, int64_t len, void* temp, size_t* temp_bytes, void* stream);

}  // namespace genesis::kernels
