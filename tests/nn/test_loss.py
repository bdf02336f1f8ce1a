"""genesis.nn's losses against PyTorch (CPU): the functionals and the loss modules.

Every case runs one function fn(lib, *args) on genesis (on the device under test) and on torch
with the same NumPy data; outputs (shape, dtype, values; NaN where torch has NaN) and the
gradients of every argument made with G(...) are compared after backpropagating the same random
gradient. The cases cover each loss with each reduction in float32 and float64: weights,
ignore_index, label smoothing, class-probability targets, (N, C, d1, d2) and unbatched shapes,
non-contiguous inputs, zero-size batches, and gradients w.r.t. the targets where PyTorch
differentiates them. Then: float16/bfloat16 forwards, BCE at 0 and 1, the legacy
size_average/reduce arguments, the modules (repr, state_dict, loading PyTorch's), and bad input
(the class PyTorch raises and the "[name]" prefix).
"""

import math
import warnings

import numpy as np
import pytest
from conftest import HAS_CUDA, raises_index_error, requires_cuda, to_numpy
from test_autograd import check_grads

import genesis

torch = pytest.importorskip("torch")

REDUCTIONS = ["none", "mean", "sum"]
TOL = {"float64": (1e-7, 1e-10), "float32": (2e-5, 2e-6)}


# ----------------------------------------------------------------------------------------------
# Helpers
# ----------------------------------------------------------------------------------------------


class G:
    """An argument that requires grad (its gradient is compared)."""

    def __init__(self, a):
        self.a = np.asarray(a)


def _dtypes(lib, name):
    return getattr(lib, name)


def _make(lib, a, device, dtype):
    """The lib's tensor of a NumPy argument (floats cast to dtype); other values as they are."""
    grad = isinstance(a, G)
    if grad:
        a = a.a
    if not isinstance(a, np.ndarray):
        return a
    floating = a.dtype.kind == "f"
    if lib is genesis:
        t = genesis.tensor(a, device=device)
        if floating and dtype is not None:
            t = t.to(_dtypes(genesis, dtype))
    else:
        t = torch.tensor(a)
        if floating and dtype is not None:
            t = t.to(_dtypes(torch, dtype))
    if grad:
        t.requires_grad_(True)
    return t


def _np(t):
    if isinstance(t, genesis.Tensor):
        return to_numpy(t.detach()).astype(np.float64)
    return t.detach().to(torch.float64).numpy()


def assert_close(got, want, rtol, atol):
    assert isinstance(got, genesis.Tensor), type(got)
    assert tuple(got.shape) == tuple(want.shape), (got.shape, want.shape)
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1], (got.dtype, want.dtype)
    np.testing.assert_allclose(_np(got), _np(want), rtol=rtol, atol=atol)


def compare(fn, args, device, dtype="float64", rtol=None, atol=None, grad=True, seed=7):
    """Runs fn(lib, *args) with genesis and torch, compares the outputs and the gradients of
    the G(...) arguments. Returns the genesis output."""
    r, a = TOL.get(dtype, (1e-2, 1e-2))
    rtol = r if rtol is None else rtol
    atol = a if atol is None else atol
    g_args = [_make(genesis, x, device, dtype) for x in args]
    t_args = [_make(torch, x, device, dtype) for x in args]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gout = fn(genesis, *g_args)
        tout = fn(torch, *t_args)
    assert_close(gout, tout, rtol, atol)
    if not grad or not tout.requires_grad:
        return gout
    assert gout.requires_grad, "no graph recorded"
    v = np.random.default_rng(seed).standard_normal(tuple(tout.shape))
    tout.backward(torch.tensor(v).to(tout.dtype))
    gout.backward(genesis.tensor(v, device=device).to(gout.dtype))
    for x, g, t in zip(args, g_args, t_args):
        if not isinstance(x, G):
            continue
        if t.grad is None:
            assert g.grad is None or not np.any(_np(g.grad)), "genesis gave a gradient"
            continue
        assert g.grad is not None, "genesis gave no gradient where torch gave one"
        assert str(g.grad.device) == str(g.device)
        assert_close(g.grad, t.grad, rtol, atol)
    return gout


def rng_of(seed):
    return np.random.default_rng(seed)


def randn(rng, *shape, scale=1.0):
    return rng.standard_normal(shape) * scale


def uniform(rng, low, high, *shape):
    return rng.uniform(low, high, shape)


def signs(rng, *shape):
    return np.where(rng.random(shape) < 0.5, -1.0, 1.0)


def classes(rng, n, c, *rest):
    return rng.integers(0, c, size=(n, *rest)).astype(np.int64)


def probs(rng, *shape, dim=1):
    e = np.exp(rng.standard_normal(shape))
    return e / e.sum(axis=dim, keepdims=True)


def F(m):
    return m.nn.functional


def raises(cls, name):
    """pytest.raises(cls) whose message starts with "[name]"."""
    return pytest.raises(cls, match=rf"^\[{name}\]")


# ----------------------------------------------------------------------------------------------
# Every loss: each reduction, float32 and float64, forward and gradients
# ----------------------------------------------------------------------------------------------


def _multilabel_target(rng, n, c):
    t = np.full((n, c), -1, dtype=np.int64)
    for i in range(n):  # test data only
        k = rng.integers(0, c)
        t[i, :k] = rng.choice(c, size=k, replace=False)
        if i % 3 == 0 and k + 1 < c:
            t[i, k + 1] = rng.integers(0, c)  # after the -1: ignored
    return t


# (id, fn(m, *args, reduction), args(rng, n)) with n the batch size.
CASES = [
    # Regression.
    ("mse", lambda m, x, y, r: F(m).mse_loss(x, y, reduction=r),
     lambda g, n: [G(randn(g, n, 5)), G(randn(g, n, 5))]),
    ("mse_broadcast", lambda m, x, y, r: F(m).mse_loss(x, y, reduction=r),
     lambda g, n: [G(randn(g, n, 5)), G(randn(g, 5))]),
    ("mse_weight", lambda m, x, y, w, r: F(m).mse_loss(x, y, reduction=r, weight=w),
     lambda g, n: [G(randn(g, n, 5)), G(randn(g, n, 5)), uniform(g, 0.5, 2, n, 5)]),
    ("mse_noncontiguous", lambda m, x, y, r: F(m).mse_loss(x.t(), y[:, 1:], reduction=r),
     lambda g, n: [G(randn(g, 5, n)), G(randn(g, n, 6))]),
    ("l1", lambda m, x, y, r: F(m).l1_loss(x, y, reduction=r),
     lambda g, n: [G(randn(g, n, 5)), G(randn(g, n, 5))]),
    ("l1_weight", lambda m, x, y, w, r: F(m).l1_loss(x, y, reduction=r, weight=w),
     lambda g, n: [G(randn(g, n, 5)), G(randn(g, n, 5)), uniform(g, 0.5, 2, n, 5)]),
    ("smooth_l1", lambda m, x, y, r: F(m).smooth_l1_loss(x, y, reduction=r),
     lambda g, n: [G(randn(g, n, 5, scale=2)), G(randn(g, n, 5))]),
    ("smooth_l1_beta", lambda m, x, y, r: F(m).smooth_l1_loss(x, y, reduction=r, beta=0.4),
     lambda g, n: [G(randn(g, n, 5)), G(randn(g, n, 5))]),
    ("smooth_l1_beta0", lambda m, x, y, r: F(m).smooth_l1_loss(x, y, reduction=r, beta=0.0),
     lambda g, n: [G(randn(g, n, 5)), G(randn(g, n, 5))]),
    ("huber", lambda m, x, y, r: F(m).huber_loss(x, y, reduction=r),
     lambda g, n: [G(randn(g, n, 5, scale=2)), G(randn(g, n, 5))]),
    ("huber_delta", lambda m, x, y, r: F(m).huber_loss(x, y, reduction=r, delta=2.5),
     lambda g, n: [G(randn(g, n, 5, scale=3)), G(randn(g, n, 5))]),
    ("huber_weight", lambda m, x, y, w, r: F(m).huber_loss(x, y, reduction=r, weight=w),
     lambda g, n: [G(randn(g, n, 5, scale=2)), G(randn(g, n, 5)), uniform(g, 0.5, 2, n, 5)]),
    ("kl_div", lambda m, x, y, r: F(m).kl_div(x, y, reduction=r),
     lambda g, n: [G(randn(g, n, 5)), G(uniform(g, 0.05, 1, n, 5))]),
    ("kl_div_log_target", lambda m, x, y, r: F(m).kl_div(x, y, reduction=r, log_target=True),
     lambda g, n: [G(randn(g, n, 5)), G(randn(g, n, 5))]),
    ("kl_div_batchmean", lambda m, x, y, r: F(m).kl_div(
        x, y, reduction="batchmean" if r == "mean" else r),
     lambda g, n: [G(randn(g, n, 5)), G(uniform(g, 0.05, 1, n, 5))]),
    ("poisson", lambda m, x, y, r: F(m).poisson_nll_loss(x, y, reduction=r),
     lambda g, n: [G(randn(g, n, 5)), G(uniform(g, 0, 4, n, 5))]),
    ("poisson_full_rate", lambda m, x, y, r: F(m).poisson_nll_loss(
        x, y, log_input=False, full=True, reduction=r),
     lambda g, n: [G(uniform(g, 0.2, 3, n, 5)), G(uniform(g, 0.1, 4, n, 5))]),
    ("gaussian", lambda m, x, y, v, r: F(m).gaussian_nll_loss(x, y, v, reduction=r),
     lambda g, n: [G(randn(g, n, 5)), G(randn(g, n, 5)), G(uniform(g, 0.2, 2, n, 5))]),
    ("gaussian_var_less_dim", lambda m, x, y, v, r: F(m).gaussian_nll_loss(
        x, y, v, full=True, reduction=r),
     lambda g, n: [G(randn(g, n, 5)), G(randn(g, n, 5)), G(uniform(g, 0.2, 2, n))]),
    ("gaussian_var_one", lambda m, x, y, v, r: F(m).gaussian_nll_loss(x, y, v, reduction=r),
     lambda g, n: [G(randn(g, n, 5)), G(randn(g, n, 5)), G(uniform(g, 0.2, 2, n, 1))]),
    ("gaussian_float_var", lambda m, x, y, r: F(m).gaussian_nll_loss(x, y, 0.7, reduction=r),
     lambda g, n: [G(randn(g, n, 5)), G(randn(g, n, 5))]),
    ("gaussian_clamped_var", lambda m, x, y, v, r: F(m).gaussian_nll_loss(
        x, y, v, eps=0.3, reduction=r),
     lambda g, n: [G(randn(g, n, 5)), G(randn(g, n, 5)), G(uniform(g, 0.01, 1, n, 5))]),
    # Binary classification.
    ("bce", lambda m, x, y, r: F(m).binary_cross_entropy(x, y, reduction=r),
     lambda g, n: [G(uniform(g, 0.02, 0.98, n, 5)), G(uniform(g, 0, 1, n, 5))]),
    ("bce_weight", lambda m, x, y, w, r: F(m).binary_cross_entropy(x, y, w, reduction=r),
     lambda g, n: [G(uniform(g, 0.02, 0.98, n, 5)), G(uniform(g, 0, 1, n, 5)),
                   uniform(g, 0.5, 2, 5)]),
    ("bce_logits", lambda m, x, y, r: F(m).binary_cross_entropy_with_logits(x, y, reduction=r),
     lambda g, n: [G(randn(g, n, 5, scale=4)), G(uniform(g, 0, 1, n, 5))]),
    ("bce_logits_weights", lambda m, x, y, w, pw, r: F(m).binary_cross_entropy_with_logits(
        x, y, w, reduction=r, pos_weight=pw),
     lambda g, n: [G(randn(g, n, 5, scale=4)), G(uniform(g, 0, 1, n, 5)),
                   uniform(g, 0.5, 2, n, 5), uniform(g, 0.5, 3, 5)]),
    ("bce_logits_noncontiguous", lambda m, x, y, r: F(m).binary_cross_entropy_with_logits(
        x.t(), y.t(), reduction=r),
     lambda g, n: [G(randn(g, 5, n, scale=4)), G(uniform(g, 0, 1, 5, n))]),
    ("soft_margin", lambda m, x, y, r: F(m).soft_margin_loss(x, y, reduction=r),
     lambda g, n: [G(randn(g, n, 5, scale=3)), signs(g, n, 5)]),
    ("hinge_embedding", lambda m, x, y, r: F(m).hinge_embedding_loss(x, y, reduction=r),
     lambda g, n: [G(randn(g, n, 5)), signs(g, n, 5)]),
    ("hinge_embedding_margin", lambda m, x, y, r: F(m).hinge_embedding_loss(
        x, y, margin=0.4, reduction=r),
     lambda g, n: [G(randn(g, n, 5)), signs(g, n, 5)]),
    # Embeddings and rankings.
    ("cosine_embedding", lambda m, a, b, y, r: F(m).cosine_embedding_loss(a, b, y, reduction=r),
     lambda g, n: [G(randn(g, n, 5)), G(randn(g, n, 5)), signs(g, n)]),
    ("cosine_embedding_margin", lambda m, a, b, y, r: F(m).cosine_embedding_loss(
        a, b, y, margin=-0.2, reduction=r),
     lambda g, n: [G(randn(g, n, 5)), G(randn(g, n, 5)), signs(g, n)]),
    ("margin_ranking", lambda m, a, b, y, r: F(m).margin_ranking_loss(
        a, b, y, margin=0.3, reduction=r),
     lambda g, n: [G(randn(g, n)), G(randn(g, n)), signs(g, n)]),
    ("triplet", lambda m, a, p, q, r: F(m).triplet_margin_loss(a, p, q, reduction=r),
     lambda g, n: [G(randn(g, n, 5)), G(randn(g, n, 5)), G(randn(g, n, 5))]),
    ("triplet_p1_swap", lambda m, a, p, q, r: F(m).triplet_margin_loss(
        a, p, q, margin=2.0, p=1, swap=True, reduction=r),
     lambda g, n: [G(randn(g, n, 5)), G(randn(g, n, 5)), G(randn(g, n, 5))]),
    ("triplet_p3", lambda m, a, p, q, r: F(m).triplet_margin_loss(
        a, p, q, margin=1.5, p=3, eps=1e-3, reduction=r),
     lambda g, n: [G(randn(g, n, 5)), G(randn(g, n, 5)), G(randn(g, n, 5))]),
    ("triplet_pinf", lambda m, a, p, q, r: F(m).triplet_margin_loss(
        a, p, q, margin=1.5, p=math.inf, reduction=r),
     lambda g, n: [G(randn(g, n, 5)), G(randn(g, n, 5)), G(randn(g, n, 5))]),
    # Multi-class and multi-label margins.
    ("multi_margin", lambda m, x, y, r: F(m).multi_margin_loss(x, y, reduction=r),
     lambda g, n: [G(randn(g, n, 5)), classes(g, n, 5)]),
    ("multi_margin_p2_weight", lambda m, x, y, w, r: F(m).multi_margin_loss(
        x, y, p=2, margin=0.7, weight=w, reduction=r),
     lambda g, n: [G(randn(g, n, 5)), classes(g, n, 5), uniform(g, 0.5, 2, 5)]),
    ("multilabel_margin", lambda m, x, y, r: F(m).multilabel_margin_loss(x, y, reduction=r),
     lambda g, n: [G(randn(g, n, 5)), _multilabel_target(g, n, 5)]),
    ("multilabel_soft_margin", lambda m, x, y, r: F(m).multilabel_soft_margin_loss(
        x, y, reduction=r),
     lambda g, n: [G(randn(g, n, 5, scale=3)), G(uniform(g, 0, 1, n, 5))]),
    ("multilabel_soft_margin_weight", lambda m, x, y, w, r: F(m).multilabel_soft_margin_loss(
        x, y, weight=w, reduction=r),
     lambda g, n: [G(randn(g, n, 5, scale=3)), (g.random((n, 5)) < 0.5).astype(np.float64),
                   uniform(g, 0.5, 2, 5)]),
    # Negative log-likelihood and cross entropy.
    ("nll", lambda m, x, y, r: F(m).nll_loss(x, y, reduction=r),
     lambda g, n: [G(randn(g, n, 5)), classes(g, n, 5)]),
    ("nll_weight_ignore", lambda m, x, y, w, r: F(m).nll_loss(
        x, y, weight=w, ignore_index=2, reduction=r),
     lambda g, n: [G(randn(g, n, 5)), classes(g, n, 5), uniform(g, 0.5, 2, 5)]),
    ("nll_4d", lambda m, x, y, w, r: F(m).nll_loss(x, y, w, reduction=r),
     lambda g, n: [G(randn(g, n, 5, 3, 4)), classes(g, n, 5, 3, 4), uniform(g, 0.5, 2, 5)]),
    ("cross_entropy", lambda m, x, y, r: F(m).cross_entropy(x, y, reduction=r),
     lambda g, n: [G(randn(g, n, 5, scale=2)), classes(g, n, 5)]),
    ("cross_entropy_weight", lambda m, x, y, w, r: F(m).cross_entropy(x, y, w, reduction=r),
     lambda g, n: [G(randn(g, n, 5, scale=2)), classes(g, n, 5), uniform(g, 0.5, 2, 5)]),
    ("cross_entropy_ignore", lambda m, x, y, r: F(m).cross_entropy(
        x, m.where(y == 1, -100, y), reduction=r),
     lambda g, n: [G(randn(g, n, 5, scale=2)), classes(g, n, 5)]),
    ("cross_entropy_ignore_in_range", lambda m, x, y, w, r: F(m).cross_entropy(
        x, y, w, ignore_index=0, reduction=r),
     lambda g, n: [G(randn(g, n, 5, scale=2)), classes(g, n, 5), uniform(g, 0.5, 2, 5)]),
    ("cross_entropy_label_smoothing", lambda m, x, y, r: F(m).cross_entropy(
        x, y, reduction=r, label_smoothing=0.15),
     lambda g, n: [G(randn(g, n, 5, scale=2)), classes(g, n, 5)]),
    ("cross_entropy_weight_ignore_smoothing", lambda m, x, y, w, r: F(m).cross_entropy(
        x, m.where(y == 3, 7, y), w, ignore_index=7, reduction=r, label_smoothing=0.3),
     lambda g, n: [G(randn(g, n, 5, scale=2)), classes(g, n, 5), uniform(g, 0.5, 2, 5)]),
    ("cross_entropy_4d", lambda m, x, y, w, r: F(m).cross_entropy(
        x, m.where(y == 0, -100, y), w, reduction=r, label_smoothing=0.1),
     lambda g, n: [G(randn(g, n, 5, 3, 4)), classes(g, n, 5, 3, 4), uniform(g, 0.5, 2, 5)]),
    ("cross_entropy_3d", lambda m, x, y, r: F(m).cross_entropy(x, y, reduction=r),
     lambda g, n: [G(randn(g, n, 5, 7)), classes(g, n, 5, 7)]),
    ("cross_entropy_noncontiguous", lambda m, x, y, r: F(m).cross_entropy(
        x.t(), y, reduction=r),
     lambda g, n: [G(randn(g, 5, n, scale=2)), classes(g, n, 5)]),
    ("cross_entropy_uint8_target", lambda m, x, y, r: F(m).cross_entropy(
        x, y.to(m.uint8), reduction=r),
     lambda g, n: [G(randn(g, n, 5)), classes(g, n, 5)]),
    ("cross_entropy_probs", lambda m, x, y, r: F(m).cross_entropy(x, y, reduction=r),
     lambda g, n: [G(randn(g, n, 5, scale=2)), G(probs(g, n, 5))]),
    ("cross_entropy_probs_weight_smoothing", lambda m, x, y, w, r: F(m).cross_entropy(
        x, y, w, reduction=r, label_smoothing=0.2),
     lambda g, n: [G(randn(g, n, 5, scale=2)), G(probs(g, n, 5)), uniform(g, 0.5, 2, 5)]),
    ("cross_entropy_probs_4d", lambda m, x, y, w, r: F(m).cross_entropy(x, y, w, reduction=r),
     lambda g, n: [G(randn(g, n, 5, 3, 2)), G(probs(g, n, 5, 3, 2)), uniform(g, 0.5, 2, 5)]),
]  # fmt: skip

CASE_IDS = [c[0] for c in CASES]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_loss_against_torch(case, reduction, dtype, device):
    _, fn, make = case
    args = make(rng_of(CASE_IDS.index(case[0])), 6)
    compare(lambda m, *a: fn(m, *a, reduction), args, device, dtype)


# Losses whose 'mean'/'sum' over an empty batch PyTorch leaves uninitialized (garbage).
GARBAGE_WHEN_EMPTY = {"multi_margin", "multi_margin_p2_weight", "multilabel_margin"}


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_zero_size_batch(case, reduction, device):
    """An empty batch: 'mean' is NaN and 'sum' 0, as in PyTorch; gradients are empty."""
    name, fn, make = case
    args = make(rng_of(0), 0)
    if name in GARBAGE_WHEN_EMPTY and reduction != "none":
        g_args = [_make(genesis, a, device, "float64") for a in args]
        out = fn(genesis, *g_args, reduction)
        assert out.shape == ()
        value = out.item()
        assert math.isnan(value) if reduction == "mean" else value == 0
        return
    compare(lambda m, *a: fn(m, *a, reduction), args, device)


UNBATCHED = [
    ("cross_entropy", lambda m, x, y, w: F(m).cross_entropy(x, y, w, label_smoothing=0.1),
     lambda g: [G(randn(g, 5)), np.array(3), uniform(g, 0.5, 2, 5)]),
    ("cross_entropy_probs", lambda m, x, y, w: F(m).cross_entropy(x, y, w),
     lambda g: [G(randn(g, 5)), G(probs(g, 5, dim=0)), uniform(g, 0.5, 2, 5)]),
    ("cross_entropy_target_of_one", lambda m, x, y: F(m).cross_entropy(x, y, reduction="none"),
     lambda g: [randn(g, 5), np.array([3])]),  # torch's backward fails there
    ("nll_ignored", lambda m, x, y: F(m).nll_loss(x, y, ignore_index=3, reduction="sum"),
     lambda g: [G(randn(g, 5)), np.array(3)]),
    ("multi_margin", lambda m, x, y: F(m).multi_margin_loss(x, y, reduction="none"),
     lambda g: [G(randn(g, 5)), np.array(2)]),
    ("multi_margin_0d", lambda m, x, y: F(m).multi_margin_loss(x, y, reduction="none"),
     lambda g: [G(randn(g)), np.array(0)]),
    ("multi_margin_target_of_one", lambda m, x, y: F(m).multi_margin_loss(
        x, y, reduction="none"),
     lambda g: [G(randn(g, 5)), np.array([2])]),
    ("multilabel_margin", lambda m, x, y: F(m).multilabel_margin_loss(x, y, reduction="none"),
     lambda g: [G(randn(g, 5)), np.array([4, 1, -1, 0, 3])]),
    ("multilabel_soft_margin", lambda m, x, y: F(m).multilabel_soft_margin_loss(
        x, y, reduction="none"),
     lambda g: [G(randn(g, 5)), G(uniform(g, 0, 1, 5))]),
    ("cosine_embedding", lambda m, a, b, y: F(m).cosine_embedding_loss(a, b, y),
     lambda g: [G(randn(g, 5)), G(randn(g, 5)), np.array(-1.0)]),
    ("triplet", lambda m, a, p, q: F(m).triplet_margin_loss(a, p, q, reduction="none"),
     lambda g: [G(randn(g, 5)), G(randn(g, 5)), G(randn(g, 5))]),
    ("triplet_broadcast", lambda m, a, p, q: F(m).triplet_margin_loss(
        a, p, q, reduction="none"),
     lambda g: [G(randn(g, 4, 5)), G(randn(g, 1, 5)), G(randn(g, 4, 5))]),
    ("kl_div_batchmean_0d", lambda m, x, y: F(m).kl_div(x, y, reduction="batchmean"),
     lambda g: [G(randn(g)), G(uniform(g, 0.1, 1))]),
    ("hinge_other_target", lambda m, x, y: F(m).hinge_embedding_loss(x, y, reduction="none"),
     lambda g: [G(randn(g, 6)), np.array([1.0, -1.0, 0.0, 2.0, 1.0, -1.0])]),
    ("cosine_other_target", lambda m, a, b, y: F(m).cosine_embedding_loss(
        a, b, y, reduction="none"),
     lambda g: [G(randn(g, 3, 5)), G(randn(g, 3, 5)), np.array([1, 0, -1])]),
]  # fmt: skip


@pytest.mark.parametrize("case", UNBATCHED, ids=[c[0] for c in UNBATCHED])
def test_unbatched_and_special_shapes(case, device):
    _, fn, make = case
    compare(fn, make(rng_of(3)), device)


def test_cross_entropy_all_ignored_is_nan(device):
    args = [G(randn(rng_of(1), 4, 5)), np.full(4, -100), uniform(rng_of(2), 0.5, 2, 5)]
    for ls in (0.0, 0.2):
        out = compare(
            lambda m, x, y, ls=ls: F(m).cross_entropy(x, y, label_smoothing=ls), args[:2], device
        )
        assert math.isnan(out.item())
        compare(
            lambda m, x, y, w, ls=ls: F(m).cross_entropy(x, y, w, label_smoothing=ls), args, device
        )
    out = compare(lambda m, x, y: F(m).nll_loss(x, y, reduction="sum"), args[:2], device)
    assert out.item() == 0


def test_cross_entropy_negative_label_smoothing_is_ignored(device):
    # PyTorch applies label smoothing only when it is > 0.
    args = [G(randn(rng_of(1), 4, 5)), classes(rng_of(2), 4, 5)]
    compare(lambda m, x, y: F(m).cross_entropy(x, y, label_smoothing=-0.3), args, device)
    args = [G(randn(rng_of(1), 4, 5)), G(probs(rng_of(2), 4, 5))]
    compare(lambda m, x, y: F(m).cross_entropy(x, y, label_smoothing=-0.3), args, device)


def test_cross_entropy_large_logits_stay_finite(device):
    x = np.array([[1000.0, 0.0, -1000.0], [-500.0, 500.0, 0.0]])
    args = [G(x), np.array([2, 1])]
    for dtype in ("float32", "float64"):
        out = compare(
            lambda m, x, y: F(m).cross_entropy(x, y, reduction="none"), args, device, dtype
        )
        assert np.isfinite(_np(out)).all()


def test_cross_entropy_confident_prediction_keeps_precision(device):
    # log_softmax then gather: a loss of ~1e-6 next to logits of 100 is not lost to rounding.
    x = np.array([[100.0, 100.0 - 14.0, 100.0 - 20.0]], dtype=np.float32)
    out = compare(
        lambda m, x, y: F(m).cross_entropy(x, y),
        [G(x), np.array([0])],
        device,
        "float32",
        rtol=1e-4,
        atol=1e-9,
    )
    assert 0 < out.item() < 1e-5


def test_bce_with_logits_is_stable(device):
    x = np.array([-200.0, -30.0, 30.0, 200.0, 0.0])
    t = np.array([1.0, 0.0, 1.0, 0.0, 0.5])
    for dtype in ("float32", "float64"):
        out = compare(
            lambda m, x, t: F(m).binary_cross_entropy_with_logits(x, t, reduction="none"),
            [G(x), G(t)],
            device,
            dtype,
        )
        assert np.isfinite(_np(out)).all()


def test_bce_at_zero_and_one(device):
    """Inputs of exactly 0 and 1: the logs clamped at -100, PyTorch's gradients."""
    x = np.array([0.0, 1.0, 0.0, 1.0, 0.5, 1e-30])
    t = np.array([0.0, 0.0, 1.0, 1.0, 0.3, 1.0])
    for dtype in ("float32", "float64"):
        compare(
            lambda m, x, t: F(m).binary_cross_entropy(x, t, reduction="none"),
            [G(x), G(t)],
            device,
            dtype,
        )
        compare(lambda m, x, t: F(m).binary_cross_entropy(x, t), [G(x), t], device, dtype)


def test_bce_double_backward(device):
    from test_autograd import grads_both

    x = uniform(rng_of(1), 0.1, 0.9, 3, 4)
    t = uniform(rng_of(2), 0, 1, 3, 4)
    grads_both(lambda m, x, t: F(m).binary_cross_entropy(x, t), [x, t], device, rtol=1e-6)


def test_cross_entropy_double_backward(device):
    from test_autograd import grads_both

    x = randn(rng_of(1), 3, 4)
    y = np.array([0, 3, 1])
    w = uniform(rng_of(2), 0.5, 2, 4)

    def fn(m, x):
        target, weight = m.tensor(y), m.tensor(w)
        if m is genesis:
            target, weight = target.to(x.device), weight.to(x.device)
        return F(m).cross_entropy(x, target, weight, label_smoothing=0.1)

    grads_both(fn, [x], device, rtol=1e-6)


def test_cross_entropy_gradcheck(device):
    x = genesis.tensor(randn(rng_of(4), 3, 4, 2), device=device, requires_grad=True)
    y = genesis.tensor(np.array([[0, 3], [1, 1], [2, -100]]), device=device)
    w = genesis.tensor(uniform(rng_of(5), 0.5, 2, 4), device=device)
    assert genesis.autograd.gradcheck(
        lambda x: genesis.nn.functional.cross_entropy(x, y, w, label_smoothing=0.2), (x,)
    )


# ----------------------------------------------------------------------------------------------
# 16-bit floats (forward, loose tolerance)
# ----------------------------------------------------------------------------------------------

# torch's CPU multi_margin_loss has no 16-bit kernels.
HALF_CASES = ["mse", "l1", "smooth_l1", "huber", "bce_logits", "bce", "cross_entropy",
              "cross_entropy_weight_ignore_smoothing", "cross_entropy_probs", "nll", "kl_div",
              "soft_margin", "multilabel_soft_margin", "cosine_embedding", "margin_ranking",
              "hinge_embedding"]  # fmt: skip


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", HALF_CASES)
def test_16_bit_floats(name, dtype, device):
    _, fn, make = CASES[CASE_IDS.index(name)]
    args = [a.a if isinstance(a, G) else a for a in make(rng_of(5), 6)]
    tol = 2e-2 if dtype == "bfloat16" else 5e-3
    for reduction in ("none", "mean"):
        compare(lambda m, *a, r=reduction: fn(m, *a, r), args, device, dtype, rtol=tol, atol=tol)


# ----------------------------------------------------------------------------------------------
# Options: legacy arguments, reductions, warnings
# ----------------------------------------------------------------------------------------------

LEGACY = [(None, False), (False, None), (True, None), (None, True), (True, True),
          (False, False), (False, True), (True, False)]  # fmt: skip


@pytest.mark.parametrize("size_average, reduce", LEGACY)
def test_legacy_size_average_and_reduce(size_average, reduce, device):
    g = rng_of(9)
    x, y, cls = randn(g, 4, 5), randn(g, 4, 5), classes(g, 4, 5)
    kw = {"size_average": size_average, "reduce": reduce}
    compare(lambda m, x, y: F(m).mse_loss(x, y, **kw), [G(x), G(y)], device)
    compare(lambda m, x, y: F(m).cross_entropy(x, y, **kw), [G(x), cls], device)
    compare(lambda m, x, y: F(m).kl_div(x, y, **kw), [G(x), G(np.abs(y))], device)
    compare(lambda m, x, y: F(m).poisson_nll_loss(x, y, **kw), [G(x), G(np.abs(y))], device)
    with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
        F(genesis).l1_loss(genesis.tensor(x), genesis.tensor(y), **kw)
    # The modules map them the same way.
    with pytest.warns(UserWarning):
        assert genesis.nn.NLLLoss(**kw).reduction == torch.nn.NLLLoss(**kw).reduction


def test_invalid_reduction():
    x = genesis.zeros(2, 3)
    with raises(ValueError, "mse_loss"):
        F(genesis).mse_loss(x, x, reduction="avg")
    with raises(ValueError, "cross_entropy"):
        F(genesis).cross_entropy(x, genesis.tensor([0, 1]), reduction="batchmean")
    with raises(ValueError, "huber_loss"):
        F(genesis).huber_loss(x, x, reduction="elementwise")
    with raises(ValueError, "kl_div"):
        F(genesis).kl_div(x, x, reduction="avg")
    with raises(ValueError, "gaussian_nll_loss"):
        F(genesis).gaussian_nll_loss(x, x, 1.0, reduction="avg")
    with pytest.warns(UserWarning, match="elementwise_mean"):
        out = F(genesis).l1_loss(x, x + 1, reduction="elementwise_mean")
    assert out.item() == 1


def test_kl_div_mean_warns_like_torch():
    x = genesis.zeros(2, 3)
    with pytest.warns(UserWarning, match="'batchmean' divides only by the batch size"):
        F(genesis).kl_div(x, x.exp())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        F(genesis).kl_div(x, x.exp(), reduction="batchmean")
        F(genesis).kl_div(x, x.exp(), reduction="sum")


def test_size_mismatch_warns_like_torch():
    with pytest.warns(UserWarning, match="different to the input size"):
        F(genesis).mse_loss(genesis.zeros(3, 1), genesis.zeros(3))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        F(genesis).mse_loss(genesis.zeros(3), genesis.zeros(3))


# ----------------------------------------------------------------------------------------------
# Modules
# ----------------------------------------------------------------------------------------------


def _w(lib, a):
    return lib.tensor(np.asarray(a, dtype=np.float32))


# (name, kwargs(lib), inputs(rng) -> list of arrays (floats become float32))
MODULES = [
    ("L1Loss", lambda m: {}, lambda g: [randn(g, 4, 5), randn(g, 4, 5)]),
    ("L1Loss", lambda m: {"reduction": "sum"}, lambda g: [randn(g, 4, 5), randn(g, 4, 5)]),
    ("MSELoss", lambda m: {"reduction": "none"}, lambda g: [randn(g, 4, 5), randn(g, 4, 5)]),
    ("MSELoss", lambda m: {"size_average": False}, lambda g: [randn(g, 4, 5), randn(g, 4, 5)]),
    ("NLLLoss", lambda m: {"weight": _w(m, [1, 2, 3, 4, 5]), "ignore_index": 1},
     lambda g: [randn(g, 4, 5), classes(g, 4, 5)]),
    ("PoissonNLLLoss", lambda m: {"log_input": False, "full": True, "eps": 1e-6},
     lambda g: [uniform(g, 0.5, 2, 4, 5), uniform(g, 0, 4, 4, 5)]),
    ("GaussianNLLLoss", lambda m: {"full": True, "eps": 1e-3},
     lambda g: [randn(g, 4, 5), randn(g, 4, 5), uniform(g, 0.5, 2, 4, 5)]),
    ("KLDivLoss", lambda m: {"reduction": "batchmean", "log_target": True},
     lambda g: [randn(g, 4, 5), randn(g, 4, 5)]),
    ("BCELoss", lambda m: {"weight": _w(m, [1, 2, 3, 4, 5])},
     lambda g: [uniform(g, 0.1, 0.9, 4, 5), uniform(g, 0, 1, 4, 5)]),
    ("BCEWithLogitsLoss", lambda m: {"weight": _w(m, [1, 2, 3, 4, 5]),
                                     "pos_weight": _w(m, [2, 1, 1, 3, 1])},
     lambda g: [randn(g, 4, 5), uniform(g, 0, 1, 4, 5)]),
    ("BCEWithLogitsLoss", lambda m: {}, lambda g: [randn(g, 4, 5), uniform(g, 0, 1, 4, 5)]),
    ("HingeEmbeddingLoss", lambda m: {"margin": 2.0}, lambda g: [randn(g, 4, 5), signs(g, 4, 5)]),
    ("MultiLabelMarginLoss", lambda m: {},
     lambda g: [randn(g, 4, 5), _multilabel_target(g, 4, 5)]),
    ("SmoothL1Loss", lambda m: {"beta": 0.5}, lambda g: [randn(g, 4, 5), randn(g, 4, 5)]),
    ("HuberLoss", lambda m: {"delta": 0.5, "reduction": "sum"},
     lambda g: [randn(g, 4, 5), randn(g, 4, 5)]),
    ("SoftMarginLoss", lambda m: {}, lambda g: [randn(g, 4, 5), signs(g, 4, 5)]),
    ("CrossEntropyLoss", lambda m: {}, lambda g: [randn(g, 4, 5), classes(g, 4, 5)]),
    ("CrossEntropyLoss", lambda m: {"weight": _w(m, [1, 2, 3, 4, 5]), "ignore_index": 2,
                                    "label_smoothing": 0.1},
     lambda g: [randn(g, 4, 5, 3), classes(g, 4, 5, 3)]),
    ("MultiLabelSoftMarginLoss", lambda m: {"weight": _w(m, [1, 2, 3, 4, 5])},
     lambda g: [randn(g, 4, 5), (g.random((4, 5)) < 0.5).astype(np.float64)]),
    ("CosineEmbeddingLoss", lambda m: {"margin": 0.2},
     lambda g: [randn(g, 4, 5), randn(g, 4, 5), signs(g, 4)]),
    ("MarginRankingLoss", lambda m: {"margin": 0.5},
     lambda g: [randn(g, 4), randn(g, 4), signs(g, 4)]),
    ("MultiMarginLoss", lambda m: {"p": 2, "margin": 0.5, "weight": _w(m, [1, 2, 3, 4, 5])},
     lambda g: [randn(g, 4, 5), classes(g, 4, 5)]),
    ("TripletMarginLoss", lambda m: {"margin": 0.5, "p": 1.0, "swap": True},
     lambda g: [randn(g, 4, 5), randn(g, 4, 5), randn(g, 4, 5)]),
]  # fmt: skip


def _module_pair(name, kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        g_module = getattr(genesis.nn, name)(**kwargs(genesis))
        return g_module, getattr(torch.nn, name)(**kwargs(torch))


@pytest.mark.parametrize("case", MODULES, ids=[f"{c[0]}-{i}" for i, c in enumerate(MODULES)])
def test_module_against_torch(case, device):
    name, kwargs, inputs = case
    gm, tm = _module_pair(name, kwargs)
    assert repr(gm) == repr(tm).replace("torch.", "genesis.")
    assert list(gm.state_dict()) == list(tm.state_dict())
    assert [n for n, _ in gm.named_buffers()] == [n for n, _ in tm.named_buffers()]
    assert not list(gm.parameters())
    gm.to(device)
    for b in gm.buffers():
        assert str(b.device).startswith(device)
    args = inputs(rng_of(11))
    first = G(args[0].astype(np.float32))
    rest = [a.astype(np.float32) if a.dtype.kind == "f" else a for a in args[1:]]
    compare(lambda m, *a: (gm if m is genesis else tm)(*a), [first, *rest], device, "float32")
    # A genesis module loads a PyTorch module's state_dict and then computes the same.
    if tm.state_dict():
        fresh, _ = _module_pair(name, kwargs)
        sd = {k: v * 2 for k, v in tm.state_dict().items()}
        fresh.load_state_dict({k: genesis.tensor(v.numpy()) for k, v in sd.items()})
        tm.load_state_dict(sd)
        fresh.to(device)
        compare(
            lambda m, *a: (fresh if m is genesis else tm)(*a), [first, *rest], device, "float32"
        )


def test_module_reprs_and_signatures():
    import inspect

    for name in genesis.nn.modules.loss.__all__:
        g_cls, t_cls = getattr(genesis.nn, name), getattr(torch.nn, name)
        g_sig, t_sig = inspect.signature(g_cls.__init__), inspect.signature(t_cls.__init__)
        assert [(p.name, p.kind, p.default) for p in g_sig.parameters.values()] == [
            (p.name, p.kind, p.default) for p in t_sig.parameters.values()
        ], name
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert repr(g_cls()) == repr(t_cls()), name
    w = genesis.ones(3)
    m = genesis.nn.CrossEntropyLoss(weight=w, label_smoothing=0.1)
    assert m.weight is w and m.label_smoothing == 0.1 and m.reduction == "mean"
    assert list(m.state_dict()) == ["weight"]
    with pytest.warns(UserWarning):
        assert genesis.nn.NLLLoss(size_average=False).reduction == "sum"
    with pytest.warns(UserWarning):
        assert genesis.nn.MSELoss(reduce=False).reduction == "none"
    m = genesis.nn.BCEWithLogitsLoss(pos_weight=genesis.ones(3)).double()
    assert m.pos_weight.dtype is genesis.float64 and m.weight is None
    assert isinstance(m, genesis.nn.Module)


def test_functional_signatures_match_torch():
    import inspect

    import torch.nn.functional as TF

    for name in genesis.nn.functional._loss.__all__:
        g_sig = inspect.signature(getattr(genesis.nn.functional, name))
        t_sig = inspect.signature(getattr(TF, name))
        assert [(p.name, p.kind, p.default) for p in g_sig.parameters.values()] == [
            (p.name, p.kind, p.default) for p in t_sig.parameters.values()
        ], name


def test_module_errors():
    with pytest.raises(TypeError, match=r"^\[HuberLoss\]"):
        genesis.nn.HuberLoss(delta="1")
    with pytest.raises(ValueError, match=r"^\[MultiMarginLoss\]"):
        genesis.nn.MultiMarginLoss(p=3)
    with pytest.raises(ValueError, match=r"^\[MultiMarginLoss\]"):
        genesis.nn.MultiMarginLoss(weight=genesis.ones(2, 2))
    with pytest.raises(ValueError, match=r"^\[TripletMarginLoss\]"):
        genesis.nn.TripletMarginLoss(margin=0)
    with pytest.warns(FutureWarning):
        genesis.nn.NLLLoss2d()


# ----------------------------------------------------------------------------------------------
# Bad input
# ----------------------------------------------------------------------------------------------


def _bad_cases():
    f = genesis.nn.functional
    x, p, y = genesis.randn(4, 10), genesis.rand(4, 10), genesis.tensor([0, 1, 2, 3])
    rn, ones = genesis.randn, genesis.ones

    def ix(*shape):
        return genesis.zeros(*shape, dtype=genesis.int64)

    cases = {
        "cross_entropy": [
            ("batch", ValueError, lambda: f.cross_entropy(x, ix(5))),
            ("2d_target", RuntimeError, lambda: f.cross_entropy(x, ix(4, 2))),
            ("spatial", RuntimeError, lambda: f.cross_entropy(rn(2, 3, 4, 5), ix(2, 4, 6))),
            ("spatial_ndim", RuntimeError, lambda: f.cross_entropy(rn(2, 3, 4, 5), ix(2, 4))),
            ("unbatched_target", ValueError, lambda: f.cross_entropy(rn(10), ix(2))),
            ("0d", ValueError, lambda: f.cross_entropy(rn(()), ix(()))),
            ("int32_target", RuntimeError, lambda: f.cross_entropy(x, y.int())),
            ("float_indices", RuntimeError, lambda: f.cross_entropy(x, y.float())),
            ("int_probs", RuntimeError, lambda: f.cross_entropy(x, ix(4, 10))),
            ("probs_ignore", RuntimeError, lambda: f.cross_entropy(x, p, ignore_index=1)),
            ("smoothing", RuntimeError, lambda: f.cross_entropy(x, y, label_smoothing=1.5)),
            ("probs_smoothing", RuntimeError, lambda: f.cross_entropy(x, p, label_smoothing=2)),
            ("weight_size", RuntimeError, lambda: f.cross_entropy(x, y, ones(3))),
            ("weight_2d", RuntimeError, lambda: f.cross_entropy(x, y, ones(2, 5))),
            ("weight_dtype", RuntimeError, lambda: f.cross_entropy(x, y, ones(10).double())),
            ("int_input", TypeError, lambda: f.cross_entropy(y.view(2, 2), ix(2))),
            ("list_target", TypeError, lambda: f.cross_entropy(x, [0, 1, 2, 3])),
            ("list_weight", TypeError, lambda: f.cross_entropy(x, y, [1.0] * 10)),
        ],
        "nll_loss": [
            ("0d", ValueError, lambda: f.nll_loss(rn(()), ix(()))),
            ("batch", ValueError, lambda: f.nll_loss(x, ix(5))),
            ("3d", RuntimeError, lambda: f.nll_loss(rn(2, 3, 4), ix(2, 5))),
        ],
        "binary_cross_entropy": [
            ("shape", ValueError, lambda: f.binary_cross_entropy(p[:, 0], p[:, :1])),
            ("dtype", RuntimeError, lambda: f.binary_cross_entropy(p, p.double())),
            ("weight", RuntimeError, lambda: f.binary_cross_entropy(p, p, ones(4))),
            ("int", TypeError, lambda: f.binary_cross_entropy(y, y)),
            ("range", RuntimeError, lambda: f.binary_cross_entropy(p + 1, p)),  # the CPU's check
            ("target_range", RuntimeError, lambda: f.binary_cross_entropy(p, -p)),
        ],
        "binary_cross_entropy_with_logits": [
            ("shape", ValueError, lambda: f.binary_cross_entropy_with_logits(x, p[:, :1])),
            ("pos_weight", RuntimeError,
             lambda: f.binary_cross_entropy_with_logits(x, p, pos_weight=ones(4))),
            ("weight_grows", RuntimeError,
             lambda: f.binary_cross_entropy_with_logits(x, p, weight=ones(2, 4, 10))),
        ],
        "mse_loss": [
            ("broadcast", RuntimeError, lambda: f.mse_loss(genesis.zeros(3), genesis.zeros(4))),
            ("int", TypeError, lambda: f.mse_loss(y, y)),
            ("weight", ValueError, lambda: f.mse_loss(x, x, weight=ones(10))),
            ("list", TypeError, lambda: f.mse_loss([1.0], x)),
        ],
        "l1_loss": [("weight", ValueError, lambda: f.l1_loss(x, x, weight=ones(1)))],
        "smooth_l1_loss": [("beta", RuntimeError, lambda: f.smooth_l1_loss(x, x, beta=-1.0))],
        "huber_loss": [
            ("weight", ValueError, lambda: f.huber_loss(x, x, weight=ones(10))),
            ("delta", RuntimeError, lambda: f.huber_loss(x, x, delta=0.0)),
        ],
        "gaussian_nll_loss": [
            ("neg_var", ValueError, lambda: f.gaussian_nll_loss(x, x, -1.0)),
            ("neg_var_tensor", ValueError, lambda: f.gaussian_nll_loss(x, x, -ones(4, 10))),
            ("var_size", ValueError, lambda: f.gaussian_nll_loss(x, x, ones(10))),
            ("var_dims", ValueError, lambda: f.gaussian_nll_loss(x, x, ones(2, 5))),
        ],
        "kl_div": [("broadcast", RuntimeError, lambda: f.kl_div(x, ones(3)))],
        "poisson_nll_loss": [("broadcast", RuntimeError, lambda: f.poisson_nll_loss(x, ones(3)))],
        "soft_margin_loss": [
            ("grows", RuntimeError, lambda: f.soft_margin_loss(genesis.zeros(3, 1), ones(3))),
        ],
        "hinge_embedding_loss": [
            ("broadcast", RuntimeError, lambda: f.hinge_embedding_loss(x, ones(3))),
        ],
        "cosine_embedding_loss": [
            ("target_2d", RuntimeError, lambda: f.cosine_embedding_loss(x, x, ones(4, 1))),
            ("dims", RuntimeError, lambda: f.cosine_embedding_loss(x, x, ones(()))),
        ],
        "margin_ranking_loss": [
            ("dims", RuntimeError, lambda: f.margin_ranking_loss(p[0], p[0], ones(()))),
            ("broadcast", RuntimeError, lambda: f.margin_ranking_loss(p[0], p[0], ones(3))),
        ],
        "triplet_margin_loss": [
            ("margin", ValueError, lambda: f.triplet_margin_loss(x, x, x, margin=0.0)),
            ("dims", RuntimeError, lambda: f.triplet_margin_loss(x, x, x[0])),
        ],
        "multi_margin_loss": [
            ("p", ValueError, lambda: f.multi_margin_loss(x, y, p=3)),
            ("weight_2d", ValueError, lambda: f.multi_margin_loss(x, y, weight=ones(2, 5))),
            ("weight_size", RuntimeError, lambda: f.multi_margin_loss(x, y, weight=ones(3))),
            ("target", RuntimeError, lambda: f.multi_margin_loss(x, y[:3])),
            ("3d", RuntimeError, lambda: f.multi_margin_loss(rn(2, 3, 4), ix(2, 3))),
            ("no_classes", RuntimeError, lambda: f.multi_margin_loss(rn(3, 0), ix(3))),
            ("int32", RuntimeError, lambda: f.multi_margin_loss(x, y.int())),
        ],
        "multilabel_margin_loss": [
            ("shape", RuntimeError, lambda: f.multilabel_margin_loss(x, ix(4, 9))),
            ("3d", RuntimeError, lambda: f.multilabel_margin_loss(rn(2, 3, 4), ix(2, 3, 4))),
        ],
        "multilabel_soft_margin_loss": [
            ("0d", IndexError, lambda: f.multilabel_soft_margin_loss(rn(()), rn(()))),
        ],
    }  # fmt: skip
    return [(f"{op}-{case}", cls, op, call) for op, rows in cases.items()
            for case, cls, call in rows]  # fmt: skip


BAD = _bad_cases()


@pytest.mark.parametrize("case", BAD, ids=[c[0] for c in BAD])
def test_bad_input(case):
    _, cls, name, call = case
    with warnings.catch_warnings(), raises(cls, name):
        warnings.simplefilter("ignore")  # mse_loss warns about the shapes before it raises
        call()


OUT_OF_RANGE = [
    ("cross_entropy", lambda f, x, y: f.cross_entropy(x, y)),
    ("cross_entropy_smoothing", lambda f, x, y: f.cross_entropy(x, y, label_smoothing=0.1)),
    ("nll_loss", lambda f, x, y: f.nll_loss(x, y)),
    ("nll_loss_weight", lambda f, x, y: f.nll_loss(x, y, genesis.ones(5, device=x.device))),
    ("multi_margin_loss", lambda f, x, y: f.multi_margin_loss(x, y)),
]


@pytest.mark.parametrize("value", [5, 17, -1, -7])
@pytest.mark.parametrize("case", OUT_OF_RANGE, ids=[c[0] for c in OUT_OF_RANGE])
def test_out_of_range_targets_raise_index_error(case, value, device):
    name, call = case
    x = genesis.randn(3, 5, device=device)
    y = genesis.tensor([0, value, 2], device=device)
    with raises_index_error(match="out of bounds") as info:
        call(genesis.nn.functional, x, y)
    if device == "cpu" or not HAS_CUDA:
        op = name.split("_smoothing")[0].split("_weight")[0]
        assert str(info.value).startswith(f"[{op}] target {value} ")


def test_out_of_range_multilabel_targets(device):
    x = genesis.randn(2, 4, device=device)
    for bad in ([[4, 0, -1, 1], [0, 1, 2, 3]], [[-2, 0, -1, 1], [0, 1, 2, 3]],
                [[0, -1, 9, 1], [0, 1, 2, 3]]):  # fmt: skip
        with raises_index_error(match="out of bounds"):
            genesis.nn.functional.multilabel_margin_loss(x, genesis.tensor(bad, device=device))


def test_ignored_targets_may_be_out_of_range(device):
    args = [G(randn(rng_of(1), 4, 5)), np.array([0, 30, 2, 30])]
    compare(
        lambda m, x, y: F(m).cross_entropy(x, y, ignore_index=30, reduction="none"), args, device
    )


@requires_cuda
def test_device_mismatch():
    f = genesis.nn.functional
    x = genesis.randn(3, 5, device="cuda")
    with raises(RuntimeError, "cross_entropy"):
        f.cross_entropy(x, genesis.tensor([0, 1, 2]))
    with raises(RuntimeError, "nll_loss"):
        f.nll_loss(x, genesis.tensor([0, 1, 2], device="cuda"), genesis.ones(5))
    with raises(RuntimeError, "cross_entropy"):
        f.cross_entropy(x, genesis.rand(3, 5))


@pytest.mark.parametrize("swap", [False, True])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_triplet_margin_with_distance_loss_matches_torch(swap, reduction, device):
    arrays = [np.random.default_rng(31).normal(size=(4, 3)) + i for i in range(3)]

    def l1(x, y):
        return (x - y).abs().sum(-1)

    for fn in (None, l1):
        check_grads(
            lambda m, a, p, n, fn=fn: m.nn.functional.triplet_margin_with_distance_loss(
                a, p, n, distance_function=fn, swap=swap, reduction=reduction, margin=1.5
            ),
            arrays,
            device,
        )
    assert repr(genesis.nn.TripletMarginWithDistanceLoss(margin=2.0)) == repr(
        torch.nn.TripletMarginWithDistanceLoss(margin=2.0)
    )
    with pytest.raises(ValueError, match=r"\[triplet_margin_with_distance_loss\] margin"):
        genesis.nn.functional.triplet_margin_with_distance_loss(
            *[genesis.tensor(a) for a in arrays], margin=0.0
        )


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize(
    "input_dtype, target_dtype",
    [("bfloat16", "float32"), ("float32", "float64"), ("float16", "bfloat16")],
)
def test_soft_margin_loss_keeps_the_input_dtype(input_dtype, target_dtype, reduction, device):
    """PyTorch writes the elementwise loss in the input's dtype, whatever the target's."""
    rng = np.random.default_rng(5)
    x, y = rng.normal(size=(3, 4)), np.sign(rng.normal(size=(3, 4)))
    tx = torch.tensor(x).to(getattr(torch, input_dtype))
    ty = torch.tensor(y).to(getattr(torch, target_dtype))
    gx = genesis.tensor(x).to(device=device, dtype=getattr(genesis, input_dtype))
    gy = genesis.tensor(y).to(device=device, dtype=getattr(genesis, target_dtype))
    want = torch.nn.functional.soft_margin_loss(tx, ty, reduction=reduction)
    got = genesis.nn.functional.soft_margin_loss(gx, gy, reduction=reduction)
    assert got.dtype == getattr(genesis, input_dtype) and str(want.dtype) == f"torch.{input_dtype}"
    np.testing.assert_allclose(
        to_numpy(got.float().cpu()), want.float().numpy(), rtol=2e-2, atol=1e-2
    )
