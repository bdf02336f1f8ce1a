"""nn.init against torch.nn.init: the same gains, fans, bounds and standard deviations (checked on
large draws), the deterministic fills exactly, the generator and device respected, the errors."""

import math

import numpy as np
import pytest

import genesis
import genesis.nn.init as init

torch = pytest.importorskip("torch")


def _np(t):
    return t.detach().cpu().numpy()


@pytest.mark.parametrize(
    "args",
    [
        ("linear",),
        ("conv2d",),
        ("sigmoid",),
        ("tanh",),
        ("relu",),
        ("leaky_relu",),
        ("leaky_relu", 0.2),
        ("leaky_relu", 3),
        ("selu",),
        ("conv_transpose3d",),
    ],
)
def test_calculate_gain_matches_torch(args):
    assert init.calculate_gain(*args) == torch.nn.init.calculate_gain(*args)


def test_calculate_gain_errors_match_torch():
    for args in (("softmax",), ("leaky_relu", True), ("leaky_relu", "x")):
        with pytest.raises(ValueError) as g_err:
            init.calculate_gain(*args)
        with pytest.raises(ValueError) as t_err:
            torch.nn.init.calculate_gain(*args)
        assert str(g_err.value) == str(t_err.value)


SHAPES = [(256, 512), (64, 32, 3, 3), (128, 16, 5)]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize(
    "name, kwargs, kind",
    [
        ("xavier_uniform_", {"gain": 2.0}, "uniform"),
        ("xavier_normal_", {"gain": 0.5}, "normal"),
        ("kaiming_uniform_", {"a": math.sqrt(5)}, "uniform"),
        ("kaiming_uniform_", {"mode": "fan_out", "nonlinearity": "relu"}, "uniform"),
        ("kaiming_normal_", {}, "normal"),
        ("kaiming_normal_", {"mode": "fan_out", "nonlinearity": "tanh"}, "normal"),
        ("uniform_", {"a": -0.3, "b": 0.7}, "uniform"),
        ("normal_", {"mean": 1.0, "std": 0.2}, "normal"),
    ],
)
def test_random_fills_follow_torchs_distribution(shape, name, kwargs, kind, device):
    g = getattr(init, name)(genesis.empty(*shape, device=device), **kwargs)
    t = getattr(torch.nn.init, name)(torch.empty(*shape), **kwargs)
    assert g.device.type == device
    gv, tv = _np(g).ravel(), _np(t).ravel()
    if kind == "uniform":  # the same bounds: the extremes agree to within the sample spacing
        span = tv.max() - tv.min()
        assert abs(gv.max() - tv.max()) < 0.01 * span and abs(gv.min() - tv.min()) < 0.01 * span
    # two samples of n: their stds differ by about std / sqrt(n) and their means by about
    # std * sqrt(2 / n) (one standard deviation); five of them keep the test from flaking
    n = gv.size
    assert abs(gv.std() - tv.std()) < 5 * tv.std() / math.sqrt(n)
    assert abs(gv.mean() - tv.mean()) < 5 * tv.std() * math.sqrt(2 / n) + 1e-3


def test_trunc_normal_stays_in_bounds_with_torchs_moments():
    g = init.trunc_normal_(genesis.empty(200_000), mean=0.5, std=1.0, a=-1.0, b=1.5)
    t = torch.nn.init.trunc_normal_(torch.empty(200_000), mean=0.5, std=1.0, a=-1.0, b=1.5)
    gv, tv = _np(g), _np(t)
    assert gv.min() >= -1.0 and gv.max() <= 1.5
    assert abs(gv.mean() - tv.mean()) < 0.01 and abs(gv.std() - tv.std()) < 0.01


def test_deterministic_fills_match_torch(device):
    for name, args in [("constant_", (0.25,)), ("ones_", ()), ("zeros_", ()), ("eye_", ())]:
        g = getattr(init, name)(genesis.empty(3, 5, device=device), *args)
        t = getattr(torch.nn.init, name)(torch.empty(3, 5), *args)
        np.testing.assert_array_equal(_np(g), _np(t))
    for shape, groups in [((4, 2, 3), 1), ((6, 3, 3, 3), 2), ((4, 4, 1, 3, 3), 2), ((2, 5, 3), 1)]:
        g = init.dirac_(genesis.empty(*shape, device=device), groups)
        t = torch.nn.init.dirac_(torch.empty(*shape), groups)
        np.testing.assert_array_equal(_np(g), _np(t))


def test_orthogonal_gives_orthonormal_rows_or_columns(device):
    for shape in [(6, 4), (4, 6), (8, 2, 3)]:
        w = init.orthogonal_(genesis.empty(*shape, device=device), gain=2.0)
        m = _np(w).reshape(shape[0], -1)
        small = m.T @ m if m.shape[0] >= m.shape[1] else m @ m.T
        np.testing.assert_allclose(small, 4.0 * np.eye(small.shape[0]), atol=1e-4)


def test_sparse_zeros_the_same_count_per_column(device):
    w = init.sparse_(genesis.empty(10, 7, device=device), sparsity=0.3, std=0.5)
    zeros_per_column = (_np(w) == 0).sum(axis=0)
    assert (zeros_per_column == 3).all()


def test_generator_makes_draws_reproducible():
    a = init.kaiming_uniform_(genesis.empty(4, 4), generator=genesis.Generator().manual_seed(3))
    b = init.kaiming_uniform_(genesis.empty(4, 4), generator=genesis.Generator().manual_seed(3))
    np.testing.assert_array_equal(_np(a), _np(b))


def test_fills_do_not_record_gradients():
    p = genesis.nn.Parameter(genesis.empty(3, 3))
    init.xavier_uniform_(p)
    assert p.is_leaf and p.grad_fn is None and p.requires_grad


def test_errors_match_torch():
    cases = [
        ("xavier_uniform_", (genesis.empty(3),), (torch.empty(3),)),
        ("eye_", (genesis.empty(2, 2, 2),), (torch.empty(2, 2, 2),)),
        ("dirac_", (genesis.empty(2, 2),), (torch.empty(2, 2),)),
        ("kaiming_normal_", (genesis.empty(2, 2), 0, "fan_x"), (torch.empty(2, 2), 0, "fan_x")),
        ("orthogonal_", (genesis.empty(3),), (torch.empty(3),)),
    ]
    for name, g_args, t_args in cases:
        with pytest.raises(ValueError) as g_err:
            getattr(init, name)(*g_args)
        with pytest.raises(ValueError) as t_err:
            getattr(torch.nn.init, name)(*t_args)
        assert str(g_err.value) == str(t_err.value), name
    with pytest.raises(TypeError, match=r"\[init.normal_\] expected a genesis.Tensor"):
        init.normal_([1.0])


def test_deprecated_names_warn_and_work():
    with pytest.warns(FutureWarning, match="nn.init.xavier_uniform_"):
        init.xavier_uniform(genesis.empty(2, 2))
