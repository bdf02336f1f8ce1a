"""Fractional max pooling against torch (CPU): F.fractional_max_pool2d/3d (and *_with_indices)
and nn.FractionalMaxPool2d/3d given the same _random_samples give torch's values, indices and
gradients, in float32 and float64, with output_size or output_ratio, batched and unbatched,
for many random geometries; samples drawn by genesis repeat under genesis.manual_seed; the
modules' attributes, buffer and repr; bad input raises torch's class with "[name]"."""

import numpy as np
import pytest
from conftest import to_numpy

import genesis
import genesis.nn as nn

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(17)
# (nd, input shape, kernel_size, output_size)
CASES = [
    (2, (2, 3, 10, 12), (2, 3), (4, 5)),
    (2, (2, 3, 13, 11), 3, 5),
    (2, (1, 2, 7, 7), 2, 1),
    (2, (3, 1, 9, 8), (1, 2), (9, 6)),
    (3, (2, 3, 9, 10, 11), 2, (4, 5, 6)),
    (3, (1, 2, 7, 8, 6), (3, 2, 1), 3),
]


def _pair(nd, shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=shape).astype(dtype)
    samples = rng.random(size=(shape[0] if len(shape) == nd + 2 else 1, shape[-nd - 1], nd))
    return x, samples.astype(dtype)


def _run(lib, nd, x, samples, device=None, requires_grad=False, **kw):
    if lib is genesis:
        xt = genesis.tensor(x, device=device, requires_grad=requires_grad)
        st = genesis.tensor(samples, device=device)
    else:
        xt = torch.tensor(x, requires_grad=requires_grad)
        st = torch.tensor(samples)
    fn = getattr(lib.nn.functional, f"fractional_max_pool{nd}d")
    return xt, fn(xt, **kw, return_indices=True, _random_samples=st)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("nd, shape, k, out", CASES)
def test_matches_torch(nd, shape, k, out, dtype, device):
    x, samples = _pair(nd, shape, dtype)
    gx, (g_vals, g_idx) = _run(
        genesis, nd, x, samples, device, True, kernel_size=k, output_size=out
    )
    tx, (t_vals, t_idx) = _run(torch, nd, x, samples, None, True, kernel_size=k, output_size=out)
    assert g_idx.dtype == genesis.int64 and g_vals.dtype == getattr(genesis, dtype)
    assert str(g_vals.device) == str(gx.device)
    np.testing.assert_array_equal(to_numpy(g_idx), t_idx.numpy())
    np.testing.assert_array_equal(to_numpy(g_vals), t_vals.detach().numpy())
    upstream = np.random.default_rng(1).normal(size=tuple(t_vals.shape)).astype(dtype)
    t_vals.backward(torch.tensor(upstream))
    g_vals.backward(genesis.tensor(upstream, device=device))
    tol = 1e-6 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(to_numpy(gx.grad), tx.grad.numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("nd", [2, 3])
def test_random_geometries_match_torch(nd, device):
    rng = np.random.default_rng(nd)
    for _ in range(25):
        sizes = [int(v) for v in rng.integers(3, 24, size=nd)]
        k = [int(rng.integers(1, min(4, n - 1) + 1)) for n in sizes]
        # 2-D allows out + k - 1 <= size, 3-D out + k - 1 < size
        outs = [int(rng.integers(1, n - kk + (2 if nd == 2 else 1))) for n, kk in zip(sizes, k)]
        dtype = str(rng.choice(["float32", "float64"]))
        x, samples = _pair(nd, (2, 3, *sizes), dtype, seed=int(rng.integers(1 << 30)))
        _, (g_vals, g_idx) = _run(genesis, nd, x, samples, device, kernel_size=k, output_size=outs)
        _, (t_vals, t_idx) = _run(torch, nd, x, samples, kernel_size=k, output_size=outs)
        np.testing.assert_array_equal(to_numpy(g_idx), t_idx.numpy())
        np.testing.assert_array_equal(to_numpy(g_vals), t_vals.numpy())


@pytest.mark.parametrize("nd, ratio", [(2, 0.5), (2, (0.7, 0.4)), (3, 0.5), (3, (0.6, 0.5, 0.3))])
def test_output_ratio_matches_torch(nd, ratio, device):
    x, samples = _pair(nd, (2, 2, *[12, 11, 10][:nd]), "float64")
    _, (g_vals, g_idx) = _run(genesis, nd, x, samples, device, kernel_size=2, output_ratio=ratio)
    # torch's F.fractional_max_pool2d takes len() of the ratio: give it a tuple
    t_ratio = (ratio,) * nd if isinstance(ratio, float) else ratio
    _, (t_vals, t_idx) = _run(torch, nd, x, samples, kernel_size=2, output_ratio=t_ratio)
    assert tuple(g_vals.shape) == tuple(t_vals.shape)
    np.testing.assert_array_equal(to_numpy(g_idx), t_idx.numpy())
    np.testing.assert_array_equal(to_numpy(g_vals), t_vals.numpy())


@pytest.mark.parametrize("nd", [2, 3])
def test_unbatched_matches_torch(nd, device):
    x, samples = _pair(nd, (3, *[9, 8, 7][:nd]), "float32")
    gx, (g_vals, g_idx) = _run(genesis, nd, x, samples, device, True, kernel_size=2, output_size=3)
    tx, (t_vals, t_idx) = _run(torch, nd, x, samples, None, True, kernel_size=2, output_size=3)
    assert tuple(g_vals.shape) == tuple(t_vals.shape) == (3, *[3] * nd)
    np.testing.assert_array_equal(to_numpy(g_idx), t_idx.numpy())
    np.testing.assert_array_equal(to_numpy(g_vals), t_vals.detach().numpy())
    g_vals.sum().backward()
    t_vals.sum().backward()
    np.testing.assert_array_equal(to_numpy(gx.grad), tx.grad.numpy())


def test_forms_and_return_indices(device):
    F = nn.functional
    x, samples = _pair(2, (2, 3, 8, 8), "float32")
    gx, s = genesis.tensor(x, device=device), genesis.tensor(samples, device=device)
    values = F.fractional_max_pool2d(gx, 2, output_size=4, _random_samples=s)
    assert isinstance(values, genesis.Tensor) and values.shape == (2, 3, 4, 4)
    pair = F.fractional_max_pool2d_with_indices(gx, 2, output_size=4, _random_samples=s)
    assert isinstance(pair, tuple) and len(pair) == 2
    np.testing.assert_array_equal(to_numpy(pair[0]), to_numpy(values))
    # larger _random_samples than the batch: the first N rows are used, as in torch
    more = np.concatenate([samples, samples[:1]])
    again = F.fractional_max_pool2d(
        gx, 2, output_size=4, _random_samples=genesis.tensor(more, device=device)
    )
    np.testing.assert_array_equal(to_numpy(again), to_numpy(values))
    x3, s3 = _pair(3, (1, 2, 6, 6, 6), "float64")
    values3, index3 = F.fractional_max_pool3d(
        genesis.tensor(x3, device=device),
        2,
        output_size=(3, 2, 3),
        return_indices=True,
        _random_samples=genesis.tensor(s3, device=device),
    )
    assert values3.shape == index3.shape == (1, 2, 3, 2, 3)
    assert len(F.fractional_max_pool3d_with_indices(genesis.tensor(x3), 2, output_size=2)) == 2


def test_samples_come_from_genesis_generator(device):
    x = genesis.randn(2, 3, 17, 16, device=device)
    pool = nn.FractionalMaxPool2d(3, output_size=5, return_indices=True)
    genesis.manual_seed(11)
    first = pool(x)
    genesis.manual_seed(11)
    second = pool(x)
    third = pool(x)
    np.testing.assert_array_equal(to_numpy(first[1]), to_numpy(second[1]))
    assert not np.array_equal(to_numpy(second[1]), to_numpy(third[1]))
    # the drawn samples are genesis.rand's (N, C, 2) in the input's dtype
    genesis.manual_seed(11)
    samples = genesis.rand(2, 3, 2, device=device)
    fixed = nn.functional.fractional_max_pool2d(x, 3, output_size=5, _random_samples=samples)
    np.testing.assert_array_equal(to_numpy(fixed), to_numpy(first[0]))


@pytest.mark.parametrize("nd", [2, 3])
def test_modules_match_torch(nd, device):
    x, samples = _pair(nd, (2, 3, *[11, 10, 9][:nd]), "float64")
    cls = f"FractionalMaxPool{nd}d"
    for kw in (dict(output_size=4), dict(output_ratio=0.5)):
        g = getattr(nn, cls)(2, **kw, return_indices=True)
        t = getattr(torch.nn, cls)(2, **kw, return_indices=True)
        assert repr(g) == repr(t)
        for attr in ("kernel_size", "output_size", "output_ratio", "return_indices"):
            assert getattr(g, attr) == getattr(t, attr), attr
        assert g._random_samples is None and dict(g.state_dict()) == {}
        g_out = g(genesis.tensor(x, device=device))  # drawn samples: only the shapes compare
        t_out = t(torch.tensor(x))
        assert tuple(g_out[0].shape) == tuple(t_out[0].shape)
    g = getattr(nn, cls)(2, output_size=3, _random_samples=genesis.tensor(samples, device=device))
    t = getattr(torch.nn, cls)(2, output_size=3, _random_samples=torch.tensor(samples))
    assert list(g.state_dict()) == list(t.state_dict()) == ["_random_samples"]
    np.testing.assert_array_equal(
        to_numpy(g(genesis.tensor(x, device=device))), t(torch.tensor(x)).numpy()
    )


def test_empty_batch_and_empty_output(device):
    F = nn.functional
    empty = F.fractional_max_pool2d(genesis.zeros(0, 2, 6, 6, device=device), 2, output_size=3)
    assert empty.shape == (0, 2, 3, 3)
    none = F.fractional_max_pool2d(genesis.zeros(1, 2, 6, 6, device=device), 2, output_size=0)
    assert none.shape == (1, 2, 0, 0)


def _samples(*shape, dtype=genesis.float32):
    return {"_random_samples": genesis.rand(*shape).to(dtype)}


X, X3, XB = genesis.zeros(1, 2, 6, 6), genesis.zeros(1, 2, 6, 6, 6), genesis.zeros(3, 2, 6, 6)
# (class, message after "[fractional_max_poolNd] ", nd, input, args, keyword arguments)
BAD = [
    (TypeError, "input must be", 2, np.zeros((1, 1, 4, 4)), (2, 2), {}),
    (ValueError, "requires specifying either", 2, X, (2,), {}),
    (RuntimeError, "Expected 3D or 4D", 2, X[0, 0], (2, 2), {}),
    (RuntimeError, "Expected 4D or 5D", 3, X[0], (2, 2), {}),
    (RuntimeError, "pool height 2 too large", 2, X, (2, (6, 2)), {}),
    (RuntimeError, "pool width 3 too large", 2, X, (3, (2, 5)), {}),
    (RuntimeError, "pool time 2 too large", 3, X, (2, 5), {}),
    (RuntimeError, "kernel_size must be greater", 2, X, (0, 2), {}),
    (RuntimeError, "kernel_size must either", 2, X, ((2,) * 3, 2), {}),
    (RuntimeError, "output_size must either", 2, X, (2, (2,) * 3), {}),
    (TypeError, "kernel_size must be an int", 2, X, (2.0, 2), {}),
    (TypeError, "output_size must be an int", 2, X, (2, (None, 2)), {}),
    (ValueError, "requires output_ratio", 2, X, (2, None, (0.5,) * 3), {}),
    (RuntimeError, "Expected input to have non-zero size", 2, X[:, :, :0], (2, 2), {}),
    (RuntimeError, "expected a floating point", 2, X.long(), (2, 2), {}),
    (RuntimeError, "Expect _random_samples to have 3 dim", 2, X, (2, 2), _samples(1, 2)),
    (RuntimeError, r"_random_samples.size\(0\)", 2, XB, (2, 2), _samples(2, 2, 2)),
    (RuntimeError, r"_random_samples.size\(1\)", 2, X, (2, 2), _samples(1, 3, 2)),
    (RuntimeError, r"_random_samples.size\(2\)", 3, X3, (2, 2), _samples(1, 2, 2)),
    (RuntimeError, "the same dtype", 2, X, (2, 2), _samples(1, 2, 2, dtype=genesis.float64)),
]  # fmt: skip


@pytest.mark.parametrize("cls, match, nd, x, args, kw", BAD, ids=[case[1] for case in BAD])
def test_bad_input(cls, match, nd, x, args, kw):
    fn = getattr(nn.functional, f"fractional_max_pool{nd}d")
    with pytest.raises(cls, match=rf"^\[fractional_max_pool{nd}d\] .*{match}"):
        fn(x, *args, **kw)


def test_torch_raises_the_same_classes():
    fn, x = torch.nn.functional.fractional_max_pool2d, torch.zeros(1, 2, 6, 6)
    for cls, args, kw in [
        (ValueError, (2,), {}),
        (RuntimeError, (2, (6, 2)), {}),
        (TypeError, (2.0, 2), {}),
        (RuntimeError, (2, 2), {"_random_samples": torch.rand(1, 3, 2)}),
        (RuntimeError, (2, 2), {"_random_samples": torch.rand(1, 2, 2, dtype=torch.float64)}),
    ]:
        with pytest.raises(cls):
            fn(x, *args, **kw)


def test_module_bad_arguments():
    with pytest.raises(ValueError, match=r"\[FractionalMaxPool2d\] requires specifying either"):
        nn.FractionalMaxPool2d(2)
    with pytest.raises(ValueError, match=r"\[FractionalMaxPool3d\] only one of output_size"):
        nn.FractionalMaxPool3d(2, output_size=2, output_ratio=0.5)
    with pytest.raises(ValueError, match=r"\[FractionalMaxPool2d\] output_ratio must be between"):
        nn.FractionalMaxPool2d(2, output_ratio=(0.5, 1.0))
    with pytest.raises(ValueError, match=r"output_ratio must be between"):
        torch.nn.FractionalMaxPool2d(2, output_ratio=(0.5, 1.0))
