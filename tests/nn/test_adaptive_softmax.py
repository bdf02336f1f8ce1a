"""nn.AdaptiveLogSoftmaxWithLoss against torch (CPU): with torch's state_dict loaded, forward's
(output, loss), log_prob and predict (each of its three paths) and the gradients of the input and
every parameter match, in float32 and float64, batched and unbatched, for several cutoffs and
head_bias; the submodules' names, shapes and repr are torch's, the state_dict loads both ways,
the default initialization is Linear's; bad arguments and input raise torch's class with
"[AdaptiveLogSoftmaxWithLoss]"."""

import numpy as np
import pytest
from conftest import to_numpy

import genesis
import genesis.nn as nn

torch = pytest.importorskip("torch")

TOL = {"float64": 1e-10, "float32": 2e-5}
# (in_features, n_classes, cutoffs, div_value, head_bias)
CONFIGS = [
    (16, 20, [5, 10, 15], 2.0, True),
    (12, 30, [4], 4.0, False),
    (8, 10, [2, 3, 8], 1.5, False),
]


def _pair(config, dtype, device, seed=0):
    """A torch layer and the genesis layer holding its parameters."""
    torch.manual_seed(seed)
    t = torch.nn.AdaptiveLogSoftmaxWithLoss(*config).to(getattr(torch, dtype))
    g = nn.AdaptiveLogSoftmaxWithLoss(*config, device=device, dtype=getattr(genesis, dtype))
    g.load_state_dict(t.state_dict())
    return g, t


def _close(got, want, dtype):
    np.testing.assert_allclose(
        to_numpy(got), want.detach().numpy(), rtol=TOL[dtype], atol=TOL[dtype]
    )


def _targets(n_classes, n, seed):
    """n targets that visit the shortlist and every cluster."""
    rng = np.random.default_rng(seed)
    return np.concatenate([np.arange(n_classes), rng.integers(0, n_classes, n - n_classes)])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("config", CONFIGS)
def test_forward_and_gradients_match_torch(config, dtype, device):
    g, t = _pair(config, dtype, device)
    rng = np.random.default_rng(3)
    x = rng.normal(size=(40, config[0])).astype(dtype)
    target = _targets(config[1], 40, 4)
    gx = genesis.tensor(x, device=device, requires_grad=True)
    tx = torch.tensor(x, requires_grad=True)
    g_out = g(gx, genesis.tensor(target, device=device))
    t_out = t(tx, torch.tensor(target))
    assert type(g_out).__name__ == "_ASMoutput" and g_out._fields == ("output", "loss")
    assert g_out.output.shape == (40,) and g_out.loss.shape == ()
    _close(g_out.output, t_out.output, dtype)
    _close(g_out.loss, t_out.loss, dtype)
    # a gradient through both outputs
    weights = rng.normal(size=40).astype(dtype)
    (t_out.loss + (t_out.output * torch.tensor(weights)).sum()).backward()
    (g_out.loss + (g_out.output * genesis.tensor(weights, device=device)).sum()).backward()
    _close(gx.grad, tx.grad, dtype)
    t_params = dict(t.named_parameters())
    for name, p in g.named_parameters():
        _close(p.grad, t_params[name].grad, dtype)


@pytest.mark.parametrize("config", CONFIGS)
def test_targets_in_only_some_clusters(config, device):
    g, t = _pair(config, "float64", device)
    x = np.random.default_rng(5).normal(size=(6, config[0]))
    for target in ([0, 1, 0, 1, 0, 1], [config[1] - 1] * 6):
        g_out = g(genesis.tensor(x, device=device), genesis.tensor(target, device=device))
        t_out = t(torch.tensor(x), torch.tensor(target))
        _close(g_out.output, t_out.output, "float64")
        _close(g_out.loss, t_out.loss, "float64")


def test_unbatched_and_single_row(device):
    g, t = _pair(CONFIGS[0], "float64", device)
    x = np.random.default_rng(6).normal(size=(16,))
    for target in (3, 12, 19):
        gx = genesis.tensor(x, device=device, requires_grad=True)
        tx = torch.tensor(x, requires_grad=True)
        g_out = g(gx, genesis.tensor(target, device=device))
        t_out = t(tx, torch.tensor(target))
        assert g_out.output.shape == () and g_out.loss.shape == ()
        _close(g_out.output, t_out.output, "float64")
        t_out.loss.backward()
        g_out.loss.backward()
        _close(gx.grad, tx.grad, "float64")
    g_out = g(genesis.tensor(x[None], device=device), genesis.tensor([12], device=device))
    t_out = t(torch.tensor(x[None]), torch.tensor([12]))
    assert g_out.output.shape == (1,)
    _close(g_out.loss, t_out.loss, "float64")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("config", CONFIGS)
def test_log_prob_matches_torch(config, dtype, device):
    g, t = _pair(config, dtype, device)
    x = np.random.default_rng(7).normal(size=(9, config[0])).astype(dtype)
    gx = genesis.tensor(x, device=device, requires_grad=True)
    tx = torch.tensor(x, requires_grad=True)
    g_lp, t_lp = g.log_prob(gx), t.log_prob(tx)
    assert g_lp.shape == (9, config[1])
    _close(g_lp, t_lp, dtype)
    np.testing.assert_allclose(to_numpy(g_lp.exp().sum(1)), np.ones(9), rtol=1e-5)
    upstream = np.random.default_rng(8).normal(size=(9, config[1])).astype(dtype)
    t_lp.backward(torch.tensor(upstream))
    g_lp.backward(genesis.tensor(upstream, device=device))
    _close(gx.grad, tx.grad, dtype)
    t_params = dict(t.named_parameters())
    for name, p in g.named_parameters():
        _close(p.grad, t_params[name].grad, dtype)


def _set(g_param, t_param, value):
    with torch.no_grad():
        t_param.copy_(torch.tensor(value))
    with genesis.no_grad():
        g_param.copy_(genesis.tensor(value, device=g_param.device))


def test_predict_matches_torch_on_each_path(device):
    g, t = _pair((8, 12, [4, 8], 2.0, True), "float64", device)
    x = np.random.default_rng(9).normal(size=(30, 8))
    # head bias: large on the shortlist keeps every row there; large on the clusters sends
    # every row to them; large on the clusters for half of the rows (through the input) gives
    # the mixed path
    paths = []
    for bias in (np.array([50.0] * 4 + [0.0] * 2), np.array([0.0] * 4 + [50.0] * 2), None):
        if bias is None:
            bias = np.zeros(6)
            x[::2] = np.eye(8)[0]
            weight = np.zeros((6, 8))
            weight[4:, 0] = 50.0
            _set(g.head.weight, t.head.weight, weight)
        _set(g.head.bias, t.head.bias, bias)
        expected = t.predict(torch.tensor(x))
        got = g.predict(genesis.tensor(x, device=device))
        assert got.dtype == genesis.int64 and not got.requires_grad
        np.testing.assert_array_equal(to_numpy(got), expected.numpy())
        full = g.log_prob(genesis.tensor(x, device=device)).argmax(1)
        np.testing.assert_array_equal(to_numpy(got), to_numpy(full))
        paths.append((bool((expected < 4).any()), bool((expected >= 4).any())))
    assert paths == [(True, False), (False, True), (True, True)]


def test_structure_repr_and_state_dict(device):
    for config in CONFIGS:
        g = nn.AdaptiveLogSoftmaxWithLoss(*config, device=device)
        t = torch.nn.AdaptiveLogSoftmaxWithLoss(*config)
        assert repr(g) == repr(t)
        g_state, t_state = g.state_dict(), t.state_dict()
        assert list(g_state) == list(t_state)
        for name in t_state:
            assert tuple(g_state[name].shape) == tuple(t_state[name].shape), name
        for attr in ("in_features", "n_classes", "cutoffs", "div_value", "head_bias"):
            assert getattr(g, attr) == getattr(t, attr), attr
        for attr in ("shortlist_size", "n_clusters", "head_size"):
            assert getattr(g, attr) == getattr(t, attr), attr
        # genesis's parameters load into torch too
        t.load_state_dict({k: torch.tensor(to_numpy(v)) for k, v in g_state.items()})
    g = nn.AdaptiveLogSoftmaxWithLoss(16, 20, [5, 10], head_bias=True, dtype=genesis.float64)
    assert all(p.dtype == genesis.float64 for p in g.parameters())
    assert isinstance(g.head, nn.Linear) and isinstance(g.tail, nn.ModuleList)
    assert all(isinstance(s, nn.Sequential) and len(s) == 2 for s in g.tail)


def test_default_init_is_linear():
    genesis.manual_seed(0)
    g = nn.AdaptiveLogSoftmaxWithLoss(64, 100, [10, 50], head_bias=True)
    for name, p in g.named_parameters():
        fan_in = p.shape[1] if p.dim() == 2 else 64
        values = to_numpy(p)
        assert np.abs(values).max() <= 1 / np.sqrt(fan_in), name
        assert values.std() > 0.25 / np.sqrt(fan_in), name  # drawn, not zero
    before = to_numpy(g.tail[0][1].weight)
    g.reset_parameters()
    assert not np.array_equal(before, to_numpy(g.tail[0][1].weight))


def test_bad_arguments():
    cls, tcls = nn.AdaptiveLogSoftmaxWithLoss, torch.nn.AdaptiveLogSoftmaxWithLoss
    for cutoffs in ([], [5, 3], [0, 4], [4, 10], [4, 4], [2.5]):
        match = "length larger than 0" if not cutoffs else "unique, positive integers"
        with pytest.raises(ValueError, match=r"\[AdaptiveLogSoftmaxWithLoss\] cutoffs should be"):
            cls(8, 10, cutoffs)
        with pytest.raises(ValueError, match=match):
            tcls(8, 10, cutoffs)


def test_bad_input(device):
    g, t = _pair(CONFIGS[0], "float32", device)
    x = genesis.zeros(4, 16, device=device)
    name = r"\[AdaptiveLogSoftmaxWithLoss\] "
    cases = [
        # (genesis input, target), (torch input, target), class, message
        ((x, [0, 1, 2, 20]), (4, 16), [0, 1, 2, 20], RuntimeError, "Target values should be in"),
        ((x, [0, -1, 2, 3]), (4, 16), [0, -1, 2, 3], RuntimeError, "Target values should be in"),
        ((x, [0, 1, 2]), (4, 16), [0, 1, 2], RuntimeError, "same size in the batch dimension"),
        ((x, [[0, 1]] * 4), (4, 16), [[0, 1]] * 4, RuntimeError, "0D or 1D target tensor"),
        ((x[0], 3), (16,), 3, None, None),
        ((x, 3), (4, 16), 3, RuntimeError, "0D target tensor expects 1D input"),
    ]
    for (gi, gt), t_shape, tt, exc, match in cases:
        target = genesis.tensor(gt, device=device)
        if exc is None:
            g(gi, target)
            continue
        with pytest.raises(exc, match=name + ".*" + match):
            g(gi, target)
        with pytest.raises(exc, match=match):
            t(torch.zeros(t_shape), torch.tensor(tt))
    three = genesis.zeros(2, 4, 16, device=device)
    with pytest.raises(RuntimeError, match=name + "1D target tensor expects 2D input"):
        g(three, genesis.tensor([0, 1], device=device))
    with pytest.raises(RuntimeError, match=name + "expected input with 16 features"):
        g(genesis.zeros(4, 15, device=device), genesis.tensor([0, 1, 2, 3], device=device))
    with pytest.raises(RuntimeError, match=name + "expected an integer target"):
        g(x, genesis.zeros(4, device=device))
    with pytest.raises(RuntimeError, match=name + "log_prob expects a 2D input"):
        g.log_prob(three)
    with pytest.raises(RuntimeError, match=name + "predict expects a 2D input"):
        g.predict(x[0])
    with pytest.raises(TypeError, match=name + "target must be a genesis.Tensor"):
        g(x, [0, 1, 2, 3])
