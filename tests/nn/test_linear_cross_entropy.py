"""F.linear_cross_entropy, nn.LinearCrossEntropyLoss and nn.LinearCrossEntropyOptions against
torch 2.13's (Note [Chunked linear cross-entropy] in genesis/nn/functional/
_linear_cross_entropy.py): the loss and every gradient for each reduction, bias, class weights,
label smoothing and ignored targets, in one chunk and in many (a last short one included);
16-bit and autocast dtypes; double backward; a second backward; zero samples; the reference
path (class probabilities, K-dimensional weights); the options' chunk sizes and checks; the
module's repr and state_dict; peak memory on CUDA below the whole logits."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import HAS_CUDA, to_numpy

import genesis
import genesis.nn.functional as F

torch = pytest.importorskip("torch")
# torch before 2.13 (the GPU machine's 2.11) has no linear_cross_entropy: the numbers are then
# checked against its formula, cross_entropy(linear(...)); only the tests of torch's own options
# and module need the real thing.
TORCH_LCE = getattr(torch.nn.functional, "linear_cross_entropy", None)
needs_torch_lce = pytest.mark.skipif(
    TORCH_LCE is None, reason="torch has no linear_cross_entropy (added in 2.13)"
)

N, D, C = 37, 16, 23


def _torch_lce(x, w, t, linear_bias=None, **kw):
    """torch's linear_cross_entropy, or where it is missing the formula it computes."""
    if TORCH_LCE is not None:
        return TORCH_LCE(x, w, t, linear_bias=linear_bias, **kw)
    return torch.nn.functional.cross_entropy(torch.nn.functional.linear(x, w, linear_bias), t, **kw)


def _lce(lib):
    return lib.nn.functional.linear_cross_entropy if lib is genesis else _torch_lce


def _np(t):
    if isinstance(t, genesis.Tensor):
        return to_numpy(t.detach().to(genesis.float64))
    return t.detach().double().numpy()


def _data(seed=0, n=N):
    rng = np.random.default_rng(seed)
    x, w, b = rng.normal(size=(n, D)), rng.normal(size=(C, D)) * 0.5, rng.normal(size=C)
    t = rng.integers(0, C, n)
    if n > 3:
        t[3] = -100
    return x, w, b, t, rng.uniform(0.5, 2.0, size=C), rng


def _both(device, dtype, x, w, b, t, cw, upstream=None, **kw):
    """[loss, x.grad, w.grad, b.grad] of genesis (in `dtype`) and of torch (float64)."""
    out = []
    for lib in (genesis, torch):
        opts = {"device": device} if lib is genesis else {}
        dt = getattr(genesis, dtype) if lib is genesis else torch.float64
        tx = lib.tensor(x, **opts).to(dt).requires_grad_()
        tw = lib.tensor(w, **opts).to(dt).requires_grad_()
        tb = None if b is None else lib.tensor(b, **opts).to(dt).requires_grad_()
        tcw = None if cw is None else lib.tensor(cw, **opts).to(dt)
        if lib is torch:
            kw = {k: v for k, v in kw.items() if k != "options"}
        loss = _lce(lib)(tx, tw, lib.tensor(t, **opts), linear_bias=tb, weight=tcw, **kw)
        g = lib.ones_like(loss) if upstream is None else lib.tensor(upstream, **opts).to(loss.dtype)
        loss.backward(g)
        out.append([loss, tx.grad, tw.grad] + ([tb.grad] if tb is not None else []))
    return out


@pytest.mark.parametrize("chunk", [None, 5, 37])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize(
    "bias, class_weight, smoothing",
    [(True, True, 0.1), (False, False, 0.0), (True, False, 0.3), (False, True, 0.0)],
)
def test_against_torch_float64(device, chunk, reduction, bias, class_weight, smoothing):
    x, w, b, t, cw, rng = _data()
    up = rng.normal(size=N) if reduction == "none" else rng.normal(size=())
    opts = None if chunk is None else genesis.nn.LinearCrossEntropyOptions(batch_chunk_size=chunk)
    got, want = _both(
        device,
        "float64",
        x,
        w,
        b if bias else None,
        t,
        cw if class_weight else None,
        up,
        reduction=reduction,
        label_smoothing=smoothing,
        options=opts,
    )
    assert got[0].grad_fn.name() == "_ChunkedLinearCrossEntropyBackward"
    for a, e in zip(got, want):
        assert tuple(a.shape) == tuple(e.shape)
        np.testing.assert_allclose(_np(a), _np(e), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("dtype, tol", [("float32", 1e-5), ("bfloat16", 3e-2), ("float16", 5e-3)])
@pytest.mark.parametrize("reduction", ["mean", "none"])
def test_low_precision_against_float64(device, dtype, tol, reduction):
    if dtype == "float16" and device == "cpu":
        pytest.skip("float16 products on the CPU are slow and add nothing over bfloat16")
    x, w, b, t, cw, _ = _data(1)
    got, want = _both(
        device, dtype, x, w, b, t, None, reduction=reduction, options=None, label_smoothing=0.1
    )
    assert got[0].dtype == getattr(genesis, dtype)
    assert got[2].dtype == getattr(genesis, dtype)
    for a, e in zip(got, want):
        scale = np.abs(_np(e)).max() + 1
        np.testing.assert_allclose(_np(a), _np(e), rtol=0, atol=tol * scale * 4)


def test_autocast_products_and_float32_loss(device):
    x, w, b, t, _, _ = _data(2)
    results = []
    for lib in (genesis, torch):
        opts = {"device": device} if lib is genesis else {}
        tx = lib.tensor(x, **opts).float().requires_grad_()
        tw = lib.tensor(w, **opts).float().requires_grad_()
        with lib.autocast(device if lib is genesis else "cpu", dtype=lib.bfloat16):
            loss = _lce(lib)(tx, tw, lib.tensor(t, **opts))
        loss.backward()
        assert loss.dtype == lib.float32
        assert tx.grad.dtype == lib.float32 and tw.grad.dtype == lib.float32
        results.append([_np(loss), _np(tx.grad), _np(tw.grad)])
    for a, e in zip(*results):
        np.testing.assert_allclose(a, e, rtol=0, atol=2e-2 * (np.abs(e).max() + 1))


def test_double_backward(device):
    x, w, b, t, cw, rng = _data(3, n=9)
    v = rng.normal(size=(9, D))
    results = []
    for lib in (genesis, torch):
        opts = {"device": device} if lib is genesis else {}
        tx = lib.tensor(x, **opts).double().requires_grad_()
        tw = lib.tensor(w, **opts).double().requires_grad_()
        tb = lib.tensor(b, **opts).double().requires_grad_()
        loss = _lce(lib)(tx, tw, lib.tensor(t, **opts), linear_bias=tb, label_smoothing=0.2)
        (gx,) = lib.autograd.grad(loss, [tx], create_graph=True)
        (gx * lib.tensor(v, **opts)).sum().backward()
        results.append([_np(gx), _np(tx.grad), _np(tw.grad), _np(tb.grad)])
    for a, e in zip(*results):
        np.testing.assert_allclose(a, e, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("reduction", ["mean", "none"])
def test_a_second_backward_gives_the_same_gradients(device, reduction):
    x, w, _, t, _, _ = _data(4)
    tx = genesis.tensor(x, device=device).requires_grad_()
    tw = genesis.tensor(w, device=device).requires_grad_()
    loss = F.linear_cross_entropy(tx, tw, genesis.tensor(t, device=device), reduction=reduction)
    g = genesis.ones_like(loss)
    loss.backward(g, retain_graph=True)
    first = _np(tw.grad).copy()
    loss.backward(g)
    np.testing.assert_allclose(_np(tw.grad), 2 * first, rtol=1e-12)


def test_zero_samples(device):
    x = genesis.zeros(0, D, device=device, requires_grad=True)
    w = genesis.randn(C, D, device=device, requires_grad=True)
    t = genesis.zeros(0, dtype=genesis.int64, device=device)
    assert F.linear_cross_entropy(x, w, t, reduction="none").shape == (0,)
    assert float(F.linear_cross_entropy(x, w, t, reduction="sum")) == 0.0
    loss = F.linear_cross_entropy(x, w, t)
    assert np.isnan(float(loss))  # 0 / 0, as torch's mean over no targets
    F.linear_cross_entropy(x, w, t, reduction="sum").backward()
    assert float(w.grad.abs().sum()) == 0.0 and x.grad.shape == (0, D)


def test_unbatched_input(device):
    x, w, b, t, _, _ = _data(5, n=1)
    for reduction in ("mean", "none"):
        got, want = _both(device, "float64", x[0], w, b, t[0], None, reduction=reduction)
        for a, e in zip(got, want):
            assert tuple(a.shape) == tuple(e.shape)
            np.testing.assert_allclose(_np(a), _np(e), rtol=1e-10, atol=1e-12)


@needs_torch_lce
def test_reference_path_for_probabilities_and_k_dimensional_weights(device):
    rng = np.random.default_rng(6)
    x = rng.normal(size=(5, D))
    p = rng.dirichlet(np.ones(C), size=5)
    wk, bk = rng.normal(size=(C, 3, D)), rng.normal(size=(C, 3))
    tk = rng.integers(0, C, size=(5, 3))
    for weight, bias, target in ((rng.normal(size=(C, D)), None, p), (wk, bk, tk)):
        results = []
        for lib in (genesis, torch):
            opts = {"device": device} if lib is genesis else {}
            tx = lib.tensor(x, **opts).requires_grad_()
            tw = lib.tensor(weight, **opts).requires_grad_()
            tb = None if bias is None else lib.tensor(bias, **opts).requires_grad_()
            loss = lib.nn.functional.linear_cross_entropy(
                tx, tw, lib.tensor(target, **opts), linear_bias=tb
            )
            loss.backward()
            assert loss.grad_fn.name() != "_ChunkedLinearCrossEntropyBackward"
            results.append([_np(loss), _np(tx.grad), _np(tw.grad)])
        for a, e in zip(*results):
            np.testing.assert_allclose(a, e, rtol=1e-10, atol=1e-12)


@needs_torch_lce
def test_options_pick_the_chunks(device, monkeypatch):
    from genesis.nn.functional import _linear_cross_entropy as lce

    sizes = []
    real = lce._chunks

    def spy(*args):
        sizes.append(args[7])
        return real(*args)

    monkeypatch.setattr(lce, "_chunks", spy)
    x = genesis.randn(100, 8, device=device)
    w = genesis.randn(40, 8, device=device)
    t = genesis.randint(0, 40, (100,), device=device)
    Opts = genesis.nn.LinearCrossEntropyOptions
    for opts, want in (
        (Opts(batch_chunk_size=7), 7),
        (Opts(chunking_method="aspect_ratio"), 32),  # next_pow2(ceil(100 / ceil(40 / 8)))
        (Opts(chunking_method="aspect_ratio:4"), 8),
        (Opts(chunking_method=None), 100),
        (Opts(chunking_method="aspect_ratio", batch_chunk_size=32), 32),
        (None, 100),  # genesis's pick: 128M logits a chunk
    ):
        sizes.clear()
        F.linear_cross_entropy(x, w, t, options=opts)
        assert sizes == [want], opts
        ref = torch.nn.LinearCrossEntropyOptions(
            batch_chunk_size=None if opts is None else opts.batch_chunk_size,
            chunking_method=None if opts is None else opts.chunking_method,
        )
        if opts is not None and opts.chunking_method != "auto":
            assert ref._adjust(100, 8, 40, torch.float32).batch_chunk_size == want
    with pytest.raises(ValueError, match=r"^\[linear_cross_entropy\] batch_chunk_size \(=5\)"):
        F.linear_cross_entropy(
            x, w, t, options=Opts(chunking_method="aspect_ratio", batch_chunk_size=5)
        )


@needs_torch_lce
def test_options_checks():
    Opts = genesis.nn.LinearCrossEntropyOptions
    with pytest.raises(ValueError, match="invalid acc_policy: 'fast'"):
        Opts(acc_policy="fast")
    with pytest.raises(ValueError, match="invalid chunking_method: 'aspect_ratio:0'"):
        Opts(chunking_method="aspect_ratio:0")
    with pytest.raises(ValueError, match="batch_chunk_size must be positive int or None, got 0"):
        Opts(batch_chunk_size=0)
    with pytest.raises(ValueError, match="acc_dtype must be one of"):
        Opts(acc_dtype=genesis.int32)
    assert repr(Opts(batch_chunk_size=128)) == repr(
        torch.nn.LinearCrossEntropyOptions(batch_chunk_size=128)
    )


def test_bad_arguments():
    x, w, t = genesis.randn(4, 3), genesis.randn(5, 3), genesis.tensor([0, 1, 2, 3])
    with pytest.raises(ValueError, match=r"^\[linear_cross_entropy\] avg is not a valid value"):
        F.linear_cross_entropy(x, w, t, reduction="avg")
    with pytest.raises(RuntimeError, match=r"^\[linear_cross_entropy\] expected input of shape"):
        F.linear_cross_entropy(genesis.randn(4, 2), w, t)
    with pytest.raises(RuntimeError, match=r"^\[linear_cross_entropy\] label_smoothing must"):
        F.linear_cross_entropy(x, w, t, label_smoothing=1.5)
    with pytest.raises(ValueError, match=r"^\[linear_cross_entropy\] expected target of 4"):
        F.linear_cross_entropy(x, w, genesis.tensor([0, 1]))
    with pytest.raises(TypeError, match=r"^\[linear_cross_entropy\] linear_weight must be"):
        F.linear_cross_entropy(x, [[1.0]], t)


@needs_torch_lce
def test_module_against_torch(device):
    x, _, _, t, cw, _ = _data(7)
    g = genesis.nn.LinearCrossEntropyLoss(
        D, C, bias=True, weight=genesis.tensor(cw).float(), label_smoothing=0.1, device=device
    )
    m = torch.nn.LinearCrossEntropyLoss(
        D, C, bias=True, weight=torch.tensor(cw).float(), label_smoothing=0.1
    )
    assert repr(g) == repr(m)
    assert list(g.state_dict()) == list(m.state_dict())
    g.load_state_dict({k: genesis.tensor(v.numpy()) for k, v in m.state_dict().items()})
    gl = g(genesis.tensor(x, device=device).float(), genesis.tensor(t, device=device))
    tl = m(torch.tensor(x).float(), torch.tensor(t))
    gl.backward()
    tl.backward()
    np.testing.assert_allclose(_np(gl), _np(tl), rtol=1e-5)
    np.testing.assert_allclose(_np(g.linear.weight.grad), _np(m.linear.weight.grad), atol=1e-5)
    with pytest.raises(RuntimeError, match=r"^\[LinearCrossEntropyLoss\] expected weight shape"):
        genesis.nn.LinearCrossEntropyLoss(D, C, weight=genesis.ones(3))


@pytest.mark.skipif(not HAS_CUDA, reason="no CUDA device available")
def test_cuda_peak_memory_stays_below_the_logits():
    n, d, c = 8192, 64, 8192  # whole float32 logits: 256 MB, their gradient as much again
    x = genesis.randn(n, d, device="cuda", requires_grad=True)
    w = genesis.randn(c, d, device="cuda", requires_grad=True)
    t = genesis.randint(0, c, (n,), device="cuda")
    opts = genesis.nn.LinearCrossEntropyOptions(batch_chunk_size=512)  # 16 MB chunks
    genesis.cuda.synchronize()
    genesis.cuda.reset_peak_memory_stats()
    base = genesis.cuda.memory_allocated()
    F.linear_cross_entropy(x, w, t, options=opts).backward()
    genesis.cuda.synchronize()
    assert genesis.cuda.max_memory_allocated() - base < 96 * 2**20
