"""embedding, embedding_bag and one_hot (functional) and Embedding, EmbeddingBag (modules)
against torch: values and gradients (padding_idx, max_norm, scale_grad_by_freq, every bag mode,
offsets, include_last_offset, per_sample_weights), int32 and int64, non-contiguous and
zero-size indices, out-of-range indices (IndexError, deferred on CUDA), the input checks,
from_pretrained, initialization, repr and state_dict."""

import numpy as np
import pytest
from conftest import check_message, raises_index_error, to_numpy
from test_autograd import check_grads

import genesis
import genesis.nn as nn
import genesis.nn.functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional

RNG = np.random.default_rng(11)
V, D = 7, 3


def _np(t):
    return to_numpy(t.detach()) if isinstance(t, genesis.Tensor) else t.detach().numpy()


def _ix(m, like, a, transpose=False):
    """Index array ``a`` as a tensor of library ``m`` on ``like``'s device."""
    t = m.tensor(a, device=like.device) if m is genesis else m.tensor(a)
    return t.t() if transpose else t


def _w(shape=(V, D), seed=0):
    return np.random.default_rng(seed).normal(size=shape)


INDICES = {
    "1d": np.array([1, 6, 0, 2, 2]),
    "2d": np.array([[1, 2, 4, 5], [4, 3, 2, 6]]),
    "0d": np.array(3),
    "3d": np.array([[[0, 1], [1, 1]], [[5, 6], [2, 0]]]),
    "empty": np.zeros((0,), dtype=np.int64),
    "empty2d": np.zeros((2, 0), dtype=np.int64),
}


# ----------------------------------------------------------------------------------------------
# embedding
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", sorted(INDICES))
@pytest.mark.parametrize("itype", [np.int64, np.int32])
@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"padding_idx": 2},
        {"padding_idx": -1},
        {"scale_grad_by_freq": True},
        {"padding_idx": 1, "scale_grad_by_freq": True},
    ],
    ids=["plain", "pad", "negpad", "freq", "pad+freq"],
)
def test_embedding_matches_torch(case, itype, kw, device):
    a = INDICES[case].astype(itype)
    check_grads(lambda m, w: m.nn.functional.embedding(_ix(m, w, a), w, **kw), [_w()], device)


def test_embedding_non_contiguous_indices(device):
    a = np.array([[1, 2, 4], [4, 3, 2], [0, 6, 6], [5, 5, 1]])
    for kw in ({}, {"padding_idx": 4}):
        check_grads(
            lambda m, w, kw=kw: m.nn.functional.embedding(_ix(m, w, a, transpose=True), w, **kw),
            [_w()],
            device,
        )
    gi = genesis.tensor(a, device=device).t()
    assert not gi.is_contiguous()


def test_embedding_float32_and_half(device):
    a = INDICES["2d"]
    check_grads(
        lambda m, w: m.nn.functional.embedding(_ix(m, w, a), w, padding_idx=3),
        [_w().astype(np.float32)],
        device,
        rtol=1e-6,
        atol=1e-7,
    )
    w = _w().astype(np.float32)
    for gd, td in [(genesis.float16, torch.float16), (genesis.bfloat16, torch.bfloat16)]:
        got = F.embedding(genesis.tensor(a, device=device), genesis.tensor(w, device=device).to(gd))
        want = TF.embedding(torch.tensor(a), torch.tensor(w).to(td))
        assert got.dtype is gd
        np.testing.assert_array_equal(_np(got.float()), want.float().numpy())


def test_embedding_grad_fn_and_double_backward(device):
    a = np.array([1, 2, 2, 0, 5])
    for kw in ({}, {"padding_idx": 2, "scale_grad_by_freq": True}):
        gw = genesis.tensor(_w(), device=device, requires_grad=True)
        tw = torch.tensor(_w(), requires_grad=True)
        v = RNG.normal(size=(5, D))
        gv = genesis.tensor(v, device=device, requires_grad=True)
        tv = torch.tensor(v, requires_grad=True)
        (g1,) = genesis.autograd.grad(
            F.embedding(_ix(genesis, gw, a), gw, **kw), gw, gv, create_graph=True
        )
        (t1,) = torch.autograd.grad(
            TF.embedding(torch.tensor(a), tw, **kw), tw, tv, create_graph=True
        )
        np.testing.assert_allclose(_np(g1), _np(t1), rtol=1e-12)
        u = RNG.normal(size=(V, D))
        (g2,) = genesis.autograd.grad((g1 * genesis.tensor(u, device=device)).sum(), gv)
        (t2,) = torch.autograd.grad((t1 * torch.tensor(u)).sum(), tv)
        np.testing.assert_allclose(_np(g2), _np(t2), rtol=1e-12)


@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3.0])
@pytest.mark.parametrize("max_norm", [1.0, 1.7])
def test_embedding_max_norm_renormalizes_weight_in_place(norm_type, max_norm, device):
    a = np.array([[1, 2, 2], [6, 0, 1]])
    w = _w(seed=3) * 1.5
    gw = genesis.tensor(w, device=device, requires_grad=True)
    tw = torch.tensor(w, requires_grad=True)
    got = F.embedding(_ix(genesis, gw, a), gw, max_norm=max_norm, norm_type=norm_type)
    want = TF.embedding(torch.tensor(a), tw, max_norm=max_norm, norm_type=norm_type)
    np.testing.assert_allclose(_np(gw), _np(tw), rtol=1e-12)  # rows 3, 4, 5 untouched
    assert not np.array_equal(_np(gw), w)
    np.testing.assert_allclose(_np(got), _np(want), rtol=1e-12)
    g = RNG.normal(size=(2, 3, D))
    got.backward(genesis.tensor(g, device=device))
    want.backward(torch.tensor(g))
    np.testing.assert_allclose(_np(gw.grad), _np(tw.grad), rtol=1e-12)
    # float32, through check_grads (the leaves are renormalized in both libraries)
    check_grads(
        lambda m, w: m.nn.functional.embedding(_ix(m, w, a), w, max_norm=max_norm),
        [w.astype(np.float32)],
        device,
        rtol=1e-5,
        atol=1e-6,
    )


def test_embedding_max_norm_with_int32_and_empty_indices(device):
    w = _w(seed=4) * 2
    gw = genesis.tensor(w, device=device)
    tw = torch.tensor(w)
    a = np.array([0, 3, 3], dtype=np.int32)
    F.embedding(genesis.tensor(a, device=device), gw, max_norm=1.0)
    TF.embedding(torch.tensor(a), tw, max_norm=1.0)
    np.testing.assert_allclose(_np(gw), tw.numpy(), rtol=1e-12)
    F.embedding(genesis.tensor(INDICES["empty"], device=device), gw, max_norm=0.1)
    np.testing.assert_allclose(_np(gw), tw.numpy(), rtol=1e-12)


@pytest.mark.parametrize("bad", [7, -1, 100, -8])
def test_embedding_out_of_range_index_raises(bad, device):
    w = genesis.tensor(_w(), device=device)
    with raises_index_error() as info:
        F.embedding(genesis.tensor([0, bad, 1], device=device), w)
    if device == "cpu":
        check_message(info, "embedding")
        assert str(bad) in str(info.value)
    with pytest.raises(IndexError):
        TF.embedding(torch.tensor([0, bad, 1]), torch.tensor(_w()))
    with raises_index_error():
        F.embedding(genesis.tensor([[bad]], dtype=genesis.int32, device=device), w, padding_idx=0)


def test_embedding_bad_inputs(device):
    w = genesis.tensor(_w(), device=device)
    i = genesis.tensor([1, 2], device=device)
    for dt in (genesis.float32, genesis.int16, genesis.uint8, genesis.bool):
        with pytest.raises(RuntimeError, match="int64 or int32") as info:
            F.embedding(i.to(dt), w)
        check_message(info, "embedding")
    with pytest.raises(RuntimeError):
        TF.embedding(torch.tensor([1.0]), torch.tensor(_w()))
    for bad_w in (genesis.zeros(5, device=device), genesis.zeros(2, 3, 4, device=device)):
        with pytest.raises(RuntimeError, match="must be 2-D") as info:
            F.embedding(i, bad_w)
        check_message(info, "embedding")
    for pad in (7, -8):
        with pytest.raises(AssertionError, match="Padding_idx") as info:
            F.embedding(i, w, padding_idx=pad)
        check_message(info, "embedding")
        with pytest.raises(AssertionError):
            TF.embedding(torch.tensor([1]), torch.tensor(_w()), padding_idx=pad)
    with pytest.raises(RuntimeError, match=r"^\[embedding\] sparse gradients are not supported"):
        F.embedding(i, w, sparse=True)
    with pytest.raises(TypeError) as info:
        F.embedding([1, 2], w)
    check_message(info, "embedding")


def test_embedding_padding_row_value_is_looked_up(device):
    w = genesis.tensor(_w(), device=device, requires_grad=True)
    out = F.embedding(genesis.tensor([2, 2, 3], device=device), w, padding_idx=2)
    np.testing.assert_array_equal(_np(out)[0], _w()[2])  # the value is used, not zeroed
    out.sum().backward()
    assert (_np(w.grad)[2] == 0).all() and (_np(w.grad)[3] == 1).all()


# ----------------------------------------------------------------------------------------------
# one_hot
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "a, n",
    [
        ([0, 2, 1], -1),
        ([0, 2, 1], 5),
        ([[3, 0], [1, 1]], -1),
        (2, 4),
        ([[1]], 2),
        (np.zeros((0,), np.int64), 3),
        (np.zeros((2, 0), np.int64), 1),
    ],
)
def test_one_hot_matches_torch(a, n, device):
    got = F.one_hot(genesis.tensor(a, device=device, dtype=genesis.int64), n)
    want = TF.one_hot(torch.tensor(a, dtype=torch.int64), n)
    assert got.dtype is genesis.int64 and str(got.device).startswith(device)
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_array_equal(_np(got), want.numpy())


def test_one_hot_non_contiguous(device):
    a = np.array([[0, 1, 2], [3, 4, 0]])
    got = F.one_hot(genesis.tensor(a, device=device).t())
    np.testing.assert_array_equal(_np(got), TF.one_hot(torch.tensor(a).t()).numpy())


def test_one_hot_errors(device):
    def expect(exc, match, *args):
        with pytest.raises(exc, match=match) as info:
            F.one_hot(*args)
        check_message(info, "one_hot")

    expect(RuntimeError, "LongTensor", genesis.tensor([0, 1], dtype=genesis.int32, device=device))
    expect(RuntimeError, "LongTensor", genesis.tensor([0.0, 1.0], device=device))
    expect(RuntimeError, "empty tensor", genesis.zeros(0, dtype=genesis.int64, device=device))
    expect(RuntimeError, "non-negative", genesis.tensor([0, -1], device=device))  # inferred
    expect(TypeError, "Tensor", [0, 1])
    if device == "cpu":
        expect(RuntimeError, "smaller than num_classes", genesis.tensor([0, 3]), 3)
        expect(RuntimeError, "non-negative", genesis.tensor([0, -1]), 3)
        with pytest.raises(RuntimeError, match="smaller than num_classes"):
            TF.one_hot(torch.tensor([0, 3]), 3)
    else:  # as PyTorch on CUDA: the scatter's deferred check
        for bad in (3, -1):
            with raises_index_error():
                F.one_hot(genesis.tensor([0, bad], device=device), 3)
        expect(RuntimeError, "positive", genesis.tensor([0], device=device), 0)


# ----------------------------------------------------------------------------------------------
# embedding_bag
# ----------------------------------------------------------------------------------------------

FLAT = np.array([1, 6, 0, 2, 2, 5, 3, 3, 4])
BAG_OFFSETS = {
    "plain": np.array([0, 2, 5]),
    "empty_bags": np.array([0, 0, 4, 4, 9]),  # bags 0 and 2 empty; the last one too
    "one_bag": np.array([0]),
}


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("offsets", sorted(BAG_OFFSETS))
@pytest.mark.parametrize("itype", [np.int64, np.int32])
@pytest.mark.parametrize("pad", [None, 2, -1])
def test_embedding_bag_1d_matches_torch(mode, offsets, itype, pad, device):
    a, o = FLAT.astype(itype), BAG_OFFSETS[offsets].astype(itype)
    check_grads(
        lambda m, w: m.nn.functional.embedding_bag(
            _ix(m, w, a), w, _ix(m, w, o), mode=mode, padding_idx=pad
        ),
        [_w()],
        device,
    )


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("pad", [None, 4])
def test_embedding_bag_include_last_offset(mode, pad, device):
    # offsets[-1] == len(input): float64 (torch's double kernel ignores a smaller last offset)
    o = np.array([0, 2, 2, 5, 9])
    check_grads(
        lambda m, w: m.nn.functional.embedding_bag(
            _ix(m, w, FLAT),
            w,
            _ix(m, w, o),
            mode=mode,
            include_last_offset=True,
            padding_idx=pad,
        ),
        [_w()],
        device,
    )
    # A last offset before the end: the entries after it are in no bag. torch's CPU kernels
    # get this case wrong (its double kernel ignores the last offset, its float "mean" divides
    # by the count up to the input's end, its float backward reads uninitialized memory), so
    # the reference is torch on the input cut at the last offset.
    o = np.array([0, 2, 2, 5])
    check_grads(
        lambda m, w: m.nn.functional.embedding_bag(
            _ix(m, w, FLAT if m is genesis else FLAT[:5]),
            w,
            _ix(m, w, o),
            mode=mode,
            include_last_offset=True,
            padding_idx=pad,
        ),
        [_w()],
        device,
    )


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("pad", [None, 3])
@pytest.mark.parametrize("shape", [(3, 4), (1, 1), (4, 2)])
def test_embedding_bag_2d_matches_torch(mode, pad, shape, device):
    a = np.random.default_rng(sum(shape)).integers(0, V, size=shape)
    a[0, 0] = 3
    check_grads(
        lambda m, w: m.nn.functional.embedding_bag(_ix(m, w, a), w, mode=mode, padding_idx=pad),
        [_w()],
        device,
    )
    # non-contiguous 2-D input
    check_grads(
        lambda m, w: m.nn.functional.embedding_bag(
            _ix(m, w, a.T.copy(), transpose=True), w, mode=mode
        ),
        [_w()],
        device,
    )


@pytest.mark.parametrize("two_d", [False, True])
def test_embedding_bag_per_sample_weights(two_d, device):
    a = FLAT.reshape(3, 3) if two_d else FLAT
    psw = np.random.default_rng(5).normal(size=a.shape)
    for pad in (None, 2):

        def fn(m, w, s, pad=pad):
            o = None if two_d else _ix(m, w, BAG_OFFSETS["plain"])
            return m.nn.functional.embedding_bag(
                _ix(m, w, a), w, o, mode="sum", per_sample_weights=s, padding_idx=pad
            )

        check_grads(fn, [_w(), psw], device)


@pytest.mark.parametrize("mode", ["sum", "mean"])
@pytest.mark.parametrize("pad", [None, 3])
def test_embedding_bag_scale_grad_by_freq(mode, pad, device):
    # torch's CPU embedding_bag scales by the count of the wrong index (its backward reads
    # counts[indices[i]] with i the number of a unique index, not its position), so the
    # reference is torch's embedding with scale_grad_by_freq, reduced per bag by hand.
    o = BAG_OFFSETS["plain"]
    bag = np.searchsorted(o, np.arange(len(FLAT)), side="right") - 1
    keep = FLAT != pad

    def fn(m, w):
        if m is genesis:
            return F.embedding_bag(
                _ix(m, w, FLAT),
                w,
                _ix(m, w, o),
                mode=mode,
                scale_grad_by_freq=True,
                padding_idx=pad,
            )
        rows = TF.embedding(torch.tensor(FLAT), w, scale_grad_by_freq=True)
        rows = rows * torch.tensor(keep, dtype=w.dtype).unsqueeze(1)
        out = torch.zeros(len(o), D, dtype=w.dtype).index_add(0, torch.tensor(bag), rows)
        if mode == "mean":
            counts = np.bincount(bag[keep], minlength=len(o)).clip(1)
            out = out / torch.tensor(counts, dtype=w.dtype).unsqueeze(1)
        return out

    check_grads(fn, [_w()], device)
    a = FLAT.reshape(3, 3)
    check_grads(
        lambda m, w: (
            F.embedding_bag(_ix(m, w, a), w, mode=mode, scale_grad_by_freq=True)
            if m is genesis
            else getattr(TF.embedding(torch.tensor(a), w, scale_grad_by_freq=True), mode)(1)
        ),
        [_w()],
        device,
    )


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_max_norm(mode, device):
    o = BAG_OFFSETS["plain"]
    check_grads(
        lambda m, w: m.nn.functional.embedding_bag(
            _ix(m, w, FLAT), w, _ix(m, w, o), mode=mode, max_norm=1.2, norm_type=1.5
        ),
        [_w(seed=2) * 2],
        device,
    )


def test_embedding_bag_empty_input_and_float32(device):
    for mode in ("sum", "mean", "max"):
        w = genesis.tensor(_w(), device=device)
        got = F.embedding_bag(
            genesis.tensor(INDICES["empty"], device=device),
            w,
            genesis.tensor([0, 0], device=device),
            mode=mode,
        )
        want = TF.embedding_bag(
            torch.tensor(INDICES["empty"]), torch.tensor(_w()), torch.tensor([0, 0]), mode=mode
        )
        np.testing.assert_array_equal(_np(got), want.numpy())
        got = F.embedding_bag(
            genesis.tensor(INDICES["empty"], device=device),
            w,
            genesis.tensor(INDICES["empty"], device=device),
            mode=mode,
        )
        assert tuple(got.shape) == (0, D)
        # A (B, 0) input: B empty bags (torch fails on it: arange with step 0).
        got = F.embedding_bag(genesis.zeros(2, 0, dtype=genesis.int64, device=device), w, mode=mode)
        assert tuple(got.shape) == (2, D) and (_np(got) == 0).all()
        check_grads(
            lambda m, w, mode=mode: m.nn.functional.embedding_bag(
                _ix(m, w, FLAT), w, _ix(m, w, BAG_OFFSETS["empty_bags"]), mode=mode
            ),
            [_w().astype(np.float32)],
            device,
            rtol=1e-5,
            atol=1e-6,
        )


def test_embedding_bag_out_of_range_index_raises(device):
    w = genesis.tensor(_w(), device=device)
    for bad in (V, -1):
        with raises_index_error() as info:
            F.embedding_bag(
                genesis.tensor([0, bad], device=device), w, genesis.tensor([0], device=device)
            )
        if device == "cpu":
            check_message(info, "embedding_bag")
        with raises_index_error():
            F.embedding_bag(genesis.tensor([[0, bad]], device=device), w, mode="max")


def test_embedding_bag_bad_inputs(device):
    w = genesis.tensor(_w(), device=device)
    i1 = genesis.tensor([0, 1, 2], device=device)
    off = genesis.tensor([0], device=device)

    def expect(exc, match, *args, **kw):
        with pytest.raises(exc, match=match) as info:
            F.embedding_bag(*args, **kw)
        check_message(info, "embedding_bag")

    expect(ValueError, "offsets has to be None", i1.view(1, 3), w, off)
    expect(ValueError, "but got None", i1, w)
    expect(ValueError, "offsets has to be a 1D", i1, w, off.view(1, 1))
    expect(ValueError, "1D or 2D", i1.view(1, 1, 3), w, off)
    expect(ValueError, "1D or 2D", genesis.tensor(1, device=device), w, off)
    expect(ValueError, "2D Tensor", i1, genesis.zeros(7, device=device), off)
    expect(ValueError, "mode has to be one of", i1, w, off, mode="min")
    expect(ValueError, "frequency", i1, w, off, mode="max", scale_grad_by_freq=True)
    expect(ValueError, "sparse", i1, w, off, mode="max", sparse=True)
    expect(RuntimeError, "sparse gradients are not supported", i1, w, off, sparse=True)
    expect(
        ValueError,
        "same shape as the input",
        i1,
        w,
        off,
        mode="sum",
        per_sample_weights=genesis.ones(2, device=device, dtype=genesis.float64),
    )
    expect(
        NotImplementedError,
        "only supported for mode='sum'",
        i1,
        w,
        off,
        per_sample_weights=genesis.ones(3, device=device, dtype=genesis.float64),
    )
    expect(
        RuntimeError,
        "dtype",
        i1,
        w,
        off,
        mode="sum",
        per_sample_weights=genesis.ones(3, device=device),
    )
    expect(RuntimeError, "int64 or int32", i1.float(), w.float(), off)
    expect(RuntimeError, "int64 or int32", i1, w, off.float())
    expect(RuntimeError, "padding_idx must be within", i1, w, off, padding_idx=7)
    expect(RuntimeError, "padding_idx must be within", i1, w, off, padding_idx=-8)
    expect(RuntimeError, "at least 1", i1, w, off[:0], include_last_offset=True)
    if device == "cpu":
        expect(RuntimeError, r"offsets\[0\] has to be 0", i1, w, genesis.tensor([1]))
        expect(RuntimeError, r"offsets\[-1\] can not be greater", i1, w, genesis.tensor([0, 4]))
    with pytest.raises(ValueError):
        TF.embedding_bag(torch.tensor([0, 1, 2]), torch.tensor(_w()), torch.tensor([0]), mode="min")


def test_embedding_bag_old_argument_order_warns_and_swaps(device):
    w = genesis.tensor(_w(), device=device)
    i = genesis.tensor([[0, 1], [2, 3]], device=device)
    with pytest.warns(UserWarning, match="Argument order"):
        got = F.embedding_bag(w, i)
    np.testing.assert_array_equal(_np(got), _np(F.embedding_bag(i, w)))


# ----------------------------------------------------------------------------------------------
# Modules
# ----------------------------------------------------------------------------------------------

EMBEDDING_ARGS = [
    ((10, 3), {}),
    ((10, 3), {"padding_idx": 0}),
    ((10, 3), {"padding_idx": -2, "max_norm": 1.0}),
    ((10, 3), {"norm_type": 1.0, "scale_grad_by_freq": True}),
    ((4, 5), {"max_norm": 2, "norm_type": 3}),
]


@pytest.mark.parametrize("args, kw", EMBEDDING_ARGS)
def test_embedding_module_matches_torch(args, kw, device):
    t = torch.nn.Embedding(*args, **kw)
    g = nn.Embedding(*args, **kw)
    assert repr(g) == repr(t).replace("torch.", "genesis.")
    assert list(g.state_dict()) == list(t.state_dict()) == ["weight"]
    assert g.padding_idx == t.padding_idx
    g.load_state_dict(t.state_dict())
    g = g.to(device)
    a = np.random.default_rng(1).integers(0, args[0], size=(2, 5))
    got, want = g(genesis.tensor(a, device=device)), t(torch.tensor(a))
    np.testing.assert_allclose(_np(got), _np(want), rtol=1e-6, atol=1e-7)
    got.sum().backward()
    want.sum().backward()
    np.testing.assert_allclose(_np(g.weight.grad), _np(t.weight.grad), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(_np(g.weight), _np(t.weight), rtol=1e-6, atol=1e-7)


def test_embedding_module_init_device_dtype(device):
    e = nn.Embedding(200, 100, padding_idx=3, device=device, dtype=genesis.float64)
    w = _np(e.weight)
    assert e.weight.dtype is genesis.float64 and str(e.weight.device).startswith(device)
    assert e.weight.requires_grad and isinstance(e.weight, nn.Parameter)
    assert (w[3] == 0).all()
    assert abs(w.mean()) < 0.02 and abs(w.std() - 1) < 0.02
    e.weight.data.fill_(5.0)
    e.reset_parameters()
    assert (_np(e.weight)[3] == 0).all() and abs(_np(e.weight).std() - 1) < 0.02
    assert nn.Embedding(0, 4).weight.shape == (0, 4)


def test_embedding_module_errors():
    for pad in (10, -11):
        with pytest.raises(AssertionError, match="Padding_idx") as info:
            nn.Embedding(10, 3, padding_idx=pad)
        check_message(info, "Embedding")
    with pytest.raises(AssertionError, match="Shape of weight") as info:
        nn.Embedding(10, 3, _weight=genesis.zeros(3, 10))
    check_message(info, "Embedding")
    with pytest.raises(RuntimeError, match="sparse gradients are not supported") as info:
        nn.Embedding(10, 3, sparse=True)
    check_message(info, "Embedding")
    with pytest.raises(AssertionError, match="2-dimensional") as info:
        nn.Embedding.from_pretrained(genesis.zeros(3))
    check_message(info, "Embedding")


def test_embedding_from_pretrained(device):
    w = genesis.tensor(_w(), device=device, dtype=genesis.float32)
    e = nn.Embedding.from_pretrained(w)
    t = torch.nn.Embedding.from_pretrained(torch.tensor(_w(), dtype=torch.float32))
    assert repr(e) == repr(t) and not e.weight.requires_grad
    assert e.weight.data_ptr() == w.data_ptr()  # shared, not copied
    i = genesis.tensor([[0, 6]], device=device)
    np.testing.assert_array_equal(_np(e(i)), t(torch.tensor([[0, 6]])).numpy())
    assert not e(i).requires_grad
    e = nn.Embedding.from_pretrained(w, freeze=False, padding_idx=1, max_norm=5.0)
    t = torch.nn.Embedding.from_pretrained(
        torch.tensor(_w()), freeze=False, padding_idx=1, max_norm=5.0
    )
    assert repr(e) == repr(t) and e.weight.requires_grad
    assert (_np(e.weight)[1] != 0).any()  # the padding row is not zeroed
    e(genesis.tensor([1, 2, 2], device=device)).sum().backward()
    assert (_np(e.weight.grad)[1] == 0).all() and (_np(e.weight.grad)[2] == 2).all()


BAG_ARGS = [
    ((10, 3), {}),
    ((10, 3), {"mode": "sum", "padding_idx": 1}),
    ((10, 3), {"mode": "max", "max_norm": 1.0, "norm_type": 1.0}),
    ((10, 3), {"include_last_offset": True, "padding_idx": -1}),
    ((10, 3), {"mode": "sum", "max_norm": 1.5, "norm_type": 2.5}),
]


@pytest.mark.parametrize("args, kw", BAG_ARGS)
def test_embedding_bag_module_matches_torch(args, kw, device):
    t = torch.nn.EmbeddingBag(*args, **kw)
    g = nn.EmbeddingBag(*args, **kw)
    assert repr(g) == repr(t).replace("torch.", "genesis.")
    assert list(g.state_dict()) == list(t.state_dict()) == ["weight"]
    g.load_state_dict(t.state_dict())
    g = g.to(device)
    a = np.array([1, 2, 9, 4, 4, 0, 7, 9])
    o = np.array([0, 3, 3, 8]) if kw.get("include_last_offset") else np.array([0, 3, 3])
    got = g(genesis.tensor(a, device=device), genesis.tensor(o, device=device))
    want = t(torch.tensor(a), torch.tensor(o))
    np.testing.assert_allclose(_np(got), _np(want), rtol=1e-6, atol=1e-6)
    got.sum().backward()
    want.sum().backward()
    np.testing.assert_allclose(_np(g.weight.grad), _np(t.weight.grad), rtol=1e-6, atol=1e-6)
    if kw.get("mode") == "sum":
        s = RNG.normal(size=8).astype(np.float32)
        got = g(
            genesis.tensor(a, device=device),
            genesis.tensor(o, device=device),
            genesis.tensor(s, device=device),
        )
        want = t(torch.tensor(a), torch.tensor(o), torch.tensor(s))
        np.testing.assert_allclose(_np(got), _np(want), rtol=1e-5, atol=1e-6)


def test_embedding_bag_module_init_errors_and_from_pretrained(device):
    b = nn.EmbeddingBag(100, 50, padding_idx=2, device=device)
    assert (_np(b.weight)[2] == 0).all() and abs(_np(b.weight).std() - 1) < 0.05
    with pytest.raises(AssertionError, match="padding_idx must be within") as info:
        nn.EmbeddingBag(10, 3, padding_idx=10)
    check_message(info, "EmbeddingBag")
    with pytest.raises(RuntimeError, match="sparse") as info:
        nn.EmbeddingBag(10, 3, sparse=True)
    check_message(info, "EmbeddingBag")
    w = genesis.tensor(_w(), device=device)
    b = nn.EmbeddingBag.from_pretrained(w, mode="max")
    t = torch.nn.EmbeddingBag.from_pretrained(torch.tensor(_w()), mode="max")
    assert repr(b) == repr(t) and not b.weight.requires_grad
    i = np.array([[0, 1, 2], [3, 3, 6]])
    np.testing.assert_array_equal(
        _np(b(genesis.tensor(i, device=device))), t(torch.tensor(i)).numpy()
    )
    assert nn.EmbeddingBag.from_pretrained(w, freeze=False).weight.requires_grad
