"""genesis.autocast against torch.autocast: output dtypes and values of ops, and the context's
behaviour.

The op table: every genesis op that corresponds to an op on PyTorch's autocast lists
(aten/src/ATen/autocast_mode.h and .cpp: lower precision, float32, float32 with an optional
dtype, promote; the CPU lists differ from the CUDA ones), plus a control set of common ops on no
list. Each case is one function f(lib, *args), called with lib=genesis and lib=torch on tensors
made from the same NumPy arrays, under genesis.autocast / torch.autocast on the same device type
with the same dtype: the outputs must have torch's dtypes and shapes, and values within the lower
precision's tolerance. Inputs are float32 unless a case says otherwise: the autocast dtype
("low"), the other 16-bit float ("other"), float64 (left alone), integers and masks. Where torch
raises under autocast (binary_cross_entropy on CUDA; on CPU, mixed dtypes that only CUDA's
promote list accepts), genesis must raise too. The expected dtypes always come from torch, so
the file holds no copy of the lists; test_known_facts pins a few facts so that a torch reference
that stopped autocasting could not make the table pass vacuously.

Then the context itself, each test run with both libraries: defaults and
is_autocast_enabled/get_autocast_dtype, nesting, the decorator form, state restored after an
exception, thread-locality, the cast cache of float32 leaf weights (gradients through two uses of
one weight; no cast survives the region), backward outside the region, out= calls left alone,
binary_cross_entropy banned under CUDA autocast, unsupported dtypes warned about and disabled,
unknown device types, and the deprecated genesis.cpu.amp.autocast / genesis.cuda.amp.autocast.

Ops on PyTorch's lists that genesis lacks (not tested here):
  lower precision: addr, chain_matmul, linalg.multi_dot, linalg.vecdot (CUDA and CPU);
  float32 (CUDA): tan, dist, renorm;
  float32 (CPU): polar, stft, view_as_complex, trace, cholesky_inverse, cholesky_solve, inverse,
    lu_solve, orgqr, ormqr, pinverse, geqrf, triangular_solve, the fft module, linalg.cond,
    linalg.matrix_rank, linalg.cholesky_ex, linalg.eigvals, linalg.eig, linalg.inv_ex,
    linalg.householder_product, linalg.tensorinv, linalg.tensorsolve, linalg.lstsq, linalg.lu*,
    fake_quantize_per_tensor_affine; the top-level torch.svd/qr/cholesky (their linalg versions
    are tested).
"""

import re
import threading
import warnings
import zlib
from typing import Callable, NamedTuple

import numpy as np
import pytest
from conftest import HAS_CUDA

import genesis

torch = pytest.importorskip("torch")

TORCH_CUDA = torch.cuda.is_available()
both_cuda = pytest.mark.skipif(
    not (HAS_CUDA and TORCH_CUDA), reason="needs CUDA in both genesis and torch"
)

# (device type, autocast dtype). torch's CPU autocast takes float16 as well as bfloat16.
MODES = [
    pytest.param("cpu", "bfloat16", id="cpu-bf16"),
    pytest.param("cpu", "float16", id="cpu-fp16"),
    pytest.param("cuda", "float16", id="cuda-fp16", marks=both_cuda),
    pytest.param("cuda", "bfloat16", id="cuda-bf16", marks=both_cuda),
]
LIBS = [pytest.param(genesis, id="genesis"), pytest.param(torch, id="torch")]

OTHER_16BIT = {"bfloat16": "float16", "float16": "bfloat16"}
# rtol (and atol for values about 1) of a comparison under autocast to dtype.
TOL = {"bfloat16": 2e-2, "float16": 2e-3}


def F(lib):
    return lib.nn.functional


def dtype_name(d):
    """'float32' for genesis.float32 and torch.float32."""
    return str(d).split(".")[-1]


# ----------------------------------------------------------------------------------------------
# Arguments: specs turned into NumPy arrays (seeded by the case's name), then into tensors
# ----------------------------------------------------------------------------------------------


class T(NamedTuple):
    """A float tensor of uniform(lo, hi) values. dtype: "f32", "f64", "low" (the autocast
    dtype) or "other" (the other 16-bit float)."""

    shape: tuple
    dtype: str = "f32"
    lo: float = -1.0
    hi: float = 1.0

    def array(self, rng):
        return rng.uniform(self.lo, self.hi, self.shape)


class Arr(NamedTuple):
    """A tensor of given values: make(rng) -> array; dtype as for T, or "i64" or "bool"."""

    make: Callable
    dtype: str = "f32"

    def array(self, rng):
        return np.asarray(self.make(rng))


def t(*shape, dtype="f32", lo=-1.0, hi=1.0):
    return T(shape, dtype, lo, hi)


def low(*shape, lo=-1.0, hi=1.0):
    return T(shape, "low", lo, hi)


def pos(*shape, dtype="f32"):
    """Positive values away from 0 (log, sqrt, reciprocal, ...)."""
    return T(shape, dtype, 0.5, 2.0)


def ints(*shape, high):
    return Arr(lambda rng: rng.integers(0, high, shape), "i64")


def mask(*shape):
    return Arr(lambda rng: rng.random(shape) < 0.5, "bool")


def signs(*shape, dtype="f32"):
    """Targets of +-1 (hinge, margin and soft-margin losses)."""
    return Arr(lambda rng: rng.choice([-1.0, 1.0], size=shape), dtype)


def perm(n, k):
    """k distinct indices below n (index_put and index_copy without duplicate writes)."""
    return Arr(lambda rng: rng.permutation(n)[:k], "i64")


def invertible(n, dtype="low"):
    return Arr(lambda rng: 2 * np.eye(n) + 0.3 * rng.uniform(-1, 1, (n, n)), dtype)


def spd(n, dtype="low"):
    """Symmetric positive definite (symmetric after rounding to any dtype, too)."""

    def make(rng):
        a = rng.uniform(-1, 1, (n, n))
        return a @ a.T + n * np.eye(n)

    return Arr(make, dtype)


def log_probs(*shape, dtype="low"):
    """log_softmax of normal values over dim 2 (ctc_loss's (T, N, C) input)."""

    def make(rng):
        z = rng.standard_normal(shape)
        return z - np.log(np.exp(z).sum(axis=-1, keepdims=True))

    return Arr(make, dtype)


FLOAT_NAMES = {"f32": "float32", "f64": "float64"}


def make_arg(lib, spec, a, device, autocast_dtype):
    """The lib's tensor of argument spec holding array a; other arguments as they are."""
    if not isinstance(spec, (T, Arr)):
        return a
    if spec.dtype == "i64":
        return lib.tensor(a.astype(np.int64), device=device)
    if spec.dtype == "bool":
        return lib.tensor(a.astype(np.bool_), device=device)
    name = {"low": autocast_dtype, "other": OTHER_16BIT[autocast_dtype]}.get(
        spec.dtype, FLOAT_NAMES.get(spec.dtype)
    )
    np_dtype = np.float64 if name == "float64" else np.float32
    return lib.tensor(a.astype(np_dtype), device=device).to(getattr(lib, name))


class Case(NamedTuple):
    name: str
    f: Callable
    args: tuple
    scale: float = 1.0  # atol multiplier: about the size of the sums inside the op
    # "cpu" or "cuda": the one device type where torch takes these low-precision inputs
    only: str = ""

    def arrays(self):
        rng = np.random.default_rng(zlib.crc32(self.name.encode()))
        return [s.array(rng) if isinstance(s, (T, Arr)) else s for s in self.args]

    def tensors(self, lib, arrays, device, autocast_dtype):
        return [make_arg(lib, s, a, device, autocast_dtype) for s, a in zip(self.args, arrays)]


def case(name, f, *args, scale=1.0, only=""):
    return Case(name, f, args, scale, only)


# ----------------------------------------------------------------------------------------------
# Modules built from given parameters (the RNN cells, LSTM and attention on the lists)
# ----------------------------------------------------------------------------------------------


def module(lib, cls, params, *args, **kwargs):
    m = getattr(lib.nn, cls)(*args, **kwargs)
    m.load_state_dict(params)
    return m


def cell(cls, **kwargs):
    def f(lib, x, h, w_ih, w_hh, b_ih, b_hh, *c):
        params = {"weight_ih": w_ih, "weight_hh": w_hh, "bias_ih": b_ih, "bias_hh": b_hh}
        m = module(lib, cls, params, 4, 5, **kwargs)
        return m(x, (h, c[0]) if c else h)

    return f


def cell_args(gates, cell_state=False):
    c = (t(3, 5),) if cell_state else ()  # the LSTM cell's c
    return (t(3, 4), t(3, 5), t(gates * 5, 4), t(gates * 5, 5), t(gates * 5), t(gates * 5)) + c


def lstm(lib, x, w_ih, w_hh, b_ih, b_hh):
    params = {"weight_ih_l0": w_ih, "weight_hh_l0": w_hh, "bias_ih_l0": b_ih, "bias_hh_l0": b_hh}
    return module(lib, "LSTM", params, 4, 5, batch_first=True)(x)


def multihead_attention(lib, q, k, v, w_in, b_in, w_out, b_out):
    params = {
        "in_proj_weight": w_in,
        "in_proj_bias": b_in,
        "out_proj.weight": w_out,
        "out_proj.bias": b_out,
    }
    m = module(lib, "MultiheadAttention", params, 8, 2, batch_first=True)
    return m(q, k, v)  # (output, attention weights averaged over the heads)


def max_unpool(nd):
    def f(lib, x):
        y, i = getattr(F(lib), f"max_pool{nd}d")(x, 2, return_indices=True)
        return getattr(F(lib), f"max_unpool{nd}d")(y, i, 2)

    return f


def eigh(lib, a):
    w, v = lib.linalg.eigh(a)
    return w, (v * w) @ v.mT  # eigenvectors only up to sign: compare the reconstruction


def svd(lib, a):
    u, s, vh = lib.linalg.svd(a, full_matrices=False)
    return s, (u * s) @ vh


def qr(lib, a):
    q, r = lib.linalg.qr(a)
    return q @ r, r.abs()


# ----------------------------------------------------------------------------------------------
# The table
# ----------------------------------------------------------------------------------------------

QKV = (t(2, 2, 5, 8), t(2, 2, 5, 8), t(2, 2, 5, 8))
LOW_34 = low(3, 4)
UNIT = low(3, 4, lo=-0.9, hi=0.9)  # acos, asin, erfinv

LOWER_PRECISION = [
    case("matmul", lambda lib, a, b: lib.matmul(a, b), t(3, 4), t(4, 5)),
    case("matmul_operator_batched", lambda lib, a, b: a @ b, t(2, 3, 4), t(4, 5)),
    case("matmul_vector_matrix", lambda lib, a, b: a.matmul(b), t(4), t(4, 5)),
    case("matmul_vector_vector", lambda lib, a, b: a @ b, t(6), t(6)),
    case("matmul_low_inputs", lambda lib, a, b: a @ b, low(3, 4), low(4, 5)),
    case(
        "matmul_other_16bit",
        lambda lib, a, b: a @ b,
        t(3, 4, dtype="other"),
        t(4, 5, dtype="other"),
    ),
    case("matmul_low_and_float32", lambda lib, a, b: a @ b, low(3, 4), t(4, 5)),
    case("matmul_float64", lambda lib, a, b: a @ b, t(3, 4, dtype="f64"), t(4, 5, dtype="f64")),
    # float64 is left alone and float32 cast: torch's mm raises on the mixed pair.
    case("matmul_float64_float32", lambda lib, a, b: a @ b, t(3, 4, dtype="f64"), t(4, 5)),
    case("mm", lambda lib, a, b: lib.mm(a, b), t(3, 4), t(4, 5)),
    case("mm_method", lambda lib, a, b: a.mm(b), t(3, 4), t(4, 5)),
    case("bmm", lambda lib, a, b: lib.bmm(a, b), t(2, 3, 4), t(2, 4, 5)),
    case("bmm_method", lambda lib, a, b: a.bmm(b), t(2, 3, 4), t(2, 4, 5)),
    case("addmm", lambda lib, c, a, b: lib.addmm(c, a, b), t(3, 5), t(3, 4), t(4, 5)),
    case(
        "addmm_method_row_bias",
        lambda lib, c, a, b: c.addmm(a, b, beta=0.5, alpha=2.0),
        t(5),
        t(3, 4),
        t(4, 5),
        scale=2,
    ),
    case(
        "baddbmm",
        lambda lib, c, a, b: lib.baddbmm(c, a, b, beta=0.5, alpha=2.0),
        t(2, 3, 5),
        t(2, 3, 4),
        t(2, 4, 5),
        scale=2,
    ),
    case("addbmm", lambda lib, c, a, b: lib.addbmm(c, a, b), t(3, 5), t(2, 3, 4), t(2, 4, 5)),
    case("addmv", lambda lib, c, a, v: lib.addmv(c, a, v), t(3), t(3, 4), t(4)),
    case("mv", lambda lib, a, v: lib.mv(a, v), t(3, 4), t(4)),
    case("mv_method", lambda lib, a, v: a.mv(v), t(3, 4), t(4)),
    case("einsum", lambda lib, a, b: lib.einsum("ij,jk->ik", a, b), t(3, 4), t(4, 5)),
    case(
        "einsum_batched", lambda lib, a, b: lib.einsum("bij,bkj->bik", a, b), t(2, 3, 4), t(2, 5, 4)
    ),
    case("einsum_one_operand", lambda lib, a: lib.einsum("ij->j", a), t(3, 4)),
    case("linear", lambda lib, x, w, b: F(lib).linear(x, w, b), t(3, 4), t(5, 4), t(5)),
    case("linear_no_bias_3d", lambda lib, x, w: F(lib).linear(x, w), t(2, 3, 4), t(5, 4)),
    case(
        "linear_low_weight", lambda lib, x, w, b: F(lib).linear(x, w, b), t(3, 4), low(5, 4), t(5)
    ),
    case(
        "linear_float64",
        lambda lib, x, w, b: F(lib).linear(x, w, b),
        t(3, 4, dtype="f64"),
        t(5, 4, dtype="f64"),
        t(5, dtype="f64"),
    ),
    case(
        "conv1d",
        lambda lib, x, w, b: F(lib).conv1d(x, w, b, padding=1),
        t(2, 3, 8),
        t(4, 3, 3),
        t(4),
        scale=2,
    ),
    case(
        "conv2d",
        lambda lib, x, w, b: F(lib).conv2d(x, w, b, stride=2, padding=1),
        t(2, 3, 6, 6),
        t(4, 3, 3, 3),
        t(4),
        scale=3,
    ),
    case(
        "conv2d_padding_same",
        lambda lib, x, w: F(lib).conv2d(x, w, padding="same"),
        t(1, 2, 5, 5),
        t(3, 2, 3, 3),
        scale=2,
    ),
    case(
        "conv2d_groups",
        lambda lib, x, w: F(lib).conv2d(x, w, groups=2),
        t(1, 4, 5, 5),
        t(4, 2, 3, 3),
        scale=2,
    ),
    case(
        "conv2d_float64",
        lambda lib, x, w: F(lib).conv2d(x, w),
        t(1, 2, 4, 4, dtype="f64"),
        t(3, 2, 3, 3, dtype="f64"),
    ),
    case(
        "conv3d",
        lambda lib, x, w, b: F(lib).conv3d(x, w, b),
        t(1, 2, 4, 4, 4),
        t(3, 2, 2, 2, 2),
        t(3),
        scale=2,
    ),
    case(
        "conv_transpose1d",
        lambda lib, x, w, b: F(lib).conv_transpose1d(x, w, b, stride=2),
        t(2, 3, 5),
        t(3, 4, 3),
        t(4),
        scale=2,
    ),
    case(
        "conv_transpose2d",
        lambda lib, x, w, b: F(lib).conv_transpose2d(x, w, b, stride=2, padding=1),
        t(1, 3, 4, 4),
        t(3, 2, 3, 3),
        t(2),
        scale=2,
    ),
    case(
        "conv_transpose3d",
        lambda lib, x, w: F(lib).conv_transpose3d(x, w),
        t(1, 2, 3, 3, 3),
        t(2, 2, 2, 2, 2),
        scale=2,
    ),
    case(
        "conv_tbc",
        lambda lib, x, w, b: F(lib).conv_tbc(x, w, b, 1),
        t(5, 2, 3),
        t(3, 3, 4),
        t(4),
        scale=2,
    ),
    case("prelu", lambda lib, x, w: F(lib).prelu(x, w), t(2, 3, 4), t(3, lo=0.0, hi=0.5)),
    case(
        "scaled_dot_product_attention",
        lambda lib, q, k, v: F(lib).scaled_dot_product_attention(q, k, v),
        *QKV,
        scale=2,
    ),
    case(
        "scaled_dot_product_attention_causal",
        lambda lib, q, k, v: F(lib).scaled_dot_product_attention(q, k, v, is_causal=True),
        *QKV,
        scale=2,
    ),
    case(
        "scaled_dot_product_attention_bool_mask",
        lambda lib, q, k, v, m: F(lib).scaled_dot_product_attention(q, k, v, attn_mask=m),
        *QKV,
        Arr(lambda rng: (rng.random((5, 5)) < 0.5) | np.eye(5, dtype=bool), "bool"),
        scale=2,
    ),
    case(
        "scaled_dot_product_attention_float_mask",
        lambda lib, q, k, v, m: F(lib).scaled_dot_product_attention(q, k, v, attn_mask=m),
        *QKV,
        t(5, 5),
        scale=2,
    ),
    case("lstm_cell", cell("LSTMCell"), *cell_args(4, cell_state=True), scale=2),
    case("gru_cell", cell("GRUCell"), *cell_args(3), scale=2),
    case("rnn_tanh_cell", cell("RNNCell"), *cell_args(1), scale=2),
    case("rnn_relu_cell", cell("RNNCell", nonlinearity="relu"), *cell_args(1), scale=2),
    # torch's CPU LSTM (oneDNN) fails in 16-bit floats on some CPUs, this one included
    case("lstm", lstm, t(2, 3, 4), t(20, 4), t(20, 5), t(20), t(20), scale=2, only="cuda"),
    case(
        "multihead_attention",
        multihead_attention,
        t(2, 3, 8),
        t(2, 4, 8),
        t(2, 4, 8),
        t(24, 8, lo=-0.5, hi=0.5),
        t(24),
        t(8, 8, lo=-0.5, hi=0.5),
        t(8),
        scale=2,
    ),
]

FLOAT32 = [
    # The CUDA float32 list (on CPU most of these keep the lower precision): low inputs show it.
    case("exp", lambda lib, x: lib.exp(x), LOW_34),
    case("exp_float32", lambda lib, x: x.exp(), t(3, 4)),
    case("exp_float64", lambda lib, x: x.exp(), t(3, 4, dtype="f64")),
    case("acos", lambda lib, x: x.acos(), UNIT),
    case("asin", lambda lib, x: lib.asin(x), UNIT),
    case("cosh", lambda lib, x: x.cosh(), LOW_34),
    case("sinh", lambda lib, x: lib.sinh(x), LOW_34),
    case("erfinv", lambda lib, x: x.erfinv(), UNIT),
    case("expm1", lambda lib, x: lib.expm1(x), LOW_34),
    case("log", lambda lib, x: x.log(), pos(3, 4, dtype="low")),
    case("log10", lambda lib, x: lib.log10(x), pos(3, 4, dtype="low")),
    case("log2", lambda lib, x: x.log2(), pos(3, 4, dtype="low")),
    case("log1p", lambda lib, x: lib.log1p(x), pos(3, 4, dtype="low")),
    case("reciprocal", lambda lib, x: x.reciprocal(), pos(3, 4, dtype="low")),
    case("rsqrt", lambda lib, x: lib.rsqrt(x), pos(3, 4, dtype="low")),
    case("pow_tensor_scalar", lambda lib, x: x**2, LOW_34),
    case("pow_tensor_scalar_float32", lambda lib, x: x**2, t(3, 4)),
    case("pow_method_fractional", lambda lib, x: x.pow(0.5), pos(3, 4, dtype="low")),
    case("pow_tensor_tensor", lambda lib, x, y: x**y, pos(3, 4, dtype="low"), LOW_34),
    case("pow_scalar_tensor", lambda lib, x: 2**x, LOW_34),
    case("pow_function_scalar_base", lambda lib, x: lib.pow(2.0, x), LOW_34),
    # torch's 1 / x is x.reciprocal() * 1, and x.square() is pow(x, 2).
    case("rtruediv", lambda lib, x: 1 / x, pos(3, 4, dtype="low")),
    case("square", lambda lib, x: x.square(), LOW_34),
    case("softplus", lambda lib, x: F(lib).softplus(x, beta=2.0), LOW_34),
    case(
        "layer_norm",
        lambda lib, x, w, b: F(lib).layer_norm(x, (4,), w, b),
        LOW_34,
        t(4),
        t(4),
        scale=2,
    ),
    case("layer_norm_float32", lambda lib, x: F(lib).layer_norm(x, (4,)), t(3, 4), scale=2),
    # float32 on CUDA from torch 2.13 on (genesis follows 2.13; see TORCH_AT_LEAST)
    case("rms_norm", lambda lib, x, w: F(lib).rms_norm(x, (4,), w), LOW_34, t(4), scale=2),
    case(
        "group_norm",
        lambda lib, x, w, b: F(lib).group_norm(x, 2, w, b),
        low(2, 4, 3),
        t(4),
        t(4),
        scale=2,
    ),
    case("norm_fro_dim", lambda lib, x: lib.norm(x, p="fro", dim=(0, 1)), LOW_34),
    case("norm_nuc", lambda lib, x: lib.norm(x, p="nuc"), t(3, 4)),
    case("cosine_similarity", lambda lib, a, b: F(lib).cosine_similarity(a, b), LOW_34, LOW_34),
    case("poisson_nll_loss", lambda lib, x, y: F(lib).poisson_nll_loss(x, y), LOW_34, pos(3, 4)),
    case(
        "cosine_embedding_loss",
        lambda lib, a, b, y: F(lib).cosine_embedding_loss(a, b, y),
        LOW_34,
        LOW_34,
        signs(3),
    ),
    case("nll_loss", lambda lib, x, y: F(lib).nll_loss(x, y), low(3, 5), ints(3, high=5)),
    case(
        "nll_loss2d",
        lambda lib, x, y: F(lib).nll_loss(x, y),
        low(2, 3, 4, 4),
        ints(2, 4, 4, high=3),
    ),
    case(
        "hinge_embedding_loss",
        lambda lib, x, y: F(lib).hinge_embedding_loss(x, y),
        LOW_34,
        signs(3, 4),
    ),
    case(
        "kl_div",
        lambda lib, x, y: F(lib).kl_div(x, y, reduction="batchmean"),
        low(3, 4, lo=-3.0, hi=-0.1),
        t(3, 4, lo=0.1, hi=1.0),
    ),
    case("l1_loss", lambda lib, a, b: F(lib).l1_loss(a, b), LOW_34, LOW_34),
    case("smooth_l1_loss", lambda lib, a, b: F(lib).smooth_l1_loss(a, b, beta=0.5), LOW_34, LOW_34),
    case("huber_loss", lambda lib, a, b: F(lib).huber_loss(a, b, delta=0.5), LOW_34, LOW_34),
    case("mse_loss", lambda lib, a, b: F(lib).mse_loss(a, b), LOW_34, LOW_34),
    case("mse_loss_float32", lambda lib, a, b: F(lib).mse_loss(a, b), t(3, 4), t(3, 4)),
    case(
        "margin_ranking_loss",
        lambda lib, a, b, y: F(lib).margin_ranking_loss(a, b, y),
        low(5),
        low(5),
        signs(5),
    ),
    case(
        "multilabel_margin_loss",
        lambda lib, x, y: F(lib).multilabel_margin_loss(x, y),
        LOW_34,
        Arr(lambda rng: [[3, 0, -1, 1], [1, -1, 0, 0], [0, 1, 2, 3]], "i64"),
    ),
    case("soft_margin_loss", lambda lib, x, y: F(lib).soft_margin_loss(x, y), LOW_34, signs(3, 4)),
    case(
        "triplet_margin_loss",
        lambda lib, a, p, n: F(lib).triplet_margin_loss(a, p, n),
        LOW_34,
        LOW_34,
        LOW_34,
    ),
    case(
        "multi_margin_loss",
        lambda lib, x, y: F(lib).multi_margin_loss(x, y),
        low(3, 5),
        ints(3, high=5),
    ),
    case(
        "binary_cross_entropy_with_logits",
        lambda lib, x, y: F(lib).binary_cross_entropy_with_logits(x, y),
        LOW_34,
        t(3, 4, lo=0.0, hi=1.0),
    ),
    case("pdist", lambda lib, x: F(lib).pdist(x), low(4, 3), only="cuda"),  # no 16-bit CPU pdist
    case("pdist_float32", lambda lib, x: F(lib).pdist(x), t(4, 3)),
    case("cdist", lambda lib, a, b: lib.cdist(a, b), LOW_34, low(2, 4)),
    case("logsumexp", lambda lib, x: lib.logsumexp(x, dim=1), LOW_34),
    case("logsumexp_method", lambda lib, x: x.logsumexp(0), LOW_34),
    case(
        "interpolate_nearest_1d",
        lambda lib, x: F(lib).interpolate(x, scale_factor=2, mode="nearest"),
        low(1, 2, 4),
    ),
    case(
        "interpolate_nearest_2d",
        lambda lib, x: F(lib).interpolate(x, scale_factor=2, mode="nearest"),
        low(1, 2, 3, 3),
    ),
    case(
        "interpolate_nearest_3d",
        lambda lib, x: F(lib).interpolate(x, scale_factor=2, mode="nearest"),
        low(1, 2, 2, 2, 2),
    ),
    case(
        "interpolate_nearest_exact",
        lambda lib, x: F(lib).interpolate(x, size=(5, 5), mode="nearest-exact"),
        low(1, 2, 3, 3),
    ),
    case(
        "interpolate_linear",
        lambda lib, x: F(lib).interpolate(x, scale_factor=2, mode="linear"),
        low(1, 2, 4),
    ),
    case(
        "interpolate_bilinear",
        lambda lib, x: F(lib).interpolate(x, size=(5, 7), mode="bilinear", align_corners=True),
        low(1, 2, 3, 3),
    ),
    case(
        "interpolate_bicubic",
        lambda lib, x: F(lib).interpolate(x, scale_factor=2, mode="bicubic"),
        low(1, 2, 3, 3),
        scale=2,
    ),
    case(
        "interpolate_trilinear",
        lambda lib, x: F(lib).interpolate(x, scale_factor=2, mode="trilinear"),
        low(1, 2, 2, 3, 3),
    ),
    # Area mode is adaptive average pooling: the input's dtype on CUDA, float32 for 3-D on the
    # CPU (adaptive_avg_pool3d is on the CPU's list).
    case(
        "interpolate_area_1d",
        lambda lib, x: F(lib).interpolate(x, size=3, mode="area"),
        low(1, 2, 6),
    ),
    case(
        "interpolate_area_2d",
        lambda lib, x: F(lib).interpolate(x, scale_factor=0.5, mode="area"),
        low(1, 2, 4, 4),
    ),
    case(
        "interpolate_area_3d",
        lambda lib, x: F(lib).interpolate(x, size=(1, 2, 2), mode="area"),
        low(1, 2, 2, 4, 4),
    ),
    case(
        "upsample_bilinear",
        lambda lib, x: F(lib).upsample_bilinear(x, scale_factor=2),
        low(1, 2, 3, 3),
    ),
    case(
        "upsample_nearest",
        lambda lib, x: F(lib).upsample_nearest(x, size=5),
        low(1, 2, 3),
    ),
    # float32 unless a dtype is given
    case("prod", lambda lib, x: x.prod(), low(2, 3, lo=0.5, hi=1.5)),
    case("prod_dim", lambda lib, x: lib.prod(x, 1), low(2, 3, lo=0.5, hi=1.5)),
    case("softmax", lambda lib, x: x.softmax(-1), LOW_34),
    case("softmax_functional", lambda lib, x: F(lib).softmax(x, dim=0), LOW_34),
    case("softmax_float32", lambda lib, x: lib.softmax(x, -1), t(3, 4)),
    case("softmax_dtype_float64", lambda lib, x: x.softmax(-1, dtype=lib.float64), LOW_34),
    case("log_softmax", lambda lib, x: F(lib).log_softmax(x, dim=-1), LOW_34),
    case("log_softmax_method", lambda lib, x: x.log_softmax(1), LOW_34),
    case("cumprod", lambda lib, x: x.cumprod(1), low(3, 4, lo=0.5, hi=1.5)),
    case("cumsum", lambda lib, x: lib.cumsum(x, 0), low(6, 4), scale=2),
    case("cumsum_dtype_float64", lambda lib, x: x.cumsum(1, dtype=lib.float64), LOW_34),
    case("vector_norm", lambda lib, x: lib.linalg.vector_norm(x), low(4, 8), scale=2),
    case("vector_norm_ord_dim", lambda lib, x: lib.linalg.vector_norm(x, ord=3, dim=1), LOW_34),
    case("matrix_norm", lambda lib, x: lib.linalg.matrix_norm(x), LOW_34),
    case("matrix_norm_ord_1", lambda lib, x: lib.linalg.matrix_norm(x, ord=1), LOW_34),
    case("sum", lambda lib, x: x.sum(), low(4, 8), scale=4),
    case("sum_dim", lambda lib, x: lib.sum(x, 1), low(4, 8), scale=2),
    case("sum_dims_keepdim", lambda lib, x: x.sum((0, 2), keepdim=True), low(2, 3, 4), scale=2),
    case("sum_float32", lambda lib, x: x.sum(), t(4, 8), scale=4),
    case("sum_dtype_float64", lambda lib, x: x.sum(dtype=lib.float64), low(4, 8), scale=4),
    case("sum_float64", lambda lib, x: x.sum(), t(4, 8, dtype="f64")),
    case("norm", lambda lib, x: lib.norm(x), low(4, 8), scale=2),
    case("norm_p_dim", lambda lib, x: x.norm(p=1, dim=1), LOW_34, scale=2),
]

PROMOTE = [
    # CUDA's promote list: the widest float among the arguments. CPU autocast leaves these
    # alone: mixed dtypes raise there where the op itself takes only equal dtypes.
    case(
        "addcdiv",
        lambda lib, a, b, c: lib.addcdiv(a, b, c, value=0.5),
        t(3, 4),
        LOW_34,
        pos(3, 4, dtype="low"),
    ),
    case("addcmul", lambda lib, a, b, c: a.addcmul(b, c, value=2), LOW_34, t(3, 4), LOW_34),
    case("addcmul_all_low", lambda lib, a, b, c: lib.addcmul(a, b, c), LOW_34, LOW_34, LOW_34),
    case("atan2", lambda lib, a, b: lib.atan2(a, b), LOW_34, t(3, 4)),
    case("atan2_method_low", lambda lib, a, b: a.atan2(b), LOW_34, LOW_34),
    case(
        "bilinear",
        lambda lib, a, b, w, c: F(lib).bilinear(a, b, w, c),
        LOW_34,
        t(3, 5),
        t(6, 4, 5),
        t(6),
        scale=2,
        # torch's CPU bilinear refuses mixed dtypes outside autocast too; genesis's promotes
        only="cuda",
    ),
    case("cross", lambda lib, a, b: lib.cross(a, b, dim=1), low(4, 3), t(4, 3)),
    case("dot", lambda lib, a, b: lib.dot(a, b), low(6), t(6)),
    case("vdot", lambda lib, a, b: a.vdot(b), t(6), low(6)),
    case(
        "grid_sample",
        lambda lib, x, g: F(lib).grid_sample(x, g, align_corners=False),
        low(1, 2, 4, 4),
        t(1, 3, 3, 2),
    ),
    case("index_put", lambda lib, x, i, v: x.index_put((i,), v), t(4, 3), perm(4, 2), low(2, 3)),
    case(
        "index_put_accumulate",
        lambda lib, x, i, v: lib.index_put(x, (i,), v, accumulate=True),
        low(4, 3),
        ints(5, high=4),
        t(5, 3),
    ),
    case("tensordot", lambda lib, a, b: lib.tensordot(a, b, dims=1), LOW_34, t(4, 5)),
    case(
        "tensordot_dim_lists",
        lambda lib, a, b: lib.tensordot(a, b, dims=([1, 2], [0, 1])),
        t(2, 3, 4),
        low(3, 4, 5),
        scale=2,
    ),
    case(
        "scatter_add",
        lambda lib, x, i, s: x.scatter_add(0, i, s),
        t(3, 4),
        ints(2, 4, high=3),
        low(2, 4),
    ),
    case(
        "scatter_add_function",
        lambda lib, x, i, s: lib.scatter_add(x, 1, i, s),
        LOW_34,
        ints(3, 2, high=4),
        t(3, 2),
    ),
    # The CPU promote list (CUDA: cat and stack promote by themselves, index_copy raises).
    case("cat_low_and_float32", lambda lib, a, b: lib.cat([a, b]), t(2, 3), low(2, 3)),
    case("stack_low_and_float32", lambda lib, a, b: lib.stack([a, b]), low(2, 3), t(2, 3)),
    case(
        "index_copy",
        lambda lib, x, i, s: x.index_copy(0, i, s),
        t(4, 3),
        perm(4, 2),
        low(2, 3),
    ),
]

CPU_FLOAT32 = [
    # The CPU float32 list (CUDA keeps the input's dtype, or raises: then genesis must raise).
    case("avg_pool3d", lambda lib, x: F(lib).avg_pool3d(x, 2), low(1, 2, 4, 4, 4)),
    case("max_pool3d", lambda lib, x: F(lib).max_pool3d(x, 2), low(1, 2, 4, 4, 4)),
    case(
        "adaptive_avg_pool3d",
        lambda lib, x: F(lib).adaptive_avg_pool3d(x, (2, 1, 2)),
        low(1, 2, 4, 4, 4),
    ),
    case(
        "adaptive_max_pool3d",
        lambda lib, x: F(lib).adaptive_max_pool3d(x, 2, return_indices=True),
        low(1, 2, 4, 4, 4),
    ),
    case("max_unpool2d", max_unpool(2), low(1, 2, 4, 4)),
    case("max_unpool3d", max_unpool(3), low(1, 2, 4, 4, 4)),
    case(
        "fractional_max_pool2d",
        lambda lib, x, s: F(lib).fractional_max_pool2d(
            x, 2, output_size=(3, 3), return_indices=True, _random_samples=s
        ),
        low(1, 2, 6, 6),
        low(1, 2, 2, lo=0.0, hi=1.0),
    ),
    case(
        "fractional_max_pool3d",
        lambda lib, x, s: F(lib).fractional_max_pool3d(
            x, 2, output_size=(2, 2, 2), return_indices=True, _random_samples=s
        ),
        low(1, 2, 4, 4, 4),
        low(1, 2, 3, lo=0.0, hi=1.0),
    ),
    case(
        "fractional_max_pool2d_with_indices",
        lambda lib, x, s: F(lib).fractional_max_pool2d_with_indices(
            x, 2, output_size=(3, 3), _random_samples=s
        ),
        low(1, 2, 6, 6),
        low(1, 2, 2, lo=0.0, hi=1.0),
    ),
    case(
        "fractional_max_pool3d_with_indices",
        lambda lib, x, s: F(lib).fractional_max_pool3d_with_indices(
            x, 2, output_size=(2, 2, 2), _random_samples=s
        ),
        low(1, 2, 4, 4, 4),
        low(1, 2, 3, lo=0.0, hi=1.0),
    ),
    case("pad_reflect_1d", lambda lib, x: F(lib).pad(x, (2, 1), mode="reflect"), low(1, 2, 5)),
    case(
        "pad_reflect_2d",
        lambda lib, x: F(lib).pad(x, (1, 1, 2, 0), mode="reflect"),
        low(1, 2, 4, 4),
    ),
    case("pad_replicate_1d", lambda lib, x: F(lib).pad(x, (2, 1), mode="replicate"), low(1, 2, 5)),
    case(
        "pad_replicate_2d",
        lambda lib, x: F(lib).pad(x, (1, 1, 2, 0), mode="replicate"),
        low(1, 2, 4, 4),
    ),
    case(
        "pad_replicate_3d",
        lambda lib, x: F(lib).pad(x, (1, 0, 0, 1, 1, 1), mode="replicate"),
        low(1, 2, 3, 3, 3),
    ),
    case(
        "binary_cross_entropy",  # banned under CUDA autocast: torch and genesis raise there
        lambda lib, p, y: F(lib).binary_cross_entropy(p, y),
        low(3, 4, lo=0.05, hi=0.95),
        low(3, 4, lo=0.0, hi=1.0),
    ),
    case(
        "bce_loss_module",
        lambda lib, p, y: lib.nn.BCELoss()(p, y),
        low(3, 4, lo=0.05, hi=0.95),
        low(3, 4, lo=0.0, hi=1.0),
    ),
    case("cross_entropy", lambda lib, x, y: F(lib).cross_entropy(x, y), low(3, 5), ints(3, high=5)),
    case(
        "cross_entropy_probabilities_smoothing",
        lambda lib, x, y: F(lib).cross_entropy(x, y, label_smoothing=0.1),
        low(3, 5),
        low(3, 5, lo=0.0, hi=0.4),
    ),
    case(
        "ctc_loss",
        lambda lib, lp, y: F(lib).ctc_loss(lp, y, [6, 6], [3, 2]),
        log_probs(6, 2, 4),
        Arr(lambda rng: rng.integers(1, 4, (2, 3)), "i64"),
        only="cpu",
    ),
    case("quantile", lambda lib, x: lib.quantile(x, 0.3, dim=1), LOW_34, only="cpu"),
    case("nanquantile", lambda lib, x: x.nanquantile(0.5), LOW_34, only="cpu"),
    case("linalg_inv", lambda lib, a: lib.linalg.inv(a), invertible(4), only="cpu"),
    case(
        "linalg_solve",
        lambda lib, a, b: lib.linalg.solve(a, b),
        invertible(4),
        low(4, 2),
        only="cpu",
    ),
    case("linalg_cholesky", lambda lib, a: lib.linalg.cholesky(a), spd(4), only="cpu"),
    case("linalg_eigvalsh", lambda lib, a: lib.linalg.eigvalsh(a), spd(4), only="cpu", scale=4),
    case("linalg_eigh", eigh, spd(4), only="cpu", scale=4),
    case("linalg_svdvals", lambda lib, a: lib.linalg.svdvals(a), low(4, 3), only="cpu"),
    case("linalg_svd", svd, low(4, 3), only="cpu"),
    case("linalg_qr", qr, low(4, 3), only="cpu"),
]

CONTROL = [
    # On no list: the inputs' dtypes decide, as without autocast.
    case("add_low_and_float32", lambda lib, a, b: a + b, t(3, 4), LOW_34),
    case("add_low_alpha", lambda lib, a, b: lib.add(a, b, alpha=2), LOW_34, LOW_34),
    case("sub_scalar", lambda lib, a: a - 1.5, LOW_34),
    case("mul", lambda lib, a, b: a * b, LOW_34, LOW_34),
    case("div", lambda lib, a, b: a / b, LOW_34, pos(3, 4, dtype="low")),
    case("relu", lambda lib, x: F(lib).relu(x), LOW_34),
    case("gelu", lambda lib, x: F(lib).gelu(x, approximate="tanh"), LOW_34),
    case("silu", lambda lib, x: F(lib).silu(x), LOW_34),
    case("leaky_relu", lambda lib, x: F(lib).leaky_relu(x, 0.1), LOW_34),
    case("glu", lambda lib, x: F(lib).glu(x, -1), LOW_34),
    case("tanh", lambda lib, x: x.tanh(), LOW_34),
    case("sigmoid", lambda lib, x: lib.sigmoid(x), LOW_34),
    case("sqrt", lambda lib, x: x.sqrt(), pos(3, 4, dtype="low")),
    case("sin", lambda lib, x: lib.sin(x), LOW_34),
    case("mean", lambda lib, x: x.mean(), low(4, 8)),
    case("mean_dim_float32", lambda lib, x: lib.mean(x, 1), t(4, 8)),
    case("var", lambda lib, x: x.var(1), LOW_34),
    case("amax", lambda lib, x: x.amax(1), LOW_34),
    case("max", lambda lib, x: x.max(), LOW_34),
    case("max_dim", lambda lib, x: lib.max(x, 1), t(3, 4)),
    case("sort_values", lambda lib, x: lib.sort(x, 1)[0], LOW_34),
    case("where", lambda lib, m, a, b: lib.where(m, a, b), mask(3, 4), LOW_34, t(3, 4)),
    case("masked_fill", lambda lib, x, m: x.masked_fill(m, 0.5), LOW_34, mask(3, 4)),
    case("clamp", lambda lib, x: x.clamp(-0.5, 0.5), LOW_34),
    case("cat_float32", lambda lib, a, b: lib.cat([a, b], 1), t(2, 3), t(2, 3)),
    case("stack_low", lambda lib, a, b: lib.stack([a, b], 1), low(2, 3), low(2, 3)),
    case(
        "views",
        lambda lib, x: (x.view(4, 3), x.reshape(2, 6), x.transpose(0, 1), x.t(), x.permute(1, 0)),
        LOW_34,
    ),
    case("dropout_eval", lambda lib, x: F(lib).dropout(x, 0.5, training=False), LOW_34),
    case("embedding", lambda lib, i, w: F(lib).embedding(i, w), ints(2, 3, high=5), t(5, 4)),
    case("embedding_low", lambda lib, i, w: F(lib).embedding(i, w), ints(2, 3, high=5), low(5, 4)),
    case("max_pool2d", lambda lib, x: F(lib).max_pool2d(x, 2), low(1, 2, 4, 4)),
    case("avg_pool2d", lambda lib, x: F(lib).avg_pool2d(x, 2, stride=1), low(1, 2, 4, 4)),
    case(
        "adaptive_avg_pool2d", lambda lib, x: F(lib).adaptive_avg_pool2d(x, (2, 3)), low(1, 2, 4, 6)
    ),
    case(
        "batch_norm_eval",
        lambda lib, x, m, v, w, b: F(lib).batch_norm(x, m, v, w, b, training=False),
        low(2, 3, 4),
        t(3),
        pos(3),
        t(3),
        t(3),
    ),
    case("normalize", lambda lib, x: F(lib).normalize(x, dim=1), LOW_34),
    case("normalize_float32", lambda lib, x: F(lib).normalize(x), t(3, 4)),
    case("softmin", lambda lib, x: F(lib).softmin(x, dim=1), LOW_34),  # softmax inside
    case("linalg_cross", lambda lib, a, b: lib.linalg.cross(a, b), low(4, 3), low(4, 3)),
    case("to_float", lambda lib, x: x.float(), LOW_34),
    case("to_float16", lambda lib, x: x.to(lib.float16), t(3, 4)),
    case("double", lambda lib, x: x.double(), LOW_34),
    case("ones_like", lambda lib, x: lib.ones_like(x), LOW_34),
    case("zeros_default_dtype", lambda lib, x: lib.zeros(2, 3, device=x.device), t(3, 4)),
    case("int_sum", lambda lib, x: x.sum(), ints(3, 4, high=10)),
]

CASES = LOWER_PRECISION + FLOAT32 + PROMOTE + CPU_FLOAT32 + CONTROL


# ----------------------------------------------------------------------------------------------
# Comparison
# ----------------------------------------------------------------------------------------------


def flat(out):
    if isinstance(out, (tuple, list)):
        return [y for o in out for y in flat(o)]
    return [out]


def as_float64(x):
    if isinstance(x, genesis.Tensor):
        x = x.detach().cpu()
        return x.to(genesis.float64).numpy() if x.is_floating_point() else x.numpy()
    return x.detach().cpu().to(torch.float64).numpy()


def assert_matches(got, want, rtol, atol):
    """genesis outputs got against torch outputs want: structure, dtypes, shapes, values."""
    got, want = flat(got), flat(want)
    assert len(got) == len(want), (len(got), len(want))
    for i, (g, w) in enumerate(zip(got, want)):
        if not isinstance(w, torch.Tensor):
            assert g == pytest.approx(w, rel=rtol, abs=atol), (i, g, w)
            continue
        assert isinstance(g, genesis.Tensor), (i, type(g))
        assert dtype_name(g.dtype) == dtype_name(w.dtype), (i, g.dtype, w.dtype)
        assert tuple(g.shape) == tuple(w.shape), (i, g.shape, w.shape)
        np.testing.assert_allclose(
            as_float64(g).astype(np.float64),
            as_float64(w).astype(np.float64),
            rtol=rtol,
            atol=atol,
            equal_nan=True,
            err_msg=f"output {i}",
        )


def run_torch(c, args, device, dtype):
    """(output, error) of case c under torch.autocast; skips where torch disables autocast."""
    with torch.autocast(device, dtype=getattr(torch, dtype)):
        if not torch.is_autocast_enabled(device):
            pytest.skip(f"torch {torch.__version__} has no {device} autocast to {dtype}")
        try:
            return c.f(torch, *args), None
        except Exception as e:  # any error: genesis must raise one too
            return None, e


# Cases whose torch policy changed: the first torch version with genesis's (2.13's) policy.
TORCH_AT_LEAST = {"rms_norm": (2, 13)}


def _torch_version():
    return tuple(int(p) for p in torch.__version__.split("+")[0].split(".")[:2])


@pytest.mark.parametrize("device, dtype", MODES)
@pytest.mark.parametrize("c", CASES, ids=lambda c: c.name)
def test_op_under_autocast(c, device, dtype):
    if c.only and device != c.only:
        pytest.skip(f"torch takes these 16-bit inputs on {c.only} only")
    if c.name in TORCH_AT_LEAST and _torch_version() < TORCH_AT_LEAST[c.name]:
        pytest.skip(f"torch {torch.__version__} has another autocast policy for {c.name}")
    arrays = c.arrays()
    want, error = run_torch(c, c.tensors(torch, arrays, device, dtype), device, dtype)
    args = c.tensors(genesis, arrays, device, dtype)
    with genesis.autocast(device, dtype=getattr(genesis, dtype)):
        if error is not None:
            try:
                c.f(genesis, *args)
            except Exception:
                return
            pytest.fail(f"torch raises {error!r}; genesis does not")
        got = c.f(genesis, *args)
    assert_matches(got, want, TOL[dtype], TOL[dtype] * c.scale)


# ----------------------------------------------------------------------------------------------
# Known facts, so that a broken torch reference can't make the table pass vacuously
# ----------------------------------------------------------------------------------------------

# what: (dtype on CUDA, dtype on CPU); "low" is the autocast dtype.
KNOWN = {
    "matmul float32": ("low", "low"),
    "linear float32": ("low", "low"),
    "conv2d float32": ("low", "low"),
    "matmul float64": ("float64", "float64"),
    "exp low": ("float32", "low"),
    "softmax low": ("float32", "low"),
    "sum low": ("float32", "low"),
    "exp float32": ("float32", "float32"),
    "mse_loss low": ("float32", "float32"),
    "cat float32 low": ("float32", "float32"),
    "add float32 low": ("float32", "float32"),
    "mean low": ("low", "low"),
    "relu float32": ("float32", "float32"),
}


def known_facts(lib, device, dtype):
    def ten(*shape, dt=lib.float32):
        return lib.ones(*shape, device=device).to(dt)

    lo = getattr(lib, dtype)
    a, x, y = ten(3, 4), ten(3, 4, dt=lo), ten(4, 5)
    with lib.autocast(device, dtype=lo):
        out = {
            "matmul float32": a @ y,
            "linear float32": F(lib).linear(a, y.t()),
            "conv2d float32": F(lib).conv2d(ten(1, 2, 3, 3), ten(1, 2, 2, 2)),
            "matmul float64": a.double() @ y.double(),
            "exp low": x.exp(),
            "softmax low": x.softmax(-1),
            "sum low": x.sum(),
            "exp float32": a.exp(),
            "mse_loss low": F(lib).mse_loss(x, x),
            "cat float32 low": lib.cat([a, x]),
            "add float32 low": a + x,
            "mean low": x.mean(),
            "relu float32": a.relu(),
        }
    return {k: dtype_name(v.dtype) for k, v in out.items()}


@pytest.mark.parametrize("device, dtype", MODES)
@pytest.mark.parametrize("lib", LIBS)
def test_known_facts(lib, device, dtype):
    column = 0 if device == "cuda" else 1
    expected = {k: dtype if v[column] == "low" else v[column] for k, v in KNOWN.items()}
    assert known_facts(lib, device, dtype) == expected


# ----------------------------------------------------------------------------------------------
# The context manager
# ----------------------------------------------------------------------------------------------


def matmul_dtype(lib, device="cpu"):
    a = lib.ones(2, 2, device=device)
    return dtype_name((a @ a).dtype)


def state(lib):
    """(cpu autocast enabled, cpu autocast dtype, a float32 matmul's dtype, cuda enabled)."""
    return (
        lib.is_autocast_enabled("cpu"),
        dtype_name(lib.get_autocast_dtype("cpu")),
        matmul_dtype(lib),
        lib.is_autocast_enabled("cuda"),
    )


OUTSIDE = (False, "bfloat16", "float32", False)
BF16 = (True, "bfloat16", "bfloat16", False)
FP16 = (True, "float16", "float16", False)


@pytest.mark.parametrize("lib", LIBS)
def test_defaults(lib):
    assert lib.amp.autocast is lib.autocast
    assert state(lib) == OUTSIDE
    assert lib.get_autocast_dtype("cuda") is lib.float16
    with lib.autocast("cpu", dtype=lib.float16):
        assert state(lib) == FP16
        assert lib.get_autocast_dtype("cuda") is lib.float16
    assert state(lib) == OUTSIDE


@pytest.mark.parametrize("lib", LIBS)
def test_nesting(lib):
    trace = [state(lib)]
    with lib.autocast("cpu"):
        trace.append(state(lib))
        with lib.autocast("cpu", dtype=lib.float16):
            trace.append(state(lib))
            with lib.autocast("cpu", enabled=False):
                trace.append(state(lib))
            trace.append(state(lib))
            with lib.autocast("cpu"):  # no dtype: the current autocast dtype, float16
                trace.append(state(lib))
        trace.append(state(lib))
        with lib.autocast("cpu", enabled=False):
            trace.append(state(lib))
            with lib.autocast("cpu"):
                trace.append(state(lib))
        trace.append(state(lib))
    trace.append(state(lib))
    disabled_fp16 = (False, "float16", "float32", False)
    disabled_bf16 = (False, "bfloat16", "float32", False)
    assert trace == [
        OUTSIDE,
        BF16,
        FP16,
        disabled_fp16,
        FP16,
        FP16,
        BF16,
        disabled_bf16,
        BF16,
        BF16,
        OUTSIDE,
    ]


@pytest.mark.parametrize("lib", LIBS)
def test_decorator(lib):
    @lib.autocast("cpu")
    def forward(a, b):
        """Docstring."""
        return a @ b, state(lib)

    @lib.autocast("cpu", dtype=lib.float16)
    def failing():
        raise KeyError("inside")

    a = lib.ones(2, 3)
    out, inside = forward(a, a.t())
    assert dtype_name(out.dtype) == "bfloat16"
    assert inside == BF16
    assert forward.__name__ == "forward" and forward.__doc__ == "Docstring."
    assert state(lib) == OUTSIDE
    with pytest.raises(KeyError):
        failing()
    assert state(lib) == OUTSIDE


@pytest.mark.parametrize("lib", LIBS)
def test_state_restored_after_an_exception(lib):
    with pytest.raises(ValueError):
        with lib.autocast("cpu", dtype=lib.float16):
            raise ValueError("inside")
    assert state(lib) == OUTSIDE
    with lib.autocast("cpu"):
        try:
            with lib.autocast("cpu", dtype=lib.float16):
                assert state(lib) == FP16
                raise ValueError("inner")
        except ValueError:
            pass
        assert state(lib) == BF16
    assert state(lib) == OUTSIDE


@pytest.mark.parametrize("lib", LIBS)
def test_thread_local(lib):
    seen = {}
    entered, checked = threading.Event(), threading.Event()

    def in_thread_started_inside():
        seen["inside"] = state(lib)

    def thread_with_its_own_region():
        with lib.autocast("cpu", dtype=lib.float16):
            seen["own"] = state(lib)
            entered.set()
            checked.wait(10)

    with lib.autocast("cpu"):
        th = threading.Thread(target=in_thread_started_inside)
        th.start()
        th.join()
        assert state(lib) == BF16
    assert seen["inside"] == OUTSIDE

    th = threading.Thread(target=thread_with_its_own_region)
    th.start()
    assert entered.wait(10)
    try:
        assert state(lib) == OUTSIDE  # the other thread's region does not leak here
    finally:
        checked.set()
        th.join()
    assert seen["own"] == FP16


def shared_weight_run(lib, device, dtype, cache_enabled, arrays):
    """Two matmuls with one float32 leaf weight in a region (one cast when caching), backward
    outside; then the weight changes in place and a new region must see the new values."""
    x1, x2, w0 = arrays
    x1 = lib.tensor(x1, device=device)
    x2 = lib.tensor(x2, device=device)
    w = lib.tensor(w0, device=device).requires_grad_()
    lo = getattr(lib, dtype)
    with lib.autocast(device, dtype=lo, cache_enabled=cache_enabled):
        y1 = x1 @ w
        y2 = lib.matmul(x2, w)
        loss = y1.float().sum() + y2.float().pow(2).sum()
    loss.backward()
    with lib.no_grad():
        w.mul_(2)
    with lib.autocast(device, dtype=lo, cache_enabled=cache_enabled):
        y3 = x1 @ w
    return y1, y2, loss, w.grad, y3


@pytest.mark.parametrize("cache_enabled", [True, False], ids=["cache", "no_cache"])
@pytest.mark.parametrize("device, dtype", MODES)
def test_cast_cache_of_a_shared_weight(device, dtype, cache_enabled):
    rng = np.random.default_rng(1)
    arrays = [rng.uniform(-1, 1, s).astype(np.float32) for s in [(3, 4), (2, 4), (4, 5)]]
    got = shared_weight_run(genesis, device, dtype, cache_enabled, arrays)
    want = shared_weight_run(torch, device, dtype, cache_enabled, arrays)
    assert [dtype_name(x.dtype) for x in got] == [dtype, dtype, "float32", "float32", dtype]
    assert_matches(got, want, TOL[dtype], 4 * TOL[dtype])
    y1, y3 = as_float64(got[0]), as_float64(got[4])
    np.testing.assert_allclose(y3, 2 * y1, rtol=TOL[dtype], atol=TOL[dtype])


def linear_backward_run(lib, device, dtype, arrays):
    x, w, b = (lib.tensor(a, device=device).requires_grad_() for a in arrays)
    with lib.autocast(device, dtype=getattr(lib, dtype)):
        y = F(lib).linear(x, w, b)
        loss = y.float().pow(2).sum()
    loss.backward()
    return y, loss, x.grad, w.grad, b.grad


@pytest.mark.parametrize("device, dtype", MODES)
def test_backward_outside_the_region(device, dtype):
    rng = np.random.default_rng(2)
    arrays = [rng.uniform(-1, 1, s).astype(np.float32) for s in [(8, 4), (5, 4), (5,)]]
    got = linear_backward_run(genesis, device, dtype, arrays)
    want = linear_backward_run(torch, device, dtype, arrays)
    assert [dtype_name(x.dtype) for x in got] == [dtype] + ["float32"] * 4
    assert_matches(got, want, TOL[dtype], 8 * TOL[dtype])


@pytest.mark.parametrize("device, dtype", MODES)
@pytest.mark.parametrize("lib", LIBS)
def test_out_calls_are_not_autocast(lib, device, dtype):
    rng = np.random.default_rng(3)
    a_np, b_np = rng.uniform(-1, 1, (3, 4)), rng.uniform(-1, 1, (4, 5))
    a = lib.tensor(a_np.astype(np.float32), device=device)
    b = lib.tensor(b_np.astype(np.float32), device=device)
    exact = a_np.astype(np.float32).astype(np.float64) @ b_np.astype(np.float32)
    c = lib.empty(3, 5, device=device)
    with lib.autocast(device, dtype=getattr(lib, dtype)):
        lib.mm(a, b, out=c)
    assert dtype_name(c.dtype) == "float32"
    np.testing.assert_allclose(as_float64(c), exact, rtol=1e-5, atol=1e-5)


@both_cuda
@pytest.mark.parametrize("lib", LIBS)
def test_binary_cross_entropy_is_banned_under_cuda_autocast(lib):
    p = lib.full((3,), 0.25, device="cuda")
    y = lib.ones(3, device="cuda")
    message = r"nn\.functional\.binary_cross_entropy and \w+\.nn\.BCELoss are unsafe to autocast"
    with lib.autocast("cuda"):
        with pytest.raises(RuntimeError, match=message):
            F(lib).binary_cross_entropy(p, y)
        with pytest.raises(RuntimeError, match=message):
            lib.nn.BCELoss()(p, y)
        F(lib).binary_cross_entropy_with_logits(p, y)  # the safe one
    F(lib).binary_cross_entropy(p, y)  # fine outside


@pytest.mark.parametrize("bad", ["float64", "float32"])
@pytest.mark.parametrize("lib", LIBS)
def test_unsupported_dtype_warns_and_disables(lib, bad):
    message = r"In CPU autocast, but the target dtype is not supported\. Disabling autocast\."
    with pytest.warns(UserWarning, match=message):
        with lib.autocast("cpu", dtype=getattr(lib, bad)):
            inside = (lib.is_autocast_enabled("cpu"), matmul_dtype(lib))
    assert inside == (False, "float32")
    assert state(lib) == OUTSIDE


@pytest.mark.parametrize("lib", LIBS)
def test_bad_device_type(lib):
    with pytest.raises(RuntimeError, match="foo"):
        with lib.autocast("foo"):
            pass
    with pytest.raises(ValueError, match="device_type"):
        with lib.autocast(0):
            pass
    assert state(lib) == OUTSIDE


@pytest.mark.parametrize("which", ["cpu", "cuda"])
@pytest.mark.parametrize("lib", LIBS)
def test_deprecated_device_autocast(lib, which):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ctx = getattr(lib, which).amp.autocast()
        with ctx:
            enabled = lib.is_autocast_enabled(which)
            dtype = lib.get_autocast_dtype(which)
    future = [str(w.message) for w in caught if issubclass(w.category, FutureWarning)]
    deprecated = re.escape(f"{which}.amp.autocast(args...)` is deprecated")
    assert any(re.search(deprecated, m) for m in future), future
    assert isinstance(ctx, lib.amp.autocast)
    if which == "cpu" or lib.cuda.is_available():  # without a GPU cuda autocast disables itself
        assert enabled
        assert dtype is (lib.bfloat16 if which == "cpu" else lib.float16)
    assert not lib.is_autocast_enabled(which)
