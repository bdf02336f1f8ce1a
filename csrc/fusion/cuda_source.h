#pragma once
// CUDA C++ for a fused group (Note [Fused groups on CUDA] in cuda_source.cpp; a row group's:
// Note [Fused row groups on CUDA] in cuda_row_source.cpp): the text NVRTC compiles, and the key
// it is cached under.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "fusion/graph.h"

namespace genesis::fusion {

// What the kernel's text depends on besides the graph's ops: which results it writes, which
// inputs it reads through strides (the others are dense in the group's order), the rank of the
// strided reads and whether 32-bit offsets reach.
struct KernelShape {
  std::vector<bool> written;  // per op
  std::vector<bool> strided;  // per input
  bool any_strided() const {
    return std::find(strided.begin(), strided.end(), true) != strided.end();
  }
  // per input of a row group: the same row for every row (a layer norm's weight), read at the
  // item's place in its row. Per (strided) input of a column group: the same in every row (a
  // bias broadcast over the rows), read once a thread at its column's offset.
  std::vector<bool> column;
  // per input of a row group: one value per row (a mean kept from before), read at the row's index
  std::vector<bool> row_input;
  // per strided input of a row group: stride 0 along the row (a row value expanded to the
  // shape), read once a row at the row's offset
  std::vector<bool> row_broadcast;
  int rank = 0;  // dims of the iteration shape (when an input is strided)
  // The geometry the strided reads walk (when an input is strided): the shape's sizes and each
  // strided input's strides (empty for the others), with rank dims. A flat program's are
  // collapsed (Note [Collapsed geometry]); a row or column program's are the shape's own.
  std::vector<int64_t> geo_sizes;
  std::vector<std::vector<int64_t>> geo_strides;
  bool index32 = true;
  // Items a thread loads as one pack of each operand (16 bytes of the widest): > 1 only when
  // every input is dense; the launch uses it only when every address is 16-byte aligned and
  // the items divide into packs (vector_width says how many; use_vectors checks).
  int vector = 1;
  // A row group's items a lane in a warp-row program (Note [Warp rows] in cuda_row_source.cpp;
  // 0: a block a row).
  int row_items = 0;
  // the warps that share a warp-row program's row (1, 2, 4 or 8; Note [Rows over several warps])
  int row_warps = 1;
  // a row of exactly 32 * row_warps * row_items items: no item needs testing against its length
  bool row_whole = false;
};

struct KernelSource {
  std::string name;  // the kernel's extern "C" name
  std::string text;  // the program, which includes the headers below
  std::string key;   // everything the text depends on (the cache key)
};

KernelShape kernel_shape(const Graph& graph, const std::vector<bool>& written);
// Whether a generated program can run the group: a row group's row inputs must be contiguous
// (they are read at the row's index).
bool generated_kernel_fits(const Graph& graph);
// The pack width the group's operands allow when every input is dense (1 otherwise).
int vector_width(const Graph& graph, const KernelShape& shape);
KernelSource cuda_source(const Graph& graph, const KernelShape& shape);
// A compact key that names the same program as cuda_source's text (no text is generated): what
// a group's run looks its kernel up by.
std::string structure_key(const Graph& graph, const KernelShape& shape);

// A row group's program (cuda_row_source.cpp); cuda_source() hands row groups to it.
KernelSource cuda_row_source(const Graph& graph, const KernelShape& shape);
// A column group's program (cuda_column_source.cpp): the kernel <name>, a thread a column over a
// chunk of rows, and <name>_partials, which adds the chunks' partial results.
KernelSource cuda_column_source(const Graph& graph, const KernelShape& shape);
// The first of a column group's column dims: its shape's trailing dims from there hold the
// `columns` items.
int column_lead(const Graph& graph);
constexpr int kColumnThreads = 256;
// Eager's split of a column reduction of `rows` over `columns` (kernels/reduce_sum.cu's
// plan_reduce): the chunks of rows and the rows in each.
struct ColumnChunks {
  int64_t chunks = 1, rows_each = 0;
};
ColumnChunks column_chunks(int64_t rows, int64_t columns, int multiprocessors);
// The threads a block of a row program: enough for a few items each of a row of `row_size`.
int row_threads(int64_t row_size);
constexpr int kRowMaxThreads = 1024;
// Note [Warp rows]: rows of at most 32 * kWarpRowMaxItems items a warp, whose values carried
// between phases (each lane's items of them) fit kWarpRowMaxCached registers, take 1 to
// kWarpRowsPerBlock warps each (Note [Rows over several warps]), a block kWarpRowsPerBlock warps.
constexpr int kWarpRowMaxItems = 32;
constexpr int kWarpRowMaxCached = 96;
constexpr int kWarpRowsPerBlock = 8;
// The item values a lane of a row program keeps at most, items times values (Note [Rows over
// several warps]; GENESIS_ROW_LANE_VALUES overrides it, for measurements).
int row_lane_budget();
// The warps a row of row_size items takes whose lanes keep `values` values an item.
int row_warps_for(int64_t row_size, int values);

// A row program's phases (Note [Values carried between phases] in cuda_row_source.cpp): per
// phase, the full ops it computes, those it reads from the lane's registers (carried from an
// earlier phase) and the inputs it reads.
struct PhasePlan {
  // per phase but the last: the Reduce ops it ends with (Note [Reductions by dependency level])
  std::vector<std::vector<size_t>> reductions;
  std::vector<size_t> phase;  // per op: the first phase whose row values it has (its level)
  std::vector<std::vector<char>> computes;  // [phase][op]
  std::vector<std::vector<char>> carried;   // [phase][op]
  std::vector<std::vector<char>> reads;     // [phase][input]
  std::vector<int> first;                   // per op: the phase that first computes it (-1)
  std::vector<int> written_at;              // per op: the phase that writes it (-1)
  std::vector<char> kept;                   // per op: carried to a later phase
  int most_live = 0;                        // the most values kept across one phase's end
};
// carry: whether a value a later phase needs is kept (a warp row) or computed again (a block row).
PhasePlan phase_plan(const Graph& graph, const std::vector<bool>& written, bool carry);
// Whether input i is read by more than one phase from memory along the row (kept in a warp row's
// registers while they allow); the values a warp row's lane keeps an item: carried values across
// a phase's end and such inputs (at least 1).
bool kept_input(const PhasePlan& plan, const KernelShape& shape, size_t i);
int lane_values(const PhasePlan& plan, const KernelShape& shape);

// The text the programs share (cuda_source.cpp).
namespace text {
const char* prelude();
const char* storage_type(ScalarType t);
const char* compute_type(ScalarType t);
// `const <out> v<k> = <this>;` of elementwise op k (operands v<op>, x<input>; a dropout mask
// reads the item's index i and its op's seed<k> and offset<k> parameters).
std::string op_expression(const FusedOp& op, size_t k);
// The program text a group's dropout masks need (empty without one), and their parameters.
std::string rng_prelude(const Graph& graph);
std::string rng_params(const Graph& graph);
// genesis_fused_<hash of key>
std::string kernel_name(const std::string& key);
// d exactly, as a double expression (its bits)
std::string double_literal(double d);
// `struct Geo` of the shape's sizes and each strided input's strides ("" when none is strided).
std::string geo_struct(const Graph& graph, const KernelShape& shape, const char* idx);
// The parameters a row or column program starts with: in<i> per input, out<k> per written result,
// the dropout masks' seeds and offsets, and `Geo g` when an input is strided (each with ", ").
std::string group_params(const Graph& graph, const KernelShape& shape, const char* idx);
// Code that walks dims `high` down to `low` of the Geo shape by the index `index` (held in a
// variable named `rest`), adding each dim's place times its stride to <into><i> for each input
// that `which` marks; <into><i> starts at <start><i>, or at 0 when `start` is empty (the lines
// start with `indent`).
std::string walk_dims(const std::vector<bool>& which, const char* idx, const std::string& rest,
                      const std::string& index, int high, int low, const char* into,
                      const char* start, const std::string& indent);
// Code that sets o<i>, the offset of the item i in each strided input that `reads` marks, from
// i's multi-index over the group's shape (the lines start with `indent`).
std::string strided_offsets(const Graph& graph, const KernelShape& shape,
                            const std::vector<bool>& reads, const char* idx,
                            const std::string& indent);
// How a reduction accumulates (cuda_row_source.cpp): its accumulator type, combiner (g_sum,
// g_prod, g_max, g_min: the eager reducers' combines) and identity.
struct Accumulator {
  std::string type, combine, identity;
};
Accumulator accumulator(const FusedOp& op);
// The combiners' text and the block's reduction that the row programs use.
const char* reduce_prelude();
}  // namespace text

// The headers the program includes, as (name, text): the op functors (Note [Functors for
// generated kernels] in CMakeLists.txt) and the small standard headers they need.
const std::vector<std::pair<std::string, std::string>>& kernel_headers();

// The launch: threads a block and items a thread.
constexpr int kFusedThreads = 256;
constexpr int kFusedUnroll = 4;
// The most dims a strided read may have.
constexpr int kFusedMaxRank = 8;

}  // namespace genesis::fusion
