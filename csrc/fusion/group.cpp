// Recording fused groups and running them (Note [Fusing by deferring elementwise ops] in group.h).
#include "fusion/group.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/allocator.h"
#include "core/errors.h"
#include "core/memory_events.h"
#include "core/scalar.h"
#include "cpu/reduce.h"
#include "cuda/stream.h"
#include "fusion/cuda_source.h"
#include "fusion/graph.h"
#include "fusion/nvrtc.h"

namespace genesis::fusion {

namespace {

constexpr size_t kMaxOps = 64;                     // a longer chain runs as several groups
constexpr size_t kMaxInputs = 32;                  // the inputs one pass reads
constexpr int64_t kMaxRowSize = int64_t{1} << 16;  // the longest row a row group reduces

std::atomic<int64_t> g_groups{0}, g_ops{0}, g_written{0}, g_skipped{0}, g_bytes_skipped{0};
std::atomic<int64_t> g_recomputable{0}, g_recomputed_in_groups{0}, g_recomputed_alone{0},
    g_recipes_alive{0};
// Whether results only autograd holds are recomputed: 1 always, 0 never, -1 on CUDA only (the
// default: a CPU core computes a tanh slower than it writes and reads the value back).
std::atomic<int> g_recompute{-1};
std::atomic<int64_t> g_cpu_min_items{4096};  // Note [Small groups on the CPU]
std::atomic<bool> g_logging{false};
std::atomic<bool> g_eager_executor{false};  // tests: every group through run_eagerly
std::atomic<bool> g_capture_sources{false};
std::mutex g_sources_mutex;
std::vector<std::pair<std::string, std::string>> g_sources;  // (name, text) of captured programs
// Tests: each captured program's structure key (cuda_source.h) with its kernel name; a key seen
// with two names, or a name with two keys, is counted.
std::unordered_map<std::string, std::string> g_key_names, g_name_keys;
int64_t g_key_mismatches = 0;

// Whether CUDA groups are deferred: unless GENESIS_COMPILE_CUDA=0 (or set_cuda_fusion(False)),
// when NVRTC loads. On by default since the generated kernels passed their tests on an H100
// (session 39); GENESIS_COMPILE_CUDA=0 runs compiled functions' CUDA ops eagerly.
std::atomic<int> g_cuda_fusion{-1};  // -1: read the environment at first use
bool cuda_fusion_on() {
  int on = g_cuda_fusion.load(std::memory_order_relaxed);
  if (on < 0) {
    const char* env = std::getenv("GENESIS_COMPILE_CUDA");
    on = env == nullptr || std::string(env) != "0";
    g_cuda_fusion.store(on, std::memory_order_relaxed);
  }
  return on == 1 && nvrtc_available();
}

// The op's code name (Mul, Tanh, ...) for the log.
const char* op_name(const FusedOp& op) {
  static const char* const kUnary[] = {
#define GENESIS_NAME(name) #name,
      GENESIS_UNARY_CODES(GENESIS_NAME)};
  static const char* const kBinary[] = {GENESIS_BINARY_CODES(GENESIS_NAME)};
#undef GENESIS_NAME
  if (op.kind == OpKind::Where) return "Where";
  if (op.kind == OpKind::Cast) return "Cast";
  if (op.kind == OpKind::DropoutMask) return "DropoutMask";
  if (op.kind == OpKind::Reduce) {
    if (static_cast<ops::ReduceOp>(op.code) == ops::ReduceOp::SumSquares)
      return op.finish.sqrt ? "CentredRootMeanSquare" : "CentredMeanSquare";
    if (op.finish.divide) return "Mean";
    switch (static_cast<ops::ReduceOp>(op.code)) {
      case ops::ReduceOp::Sum:
        return "Sum";
      case ops::ReduceOp::Prod:
        return "Prod";
      case ops::ReduceOp::Max:
        return "Max";
      default:
        return "Min";
    }
  }
  return op.kind == OpKind::Unary ? kUnary[op.code] : kBinary[op.code];
}

// How the log names an operand.
std::string operand_name(const Ref& r, const FusedOp& op, bool first) {
  if (r.is_op) return "%" + std::to_string(r.index);
  if (!r.is_number()) return "in" + std::to_string(r.index);
  if (op.kind == OpKind::Where) return "number";
  const ops::ScalarArg& s = first ? op.sa : op.sb;
  return s.is_float ? std::to_string(s.d) : std::to_string(s.i);
}

// Runs a recorded graph with the executor its device (and the tests' switch) asks for.
void execute(const Graph& graph, const Results& results) {
  if (g_eager_executor.load(std::memory_order_relaxed))
    run_eagerly(graph, results);
  else if (graph.device.is_cpu())
    run_on_cpu(graph, results);
  else
    run_on_cuda(graph, results);
}

// Why the group that runs next on this thread runs, for the log (GENESIS_LOGS=compile); unset:
// something needed its values.
thread_local const char* t_run_reason = nullptr;

// Runs g, saying why in the log.
class Group;
void run_because(Group& g, const char* reason);

}  // namespace

DataPtr allocate_on_group_stream(const Graph& graph, size_t nbytes) {
  if (!graph.device.is_cuda()) return allocator_for(graph.device)->allocate(nbytes);
  const int index = graph.device.index;
  const cuda::StreamId previous = cuda::current_stream(index);
  cuda::set_current_stream(index, graph.stream);
  struct Restore {
    int index;
    cuda::StreamId stream;
    ~Restore() { cuda::set_current_stream(index, stream); }
  } restore{index, previous};
  return allocator_for(graph.device)->allocate(nbytes);
}

namespace {

// Note [Pending storages hold no memory] (core/storage.h): memory for the result of `op` that
// the work is about to write, from the device's allocator on the work's stream (the caching pool
// ties a block to the stream it was made for, and the result is written there), named with the
// result's shape and dtype for the memory profiler (Note [Tensor shapes of memory events]).
void provide_memory(StorageImpl& s, const Graph& graph, const FusedOp& op) {
  if (s.has_memory()) return;
  const Shape rows{graph.rows};
  const Shape& sizes = op.row ? rows : graph.shape;
  ScopedTensorAllocation named(sizes.data(), sizes.size(), static_cast<int8_t>(op.out));
  s.provide_memory(allocate_on_group_stream(graph, s.nbytes()));
}

// Note [Recomputed values]: in a training step most results of a fused chain are held by
// nobody but autograd, which saved them for the backward pass (tanh saves its output, mul its
// operands), so writing them would cost a pass over memory each, and reading them back another.
// When a group runs, a full result whose only holders are saved tensors (its storage's
// saved_uses is its whole use count) is not written: its storage stays pending, its writer now a
// Recipe, the few ops that compute it from what the group read (its inputs, and results that are
// written anyway). A later group whose op reads that value copies the recipe's ops in (the
// backward of the chain then reads the chain's inputs instead of its saved intermediates, in the
// same pass); anything else that needs the bytes (an op that is not fused, an export) runs the
// recipe on its own, which writes them. A recipe computes what the group would have written,
// on the same inputs: it watches them (a write to one runs the recipe first) and holds them, so
// the values are eager's. When the saved tensors go unused (the storage dies pending), the
// recipe lets its inputs go (Deferred::abandon). Row values are always written (one per row).
class Recipe final : public Deferred, public std::enable_shared_from_this<Recipe> {
 public:
  Recipe() { g_recipes_alive.fetch_add(1, std::memory_order_relaxed); }
  ~Recipe() override { g_recipes_alive.fetch_sub(1, std::memory_order_relaxed); }
  Recipe(const Recipe&) = delete;
  Recipe& operator=(const Recipe&) = delete;

  Graph graph;  // its last op computes the value; inputs are full views
  std::weak_ptr<StorageImpl> result;

  std::recursive_mutex& mutex() { return mutex_; }
  bool done() const { return done_.load(std::memory_order_acquire); }

  // Watches the inputs (after graph is complete).
  void watch() {
    for (const Tensor& t : graph.inputs) t.storage().impl()->set_reader(shared_from_this());
  }

  void run() override {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    if (done()) return;
    done_.store(true, std::memory_order_release);
    Results results;
    results.held.resize(graph.ops.size());
    results.held.back() = result.lock();
    struct Release {
      Recipe* r;
      const Results& res;
      ~Release() {
        if (res.held.back()) res.held.back()->release(r);
        r->let_go_of_inputs();
      }
    } release{this, results};
    if (!results.held.back()) return;
    g_recomputed_alone.fetch_add(1, std::memory_order_relaxed);
    provide_memory(*results.held.back(), graph, graph.ops.back());
    execute(graph, results);
  }

  void abandon() override {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    if (done()) return;
    done_.store(true, std::memory_order_release);
    let_go_of_inputs();
  }

 private:
  std::recursive_mutex mutex_;
  std::atomic<bool> done_{false};

  void let_go_of_inputs() {
    std::vector<Tensor> inputs = std::move(graph.inputs);
    graph.inputs.clear();
    for (const Tensor& t : inputs) t.storage().impl()->release(this);
  }
};

class Group final : public Deferred, public std::enable_shared_from_this<Group> {
 public:
  Group(Device device, uintptr_t stream, Shape shape, int64_t numel) {
    graph_.device = device;
    graph_.stream = stream;
    graph_.shape = std::move(shape);
    graph_.numel = numel;
  }

  bool done() const { return done_.load(std::memory_order_acquire); }
  const Graph& graph() const { return graph_; }
  bool full() const { return graph_.ops.size() >= kMaxOps || graph_.inputs.size() >= kMaxInputs; }

  // The operand t of an op at `row` level (reading row values) as this group sees it: a result
  // of one of its ops when t is exactly that result (or, for a full op, a row value broadcast
  // along the rows), else an input (held and watched). nullopt when t is pending elsewhere or is
  // another view of a pending result: the caller runs that work first. `foreign`: t's memory may
  // change without genesis writing it (NumPy's, a DLPack producer's, a file map, or memory whose
  // address has left genesis: Note [Write versions]), so a later read could see other values:
  // the op must run now.
  std::optional<Ref> operand(const Tensor& t, bool row, bool& foreign) {
    foreign = false;
    if (!t.defined()) return Ref{};
    StorageImpl* s = t.storage().impl().get();
    if (!s->is_owned() || s->is_shared()) {
      foreign = true;
      return std::nullopt;
    }
    if (s->is_pending()) {
      if (s->writer() != this) return row ? std::nullopt : import_recipe(t, *s);
      for (size_t k = 0; k < graph_.ops.size(); ++k) {
        const FusedOp& op = graph_.ops[k];
        if (op.storage.lock().get() != s) continue;
        if (op.column) return std::nullopt;  // Note [Column groups]: read after the group ran
        if (t.storage_offset() != 0 || t.dtype() != op.out) return std::nullopt;
        bool same = false;
        if (!op.row)
          same = !row && t.sizes() == graph_.shape && t.is_contiguous();
        else if (row)
          same = t.numel() == graph_.rows && t.is_contiguous();
        else
          same = t.sizes() == graph_.shape && broadcasts_a_row_value(t);
        if (!same) return std::nullopt;
        return Ref{true, static_cast<int>(k)};
      }
      return std::nullopt;
    }
    for (size_t i = 0; i < graph_.inputs.size(); ++i)
      if (graph_.inputs[i].is_same_view(t) && graph_.inputs[i].dtype() == t.dtype())
        return Ref{false, static_cast<int>(i)};
    // the view without its autograd record: the group keeps memory alive, never a graph
    graph_.inputs.emplace_back(t.storage(), t.sizes(), t.strides(), t.storage_offset(), t.dtype());
    s->set_reader(shared_from_this());
    return Ref{false, static_cast<int>(graph_.inputs.size() - 1)};
  }

  // Where an op over `sizes` (numel items) belongs here: nullopt when it does not fit (another
  // group), else whether it is a row op (row group, numel == rows) or a full op (the shape).
  std::optional<bool> level_of(const Shape& sizes, int64_t numel) const {
    if (sizes == graph_.shape) return false;
    if (graph_.rows > 0 && numel == graph_.rows) return true;
    return std::nullopt;
  }

  // Whether a reduction of `in`'s rows (`rows` of them) can join: over the group's shape and,
  // in a row group, over the same rows.
  bool takes_reduction(const Tensor& in, int64_t rows) const {
    return in.sizes() == graph_.shape && graph_.columns == 0 &&
           (graph_.rows == 0 || graph_.rows == rows);
  }

  // Whether a reduction of `in`'s leading dims into `columns` values can join: over the group's
  // shape, in a group that is not a row group and whose other column reductions (if any) make
  // as many values.
  bool takes_column_reduction(const Tensor& in, int64_t columns) const {
    return in.sizes() == graph_.shape && graph_.rows == 0 &&
           (graph_.columns == 0 || graph_.columns == columns);
  }

  void add(FusedOp op, const Tensor& out) {
    if (op.column) {
      graph_.columns = out.numel();                              // Note [Column groups]
    } else if (op.kind == OpKind::Reduce && graph_.rows == 0) {  // the group becomes a row group
      graph_.rows = out.numel();
      graph_.row_size = graph_.numel / graph_.rows;
      int64_t leading = 1;
      int dims = 0;
      while (leading != graph_.rows) leading *= graph_.shape[static_cast<size_t>(dims++)];
      graph_.row_dims = dims;
    }
    op.storage = out.storage().impl();
    out.storage().impl()->set_writer(shared_from_this());
    out.storage().impl()->drop_memory();  // Note [Pending storages hold no memory]
    graph_.ops.push_back(std::move(op));
  }

  // An op whose result nobody will hold (a step inside a composite such as dropout).
  Ref add_temporary(FusedOp op) {
    graph_.ops.push_back(std::move(op));
    return Ref{true, static_cast<int>(graph_.ops.size() - 1)};
  }
  Ref last() const { return Ref{true, static_cast<int>(graph_.ops.size() - 1)}; }

  // Held while an op joins (so another thread that runs the group waits for a whole op) and
  // while the group runs; recursive: joining may run work that runs this group on this thread.
  std::recursive_mutex& mutex() { return mutex_; }

  void run() override {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    if (done()) return;
    done_.store(true, std::memory_order_release);
    Results results;
    results.held.resize(graph_.ops.size());
    for (size_t k = 0; k < graph_.ops.size(); ++k) results.held[k] = graph_.ops[k].storage.lock();
    // The storages are let go only once the values are written (or the run failed): until then
    // another thread that reads a result waits here, on the lock, in its own settle().
    struct Release {
      Group* g;
      const Results& r;
      ~Release() {
        for (const auto& held : r.held)
          if (held) held->release(g);
        for (const Tensor& t : g->graph_.inputs) t.storage().impl()->release(g);
        g->graph_.inputs.clear();  // the memory it read may go now
      }
    } release{this, results};
    imported_.clear();
    const int recompute = g_recompute.load(std::memory_order_relaxed);
    if (recompute == 1 || (recompute < 0 && graph_.device.is_cuda()))
      leave_for_recomputation(results);
    for (size_t k = 0; k < graph_.ops.size(); ++k)
      if (results.held[k]) provide_memory(*results.held[k], graph_, graph_.ops[k]);
    count(results);
    capture(results);
    execute(graph_, results);
  }

 private:
  Graph graph_;
  std::recursive_mutex mutex_;
  std::atomic<bool> done_{false};
  // Recipes copied in, with the Ref of the value each computes (each copied once).
  std::vector<std::pair<std::shared_ptr<Recipe>, Ref>> imported_;

  // Note [Recomputed values]: t (pending, its writer another's) as this group sees it when its
  // writer is a recipe over this group's shape: the recipe's ops copied in, reading its inputs.
  std::optional<Ref> import_recipe(const Tensor& t, const StorageImpl& s) {
    auto recipe = std::dynamic_pointer_cast<Recipe>(s.pending_writer());
    if (!recipe) return std::nullopt;
    std::lock_guard<std::recursive_mutex> lock(recipe->mutex());
    if (recipe->done()) return std::nullopt;
    for (const auto& [r, ref] : imported_)
      if (r == recipe) return ref;
    const Graph& rg = recipe->graph;
    if (rg.device != graph_.device || rg.stream != graph_.stream || rg.shape != graph_.shape ||
        t.storage_offset() != 0 || t.sizes() != graph_.shape || !t.is_contiguous() ||
        t.dtype() != rg.ops.back().out || graph_.ops.size() + rg.ops.size() > kMaxOps ||
        graph_.inputs.size() + rg.inputs.size() > kMaxInputs)
      return std::nullopt;
    std::vector<Ref> inputs;
    for (const Tensor& in : rg.inputs) {
      bool foreign = false;
      auto r = operand(in, false, foreign);
      if (!r || foreign) return std::nullopt;
      inputs.push_back(*r);
    }
    // Each recipe op, its operands renamed; one this group already computes (another recipe's
    // copy of the same step: recipes of one chain share their first ops) is used again.
    std::vector<Ref> renamed(rg.ops.size());
    for (size_t j = 0; j < rg.ops.size(); ++j) {
      FusedOp op = rg.ops[j];
      for (Ref* r : {&op.a, &op.b, &op.cond})
        if (r->is_op)
          *r = renamed[static_cast<size_t>(r->index)];
        else if (!r->is_number())
          *r = inputs[static_cast<size_t>(r->index)];
      op.storage.reset();
      op.row = false;
      op.recomputed = true;
      renamed[j] = same_op(op).value_or(Ref{});
      if (renamed[j].is_number()) {
        graph_.ops.push_back(std::move(op));
        renamed[j] = Ref{true, static_cast<int>(graph_.ops.size() - 1)};
      }
    }
    const Ref value = renamed.back();
    imported_.emplace_back(recipe, value);
    g_recomputed_in_groups.fetch_add(1, std::memory_order_relaxed);
    return value;
  }

  // A recomputed op of this group that computes what `op` computes (the same step on the same
  // operands), if any.
  std::optional<Ref> same_op(const FusedOp& op) const {
    auto same_ref = [](const Ref& x, const Ref& y) {
      return x.is_op == y.is_op && x.index == y.index;
    };
    auto same_arg = [](const ops::ScalarArg& x, const ops::ScalarArg& y) {
      return x.is_scalar == y.is_scalar && x.is_float == y.is_float &&
             std::memcmp(&x.d, &y.d, sizeof x.d) == 0 && x.i == y.i;
    };
    for (size_t k = 0; k < graph_.ops.size(); ++k) {
      const FusedOp& o = graph_.ops[k];
      if (o.recomputed && o.kind == op.kind && o.code == op.code && o.compute == op.compute &&
          o.out == op.out && !o.row && same_ref(o.a, op.a) && same_ref(o.b, op.b) &&
          same_ref(o.cond, op.cond) && same_arg(o.sa, op.sa) && same_arg(o.sb, op.sb) &&
          o.a_bits == op.a_bits && o.b_bits == op.b_bits && o.strided_read == op.strided_read)
        return Ref{true, static_cast<int>(k)};
    }
    return std::nullopt;
  }

  // Note [Recomputed values]: each full result only autograd holds gets a recipe instead of a
  // write (its entry in results cleared, the recipe its storage's writer).
  void leave_for_recomputation(Results& results) {
    const size_t n = graph_.ops.size();
    for (size_t k = 0; k < n; ++k) {
      const std::shared_ptr<StorageImpl>& held = results.held[k];
      if (!held || graph_.ops[k].row || graph_.ops[k].column) continue;
      const int64_t saved = held->saved_uses();
      if (saved == 0 || held.use_count() - 1 != saved) continue;
      std::shared_ptr<Recipe> recipe = recipe_for(k, results);
      if (!recipe) continue;
      recipe->result = held;
      held->set_writer(recipe);
      recipe->watch();
      results.held[k] = nullptr;
      g_recomputable.fetch_add(1, std::memory_order_relaxed);
    }
  }

  // The recipe of result k: its unwritten full ancestors, reading the group's inputs and written
  // results; null when it would need a row value nobody writes.
  std::shared_ptr<Recipe> recipe_for(size_t k, const Results& results) const {
    const size_t n = graph_.ops.size();
    std::vector<bool> needed(n, false);
    needed[k] = true;
    for (size_t j = k + 1; j-- > 0;) {
      if (!needed[j]) continue;
      const FusedOp& op = graph_.ops[j];
      for (const Ref* r : {&op.a, &op.b, &op.cond}) {
        if (!r->is_op || results.held[static_cast<size_t>(r->index)]) continue;
        if (graph_.ops[static_cast<size_t>(r->index)].row) return nullptr;
        needed[static_cast<size_t>(r->index)] = true;
      }
    }
    auto recipe = std::make_shared<Recipe>();
    Graph& rg = recipe->graph;
    rg.device = graph_.device;
    rg.stream = graph_.stream;
    rg.shape = graph_.shape;
    rg.numel = graph_.numel;
    std::vector<int> input_of(graph_.inputs.size(), -1), leaf_of(n, -1), op_of(n, -1);
    auto leaf = [&](const Ref& r) -> Ref {
      const auto i = static_cast<size_t>(r.index);
      int& slot = r.is_op ? leaf_of[i] : input_of[i];
      if (slot < 0) {
        slot = static_cast<int>(rg.inputs.size());
        if (!r.is_op) {
          rg.inputs.push_back(graph_.inputs[i]);
        } else {  // a written result: the full value, or a row value repeated along its rows
          const FusedOp& op = graph_.ops[i];
          rg.inputs.emplace_back(
              Storage(results.held[i]), graph_.shape,
              op.row ? graph_.row_value_strides() : contiguous_strides(graph_.shape), 0, op.out);
        }
      }
      return Ref{false, slot};
    };
    for (size_t j = 0; j <= k; ++j) {
      if (!needed[j]) continue;
      FusedOp op = graph_.ops[j];
      for (Ref* r : {&op.a, &op.b, &op.cond}) {
        if (r->is_number()) continue;
        if (r->is_op && op_of[static_cast<size_t>(r->index)] >= 0)
          *r = Ref{true, op_of[static_cast<size_t>(r->index)]};
        else
          *r = leaf(*r);
      }
      op.storage.reset();
      op_of[j] = static_cast<int>(rg.ops.size());
      rg.ops.push_back(std::move(op));
    }
    return recipe;
  }

  // Whether view t (over the group's shape, offset 0) reads item j of a row value for every item
  // of row j: strides of the row values' contiguous layout over the leading dims, 0 along the
  // row (what expanding a keepdim result back to the shape makes).
  bool broadcasts_a_row_value(const Tensor& t) const {
    int64_t stride = 1;
    for (size_t d = t.sizes().size(); d-- > 0;) {
      if (t.sizes()[d] == 1) continue;
      if (static_cast<int>(d) >= graph_.row_dims) {
        if (t.strides()[d] != 0) return false;
      } else {
        if (t.strides()[d] != stride) return false;
        stride *= t.sizes()[d];
      }
    }
    return true;
  }

  // Tests: the CUDA program this group would run, whatever its device.
  void capture(const Results& results) const {
    if (!g_capture_sources.load(std::memory_order_relaxed) || !generated_kernel_fits(graph_))
      return;
    std::vector<bool> written(graph_.ops.size());
    for (size_t k = 0; k < written.size(); ++k) written[k] = results.held[k] != nullptr;
    KernelShape shape = kernel_shape(graph_, written);
    if (shape.rank > kFusedMaxRank) return;
    std::lock_guard<std::mutex> lock(g_sources_mutex);
    auto keep = [&](const KernelShape& s) {
      KernelSource src = cuda_source(graph_, s);
      std::string key = structure_key(graph_, s);
      auto [k, new_key] = g_key_names.emplace(key, src.name);
      auto [n, new_name] = g_name_keys.emplace(src.name, key);
      if ((!new_key && k->second != src.name) || (!new_name && n->second != key))
        ++g_key_mismatches;
      g_sources.emplace_back(src.name, src.text);
    };
    keep(shape);
    shape.vector = vector_width(graph_, shape);  // the vector program too, where there is one
    if (shape.vector > 1) keep(shape);
  }

  void count(const Results& results) const {
    int64_t written = 0, skipped = 0, bytes = 0;
    for (size_t k = 0; k < graph_.ops.size(); ++k) {
      if (results.held[k]) {
        ++written;
      } else {
        ++skipped;
        // written once by its op and read back by each op after it (at least once)
        bytes +=
            2 * graph_.numel_of(graph_.ops[k]) * static_cast<int64_t>(itemsize(graph_.ops[k].out));
      }
    }
    g_groups.fetch_add(1, std::memory_order_relaxed);
    g_ops.fetch_add(static_cast<int64_t>(graph_.ops.size()), std::memory_order_relaxed);
    g_written.fetch_add(written, std::memory_order_relaxed);
    g_skipped.fetch_add(skipped, std::memory_order_relaxed);
    g_bytes_skipped.fetch_add(bytes, std::memory_order_relaxed);
    if (!g_logging.load(std::memory_order_relaxed)) return;
    std::string over = shape_str(graph_.shape);
    if (graph_.columns > 0)
      over += " (" + std::to_string(graph_.numel / graph_.columns) + " rows of " +
              std::to_string(graph_.columns) + " columns)";
    if (graph_.rows > 0)
      over +=
          " (" + std::to_string(graph_.rows) + " rows of " + std::to_string(graph_.row_size) + ")";
    std::string line =
        "[genesis.compile] fused group: " + std::to_string(graph_.ops.size()) + " ops over " +
        over + " on " + graph_.device.str() + ", " + std::to_string(graph_.inputs.size()) +
        " inputs read, " + std::to_string(written) + " results written, " +
        std::to_string(skipped) + " never written (" + std::to_string(bytes) +
        " bytes of traffic saved); ran because " +
        (t_run_reason ? t_run_reason
                      : "an op that does not fuse, a read or a write needed its values") +
        ":";
    for (size_t k = 0; k < graph_.ops.size(); ++k) {
      const FusedOp& op = graph_.ops[k];
      std::string args = operand_name(op.a, op, true);
      if (op.kind == OpKind::Binary || op.kind == OpKind::Where ||
          (op.kind == OpKind::Reduce && !op.b.is_number()))  // a centred reduction's centre
        args += ", " + operand_name(op.b, op, false);
      if (op.kind == OpKind::Where) args = operand_name(op.cond, op, true) + ", " + args;
      line += "\n  %" + std::to_string(k) + " = " + op_name(op) + "(" + args + ") -> " +
              scalar_type_name(op.out) + (op.row ? " per row" : "") +
              (op.column ? " per column" : "") + (results.held[k] ? "  [written]" : "") +
              (op.recomputed ? "  [recomputed]" : "");
    }
    std::fprintf(stderr, "%s\n", line.c_str());
  }
};

void run_because(Group& g, const char* reason) {
  const char* before = t_run_reason;
  t_run_reason = reason;
  struct Restore {
    const char* before;
    ~Restore() { t_run_reason = before; }
  } restore{before};
  g.run();
}

struct RegionState {
  int depth = 0;
  int fullgraph = 0;  // how many of the open regions asked for fullgraph
  // The open groups, oldest first (Note [Open groups]).
  std::vector<std::shared_ptr<Group>> open;
};
thread_local RegionState t_region;

// Note [Open groups]: a thread keeps up to kOpenGroups groups open at once, one per shape (and
// row structure) in use, so ops of interleaved shapes (a backward pass's gradients of an
// activation, of its rows and of a parameter; a parameter's cast in a forward) each join the
// group of their shape instead of ending the group before. An op reading a value pending in
// another open group runs that group first (Group::operand), so no group ever reads another's
// unwritten values; groups of another device or stream run when an op on this one comes (their
// order against the new stream's work is the user's); the oldest runs when one more is needed.
constexpr size_t kOpenGroups = 8;

// The thread's open groups that have not run (something may have run one meanwhile).
std::vector<std::shared_ptr<Group>>& open_groups() {
  auto& gs = t_region.open;
  std::erase_if(gs, [](const std::shared_ptr<Group>& g) { return g->done(); });
  return gs;
}

bool executor_for(Device device) { return device.is_cpu() || cuda_fusion_on(); }

// The stream an op on `device` runs on now (0 on the CPU).
uintptr_t stream_now(Device device) {
  return device.is_cuda() ? cuda::current_stream(device.index) : 0;
}

// What joins a group: an elementwise op over `out`, or (reduced set) the reduction of `reduced`'s
// rows into `out`.
struct Joining {
  const Tensor& out;
  const Tensor* reduced = nullptr;
  bool columns = false;  // the reduction is of the leading dims (Note [Column groups])
};

// Where `op` fits in group g: nullopt when it does not (another shape, device, stream, a full
// group), else whether it joins as a row op.
std::optional<bool> fit(const Group& g, const Joining& op, uintptr_t stream) {
  const Tensor& out = op.out;
  if (g.full() || g.graph().device != out.device() || g.graph().stream != stream)
    return std::nullopt;
  if (op.reduced && op.columns)
    return g.takes_column_reduction(*op.reduced, out.numel()) ? std::optional<bool>(false)
                                                              : std::nullopt;
  if (op.reduced)
    return g.takes_reduction(*op.reduced, out.numel()) ? std::optional<bool>(true) : std::nullopt;
  return g.level_of(out.sizes(), out.numel());
}

// Note [Small groups on the CPU]: deferring an op costs about half a microsecond (recording it,
// the group's bookkeeping), while a CPU op over a few thousand items takes a few microseconds
// and finds its operands in cache anyway: fusing it would make the compiled function slower than
// eager code. So an op over fewer than 4096 items (set_cpu_min_items) starts no group on the CPU
// and runs as eager; it still joins a group that is open (a row op over a big group's rows).
// CUDA groups have no such floor: there a fused op saves a kernel launch.
//
// The open group that `op` joins, and whether it joins as a row op: the newest open group it fits,
// else a new one (Note [Open groups]); null when the op should run now.
std::shared_ptr<Group> group_for(const Joining& op, bool& row) {
  auto& gs = open_groups();
  const Tensor& out = op.out;
  const uintptr_t stream = stream_now(out.device());
  // Groups of another device or stream run now, in order, on their own streams.
  for (size_t i = 0; i < gs.size();) {
    const Graph& graph = gs[i]->graph();
    if (graph.device == out.device() && graph.stream == stream) {
      ++i;
      continue;
    }
    std::shared_ptr<Group> g = gs[i];
    gs.erase(gs.begin() + static_cast<std::ptrdiff_t>(i));
    run_because(*g, "an op on another device or stream came");
  }
  for (size_t i = gs.size(); i-- > 0;) {
    if (auto level = fit(*gs[i], op, stream)) {
      row = *level;
      return gs[i];
    }
  }
  const Tensor& full = op.reduced ? *op.reduced : out;
  // A CPU op over fewer items starts no group (Note [Small groups on the CPU]).
  if (full.device().is_cpu() && full.numel() < g_cpu_min_items.load(std::memory_order_relaxed))
    return nullptr;
  if (gs.size() >= kOpenGroups) {
    std::shared_ptr<Group> oldest = gs.front();
    gs.erase(gs.begin());
    run_because(*oldest, "it was the oldest of 8 open groups");
  }
  gs.push_back(std::make_shared<Group>(out.device(), stream, full.sizes(), full.numel()));
  row = op.reduced != nullptr && !op.columns;
  return gs.back();
}

// Whether eager's loop over a fresh contiguous result reads t in dense runs: the loop goes in
// the result's (row-major) order, so t's innermost dim that iterates must be dense.
bool innermost_dense(const Tensor& t) {
  for (size_t d = t.sizes().size(); d-- > 0;)
    if (t.sizes()[d] != 1) return t.strides()[d] == 1;
  return true;
}

bool eligible(const Tensor& out) {
  return t_region.depth > 0 && executor_for(out.device()) && out.numel() > 0 &&
         out.storage_offset() == 0 && out.is_contiguous() && out.storage().use_count() == 1;
}

// Adds the op make(refs) over `out` to the open group, its operands `tensors` resolved
// (Group::operand); runs what an operand waits for and tries again when needed. Under the
// group's lock, so a group another thread runs meanwhile is never joined half-way.
template <size_t N, typename Make>
bool defer(const Joining& op, const Tensor* const (&tensors)[N], const Make& make) {
  // Each attempt may find an operand pending in another group, which then runs.
  for (size_t attempt = 0; attempt < N + 2; ++attempt) {
    bool row = false;
    std::shared_ptr<Group> g = group_for(op, row);
    if (!g) return false;
    std::unique_lock<std::recursive_mutex> lock(g->mutex());
    if (g->done()) continue;  // another thread ran it
    Ref refs[N];
    const Tensor* waiting = nullptr;
    // a reduction reads full values and makes a row value (its centre, a second operand, is a
    // row value)
    const bool reads_rows = row && op.reduced == nullptr;  // (a column reduction: row false)
    for (size_t i = 0; i < N && !waiting; ++i) {
      bool foreign = false;
      auto r = g->operand(*tensors[i], reads_rows || (op.reduced && i == 1), foreign);
      if (foreign) return false;  // runs now, reading the memory as it is
      if (r)
        refs[i] = *r;
      else
        waiting = tensors[i];
    }
    if (!waiting && !g->done()) {
      FusedOp f = make(refs);
      f.row = row;
      g->add(std::move(f), op.out);
      return true;
    }
    lock.unlock();
    if (waiting) (void)waiting->storage().data();  // runs the work it waits for (g, perhaps)
  }
  return false;
}

}  // namespace

// The fullgraph flag of each open region, innermost last.
thread_local std::vector<bool> t_fullgraph;

void enter_region(bool fullgraph) {
  ++t_region.depth;
  t_fullgraph.push_back(fullgraph);
  t_region.fullgraph += fullgraph ? 1 : 0;
}

void exit_region() {
  GENESIS_CHECK(t_region.depth > 0, "compile", "a compiled region was closed more than opened");
  t_region.fullgraph -= t_fullgraph.back() ? 1 : 0;
  t_fullgraph.pop_back();
  if (--t_region.depth == 0) flush();
}

void check_python_read(const char* op) {
  if (g_logging.load(std::memory_order_relaxed) && t_region.depth > 0)
    std::fprintf(stderr, "[genesis.compile] graph break: %s() reads a tensor's value into Python\n",
                 op);
  GENESIS_CHECK(t_region.fullgraph == 0, op,
                "genesis.compile(fullgraph=True): the function reads a tensor's value into "
                "Python here (",
                op,
                "()), which breaks the graph; move the read out of the "
                "compiled function, or compile it with fullgraph=False (the read then runs the "
                "ops deferred so far and the function goes on)");
}

bool region_active() { return t_region.depth > 0; }

void flush() {
  std::vector<std::shared_ptr<Group>> gs = std::move(t_region.open);
  t_region.open.clear();
  for (const auto& g : gs) run_because(*g, "the compiled region ended");  // oldest first
}

bool defer_unary(ops::UnaryOp op, const Tensor& out, const Tensor& a) {
  if (!eligible(out)) return false;
  const Tensor* tensors[1] = {&a};
  return defer({out}, tensors, [&](const Ref(&refs)[1]) {
    FusedOp f{OpKind::Unary, static_cast<int>(op), out.dtype(), out.dtype(), refs[0], {}, {}};
    f.strided_read = !refs[0].is_op && !innermost_dense(a);
    return f;
  });
}

bool defer_binary(ops::BinaryOp op, ScalarType compute, const Tensor& out, const Tensor& a,
                  const ops::ScalarArg& sa, const Tensor& b, const ops::ScalarArg& sb) {
  if (!eligible(out)) return false;
  const Tensor* tensors[2] = {&a, &b};
  return defer({out}, tensors, [&](const Ref(&refs)[2]) {
    FusedOp f{OpKind::Binary, static_cast<int>(op), compute, out.dtype(), refs[0], refs[1], {}};
    f.sa = sa;
    f.sb = sb;
    return f;
  });
}

bool defer_where(const Tensor& out, const Tensor& cond, const Tensor& a, uint64_t a_bits,
                 const Tensor& b, uint64_t b_bits) {
  if (!eligible(out)) return false;
  const Tensor* tensors[3] = {&cond, &a, &b};
  return defer({out}, tensors, [&](const Ref(&refs)[3]) {
    FusedOp f{OpKind::Where, 0, out.dtype(), out.dtype(), refs[1], refs[2], refs[0]};
    f.a_bits = a_bits;
    f.b_bits = b_bits;
    return f;
  });
}

// A conversion the generated kernels make exactly as the eager copy kernel does (Note [Fused
// groups on CUDA]): into a 16-bit float from float, the 16-bit floats, and the sources whose
// every value a float holds exactly (bool, 8- and 16-bit integers: rounding that float once is
// rounding the value once). The eager kernel rounds the other sources (int32, int64, double)
// from double once, where the program's float in between could round twice. Attention's
// softmax backward casts amax's ties (a bool) to bfloat16.
bool cast_fusable(ScalarType from, ScalarType to, Device device) {
  if (device.is_cpu()) return true;
  bool to_16 = to == ScalarType::Float16 || to == ScalarType::BFloat16;
  return !to_16 || from == ScalarType::Float32 || from == ScalarType::Float16 ||
         from == ScalarType::BFloat16 || from == ScalarType::Bool || from == ScalarType::UInt8 ||
         from == ScalarType::Int8 || from == ScalarType::Int16;
}

bool defer_cast(const Tensor& out, const Tensor& src) {
  if (!eligible(out) || src.device() != out.device() || src.sizes() != out.sizes() ||
      !cast_fusable(src.dtype(), out.dtype(), out.device()))
    return false;
  const Tensor* tensors[1] = {&src};
  return defer({out}, tensors, [&](const Ref(&refs)[1]) {
    return FusedOp{OpKind::Cast, 0, src.dtype(), out.dtype(), refs[0], {}, {}};
  });
}

bool defer_reduce(ops::ReduceOp op, const Tensor& in, const Tensor& out,
                  const ops::ReduceFinish& finish, const Tensor& center) {
  using ops::ReduceOp;
  // var's second pass: the squares of the items less the row's centre (a row value)
  const bool centred = op == ReduceOp::SumSquares && center.defined() &&
                       center.device() == in.device() && center.dtype() == in.dtype() &&
                       center.numel() == out.numel() && center.is_contiguous();
  const bool kind_fuses =
      centred || (!center.defined() && (op == ReduceOp::Sum || op == ReduceOp::Prod ||
                                        op == ReduceOp::Max || op == ReduceOp::Min));
  if (!kind_fuses || !eligible(out) || in.device() != out.device() || in.dtype() != out.dtype() ||
      in.dtype() == ScalarType::Bool || out.numel() == 0)
    return false;
  const int64_t rows = out.numel(), row_size = in.numel() / rows;
  // Rows of one item are copies; long rows would need large scratch on the CPU, where eager
  // code also splits a few long rows over the threads (summing in another order).
  if (row_size < 2 || row_size > kMaxRowSize ||
      (in.device().is_cpu() && !cpu::reduce_runs_whole_rows(rows, row_size)))
    return false;
  auto make = [&](const auto& refs) {  // refs: the input's, then the centre's
    FusedOp f{OpKind::Reduce, static_cast<int>(op), in.dtype(), out.dtype(), refs[0], {}, {}};
    if (std::size(refs) > 1) f.b = refs[std::size(refs) - 1];
    f.finish = finish;
    return f;
  };
  if (centred) {
    const Tensor* tensors[2] = {&in, &center};
    return defer({out, &in}, tensors, make);
  }
  const Tensor* tensors[1] = {&in};
  return defer({out, &in}, tensors, make);
}

bool defer_column_reduce(ops::ReduceOp op, const Tensor& in, const Tensor& out,
                         const ops::ReduceFinish& finish) {
  using ops::ReduceOp;
  const bool kind_fuses =
      op == ReduceOp::Sum || op == ReduceOp::Prod || op == ReduceOp::Max || op == ReduceOp::Min;
  // one row is a copy, one column a row reduction
  if (!kind_fuses || !eligible(out) || in.device() != out.device() || in.dtype() != out.dtype() ||
      in.dtype() == ScalarType::Bool || out.numel() < 2 || in.numel() / out.numel() < 2)
    return false;
  auto make = [&](const auto& refs) {
    FusedOp f{OpKind::Reduce, static_cast<int>(op), in.dtype(), out.dtype(), refs[0], {}, {}};
    f.column = true;
    f.finish = finish;
    return f;
  };
  const Tensor* tensors[1] = {&in};
  return defer({out, &in, true}, tensors, make);
}

namespace {

// out = x * (mask ? scale : 0), scale rounded to out's dtype (the composite of dropout and its
// backward): a where of the two numbers and a product, as fused_dropout computes it. `mask`
// is an operand, or (mask_op) the mask op just added to the group.
bool defer_scaled_by_mask(const Tensor& out, const Tensor& x, const Tensor* mask,
                          const FusedOp* mask_op, const Tensor* mask_out, double scale) {
  const ScalarType t = out.dtype();
  for (int attempt = 0; attempt < 4; ++attempt) {
    bool row = false;
    std::shared_ptr<Group> g = group_for({out}, row);
    if (!g) return false;
    std::unique_lock<std::recursive_mutex> lock(g->mutex());
    if (g->done()) continue;
    const Tensor* waiting = nullptr;
    Ref refs[2];
    const Tensor* operands[2] = {&x, mask};
    for (size_t i = 0; i < 2 && !waiting; ++i) {
      if (!operands[i]) continue;
      bool foreign = false;
      auto r = g->operand(*operands[i], row, foreign);
      if (foreign) return false;
      if (r)
        refs[i] = *r;
      else
        waiting = operands[i];
    }
    if (waiting) {
      lock.unlock();
      (void)waiting->storage().data();
      continue;
    }
    if (mask_op) {
      FusedOp m = *mask_op;
      m.row = row;
      g->add(std::move(m), *mask_out);
      refs[1] = g->last();
    }
    FusedOp w{OpKind::Where, 0, t, t, {}, {}, refs[1]};
    w.a_bits = Scalar(scale).bit_pattern(t);
    w.b_bits = Scalar(0.0).bit_pattern(t);
    w.row = row;
    const Ref factor = g->add_temporary(std::move(w));
    FusedOp product{
        OpKind::Binary, static_cast<int>(ops::BinaryOp::Mul), t, t, refs[0], factor, {}};
    product.row = row;
    g->add(std::move(product), out);
    return true;
  }
  return false;
}

}  // namespace

bool defer_dropout(const Tensor& out, const Tensor& mask, const Tensor& in, float keep,
                   double scale, uint64_t seed, uint64_t offset) {
  if (!eligible(out) || !eligible(mask) || in.sizes() != out.sizes() || in.dtype() != out.dtype())
    return false;
  FusedOp m{OpKind::DropoutMask, 0, ScalarType::Bool, ScalarType::Bool, {}, {}, {}};
  m.a_bits = seed;
  m.b_bits = offset;
  m.sa.is_scalar = true;  // keep is part of the program's structure; seed and offset are not
  m.sa.is_float = true;
  m.sa.d = keep;
  return defer_scaled_by_mask(out, in, nullptr, &m, &mask, scale);
}

bool defer_masked_scale(const Tensor& out, const Tensor& grad, const Tensor& mask, double scale) {
  if (!eligible(out) || grad.sizes() != out.sizes() || mask.sizes() != out.sizes() ||
      grad.dtype() != out.dtype())
    return false;
  return defer_scaled_by_mask(out, grad, &mask, nullptr, nullptr, scale);
}

Stats stats() {
  Stats s;
  s.groups = g_groups.load();
  s.ops = g_ops.load();
  s.results_written = g_written.load();
  s.results_skipped = g_skipped.load();
  s.bytes_skipped = g_bytes_skipped.load();
  s.results_recomputable = g_recomputable.load();
  s.recomputed_in_groups = g_recomputed_in_groups.load();
  s.recomputed_alone = g_recomputed_alone.load();
  s.recipes_alive = g_recipes_alive.load();
  return s;
}

void reset_stats() {
  g_groups = 0;
  g_ops = 0;
  g_written = 0;
  g_skipped = 0;
  g_bytes_skipped = 0;
  g_recomputable = 0;
  g_recomputed_in_groups = 0;
  g_recomputed_alone = 0;
}

void set_logging(bool on) { g_logging = on; }

void set_cpu_min_items(int64_t items) { g_cpu_min_items = items; }

void set_recompute(std::optional<bool> on) { g_recompute = on ? (*on ? 1 : 0) : -1; }

void set_cuda_fusion(bool on) { g_cuda_fusion = on ? 1 : 0; }
bool cuda_fusion() { return cuda_fusion_on(); }

void set_eager_executor_for_tests(bool on) { g_eager_executor = on; }

void capture_sources_for_tests(bool on) {
  g_capture_sources = on;
  std::lock_guard<std::mutex> lock(g_sources_mutex);
  g_sources.clear();
  g_key_names.clear();
  g_name_keys.clear();
  g_key_mismatches = 0;
}

int64_t captured_key_mismatches() {
  std::lock_guard<std::mutex> lock(g_sources_mutex);
  return g_key_mismatches;
}

std::vector<std::pair<std::string, std::string>> captured_sources() {
  std::lock_guard<std::mutex> lock(g_sources_mutex);
  return g_sources;
}

}  // namespace genesis::fusion
