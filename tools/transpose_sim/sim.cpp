// Checks kernels/transpose_tiles.cuh on a machine without a GPU (tools/transpose_sim/run.sh):
//  1. shared-memory wavefronts of the vector paths' tile accesses, from the kernel's own
//     tile_offset and thread mapping (replicated here), against the ideal;
//  2. the kernel itself, run on the host (cuda_runtime.h here), over sizes around the tile
//     edges, aligned and unaligned sides, forced item paths, negative strides and batch dims,
//     against a plain strided copy; every operand is an exact allocation, so AddressSanitizer
//     reports any access outside it, and the bytes around the destination's items must not change.
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <set>
#include <thread>
#include <vector>

#include "kernels/transpose_tiles.cuh"

using namespace genesis::kernels;

namespace {

// Wavefronts of one warp's access of w bytes a lane (32-bit: one pass; 64-bit: half warps;
// 128-bit: quarter warps), each pass costing its worst bank's number of distinct words.
int wavefronts(const std::vector<int>& addr, int w) {
  int group = w <= 4 ? 32 : 128 / w, total = 0;
  for (int g0 = 0; g0 < 32; g0 += group) {
    std::map<int, std::set<int>> bank_words;
    for (int l = g0; l < g0 + group; ++l)
      for (int b = 0; b < w; b += 4) bank_words[(addr[l] + b) / 4 % 32].insert((addr[l] + b) / 4);
    int worst = 0;
    for (auto& [bank, words] : bank_words) worst = std::max<int>(worst, words.size());
    total += worst;
  }
  return total;
}

template <int E>
bool banks() {
  using S = TileShape<E>;
  constexpr int kK = S::kBlock, kJHi = S::kWordCols / 4;
  int worst_store = 0, worst_load = 0;
  std::multiset<int> written;
  for (int warp = 0; warp < 8; ++warp)
    for (int u = 0; u < S::kLoadUnits; ++u)
      for (int m = 0; m < S::kVecRows; ++m) {  // one shared store per row of the unit
        std::vector<int> addr(32);
        for (int lane = 0; lane < 32; ++lane) {
          int t = warp * 32 + lane, rv_lo = t & 7, j_lo = (t >> 3) & 3, q = u * 8 + warp;
          int r = (rv_lo + 8 * (q / kJHi)) * S::kVecRows, c = (j_lo + 4 * (q % kJHi)) * kK;
          addr[lane] = tile_offset<E>(r + m, c * E);
          for (int b = 0; b < kK * E; ++b) written.insert(addr[lane] + b);
        }
        worst_store = std::max(worst_store, wavefronts(addr, kK * E));
      }
  for (int warp = 0; warp < 8; ++warp)
    for (int u = 0; u < S::kStoreUnits; ++u) {
      std::vector<int> addr(32);
      for (int lane = 0; lane < 32; ++lane) {
        int id = u * kTileThreads + warp * 32 + lane;
        addr[lane] = tile_offset<E>(id >> 3, (id & 7) * 16);
      }
      worst_load = std::max(worst_load, wavefronts(addr, 16));
    }
  int ideal_store = kK * E * 32 / 128;
  bool once = written.size() == kTileRows * kTileRowBytes &&
              std::set<int>(written.begin(), written.end()).size() == written.size();
  std::printf("E=%d: tile stores %d wavefronts (ideal %d), tile loads %d (ideal 4), %s\n", E,
              worst_store, ideal_store, worst_load,
              once ? "each byte written once" : "BYTES WRITTEN TWICE OR NEVER");
  return worst_store == ideal_store && worst_load == 4 && once;
}

std::mt19937_64 rng(1234);
int failures = 0, cases = 0;

template <int E, bool VL, bool VS>
void run_grid(const TransposeTilesArgs& a0, int64_t batches) {
  unsigned tiles = unsigned((a0.rows + kTileRows - 1) / kTileRows * int64_t(a0.tiles_c));
  std::barrier<> bar(kTileThreads);
  sim_barrier = &bar;
  std::vector<std::thread> threads;
  for (int t = 0; t < kTileThreads; ++t)
    threads.emplace_back([t, &a0, batches, tiles, &bar] {
      threadIdx.x = t;
      for (int64_t b0 = 0; b0 < batches; b0 += 3) {  // launches of 3 matrices: tests batch0
        TransposeTilesArgs a = a0;
        a.batch0 = b0;
        unsigned n = unsigned(batches - b0 < 3 ? batches - b0 : 3);
        for (unsigned by = 0; by < n; ++by)
          for (unsigned bx = 0; bx < tiles; ++bx) {
            blockIdx.x = bx;
            blockIdx.y = by;
            transpose_tiles<E, VL, VS>(a);
            bar.arrive_and_wait();  // the next block reuses the tile
          }
      }
    });
  for (auto& t : threads) t.join();
}

template <int E>
void run(const TransposeTilesArgs& a, int64_t batches, bool vl, bool vs) {
  if (vl && vs)
    run_grid<E, true, true>(a, batches);
  else if (vl)
    run_grid<E, true, false>(a, batches);
  else if (vs)
    run_grid<E, false, true>(a, batches);
  else
    run_grid<E, false, false>(a, batches);
}

// One copy: dims innermost first, dst and src byte strides (negative ones too); `force` >= 0
// turns vectors off (bit 0: loads, bit 1: stores may stay on).
void check(int E, std::vector<int64_t> sizes, std::vector<int64_t> dst_s,
           std::vector<int64_t> src_s, int src_misalign, int dst_misalign, int force,
           const char* what) {
  Geometry g;
  g.ndim = int(sizes.size());
  for (int d = 0; d < g.ndim; ++d) {
    g.sizes[d] = sizes[d];
    g.strides[0][d] = dst_s[d];
    g.strides[1][d] = src_s[d];
  }
  auto span = [&](const std::vector<int64_t>& s, int64_t* lo) {
    int64_t l = 0, h = 0;
    for (int d = 0; d < g.ndim; ++d) {
      int64_t x = (sizes[d] - 1) * s[d];
      (x < 0 ? l : h) += x;
    }
    *lo = l;
    return h - l + E;
  };
  int64_t slo, dlo, sbytes = span(src_s, &slo), dbytes = span(dst_s, &dlo);
  char* sblock = static_cast<char*>(std::malloc(sbytes + src_misalign));
  char* dblock = static_cast<char*>(std::malloc(dbytes + dst_misalign));
  if (reinterpret_cast<uintptr_t>(sblock) % 16 || reinterpret_cast<uintptr_t>(dblock) % 16)
    std::abort();  // malloc is 16-byte aligned here; the misalignments are added to it
  for (int64_t i = 0; i < sbytes + src_misalign; ++i) sblock[i] = char(rng());
  for (int64_t i = 0; i < dbytes + dst_misalign; ++i) dblock[i] = char(rng());
  std::vector<char> want(dblock, dblock + dbytes + dst_misalign);
  char* src = sblock + src_misalign - slo;  // item 0
  char* dst = dblock + dst_misalign - dlo;
  char* want_dst = want.data() + (dst - dblock);
  int64_t numel = 1;
  for (int64_t s : sizes) numel *= s;
  for (int64_t n = 0; n < numel; ++n) {
    int64_t so = 0, dof = 0, rem = n;
    for (int d = 0; d < g.ndim; ++d) {
      int64_t i = rem % sizes[d];
      rem /= sizes[d];
      so += i * src_s[d];
      dof += i * dst_s[d];
    }
    std::memcpy(want_dst + dof, src + so, E);
  }
  ++cases;
  TransposeTilesArgs a;
  int64_t batches = 0;
  if (plan_transpose_tiles(g, E, dst, src, &a, &batches)) {
    bool vl = tiles_aligned(src, a.src_col, a.src_batch, a.nbatch);
    bool vs = tiles_aligned(dst, a.dst_row, a.dst_batch, a.nbatch);
    if (force >= 0) vl = vl && (force & 1), vs = vs && (force & 2);
    if (E == 1) run<1>(a, batches, vl, vs);
    if (E == 2) run<2>(a, batches, vl, vs);
    if (E == 4) run<4>(a, batches, vl, vs);
    if (E == 8) run<8>(a, batches, vl, vs);
    if (std::memcmp(dblock, want.data(), want.size()) != 0) {
      ++failures;
      int64_t bad = 0;
      for (size_t i = 0; i < want.size(); ++i) bad += dblock[i] != want[i];
      std::printf("FAIL E=%d %s vl=%d vs=%d: %lld bytes differ\n", E, what, vl, vs,
                  static_cast<long long>(bad));
    }
  } else {
    ++failures;
    std::printf("NOT PLANNED E=%d %s\n", E, what);
  }
  std::free(sblock);
  std::free(dblock);
}

// (M, N) with row stride ld items (negative: rows reversed) .t().contiguous(): dims c (M) and
// r (N), innermost first.
void matrix(int E, int64_t M, int64_t N, int64_t ld, bool flip, int smis, int dmis, int force) {
  char what[160];
  std::snprintf(what, sizeof what, "M=%lld N=%lld ld=%lld flip=%d src+%d dst+%d force=%d",
                (long long)M, (long long)N, (long long)ld, flip, smis, dmis, force);
  check(E, {M, N}, {E, M * E}, {ld * E * (flip ? -1 : 1), E}, smis, dmis, force, what);
}

void sweep(int E) {
  const int64_t edges[] = {2, 15, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 257};
  for (int64_t M : edges)
    for (int64_t N : edges) matrix(E, M, N, N, false, 0, 0, -1);
  for (int64_t M : {33, 64, 129, 257})
    for (int64_t N : {31, 64, 128, 130, 200}) {
      int64_t ld = (N + 15) / 16 * 16 + 16;  // padded rows, 16-byte aligned
      for (int force = 0; force < 4; ++force) matrix(E, M, N, ld, false, 0, 0, force);
      matrix(E, M, N, ld, true, 0, 0, -1);
      matrix(E, M, N, ld, false, E, 0, -1);
      matrix(E, M, N, ld, false, 0, E, -1);
      matrix(E, M, N, ld + 1, false, 0, 0, -1);
    }
  for (int64_t B : {1, 2, 7})
    for (int64_t M : {31, 130})
      for (int64_t N : {64, 65}) {
        char what[160];
        std::snprintf(what, sizeof what, "B=%lld M=%lld N=%lld", (long long)B, (long long)M,
                      (long long)N);
        // (B, M, N) -> (B, N, M)
        check(E, {M, N, B}, {E, M * E, M * N * E}, {N * E, E, M * N * E}, 0, 0, -1, what);
        // (A, M, B, N) -> (B, A, N, M): two batch dims
        int64_t A = 3;
        check(E, {M, N, A, B}, {E, M * E, N * M * E, A * N * M * E},
              {B * N * E, E, M * B * N * E, N * E}, 0, 0, -1, what);
        // (B, M, N) -> (N, B, M): the src-dense dim outermost
        check(E, {M, B, N}, {E, M * E, B * M * E}, {N * E, M * N * E, E}, 0, 0, -1, what);
      }
}

}  // namespace

int main(int argc, char** argv) {
  bool ok = banks<1>() & banks<2>() & banks<4>() & banks<8>();
  for (int E : {1, 2, 4, 8}) {
    bool wanted = argc == 1;
    for (int i = 1; i < argc; ++i) wanted = wanted || std::atoi(argv[i]) == E;
    if (!wanted) continue;
    int before = failures;
    sweep(E);
    std::printf("E=%d: %d failures\n", E, failures - before);
  }
  std::printf("%d copies, %d failures\n", cases, failures);
  return ok && failures == 0 ? 0 : 1;
}
