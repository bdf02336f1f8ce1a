#pragma once
// The differentiable ops: the same signatures as ops/, and each records a FormulaNode when grad
// mode is on and an input requires grad (Note [Formula nodes] in autograd/node.h). The
// bindings call these; backward formulas call them too, so create_graph records the gradient.
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/tensor.h"
#include "index/index_item.h"
#include "ops/convolution.h"
#include "ops/elementwise.h"
#include "ops/reduce.h"
#include "vocab/op_codes.h"

namespace genesis::ag {

using ops::BinaryOp;
using ops::Dims;
using ops::Operand;
using ops::UnaryOp;

// Elementwise (autograd/elementwise.cpp).
Tensor binary(BinaryOp op, const Operand& a, const Operand& b, const char* name);
void binary_(BinaryOp op, const Tensor& self, const Operand& other, const char* name);
Tensor unary(UnaryOp op, const Tensor& a, const char* name);
// unary's node for an output computed elsewhere (out holds op(a), e.g. from a fused matmul
// epilogue): the node unary records, with its formula, on out; out is returned.
Tensor unary_of_output(UnaryOp op, const Tensor& a, Tensor out);
void unary_(UnaryOp op, const Tensor& self, const char* name);
Tensor where(const Tensor& cond, const Operand& a, const Operand& b);
Tensor clamp(const Tensor& t, const std::optional<Operand>& min, const std::optional<Operand>& max);

// Activations at any parameters and round(decimals) (autograd/activation.cpp).
Tensor gelu(const Tensor& t, const std::string& approximate);
// relu's backward: g where the result z > 0 or is NaN, else 0 (PyTorch's threshold_backward).
Tensor relu_backward(const Tensor& g, const Tensor& z);
Tensor softplus(const Tensor& t, double beta, double threshold);
Tensor elu(const Tensor& t, double alpha, double scale, double input_scale);
Tensor round(const Tensor& t, int64_t decimals, const char* name);
// from_result: the node of the in-place form, whose formula reads the result (Note
// [Piecewise-linear activations] in autograd/activation.cpp).
Tensor leaky_relu(const Tensor& t, double negative_slope, bool from_result);
Tensor hardtanh(const Tensor& t, const Scalar& min_val, const Scalar& max_val, bool from_result);

// Layer norm (rms false) and RMS norm as one fused op each (autograd/normalization.cpp; the
// arguments as ops::row_norm's).
Tensor row_norm(const Tensor& x, int64_t normalized_ndim, const Tensor& weight, const Tensor& bias,
                double eps, bool rms, const char* name);

// The LSTM cell's gate arithmetic as one fused op, (h', c') (autograd/lstm_cell.cpp; the
// arguments as ops::lstm_cell's).
std::pair<Tensor, Tensor> lstm_cell(const Tensor& gi, const Tensor& gh, const Tensor& c);
// Group norm of an (N, C, *) input as one fused op (autograd/group_norm.cpp; the arguments as
// ops::group_norm's).
Tensor group_norm(const Tensor& x, int64_t groups, const Tensor& weight, const Tensor& bias,
                  double eps);

// Cross-entropy of rows of logits with class-index targets, each row's loss (autograd/
// cross_entropy.cpp; the arguments as ops::cross_entropy's).
Tensor cross_entropy(const Tensor& logits, const Tensor& target, const Tensor& weight,
                     int64_t ignore_index, double smoothing);

// Batch norm as fused kernels (autograd/batch_norm.cpp; the arguments as ops::batch_norm's).
Tensor batch_norm(const Tensor& x, const Tensor& weight, const Tensor& bias,
                  const Tensor& running_mean, const Tensor& running_var, bool training,
                  double momentum, double eps);

// Convolution's three passes through cuDNN, each differentiable by the other two (autograd/
// convolution.cpp; the arguments as ops::convolution's; `op` names the layer in errors).
Tensor convolution(const Tensor& x, const Tensor& w, const ops::ConvolutionOptions& o,
                   const std::string& op);
Tensor convolution_backward_input(const Tensor& dy, const Tensor& w, const Shape& input_sizes,
                                  const ops::ConvolutionOptions& o, const std::string& op);
Tensor convolution_backward_weight(const Tensor& x, const Tensor& dy, const Shape& weight_sizes,
                                   const ops::ConvolutionOptions& o, const std::string& op);

// Reductions (autograd/reduce.cpp).
Tensor sum(const Tensor& t, const Dims& dims, bool keepdim, std::optional<ScalarType> dtype);
Tensor mean(const Tensor& t, const Dims& dims, bool keepdim, std::optional<ScalarType> dtype);
// `g` summed down to `shape` (the dims broadcasting added or stretched from 1).
Tensor sum_to(const Tensor& g, const Shape& shape);

// Softmax and the statistics (autograd/statistics.cpp).
Tensor softmax(const Tensor& t, int64_t dim, std::optional<ScalarType> dtype, bool log);
Tensor logsumexp(const Tensor& t, const Dims& dims, bool keepdim);
Tensor prod(const Tensor& t, const Dims& dims, bool keepdim, std::optional<ScalarType> dtype);
Tensor var(const Tensor& t, const Dims& dims, double correction, bool keepdim, bool take_sqrt);
Tensor vector_norm(const Tensor& t, double ord, const Dims& dims, bool keepdim,
                   std::optional<ScalarType> dtype);
Tensor nansum(const Tensor& t, const Dims& dims, bool keepdim, std::optional<ScalarType> dtype);
Tensor nanmean(const Tensor& t, const Dims& dims, bool keepdim, std::optional<ScalarType> dtype);
Tensor cumsum(const Tensor& t, int64_t dim, std::optional<ScalarType> dtype);
Tensor cumprod(const Tensor& t, int64_t dim, std::optional<ScalarType> dtype);
Tensor logcumsumexp(const Tensor& t, int64_t dim);

// Values picked from the input: extremes, sorting, selection (autograd/selection.cpp). Each
// pair is (values, indices); the gradient goes back to the picked places.
Tensor extreme(const Tensor& t, bool is_max);
std::pair<Tensor, Tensor> extreme_dim(const Tensor& t, int64_t dim, bool keepdim, bool is_max);
Tensor amax(const Tensor& t, const Dims& dims, bool keepdim, bool is_max);
// (amin, amax) as one node: each output's gradient shared evenly by its ties, then added.
std::pair<Tensor, Tensor> aminmax(const Tensor& t, const Dims& dims, bool keepdim);
std::pair<Tensor, Tensor> sort(const Tensor& t, int64_t dim, bool descending);
std::pair<Tensor, Tensor> topk(const Tensor& t, int64_t k, int64_t dim, bool largest);
std::pair<Tensor, Tensor> kthvalue(const Tensor& t, int64_t k, int64_t dim, bool keepdim);
std::pair<Tensor, Tensor> median(const Tensor& t, int64_t dim, bool keepdim, bool ignore_nan);
Tensor median_all(const Tensor& t, bool ignore_nan);
std::pair<Tensor, Tensor> mode(const Tensor& t, int64_t dim, bool keepdim);
std::pair<Tensor, Tensor> cummax(const Tensor& t, int64_t dim, bool is_max);
// quantile/nanquantile, differentiable in t and q (autograd/quantile.cpp).
Tensor quantile(const Tensor& t, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                const std::string& interpolation, bool ignore_nan, const char* op);
// zeros of `in_sizes` with `g` added at `index` along dim (gather's gradient; recorded).
Tensor scatter_add_into_zeros(const Tensor& g, int64_t dim, const Tensor& index,
                              const Shape& in_sizes);

// Joining and splitting (autograd/join.cpp).
Tensor cat(const std::vector<Tensor>& tensors, int64_t dim);
Tensor stack(const std::vector<Tensor>& tensors, int64_t dim);
Tensor hstack(const std::vector<Tensor>& tensors);
Tensor vstack(const std::vector<Tensor>& tensors);
Tensor dstack(const std::vector<Tensor>& tensors);
Tensor column_stack(const std::vector<Tensor>& tensors);
std::vector<Tensor> split_with_sizes(const Tensor& t, const Shape& sizes, int64_t dim);
std::vector<Tensor> split(const Tensor& t, int64_t split_size, int64_t dim);
std::vector<Tensor> chunk(const Tensor& t, int64_t chunks, int64_t dim);
std::vector<Tensor> tensor_split(const Tensor& t, int64_t sections, int64_t dim);
std::vector<Tensor> tensor_split_at(const Tensor& t, const Shape& indices, int64_t dim);
std::vector<Tensor> unbind(const Tensor& t, int64_t dim);

// The index family (autograd/index_family.cpp).
Tensor index_select(const Tensor& input, int64_t dim, const Tensor& index);
Tensor gather(const Tensor& input, int64_t dim, const Tensor& index);
Tensor take_along_dim(const Tensor& input, const Tensor& indices, std::optional<int64_t> dim);
Tensor take(const Tensor& input, const Tensor& index);
Tensor masked_select(const Tensor& input, const Tensor& mask);
// The out-of-place forms of the writers: a copy of self, written.
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Operand& value);
Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Operand& value);
Tensor index_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source);
Tensor index_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                 const Scalar& alpha, const char* op);
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Operand& src);
Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                   const char* op);
// The reducing and scattering writers (autograd/index_reduce.cpp): out-of-place forms.
Tensor scatter_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                      const std::string& reduce, bool include_self, const char* op);
Tensor index_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                    const std::string& reduce, bool include_self, const char* op);
Tensor index_put(const Tensor& self, const std::vector<Tensor>& indices, const Tensor& values,
                 bool accumulate, const char* op);
Tensor put(const Tensor& self, const Tensor& index, const Tensor& source, bool accumulate,
           const char* op);
Tensor masked_scatter(const Tensor& self, const Tensor& mask, const Tensor& source);
// An in-place op on self through its out-of-place form `op` (Note [In-place ops and autograd]):
// runs `op_` directly when autograd is not involved.
void apply_inplace(const Tensor& self, std::initializer_list<const Tensor*> others,
                   const char* name, const std::function<Tensor(const Tensor&)>& op,
                   const std::function<void()>& op_);

// Rearranging copies (autograd/rearrange.cpp).
Tensor flip(const Tensor& t, const Shape& dims);
Tensor roll(const Tensor& t, const Shape& shifts, const Shape& dims);
Tensor rot90(const Tensor& t, int64_t k, const Shape& dims);
Tensor repeat(const Tensor& t, const Shape& repeats);
Tensor tile(const Tensor& t, const Shape& reps);
Tensor repeat_interleave(const Tensor& t, int64_t repeats, std::optional<int64_t> dim);
Tensor repeat_interleave(const Tensor& t, const Tensor& repeats, std::optional<int64_t> dim);
Tensor unfold(const Tensor& t, int64_t dim, int64_t size, int64_t step);
Tensor diff(const Tensor& t, int64_t n, int64_t dim, const std::optional<Tensor>& prepend,
            const std::optional<Tensor>& append);
Tensor tril(const Tensor& t, int64_t k, bool upper);
Tensor diag(const Tensor& t, int64_t k);
Tensor diag_embed(const Tensor& t, int64_t offset, int64_t dim1, int64_t dim2);

// Elementwise ops with several tensor operands (autograd/elementwise_composites.cpp).
Tensor lerp(const Tensor& start, const Tensor& end, const Operand& weight);
Tensor addcmul(const Tensor& input, const Tensor& t1, const Tensor& t2, const Scalar& value,
               bool divide);
Tensor nan_to_num(const Tensor& a, double nan, std::optional<double> posinf,
                  std::optional<double> neginf);

// genesis.linalg (autograd/linalg.cpp).
Tensor linalg_inv(const Tensor& a);
Tensor linalg_det(const Tensor& a);
Tensor linalg_solve(const Tensor& a, const Tensor& b, bool left);
Tensor linalg_cholesky(const Tensor& a, bool upper);
Tensor linalg_svdvals(const Tensor& a);
Tensor linalg_eigvalsh(const Tensor& a, const std::string& uplo);
std::pair<Tensor, Tensor> linalg_qr(const Tensor& a, const std::string& mode);
// Eigenvalues and vectors of a symmetric matrix, and the SVD, differentiable in all their
// results (distinct eigenvalues and singular values assumed).
std::pair<Tensor, Tensor> linalg_eigh(const Tensor& a, const std::string& uplo);
std::tuple<Tensor, Tensor, Tensor> linalg_svd(const Tensor& a, bool full_matrices);
// (sign, logabsdet): the gradient reaches A through logabsdet; sign has none (as in PyTorch).
std::pair<Tensor, Tensor> linalg_slogdet(const Tensor& a);
// ops::matrix_norm, and under grad PyTorch's composition of differentiable ops: the vector
// 2-norm ("fro"), abs sums then their max/min (1, inf, -1, -inf), the singular values' sum or
// max/min ("nuc", 2, -2).
Tensor matrix_norm(const Tensor& t, const std::string& ord, const Shape& dims, bool keepdim);

// The cross product and pairwise distances (autograd/distances.cpp).
Tensor cross(const Tensor& a, const Tensor& b, std::optional<int64_t> dim, const char* op);
Tensor cdist(const Tensor& x1, const Tensor& x2, double p, const std::string& compute_mode);

// Products (autograd/products.cpp).
Tensor matmul(const Tensor& a, const Tensor& b);
Tensor mm(const Tensor& a, const Tensor& b);
Tensor bmm(const Tensor& a, const Tensor& b);
Tensor einsum(const std::string& equation, const std::vector<Tensor>& operands);
// `out`, computed by a fused op as beta * added + alpha * einsum(equation, operands) (added
// optional), recorded with einsum's gradient (outer, dot, mv, addmm, baddbmm ...).
Tensor product_as_einsum(const char* name, Tensor out, const std::string& equation,
                         const std::vector<Tensor>& operands, const Scalar& alpha = Scalar(1.0),
                         const Tensor* added = nullptr, const Scalar& beta = Scalar(1.0));

// _addmm_activation: ReLU as one node that reads the fused forward's output, GELU as addmm's
// node then gelu's (Note [Fused matmul epilogues] in ops/products.cpp).
Tensor addmm_activation(const Tensor& input, const Tensor& mat1, const Tensor& mat2,
                        const Scalar& beta, const Scalar& alpha, bool use_gelu);

// Views (autograd/views.cpp; Note [Views and autograd]).
Tensor view(const Tensor& t, const Shape& shape);
Tensor reshape(const Tensor& t, const Shape& shape);
Tensor flatten(const Tensor& t, int64_t start_dim, int64_t end_dim);
Tensor unflatten(const Tensor& t, int64_t dim, const Shape& sizes);
Tensor squeeze(const Tensor& t);
Tensor squeeze(const Tensor& t, const Shape& dims);
Tensor unsqueeze(const Tensor& t, int64_t dim);
Tensor transpose(const Tensor& t, int64_t dim0, int64_t dim1);
Tensor permute(const Tensor& t, const Shape& dims);
Tensor t(const Tensor& t);
Tensor reverse_dims(const Tensor& t);
Tensor movedim(const Tensor& t, const Shape& source, const Shape& destination);
Tensor expand(const Tensor& t, const Shape& sizes);
Tensor narrow(const Tensor& t, int64_t dim, int64_t start, int64_t length);
Tensor select(const Tensor& t, int64_t dim, int64_t index);
Tensor diagonal(const Tensor& t, int64_t offset, int64_t dim1, int64_t dim2);
Tensor slice(const Tensor& t, int64_t dim, std::optional<int64_t> start,
             std::optional<int64_t> stop, int64_t step);
// The input itself when it has at least N dims, else a recorded reshape/unsqueeze view.
Tensor atleast_1d(const Tensor& t);
Tensor atleast_2d(const Tensor& t);
Tensor atleast_3d(const Tensor& t);

// A recorded view's grad_fn made again from its root's current history (the root was
// written since it was set: Note [Views and autograd]).
void refresh_view(const Tensor& view);

// x[key], and a copy of x with x[key] = value (autograd/indexing.cpp).
Tensor index_get(const Tensor& x, const IndexList& key);
Tensor index_put(const Tensor& self, const IndexList& key, const Operand& value);

// `out`, drawn from a distribution with the tensor parameters `params` (null: a number),
// recorded with PyTorch's zero gradients (autograd/random.cpp, Note [Gradients of random
// draws]). name: PyTorch's node (NormalBackward3, BernoulliBackward0 ...).
Tensor random_draw(const char* name, std::initializer_list<const Tensor*> params, Tensor out);

// Copies and casts (autograd/convert.cpp).
Tensor to(const Tensor& t, ScalarType dtype, Device device, bool copy, bool non_blocking = false);
Tensor copy_to(const Tensor& t, ScalarType dtype, Device device, bool non_blocking = false);
Tensor clone(const Tensor& t);
Tensor contiguous(const Tensor& t);

// Every in-place op on `self` calls this first (Note [In-place ops and autograd]): an error
// for a leaf that requires grad, or for a view of one, while grad mode is on.
void check_inplace(const Tensor& self, const char* op);
// An error when `src`, about to be written into another tensor by an op without a formula,
// requires grad while grad mode is on (its gradient would be lost).
void check_untracked_source(const Tensor& src, const char* op);
// Makes check_writable (core/tensor.h) call check_inplace for tensors with an autograd record.
void install_write_guard();

}  // namespace genesis::ag
