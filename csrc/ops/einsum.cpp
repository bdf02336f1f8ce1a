#include "ops/einsum.h"

#include <algorithm>

#include "core/errors.h"
#include "core/shape.h"
#include "ops/elementwise.h"
#include "ops/matmul.h"
#include "ops/reduce.h"
#include "ops/views.h"

namespace genesis::ops {

// Note [Einsum plan]
// The equation is parsed once into label ids: the ellipsis dims are ids 0..E-1 (E the most dims
// any operand's "..." covers, right-aligned so they broadcast), the letters E + 0..25 for 'A'..'Z'
// and E + 26..51 for 'a'..'z' (the implicit output's order, as PyTorch). Each operand then becomes
// a view with one dim per distinct label: a label repeated within an operand is its diagonal, a
// strided view whose stride is the sum of the repeats' strides. The operands are contracted left
// to right, as PyTorch does without opt_einsum. Before each pairwise step a label that is in
// neither the other operand, the later operands nor the output is summed away; the step itself
// is one batched product:
//   left  -> permute (batch, left-only, contracted)  -> reshape (B, M, K)
//   right -> permute (batch, contracted, right-only) -> reshape (B, K, N)
//   bmm -> (B, M, N) -> reshape (batch, left-only, right-only)
// where batch labels are shared and still needed, contracted ones shared and not; a step with
// no contracted label is a broadcast multiply instead (an outer or elementwise product). A shared
// label of size 1 on one side broadcasts (expand, a stride-0 view), as PyTorch allows. The
// result is finally summed over leftover labels and permuted to the output's order.
//
// Dtypes follow PyTorch's einsum, which is built the same way: sums promote as sum does (bool and
// integers to int64), a multiply promotes, a contraction needs one dtype (not bool, and no
// integers on CUDA, as matmul).

namespace {

constexpr const char* kOp = "einsum";
constexpr int kLetters = 52;

int letter_id(char c) { return c >= 'A' && c <= 'Z' ? c - 'A' : 26 + (c - 'a'); }
char letter_of(int id) { return static_cast<char>(id < 26 ? 'A' + id : 'a' + (id - 26)); }
bool is_letter(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }

// One side of the equation's terms: letters in order, and where "..." sits (-1: none).
struct Term {
  std::vector<int> letters;
  int ellipsis_at = -1;  // index into letters before which the ellipsis goes
};

// Parses the term equation[begin, end); error messages name `whose` and the equation's index.
Term parse_term(const std::string& eq, size_t begin, size_t end, const std::string& whose) {
  Term term;
  for (size_t i = begin; i < end; ++i) {
    char c = eq[i];
    if (c == ' ') continue;
    if (c == '.') {
      GENESIS_CHECK_VALUE(term.ellipsis_at < 0, kOp, "found '.' in ", whose,
                          " which already has an ellipsis");
      GENESIS_CHECK_VALUE(i + 2 < end && eq[i + 1] == '.' && eq[i + 2] == '.', kOp, "found '.' in ",
                          whose, " that is not part of an ellipsis '...'");
      term.ellipsis_at = static_cast<int>(term.letters.size());
      i += 2;
      continue;
    }
    GENESIS_CHECK_VALUE(is_letter(c), kOp, "invalid subscript '", c, "' at index ", i,
                        " of the equation; subscripts must be in [a-zA-Z]");
    term.letters.push_back(letter_id(c));
  }
  return term;
}

// A tensor whose dims carry label ids (distinct).
struct Labeled {
  Tensor t;
  std::vector<int> labels;
};

int index_of(const std::vector<int>& v, int x) {
  auto it = std::find(v.begin(), v.end(), x);
  return it == v.end() ? -1 : static_cast<int>(it - v.begin());
}

// Sums the dims of x whose labels are not in `keep` (a per-label flag).
Labeled sum_unneeded(Labeled x, const std::vector<bool>& keep) {
  Shape dims;
  std::vector<int> left;
  for (size_t i = 0; i < x.labels.size(); ++i) {
    if (keep[x.labels[i]])
      left.push_back(x.labels[i]);
    else
      dims.push_back(static_cast<int64_t>(i));
  }
  if (dims.empty()) return x;
  return {sum(x.t, dims, false, std::nullopt), left};  // integers and bool sum to int64
}

Shape sizes_of(const Tensor& t, const std::vector<int>& positions) {
  Shape out;
  for (int p : positions) out.push_back(t.sizes()[p]);
  return out;
}

// One pairwise step (Note [Einsum plan]); `keep` flags the labels needed after it.
Labeled contract(Labeled a, Labeled b, const std::vector<bool>& keep) {
  std::vector<bool> keep_a = keep, keep_b = keep;
  for (int l : b.labels) keep_a[l] = true;
  for (int l : a.labels) keep_b[l] = true;
  a = sum_unneeded(std::move(a), keep_a);
  b = sum_unneeded(std::move(b), keep_b);
  // Shared labels broadcast a size of 1 against the other side's size.
  Shape size_a = a.t.sizes(), size_b = b.t.sizes();
  for (size_t i = 0; i < a.labels.size(); ++i) {
    int j = index_of(b.labels, a.labels[i]);
    if (j < 0 || size_a[i] == size_b[j]) continue;
    if (size_a[i] == 1)
      size_a[i] = size_b[j];
    else
      size_b[j] = size_a[i];
  }
  Tensor ta = a.t.sizes() == size_a ? a.t : expand(a.t, size_a);
  Tensor tb = b.t.sizes() == size_b ? b.t : expand(b.t, size_b);
  std::vector<int> batch, only_a, only_b, summed;        // labels
  std::vector<int> pa_b, pa_a, pa_k, pb_b, pb_k, pb_b2;  // positions
  for (size_t i = 0; i < a.labels.size(); ++i) {
    int l = a.labels[i], j = index_of(b.labels, l);
    if (j < 0) {
      only_a.push_back(l);
      pa_a.push_back(static_cast<int>(i));
    } else if (keep[l]) {
      batch.push_back(l);
      pa_b.push_back(static_cast<int>(i));
      pb_b.push_back(j);
    } else {
      summed.push_back(l);
      pa_k.push_back(static_cast<int>(i));
      pb_k.push_back(j);
    }
  }
  for (size_t j = 0; j < b.labels.size(); ++j)
    if (index_of(a.labels, b.labels[j]) < 0) {
      only_b.push_back(b.labels[j]);
      pb_b2.push_back(static_cast<int>(j));
    }
  Shape s_batch = sizes_of(ta, pa_b), s_a = sizes_of(ta, pa_a), s_k = sizes_of(ta, pa_k),
        s_b = sizes_of(tb, pb_b2);
  int64_t nb = checked_numel(s_batch, kOp), m = checked_numel(s_a, kOp),
          k = checked_numel(s_k, kOp), n = checked_numel(s_b, kOp);
  Shape perm_a, perm_b;
  for (auto* v : {&pa_b, &pa_a, &pa_k})
    for (int p : *v) perm_a.push_back(p);
  for (auto* v : {&pb_b, &pb_k, &pb_b2})
    for (int p : *v) perm_b.push_back(p);
  std::vector<int> labels = batch;
  labels.insert(labels.end(), only_a.begin(), only_a.end());
  labels.insert(labels.end(), only_b.begin(), only_b.end());
  if (summed.empty()) {
    // Nothing to sum: a broadcast multiply, (batch, a-only, 1...) * (batch, 1..., b-only).
    Shape va = sizes_of(a.t, pa_b), vb = sizes_of(b.t, pb_b);
    Shape sa = sizes_of(a.t, pa_a), sb = sizes_of(b.t, pb_b2);
    va.insert(va.end(), sa.begin(), sa.end());
    va.insert(va.end(), only_b.size(), 1);
    vb.insert(vb.end(), only_a.size(), 1);
    vb.insert(vb.end(), sb.begin(), sb.end());
    Tensor left = reshape(permute(a.t, perm_a), va), right = reshape(permute(b.t, perm_b), vb);
    return {binary(BinaryOp::Mul, left, right, kOp), labels};
  }
  GENESIS_CHECK(ta.dtype() == tb.dtype(), kOp,
                "operands contracted over a shared subscript need one dtype, got ",
                scalar_type_name(ta.dtype()), " and ", scalar_type_name(tb.dtype()),
                " (an integer operand summed over a subscript of its own becomes int64)");
  GENESIS_CHECK_TYPE(ta.dtype() != ScalarType::Bool, kOp,
                     "bool operands cannot be contracted over a shared subscript");
  GENESIS_CHECK_TYPE(!ta.is_cuda() || is_floating_point(ta.dtype()), kOp,
                     "integer matmul is not supported on CUDA");
  Tensor left = reshape(permute(ta, perm_a), {nb, m, k});
  Tensor right = reshape(permute(tb, perm_b), {nb, k, n});
  Shape out = s_batch;
  out.insert(out.end(), s_a.begin(), s_a.end());
  out.insert(out.end(), s_b.begin(), s_b.end());
  return {reshape(bmm(left, right), out), labels};
}

}  // namespace

Tensor einsum(const std::string& equation, const std::vector<Tensor>& operands) {
  GENESIS_CHECK_VALUE(!operands.empty(), kOp, "expected at least one operand");
  size_t arrow = equation.find("->");
  size_t lhs_end = arrow == std::string::npos ? equation.size() : arrow;
  GENESIS_CHECK_VALUE(
      arrow == std::string::npos || equation.find("->", arrow + 2) == std::string::npos, kOp,
      "the equation has more than one '->'");
  // The input terms.
  std::vector<Term> terms;
  size_t begin = 0;
  while (true) {
    size_t comma = equation.find(',', begin);
    size_t end = comma == std::string::npos || comma > lhs_end ? lhs_end : comma;
    terms.push_back(
        parse_term(equation, begin, end, "the term of operand " + std::to_string(terms.size())));
    if (end == lhs_end) break;
    begin = end + 1;
  }
  GENESIS_CHECK_VALUE(terms.size() == operands.size(), kOp, "the equation has ", terms.size(),
                      " input terms but ", operands.size(), " operands were given");
  const Tensor& first = operands[0];
  for (size_t i = 0; i < operands.size(); ++i) {
    const Tensor& t = operands[i];
    GENESIS_CHECK(t.device() == first.device(), kOp,
                  "expected all operands on the same device, got ", first.device().str(), " and ",
                  t.device().str());
  }
  // How many dims each ellipsis covers; E the most.
  int64_t ell = 0;
  std::vector<int64_t> covers(terms.size(), 0);
  for (size_t i = 0; i < terms.size(); ++i) {
    int64_t nl = static_cast<int64_t>(terms[i].letters.size()), nd = operands[i].ndim();
    if (terms[i].ellipsis_at < 0) {
      GENESIS_CHECK_VALUE(nl == nd, kOp, "operand ", i, " has ", nd, " dims but its term has ", nl,
                          " subscripts and no ellipsis");
    } else {
      GENESIS_CHECK_VALUE(nl <= nd, kOp, "operand ", i, " has ", nd,
                          " dims, fewer than its term's ", nl, " subscripts");
      covers[i] = nd - nl;
      ell = std::max(ell, covers[i]);
    }
  }
  int nlabels = static_cast<int>(ell) + kLetters;
  std::vector<int64_t> size(nlabels, -1);  // the broadcast size of each label seen
  // Each operand as a view with one dim per distinct label.
  std::vector<Labeled> views;
  for (size_t i = 0; i < terms.size(); ++i) {
    const Tensor& t = operands[i];
    const Term& term = terms[i];
    std::vector<int> dim_labels;  // the label of each of t's dims
    for (int j = 0; j <= static_cast<int>(term.letters.size()); ++j) {
      if (j == term.ellipsis_at)
        for (int64_t e = 0; e < covers[i]; ++e)
          dim_labels.push_back(static_cast<int>(ell - covers[i] + e));
      if (j < static_cast<int>(term.letters.size()))
        dim_labels.push_back(static_cast<int>(ell) + term.letters[j]);
    }
    Labeled v;
    Shape sizes, strides;
    for (size_t d = 0; d < dim_labels.size(); ++d) {
      int l = dim_labels[d];
      int64_t s = t.sizes()[d], st = t.strides()[d];
      int at = index_of(v.labels, l);
      if (at >= 0) {  // a repeat within the operand: the diagonal
        GENESIS_CHECK(sizes[at] == s, kOp, "subscript ", letter_of(l - static_cast<int>(ell)),
                      " is repeated in operand ", i, " with sizes ", sizes[at], " and ", s);
        strides[at] += st;
        continue;
      }
      v.labels.push_back(l);
      sizes.push_back(s);
      strides.push_back(st);
      if (size[l] == -1 || size[l] == 1) {
        size[l] = s;
      } else if (s != 1 && s != size[l]) {
        if (l < ell)
          GENESIS_FAIL(ErrorKind::Runtime, kOp, "a dim covered by the ellipsis in operand ", i,
                       " has size ", s, ", which does not broadcast with size ", size[l]);
        GENESIS_FAIL(ErrorKind::Runtime, kOp, "subscript ", letter_of(l - static_cast<int>(ell)),
                     " has size ", s, " in operand ", i, ", which does not broadcast with size ",
                     size[l]);
      }
    }
    v.t = t.as_strided(sizes, strides, t.storage_offset());
    views.push_back(std::move(v));
  }
  // Repeats count for the implicit output: 'ii' alone is a trace.
  std::vector<int> appearances(kLetters, 0);
  for (const Term& term : terms)
    for (int l : term.letters) ++appearances[l];
  // The output's labels.
  std::vector<int> out;
  if (arrow == std::string::npos) {
    for (int64_t e = 0; e < ell; ++e) out.push_back(static_cast<int>(e));
    for (int l = 0; l < kLetters; ++l)
      if (appearances[l] == 1) out.push_back(static_cast<int>(ell) + l);
  } else {
    Term o = parse_term(equation, arrow + 2, equation.size(), "the output");
    for (int j = 0; j <= static_cast<int>(o.letters.size()); ++j) {
      if (j == o.ellipsis_at)
        for (int64_t e = 0; e < ell; ++e) out.push_back(static_cast<int>(e));
      if (j == static_cast<int>(o.letters.size())) break;
      int l = o.letters[j];
      GENESIS_CHECK_VALUE(appearances[l] > 0, kOp, "output subscript ", letter_of(l),
                          " does not appear in any input term");
      GENESIS_CHECK_VALUE(index_of(out, static_cast<int>(ell) + l) < 0, kOp, "output subscript ",
                          letter_of(l), " appears more than once");
      out.push_back(static_cast<int>(ell) + l);
    }
  }
  std::vector<bool> in_out(nlabels, false);
  for (int l : out) in_out[l] = true;
  // Contract left to right; keep = the output's labels and those of the operands still to come.
  Labeled acc = std::move(views[0]);
  for (size_t i = 1; i < views.size(); ++i) {
    std::vector<bool> keep = in_out;
    for (size_t j = i + 1; j < views.size(); ++j)
      for (int l : views[j].labels) keep[l] = true;
    acc = contract(std::move(acc), std::move(views[i]), keep);
  }
  acc = sum_unneeded(std::move(acc), in_out);
  Shape perm;
  for (int l : out) perm.push_back(index_of(acc.labels, l));
  // A single operand without sums stays a view of it, as in PyTorch.
  return permute(acc.t, perm);
}

}  // namespace genesis::ops
