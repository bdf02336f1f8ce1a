"""genesis.nn.functional.ctc_loss and genesis.nn.CTCLoss against torch's (CPU).

Each case runs both on the same NumPy log-probabilities and targets and compares the loss and
the gradient w.r.t. log_probs after backpropagating the same random gradient (NaN and inf where
torch has them): every reduction, padded and concatenated targets, unbatched input, lengths as
tuples, lists and tensors, input lengths shorter than T, empty targets, repeated labels,
impossible alignments with and without zero_infinity, blank != 0, float32 and float64. Then:
gradcheck through log_softmax in float64 (the gradient is PyTorch's closed form, the logits'
gradient: Note [CTC as two recursions]), the module, the signatures, and bad input (the class
torch raises and the "[ctc_loss]" prefix).
"""

import inspect

import numpy as np
import pytest
from conftest import HAS_CUDA, raises_index_error, to_numpy

import genesis
import genesis.nn.functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional

REDUCTIONS = ["none", "mean", "sum"]
TOL = {"float64": (1e-9, 1e-10), "float32": (1e-4, 1e-5)}


# ----------------------------------------------------------------------------------------------
# Helpers
# ----------------------------------------------------------------------------------------------


def log_probs(rng, t, n, c, unbatched=False):
    """Normalized log-probabilities (T, N, C), or (T, C)."""
    x = rng.standard_normal((t, c) if unbatched else (t, n, c)) * 2
    return x - np.log(np.exp(x).sum(-1, keepdims=True))


def padded(rng, n, s, c, blank=0):
    """(N, S) labels in [0, C) other than blank."""
    labels = rng.integers(0, c - 1, size=(n, s))
    labels = labels + (labels >= blank)  # skip the blank
    return labels.astype(np.int64)


def concatenated(rows, lengths):
    return np.concatenate([r[:k] for r, k in zip(rows, lengths)]).astype(np.int64)


def _np(t):
    if isinstance(t, genesis.Tensor):
        return to_numpy(t.detach().to(genesis.float64))
    return t.detach().double().numpy()


def _lengths(lib, values, form, device):
    if form == "tuple":
        return tuple(values)
    if form == "list":
        return list(values)
    dtype = {"tensor": "int64", "tensor32": "int32"}[form]
    if lib is genesis:
        return genesis.tensor(np.array(values), device=device).to(getattr(genesis, dtype))
    return torch.tensor(np.array(values)).to(getattr(torch, dtype))


def compare(lp, targets, il, tl, device, dtype="float64", lengths="tuple", seed=3, **kwargs):
    """Runs ctc_loss on genesis and torch; compares the losses and the gradients of
    log_probs. Returns the genesis loss."""
    rtol, atol = TOL[dtype]
    g_lp = genesis.tensor(lp, device=device).to(getattr(genesis, dtype)).requires_grad_()
    t_lp = torch.tensor(lp).to(getattr(torch, dtype)).requires_grad_()
    g_out = F.ctc_loss(
        g_lp,
        genesis.tensor(targets, device=device),
        _lengths(genesis, il, lengths, device),
        _lengths(genesis, tl, lengths, device),
        **kwargs,
    )
    t_out = TF.ctc_loss(
        t_lp,
        torch.tensor(targets),
        _lengths(torch, il, lengths, device),
        _lengths(torch, tl, lengths, device),
        **kwargs,
    )
    assert tuple(g_out.shape) == tuple(t_out.shape)
    assert g_out.dtype == getattr(genesis, dtype)
    assert str(g_out.device).startswith(device)
    np.testing.assert_allclose(_np(g_out), _np(t_out), rtol=rtol, atol=atol)
    v = np.asarray(np.random.default_rng(seed).uniform(0.5, 2.0, tuple(t_out.shape)))
    t_out.backward(torch.tensor(v).to(t_out.dtype))
    g_out.backward(genesis.tensor(v, device=device).to(g_out.dtype))
    assert g_lp.grad is not None and str(g_lp.grad.device).startswith(device)
    np.testing.assert_allclose(_np(g_lp.grad), _np(t_lp.grad), rtol=rtol, atol=atol)
    return g_out


def raises(cls):
    """pytest.raises(cls) whose message starts with "[ctc_loss]"."""
    return pytest.raises(cls, match=r"^\[ctc_loss\]")


# ----------------------------------------------------------------------------------------------
# Against torch
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_padded_targets(reduction, dtype, device):
    rng = np.random.default_rng(0)
    t, n, c, s = 12, 5, 6, 4
    lp = log_probs(rng, t, n, c)
    targets = padded(rng, n, s, c)
    targets[1, 1] = targets[1, 0]  # a repeated label
    il, tl = [12, 9, 12, 7, 10], [4, 2, 0, 3, 1]
    compare(lp, targets, il, tl, device, dtype, reduction=reduction)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_concatenated_targets(reduction, dtype, device):
    rng = np.random.default_rng(1)
    t, n, c, s = 10, 4, 5, 4
    lp = log_probs(rng, t, n, c)
    rows = padded(rng, n, s, c)
    il, tl = [10, 6, 8, 10], [3, 4, 1, 0]
    compare(lp, concatenated(rows, tl), il, tl, device, dtype, reduction=reduction)


@pytest.mark.parametrize("form", ["tuple", "list", "tensor", "tensor32"])
def test_lengths_forms(form, device):
    rng = np.random.default_rng(2)
    lp = log_probs(rng, 7, 3, 4)
    targets = padded(rng, 3, 3, 4)
    compare(lp, targets, [7, 5, 6], [3, 2, 1], device, lengths=form, reduction="none")


@pytest.mark.parametrize("targets_2d", [False, True])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_unbatched(reduction, targets_2d, device):
    rng = np.random.default_rng(3)
    lp = log_probs(rng, 9, 1, 5, unbatched=True)
    targets = padded(rng, 1, 3, 5)
    out = compare(lp, targets if targets_2d else targets[0], [8], [3], device, reduction=reduction)
    assert out.ndim == 0


def test_unbatched_zero_dim_lengths(device):
    rng = np.random.default_rng(4)
    lp = genesis.tensor(log_probs(rng, 6, 1, 4, unbatched=True), device=device)
    target = genesis.tensor([1, 3], device=device)
    il, tl = genesis.tensor(6, device=device), genesis.tensor(2, device=device)
    got = F.ctc_loss(lp, target, il, tl, reduction="none")
    want = TF.ctc_loss(
        torch.tensor(to_numpy(lp)), torch.tensor([1, 3]), torch.tensor(6), torch.tensor(2),
        reduction="none",
    )  # fmt: skip
    np.testing.assert_allclose(_np(got), _np(want), rtol=1e-6)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_repeated_labels(reduction, device):
    rng = np.random.default_rng(5)
    lp = log_probs(rng, 8, 4, 3)
    # Equal neighbours need a blank between them (no skip): [1, 1, 1] needs 5 frames.
    targets = np.array([[1, 1, 1, 2], [2, 2, 1, 1], [1, 2, 1, 2], [2, 2, 2, 2]])
    compare(lp, targets, [8, 7, 8, 7], [3, 4, 4, 4], device, reduction=reduction)


@pytest.mark.parametrize("zero_infinity", [False, True])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_impossible_alignments(reduction, zero_infinity, device):
    rng = np.random.default_rng(6)
    lp = log_probs(rng, 6, 5, 4)
    targets = np.array([[1, 2, 3, 1], [1, 1, 1, 0], [2, 3, 0, 0], [1, 2, 3, 1], [3, 0, 0, 0]])
    # Too long for its frames; [1, 1, 1] in 4 frames; fits; 4 labels in 4 frames; no frames.
    il, tl = [3, 4, 6, 4, 0], [4, 3, 2, 4, 1]
    out = compare(lp, targets, il, tl, device, reduction=reduction, zero_infinity=zero_infinity)
    if reduction == "none":
        got = _np(out)
        impossible = 0.0 if zero_infinity else np.inf
        assert got[[0, 1, 4]].tolist() == [impossible] * 3 and np.isfinite(got[[2, 3]]).all()


def test_no_frames(device):
    rng = np.random.default_rng(7)
    lp = log_probs(rng, 4, 3, 3)
    targets = np.array([[1, 2], [1, 2], [2, 1]])
    out = compare(lp, targets, [0, 0, 4], [0, 1, 2], device, reduction="none")
    got = _np(out)
    assert got[0] == 0.0 and got[1] == np.inf


@pytest.mark.parametrize("blank", [2, 4])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_blank_not_zero(reduction, blank, device):
    rng = np.random.default_rng(8)
    lp = log_probs(rng, 9, 3, 5)
    targets = padded(rng, 3, 4, 5, blank=blank)
    il, tl = [9, 8, 9], [4, 2, 3]
    compare(lp, targets, il, tl, device, reduction=reduction, blank=blank)
    compare(lp, concatenated(targets, tl), il, tl, device, "float32", blank=blank)


def test_padding_is_never_read(device):
    rng = np.random.default_rng(9)
    lp = log_probs(rng, 6, 3, 4)
    targets = np.array([[1, 2, -1, -1], [3, 99, 99, 99], [0, 0, 0, 0]])  # past each length
    compare(lp, targets, [6, 6, 5], [2, 1, 0], device, reduction="none")


def test_targets_may_be_the_blank(device):
    # A label equal to the blank is computed as any label. torch's loss agrees; its gradient
    # does not at the last frame of a target that ends in the blank (its CPU kernel assigns
    # that frame's two final states to the same class instead of adding them), so the
    # gradient is checked numerically instead.
    rng = np.random.default_rng(10)
    x = rng.standard_normal((7, 2, 3))
    targets = np.array([[0, 1, 0], [2, 0, 0]])
    il, tl = (7, 6), (3, 3)
    g_targets = genesis.tensor(targets, device=device)
    g_x = genesis.tensor(x, device=device, requires_grad=True)
    got = F.ctc_loss(g_x.log_softmax(2), g_targets, il, tl, reduction="none")
    t_lp = torch.tensor(x).log_softmax(2)
    want = TF.ctc_loss(t_lp, torch.tensor(targets), il, tl, reduction="none")
    np.testing.assert_allclose(_np(got), _np(want), rtol=1e-9)
    assert genesis.autograd.gradcheck(
        lambda x: F.ctc_loss(x.log_softmax(2), g_targets, il, tl, reduction="none"), (g_x,)
    )


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_larger_batch(dtype, device):
    rng = np.random.default_rng(11)
    t, n, c, s = 60, 8, 20, 12
    lp = log_probs(rng, t, n, c)
    targets = padded(rng, n, s, c)
    targets[:, 4] = targets[:, 3]  # repeats in every row
    il = rng.integers(40, t + 1, n).tolist()
    tl = rng.integers(0, s + 1, n).tolist()
    for reduction in REDUCTIONS:
        compare(lp, targets, il, tl, device, dtype, reduction=reduction)


def test_non_contiguous_log_probs(device):
    # The usual call: logits (N, T, C), log_softmax, then transposed to (T, N, C).
    rng = np.random.default_rng(12)
    x = rng.standard_normal((3, 8, 5))
    targets = padded(rng, 3, 3, 5)
    g_x = genesis.tensor(x, device=device).requires_grad_()
    t_x = torch.tensor(x).requires_grad_()
    il, tl = (8, 7, 8), (3, 2, 3)
    g = F.ctc_loss(
        g_x.log_softmax(2).transpose(0, 1), genesis.tensor(targets, device=device), il, tl
    )
    t = TF.ctc_loss(t_x.log_softmax(2).transpose(0, 1), torch.tensor(targets), il, tl)
    g.backward()
    t.backward()
    np.testing.assert_allclose(_np(g), _np(t), rtol=1e-9)
    np.testing.assert_allclose(_np(g_x.grad), _np(t_x.grad), rtol=1e-8, atol=1e-10)


def test_targets_and_lengths_on_the_cpu(device):
    rng = np.random.default_rng(13)
    lp = genesis.tensor(log_probs(rng, 5, 2, 4), device=device)
    targets = genesis.tensor([[1, 2], [3, 3]])
    il, tl = genesis.tensor([5, 5]), genesis.tensor([2, 2])
    got = F.ctc_loss(lp, targets, il, tl, reduction="none")
    want = TF.ctc_loss(
        torch.tensor(to_numpy(lp)), torch.tensor([[1, 2], [3, 3]]), (5, 5), (2, 2),
        reduction="none",
    )  # fmt: skip
    assert str(got.device).startswith(device)
    np.testing.assert_allclose(_np(got), _np(want), rtol=1e-6)


def test_input_that_needs_no_grad(device):
    rng = np.random.default_rng(14)
    lp = genesis.tensor(log_probs(rng, 5, 2, 4), device=device)
    out = F.ctc_loss(lp, genesis.tensor([[1, 2], [3, 3]], device=device), (5, 4), (2, 2))
    assert not out.requires_grad


# ----------------------------------------------------------------------------------------------
# The gradient: gradcheck through log_softmax (PyTorch's gradient is the logits')
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_gradcheck(reduction, device):
    rng = np.random.default_rng(15)
    x = genesis.tensor(rng.standard_normal((6, 3, 4)), device=device, requires_grad=True)
    targets = genesis.tensor([[1, 1, 2], [3, 2, 0], [2, 0, 0]], device=device)
    il, tl = (6, 5, 4), (3, 2, 0)

    def fn(x):
        return F.ctc_loss(x.log_softmax(2), targets, il, tl, reduction=reduction)

    assert genesis.autograd.gradcheck(fn, (x,))


def test_gradcheck_blank_zero_infinity_concatenated(device):
    rng = np.random.default_rng(16)
    x = genesis.tensor(rng.standard_normal((5, 3, 4)), device=device, requires_grad=True)
    targets = genesis.tensor([0, 1, 0, 2, 2, 1, 1, 1], device=device)
    il, tl = (5, 4, 5), (2, 3, 3)  # the second needs 5 frames: infinite, zeroed

    def fn(x):
        return F.ctc_loss(
            x.log_softmax(2), targets, il, tl, blank=3, reduction="none", zero_infinity=True
        )

    assert genesis.autograd.gradcheck(fn, (x,))


def test_gradient_is_torchs_closed_form(device):
    # For a (T, N, C) leaf the gradient is exp(log_probs) - posterior, not -posterior: the
    # same as torch's, and the logits' gradient once it goes through log_softmax.
    lp = genesis.tensor(np.log(np.full((2, 1, 2), 0.5)), device=device, requires_grad=True)
    F.ctc_loss(lp, genesis.tensor([[1]], device=device), (2,), (1,), reduction="sum").backward()
    # Paths: (1, 1), (b, 1), (1, b), each 1/4; at frame 0, 1 has posterior 2/3 and b 1/3.
    want = np.array([[[0.5 - 1 / 3, 0.5 - 2 / 3]], [[0.5 - 1 / 3, 0.5 - 2 / 3]]])
    np.testing.assert_allclose(_np(lp.grad), want, atol=1e-12)


def test_no_second_derivative(device):
    # backward is once_differentiable (torch has no second derivative either).
    lp = genesis.tensor(np.log(np.full((3, 1, 3), 1 / 3)), device=device, requires_grad=True)
    loss = F.ctc_loss(lp, genesis.tensor([[1]], device=device), (3,), (1,))
    (grad,) = genesis.autograd.grad(loss, lp, create_graph=True)
    with pytest.raises(RuntimeError):
        grad.sum().backward()


# ----------------------------------------------------------------------------------------------
# The module and the signatures
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs", [{}, {"blank": 3, "reduction": "sum"}, {"reduction": "none", "zero_infinity": True}]
)
def test_module(kwargs, device):
    gm, tm = genesis.nn.CTCLoss(**kwargs), torch.nn.CTCLoss(**kwargs)
    assert repr(gm) == repr(tm) == "CTCLoss()"
    assert (gm.blank, gm.reduction, gm.zero_infinity) == (tm.blank, tm.reduction, tm.zero_infinity)
    assert not list(gm.state_dict()) and not list(gm.parameters())
    rng = np.random.default_rng(17)
    blank = kwargs.get("blank", 0)
    lp = log_probs(rng, 6, 3, 4)
    targets = padded(rng, 3, 3, 4, blank=blank)
    il, tl = (6, 2, 5), (3, 3, 2)  # the second is impossible
    g_lp = genesis.tensor(lp, device=device).requires_grad_()
    t_lp = torch.tensor(lp).requires_grad_()
    g = gm(g_lp, genesis.tensor(targets, device=device), il, tl)
    t = tm(t_lp, torch.tensor(targets), il, tl)
    np.testing.assert_allclose(_np(g), _np(t), rtol=1e-9)
    g.sum().backward()
    t.sum().backward()
    np.testing.assert_allclose(_np(g_lp.grad), _np(t_lp.grad), rtol=1e-9, atol=1e-12)


def test_signatures_match_torch():
    for g_fn, t_fn in (
        (F.ctc_loss, TF.ctc_loss),
        (genesis.nn.CTCLoss.__init__, torch.nn.CTCLoss.__init__),
        (genesis.nn.CTCLoss.forward, torch.nn.CTCLoss.forward),
    ):
        g_sig, t_sig = inspect.signature(g_fn), inspect.signature(t_fn)
        assert [(p.name, p.kind, p.default) for p in g_sig.parameters.values()] == [
            (p.name, p.kind, p.default) for p in t_sig.parameters.values()
        ]


# ----------------------------------------------------------------------------------------------
# Bad input: torch's exception class, a "[ctc_loss]" message
# ----------------------------------------------------------------------------------------------


def _bad_cases():
    lp = np.log(np.full((6, 2, 4), 0.25))
    tg = np.array([[1, 2, 3], [1, 1, 2]])
    ok = (6, 6), (3, 3)
    return [
        # (id, exception, args: log_probs, targets, input_lengths, target_lengths, kwargs)
        ("reduction", ValueError, (lp, tg, *ok, {"reduction": "avg"})),
        ("reduction_none", ValueError, (lp, tg, *ok, {"reduction": None})),
        ("blank_too_large", RuntimeError, (lp, tg, *ok, {"blank": 4})),
        ("blank_negative", RuntimeError, (lp, tg, *ok, {"blank": -1})),
        ("blank_float", TypeError, (lp, tg, *ok, {"blank": 1.0})),
        ("log_probs_1d", RuntimeError, (lp[:, 0, 0], tg, *ok, {})),
        ("log_probs_4d", RuntimeError, (lp[None], tg, *ok, {})),
        ("log_probs_empty", RuntimeError, (lp[:0], tg, (0, 0), (3, 3), {})),
        ("log_probs_int", NotImplementedError, (lp.astype(np.int64), tg, *ok, {})),
        ("targets_3d", RuntimeError, (lp, tg[None], *ok, {})),
        ("targets_batch", RuntimeError, (lp, tg[:1], *ok, {})),
        ("targets_too_short", RuntimeError, (lp, tg[:, :2], *ok, {})),
        ("concatenated_size", RuntimeError, (lp, tg.reshape(-1)[:5], *ok, {})),
        ("input_too_long", RuntimeError, (lp, tg, (7, 6), (3, 3), {})),
        ("input_negative", RuntimeError, (lp, tg, (-1, 6), (3, 3), {})),
        ("target_negative", RuntimeError, (lp, tg, (6, 6), (3, -1), {})),
        ("input_lengths_batch", RuntimeError, (lp, tg, (6,), (3, 3), {})),
        ("target_lengths_batch", RuntimeError, (lp, tg, (6, 6), (3, 3, 3), {})),
        ("lengths_float_tensor", RuntimeError, (lp, tg, "f", "f", {})),
        ("lengths_mixed", TypeError, (lp, tg, "t", (3, 3), {})),
        ("lengths_int", TypeError, (lp, tg, 6, 3, {})),
        ("lengths_float_items", TypeError, (lp, tg, (6.0, 6), (3, 3), {})),
    ]


def _convert(lib, a, which):
    if isinstance(a, np.ndarray):
        return genesis.tensor(a) if lib is genesis else torch.tensor(a)
    if a == "f":  # a float lengths tensor
        values = [6.0, 6.0] if which == "input" else [3.0, 3.0]
        return genesis.tensor(values) if lib is genesis else torch.tensor(values)
    if a == "t":
        return genesis.tensor([6, 6]) if lib is genesis else torch.tensor([6, 6])
    return a


BAD = _bad_cases()


@pytest.mark.parametrize("case", BAD, ids=[c[0] for c in BAD])
def test_bad_input(case):
    _, cls, (lp, tg, il, tl, kwargs) = case
    for lib, fn in ((torch, TF.ctc_loss), (genesis, F.ctc_loss)):
        args = [
            _convert(lib, lp, None),
            _convert(lib, tg, None),
            _convert(lib, il, "input"),
            _convert(lib, tl, "target"),
        ]
        with raises(cls) if lib is genesis else pytest.raises(cls):
            fn(*args, **kwargs)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_16_bit_floats_are_not_implemented(dtype, device):
    # torch has no 16-bit CTC kernels on the CPU either.
    lp = genesis.full((4, 1, 3), -1.0, dtype=getattr(genesis, dtype), device=device)
    with raises(NotImplementedError):
        F.ctc_loss(lp, genesis.tensor([[1]], device=device), (4,), (1,))
    with pytest.raises(NotImplementedError):
        TF.ctc_loss(torch.full((4, 1, 3), -1.0, dtype=getattr(torch, dtype)),
                    torch.tensor([[1]]), (4,), (1,))  # fmt: skip


@pytest.mark.parametrize("label", [4, 9, -1])
def test_targets_out_of_range_raise_index_error(label, device):
    # torch reads out of bounds here; genesis raises IndexError (on CUDA at the next sync).
    lp = genesis.full((4, 2, 4), -1.0, device=device)
    targets = genesis.tensor([[1, 2], [label, 1]], device=device)
    with raises_index_error(None if HAS_CUDA else r"^\[ctc_loss\]"):
        F.ctc_loss(lp, targets, (4, 4), (2, 2))
