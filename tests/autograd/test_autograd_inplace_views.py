"""In-place ops under autograd against PyTorch: writes into views of non-leaves (the root's
history rebased through CopySlices, views of views, other views of the same root taking the new
history when next used), item assignment x[key] = v into non-leaves and into tensors that do not
require grad (which then join the graph), the in-place index family on non-leaves, and the
errors for leaves and views of leaves. Each case runs fn(lib, x, w) on genesis and on torch
(float64, CPU and CUDA) with check_grads of test_autograd.py; double backward where it applies.
"""

import numpy as np
import pytest
from test_autograd import check_grads, grads_both, leaf, rand, tleaf

import genesis

torch = pytest.importorskip("torch")


def _view_mul(m, x, w):
    h = x * 1.5
    h[:, 1].mul_(w[:, 0])
    return h


def _view_of_view(m, x, w):
    h = x * 1.5
    row = h[0]
    row[1:].add_(w[1, 1:])
    return h * w


def _transposed_view(m, x, w):
    h = x * 1.5
    h.t()[1].sin_()
    return h.exp()


def _view_then_base_read(m, x, w):
    h = x * 2
    v = h.narrow(1, 0, 2)
    v.mul_(w[:, :2])
    return h.sum(1) + v.sum(1)


def _stale_sibling_view(m, x, w):
    h = x * 2
    a, b = h[0], h[:, 0]  # overlapping views: b is made before a is written
    a.mul_(w[0])
    return b * 3 + h.sum(0)[0]


def _base_written_after_view(m, x, w):
    h = x * 2
    v = h[1]
    h.mul_(w)  # the root itself: v takes the new history when used
    return v * v


def _reshaped_view(m, x, w):
    h = x + 0
    h.view(-1)[::2].mul_(w.reshape(-1)[::2])
    return h


def _setitem_tensor(m, x, w):
    h = x * 2
    h[:, 1] = w[:, 0]
    return h


def _setitem_number(m, x, w):
    h = x * w
    h[0, 0] = 7.0
    return h


def _setitem_mask(m, x, w):
    h = x * w
    h[h > 0.5] = 0.0
    return h


def _setitem_index_tensor(m, x, w):
    h = x * 1.0
    h[m.tensor([0, 2], device=x.device)] = w[:2] * 2
    return h


def _setitem_broadcast(m, x, w):
    h = x * 1.0
    h[1:] = w[0]
    return h


def _setitem_into_zeros(m, x, w):
    z = m.zeros(3, 4, dtype=m.float64, device=x.device)
    z[1] = x[0] * w[0]
    z[2, :2] = x[1, :2]
    return z


def _masked_fill_(m, x, w):
    h = x * w
    h.masked_fill_(x > 0, 0.25)
    return h


def _index_add_(m, x, w):
    h = x * 1.0
    h.index_add_(0, m.tensor([2, 0, 2], device=x.device), w)
    return h


def _scatter_(m, x, w):
    h = x * 1.0
    idx = m.tensor([[0, 1, 2, 0]], device=x.device)
    h.scatter_(0, idx, w[:1])
    return h


def _scatter_add_(m, x, w):
    h = x * 1.0
    idx = m.tensor([[0, 1, 2, 0], [2, 2, 1, 0]], device=x.device)
    h.scatter_add_(0, idx, w[:2])
    return h


def _index_fill_view(m, x, w):
    h = x * w
    h[1:].index_fill_(1, m.tensor([0, 3], device=x.device), -1.0)
    return h


def _lerp_(m, x, w):
    h = x * 1.0
    h.lerp_(w, 0.3)
    return h


def _addcmul_(m, x, w):
    h = x * 1.0
    h[0].addcmul_(w[1], w[2], value=0.5)
    return h


CASES = [
    ("view_mul", _view_mul),
    ("view_of_view", _view_of_view),
    ("transposed_view", _transposed_view),
    ("view_then_base_read", _view_then_base_read),
    ("stale_sibling_view", _stale_sibling_view),
    ("base_written_after_view", _base_written_after_view),
    ("reshaped_view", _reshaped_view),
    ("setitem_tensor", _setitem_tensor),
    ("setitem_number", _setitem_number),
    ("setitem_mask", _setitem_mask),
    ("setitem_index_tensor", _setitem_index_tensor),
    ("setitem_broadcast", _setitem_broadcast),
    ("setitem_into_zeros", _setitem_into_zeros),
    ("masked_fill_", _masked_fill_),
    ("index_add_", _index_add_),
    ("scatter_", _scatter_),
    ("scatter_add_", _scatter_add_),
    ("index_fill_view", _index_fill_view),
    ("lerp_", _lerp_),
    ("addcmul_on_view", _addcmul_),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_inplace_matches_torch(case, device):
    _, fn = case
    check_grads(fn, [rand((3, 4), 40), rand((3, 4), 41)], device)


@pytest.mark.parametrize(
    "case", [c for c in CASES if c[0] in ("view_mul", "view_of_view", "setitem_tensor")]
)
def test_inplace_double_backward(case, device):
    _, fn = case
    grads_both(lambda m, x, w: fn(m, x, w) ** 2, [rand((3, 4), 42), rand((3, 4), 43)], device)


def test_view_grad_fn_is_renewed(device):
    x = leaf(rand((3, 4), 44), device)
    h = x * 2
    v = h[0]
    v.add_(1.0)
    assert h.grad_fn.name() == "CopySlices"
    assert v.grad_fn is not None and v.requires_grad and not v.is_leaf
    assert h._version == v._version


def test_setitem_makes_a_tensor_join_the_graph(device):
    x = leaf(rand((4,), 45), device)
    z = genesis.zeros(2, 4, dtype=genesis.float64, device=device)
    assert not z.requires_grad
    z[1] = x
    assert z.requires_grad and not z.is_leaf
    (z * 3).sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), np.full(4, 3.0))


@pytest.mark.parametrize(
    "op",
    [
        lambda x: x[0].add_(1.0),
        lambda x: x.t()[1].mul_(2.0),
        lambda x: x.view(-1)[:3].zero_(),
        lambda x: x[0].__setitem__(1, 5.0),
    ],
    ids=["add_", "mul_", "zero_", "setitem"],
)
def test_inplace_on_a_view_of_a_leaf_raises(op, device):
    x = leaf(rand((3, 4), 46), device)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        op(x)
    tx = tleaf(rand((3, 4), 46))
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        op(tx)


def test_inplace_on_a_view_under_no_grad_runs(device):
    x = leaf(rand((3, 4), 47), device)
    with genesis.no_grad():
        x[0].mul_(0.0)
        x[1] = 2.0
    assert x.is_leaf and x.grad_fn is None
    assert float(x[0].abs().sum().item()) == 0.0 and float(x[1].sum().item()) == 8.0


def test_written_saved_output_raises_at_backward(device):
    """exp saves its output; a write through a view of it is caught as in PyTorch."""
    x = leaf(rand((3, 4), 49), device)
    h = x.exp()
    h.t()[1].sin_()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        h.sum().backward()


def test_saved_view_written_raises_at_backward(device):
    x = leaf(rand((3, 4), 48), device)
    h = x * 2
    v = h[0]
    y = v.sin()  # saves v
    h[0, 1] = 3.0
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


@pytest.mark.parametrize(
    "write",
    [
        lambda v: v.mul_(2.0),
        lambda v: v.__setitem__(0, 1.0),
        lambda v: v[0:1].add_(1.0),  # a view of the view, made with grad mode on
        lambda v: v.copy_(v * 0.0),
    ],
    ids=["mul_", "setitem", "view_of_view", "copy_"],
)
def test_in_place_on_a_view_made_under_no_grad_raises(write, device):
    """As PyTorch: the view is not recorded, so writing it with grad mode on would leave the
    base's history wrong; under no_grad the write is fine."""
    for lib in (genesis, torch):
        x = lib.tensor(np.ones((2, 3)), device=device if lib is genesis else "cpu")
        x.requires_grad_()
        y = x * 1.0
        with lib.no_grad():
            v = y[0]
        # genesis: outside the graph; torch: a leaf that requires grad but passes nothing on
        assert v.requires_grad == (lib is torch) and v.grad_fn is None
        with pytest.raises(
            RuntimeError, match="created in no_grad mode and is being modified inplace"
        ):
            write(v)
        with lib.no_grad():
            write(v)  # allowed: nothing is recorded
    plain = genesis.ones(3, device=device)  # a base outside any graph: no restriction
    with genesis.no_grad():
        w = plain[:2]
    w.add_(1.0)
    assert plain.tolist() == [2.0, 2.0, 1.0]
