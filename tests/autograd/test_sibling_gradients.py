"""Note [Sibling views] (csrc/ops/sibling_views.cpp): gradients that already lie in one buffer
laid out as a split's input are that input's gradient without a join (a cat); the split's
backward copies whenever they do not, or when anything else holds their buffer. On CUDA,
cuDNN's attention backward makes q, k and v's gradients so when q, k and v were split from one
product (a transformer's qkv)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import HAS_CUDA, to_numpy

import genesis
import genesis.nn.functional as F
from genesis import _C

C = 4


def _joined_gradient(order=(0, 1, 2), keep=None, hook_writes=False, unbind=False):
    """A split into three pieces whose gradients a Function returns as slices of one buffer
    (in `order`): the split input's gradient (seen by a hook), the buffer's address, x.grad and,
    with `keep` ("hook" or "retain_grad"), the first piece's gradient as a hook kept it or as
    retain_grad did. With `unbind`, the pieces are t.view(5, 3, C).unbind(1) instead."""
    seen = {}

    class ThreePieces(genesis.autograd.Function):
        @staticmethod
        def forward(ctx, q, k, v):
            return q * 1 + k * 2 + v * 3

        @staticmethod
        def backward(ctx, g):
            buf = genesis.empty(g.shape[0], 3 * C, dtype=g.dtype)
            for slot, scale in zip(order, (1, 2, 3)):
                buf[:, slot * C : (slot + 1) * C] = g * scale
            seen["buffer"] = buf.data_ptr()
            if unbind:
                return tuple(buf.view(-1, 3, C)[:, slot] for slot in order)
            return tuple(buf[:, slot * C : (slot + 1) * C] for slot in order)

    x = genesis.tensor(np.random.default_rng(0).standard_normal((5, 3 * C)), requires_grad=True)
    t = x * 1.0

    def hook(g):
        seen["joined"] = g.data_ptr()
        seen["values"] = to_numpy(g).copy()
        if hook_writes:
            g.mul_(0)  # a later in-place use of the joined gradient

    t.register_hook(hook)
    q, k, v = t.view(5, 3, C).unbind(1) if unbind else t.split(C, dim=1)
    kept = []
    if keep == "hook":
        q.register_hook(kept.append)
    elif keep == "retain_grad":
        q.retain_grad()
    ThreePieces.apply(q, k, v).sum().backward()
    piece = kept[0] if keep == "hook" else q.grad if keep == "retain_grad" else None
    return seen, to_numpy(x.grad), (None if piece is None else to_numpy(piece))


EXPECTED = np.repeat(np.array([[1.0, 2.0, 3.0]]), C, axis=1).repeat(5, axis=0)


def test_gradients_in_one_buffer_are_joined_as_they_lie():
    seen, x_grad, _ = _joined_gradient()
    assert seen["joined"] == seen["buffer"]  # no copy
    np.testing.assert_array_equal(seen["values"], EXPECTED)
    np.testing.assert_array_equal(x_grad, EXPECTED)


def test_unbind_gradients_in_one_buffer_are_stacked_as_they_lie():
    seen, x_grad, _ = _joined_gradient(unbind=True)
    assert seen["joined"] == seen["buffer"]
    np.testing.assert_array_equal(x_grad, EXPECTED)
    seen, x_grad, _ = _joined_gradient(unbind=True, order=(1, 0, 2))
    assert seen["joined"] != seen["buffer"]
    np.testing.assert_array_equal(x_grad, EXPECTED)


def test_gradients_out_of_order_are_copied():
    # the pieces' gradients in one buffer, but not where the split's pieces were
    seen, x_grad, _ = _joined_gradient(order=(2, 0, 1))
    assert seen["joined"] != seen["buffer"]
    np.testing.assert_array_equal(x_grad, EXPECTED)


def test_a_piece_gradient_a_hook_kept_keeps_its_own_memory():
    # the hook's list holds the buffer: the joined gradient must be a copy, or the in-place
    # write to it would change the kept tensor
    seen, _, q_grad = _joined_gradient(keep="hook", hook_writes=True)
    assert seen["joined"] != seen["buffer"]
    np.testing.assert_array_equal(q_grad, np.ones((5, C)))


def test_a_retained_piece_gradient_is_not_written_through_the_joined_one():
    # retain_grad keeps a copy (as PyTorch's does of a gradient it does not own), so the buffer
    # may still be joined as it lies
    seen, _, q_grad = _joined_gradient(keep="retain_grad", hook_writes=True)
    np.testing.assert_array_equal(q_grad, np.ones((5, C)))


def test_joined_gradient_written_in_place_gives_the_written_values():
    seen, x_grad, _ = _joined_gradient(hook_writes=True)
    assert seen["joined"] == seen["buffer"]
    np.testing.assert_array_equal(x_grad, np.zeros((5, 3 * C)))


HAS_CUDNN_ATTENTION = (
    HAS_CUDA
    and _C._nn._fused_attention_supported(genesis.zeros(1, device="cuda"))
    and _C._nn._cudnn_attention_built()
    and genesis.backends.cudnn.is_available()
)


@pytest.mark.skipif(not HAS_CUDNN_ATTENTION, reason="no cuDNN attention")
@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("layout", ["split", "split_contiguous", "same_tensor", "unbind"])
def test_attention_gradients_of_a_split_product(dtype, layout):
    # GPT-2's attention: q, k, v split from one product, as heads (or unbound from it, as a
    # vision transformer's). Split or unbound: cuDNN writes the three gradients into one buffer
    # and the split or unbind takes it whole; made contiguous first, or one tensor used three
    # times, they are separate and joined by copies. The gradients agree.
    b, t, h, d = 2, 64, 4, 32
    e = h * d
    rng = np.random.default_rng(1)
    base = rng.standard_normal((b, t, 3 * e)).astype(np.float32)
    w = genesis.tensor(rng.standard_normal((b, h, t, d)), device="cuda").float()

    def run(how):
        x = genesis.tensor(base, device="cuda").to(getattr(genesis, dtype)).requires_grad_()
        ptrs = {}
        qkv = x * 1
        qkv.register_hook(lambda g: ptrs.__setitem__("qkv", g.data_ptr()))
        if how == "same_tensor":
            q = k = v = qkv[..., :e].reshape(b, t, h, d).transpose(1, 2)
        elif how == "unbind":  # a vision transformer's
            q, k, v = qkv.reshape(b, t, 3, h, d).permute(2, 0, 3, 1, 4).unbind(0)
        else:
            q, k, v = (p.view(b, t, h, d).transpose(1, 2) for p in qkv.split(e, dim=2))
            if how == "split_contiguous":
                q, k, v = (p.contiguous() for p in (q, k, v))
        q.register_hook(lambda g: ptrs.__setitem__("q", g.data_ptr()))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        (y.float() * w).sum().backward()
        return to_numpy(x.grad.float()), ptrs

    got, ptrs = run(layout)
    if layout in ("split", "unbind"):
        assert ptrs["qkv"] == ptrs["q"]  # q's gradient starts the joined one: no copy
        want, other = run("split_contiguous")
        assert other["qkv"] != other["q"]
        np.testing.assert_allclose(got, want, rtol=2e-2, atol=2e-2)
    else:
        assert ptrs["qkv"] != ptrs["q"]
    assert np.isfinite(got).all() and np.abs(got).max() > 0
