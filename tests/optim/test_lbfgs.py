"""genesis.optim.LBFGS against torch.optim.LBFGS: the same problems (a quadratic, Rosenbrock, a
least-squares model with parameters of several shapes, a 0-d one and one without a gradient)
stepped side by side with a fixed step and with the strong Wolfe line search, over history
sizes, iteration and evaluation limits and tolerances, in float32 and float64, on the CPU and
CUDA (torch always on the CPU); the state and state_dict (torch's keys, a resumed run equal to
an uninterrupted one, loading torch's state and torch loading genesis's) and the errors."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import DEVICES, to_numpy

import genesis
from genesis import optim

torch = pytest.importorskip("torch")

DTYPES = ["float32", "float64"]
OPTIONS = [
    {},
    {"line_search_fn": "strong_wolfe"},
    {"history_size": 3, "max_iter": 7},
    {"history_size": 2, "max_iter": 6, "max_eval": 7, "line_search_fn": "strong_wolfe"},
    {"lr": 0.5, "tolerance_grad": 1e-4, "tolerance_change": 1e-6},
    {"max_iter": 1},
    {"lr": 0.2, "max_iter": 4, "history_size": 1, "line_search_fn": "strong_wolfe"},
    {"max_iter": 30, "max_eval": 12, "tolerance_change": 1e-12},
]


def _options_id(options):
    return "-".join(f"{k}={v}" for k, v in options.items()) or "defaults"


# -- the problems: each is (initial values, loss(lib, params)), written once for both libraries


def _quadratic():
    rng = np.random.default_rng(0)
    m = rng.standard_normal((8, 8))
    a = m @ m.T / 8 + np.eye(8)  # symmetric positive definite, condition ~ 10
    b = rng.standard_normal(8)

    def loss(lib, params, dtype):
        (x,) = params
        a_, b_ = _const(lib, a, dtype, x), _const(lib, b, dtype, x)
        return 0.5 * (x * (a_ @ x)).sum() - (b_ * x).sum()

    return [rng.standard_normal(8)], loss


def _rosenbrock():
    def loss(lib, params, dtype):
        (x,) = params
        return ((1 - x[:-1]) ** 2 + 100 * (x[1:] - x[:-1] ** 2) ** 2).sum()

    return [np.array([-1.2, 1.0, -0.5, 0.8])], loss


def _least_squares():
    """A linear model y = X W^T + b + s z + u c with W (3, 4), b (3,), a 0-d s, c (1, 3) and a
    parameter the loss does not use (its gradient stays None); the features X, z and u are
    columns of a random (16, 6) matrix."""
    rng = np.random.default_rng(1)
    features = rng.standard_normal((16, 6))
    y_data = rng.standard_normal((16, 3))

    def loss(lib, params, dtype):
        w, b, s, c, _unused = params
        f_, y_ = _const(lib, features, dtype, w), _const(lib, y_data, dtype, w)
        pred = f_[:, :4] @ w.T + b + s * f_[:, 4:5] + f_[:, 5:6] * c
        return ((pred - y_) ** 2).mean() + 0.01 * (w**2).sum()

    init = [
        rng.standard_normal((3, 4)),
        rng.standard_normal(3),
        np.array(0.7),
        rng.standard_normal((1, 3)),
        rng.standard_normal(2),
    ]
    return init, loss


PROBLEMS = {"quadratic": _quadratic, "rosenbrock": _rosenbrock, "least_squares": _least_squares}


def _const(lib, array, dtype, like):
    if lib is torch:
        return torch.tensor(array, dtype=getattr(torch, dtype))
    return genesis.tensor(array, dtype=getattr(genesis, dtype), device=like.device)


def _params(lib, init, dtype, device="cpu"):
    if lib is torch:
        return [torch.nn.Parameter(torch.tensor(v, dtype=getattr(torch, dtype))) for v in init]
    return [
        genesis.nn.Parameter(genesis.tensor(v, dtype=getattr(genesis, dtype), device=device))
        for v in init
    ]


def _closure(lib, opt, params, loss_fn, dtype, calls):
    def closure():
        calls.append(1)
        opt.zero_grad()
        loss = loss_fn(lib, params, dtype)
        loss.backward()
        return loss

    return closure


def _np(t):
    if isinstance(t, genesis.Tensor):
        return to_numpy(t.detach().to(device="cpu", dtype=genesis.float64))
    return t.detach().double().numpy()


def _relative_error(a, b):
    a, b = _np(a), _np(b)
    scale = np.linalg.norm(b)
    return np.linalg.norm(a - b) / scale if scale else np.linalg.norm(a - b)


def _run_both(problem, options, dtype, device, steps):
    """Steps torch's and genesis's LBFGS on the same problem; returns, for each, the params,
    the optimizer, the losses step returned and the number of closure calls."""
    init, loss_fn = PROBLEMS[problem]()
    runs = []
    for lib in (torch, genesis):
        params = _params(lib, init, dtype, device if lib is genesis else "cpu")
        opt = lib.optim.LBFGS(params, **options)
        calls: list[int] = []
        closure = _closure(lib, opt, params, loss_fn, dtype, calls)
        losses = [opt.step(closure).item() for _ in range(steps)]
        runs.append((params, opt, losses, len(calls)))
    return runs


def _steps_and_tolerance(problem, dtype):
    """How many steps to compare, and the relative error allowed. The two differ by rounding
    (sums in another order; torch computes the scalars in the parameters' dtype, genesis in
    double), which L-BFGS amplifies along a curved valley: two steps (40 iterations) of
    Rosenbrock in float64 stay within 1e-10 on the CPU (3e-10 on CUDA), in float32 only one
    does within 1e-4; near the minimum a float32 gradient is mostly rounding, hence 1e-3 on
    the other problems."""
    if dtype == "float64":
        return 2, 1e-9  # CUDA's sums run in another order again
    return (1, 1e-4) if problem == "rosenbrock" else (2, 1e-3)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("options", OPTIONS, ids=_options_id)
@pytest.mark.parametrize("problem", list(PROBLEMS))
def test_matches_torch(problem, options, dtype, device):
    steps, tol = _steps_and_tolerance(problem, dtype)
    (tparams, topt, tlosses, tcalls), (gparams, gopt, glosses, gcalls) = _run_both(
        problem, options, dtype, device, steps
    )
    for tp, gp in zip(tparams, gparams):
        assert gp.dtype == getattr(genesis, dtype) and gp.device.type == device
        assert tuple(gp.shape) == tuple(tp.shape)
        assert _relative_error(gp, tp) <= tol
    np.testing.assert_allclose(glosses, tlosses, rtol=tol, atol=tol)
    tstate, gstate = topt.state[tparams[0]], gopt.state[gparams[0]]
    assert list(gopt.state) == [gparams[0]]
    assert sorted(gstate) == sorted(tstate)
    if dtype == "float64":
        assert gcalls == tcalls
        for key in ("func_evals", "n_iter"):
            assert gstate[key] == tstate[key]
        assert len(gstate["old_dirs"]) == len(tstate["old_dirs"])
        for key in ("t", "H_diag", "prev_loss"):
            np.testing.assert_allclose(float(gstate[key]), float(tstate[key]), rtol=1e-9)
        for key in ("d", "prev_flat_grad"):
            assert _relative_error(gstate[key], tstate[key]) <= 1e-8


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_converges_like_torch(line_search_fn, device):
    """Many steps on Rosenbrock in float64: both reach the minimum (1, ..., 1)."""
    options = {"line_search_fn": line_search_fn, "history_size": 10, "tolerance_change": 1e-14}
    (tparams, _, tlosses, _), (gparams, _, glosses, _) = _run_both(
        "rosenbrock", options, "float64", device, 30
    )
    np.testing.assert_allclose(_np(gparams[0]), np.ones(4), atol=1e-7)
    np.testing.assert_allclose(_np(tparams[0]), np.ones(4), atol=1e-7)
    assert glosses[-1] < 1e-14 and tlosses[-1] < 1e-14


@pytest.mark.parametrize("device", DEVICES)
def test_parameters_without_grad(device):
    """A parameter the loss does not use is left as it is, and counts as zeros in the flat
    gradient and direction."""
    (tparams, topt, _, _), (gparams, gopt, _, _) = _run_both(
        "least_squares", {"line_search_fn": "strong_wolfe"}, "float64", device, 2
    )
    assert gparams[4].grad is None and tparams[4].grad is None
    np.testing.assert_array_equal(_np(gparams[4]), _np(tparams[4]))
    np.testing.assert_array_equal(_np(gparams[4]), PROBLEMS["least_squares"]()[0][4])
    d = _np(gopt.state[gparams[0]]["d"])
    assert d.shape == (12 + 3 + 1 + 3 + 2,) and not d[-2:].any()


@pytest.mark.parametrize("device", DEVICES)
def test_optimal_start_returns_at_once(device):
    """At a point whose gradient is within tolerance_grad the step evaluates once and stops."""
    p = genesis.nn.Parameter(genesis.zeros(3, dtype=genesis.float64, device=device))
    opt = optim.LBFGS([p])
    calls = []
    loss = opt.step(_closure(genesis, opt, [p], lambda lib, ps, dt: (ps[0] ** 2).sum(), "", calls))
    assert loss.item() == 0.0 and len(calls) == 1
    assert opt.state[p] == {"func_evals": 1, "n_iter": 0}
    assert p.tolist() == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("device", DEVICES)
def test_non_contiguous_parameter(device):
    """A parameter that is a transposed view steps as a contiguous one with its values does."""
    init, loss_fn = PROBLEMS["least_squares"]()
    base = genesis.tensor(init[0].T.copy(), dtype=genesis.float64, device=device)
    gparams = _params(genesis, init, "float64", device)
    gparams[0] = genesis.nn.Parameter(base.clone().t())
    assert not gparams[0].is_contiguous()
    runs = []
    for params in (gparams, _params(genesis, init, "float64", device)):
        opt = optim.LBFGS(params, line_search_fn="strong_wolfe", max_iter=5)
        closure = _closure(genesis, opt, params, loss_fn, "float64", [])
        for _ in range(2):
            opt.step(closure)
        runs.append(params)
    for a, b in zip(*runs):
        assert _relative_error(a, b) <= 1e-12
    assert not gparams[0].is_contiguous()


# -- state and state_dict -----------------------------------------------------------------------


def _to_torch(value):
    if isinstance(value, genesis.Tensor):
        return torch.from_numpy(to_numpy(value.cpu()).copy())
    if isinstance(value, dict):
        return {k: _to_torch(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_to_torch(v) for v in value]
    return value


def _to_genesis(value, device="cpu"):
    if isinstance(value, torch.Tensor):
        return genesis.tensor(value.numpy(), device=device)
    if isinstance(value, dict):
        return {k: _to_genesis(v, device) for k, v in value.items()}
    if isinstance(value, list):
        return [_to_genesis(v, device) for v in value]
    return value


STATE_KEYS = "func_evals n_iter d t old_dirs old_stps ro H_diag prev_flat_grad prev_loss al".split()


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_state_dict_has_torchs_structure(line_search_fn, device):
    options = {"line_search_fn": line_search_fn, "history_size": 4, "max_iter": 6}
    (tparams, topt, _, _), (gparams, gopt, _, _) = _run_both(
        "least_squares", options, "float64", device, 2
    )
    tsd, gsd = topt.state_dict(), gopt.state_dict()
    assert gsd["param_groups"] == tsd["param_groups"]
    assert list(gsd["state"]) == list(tsd["state"]) == [0]
    tstate, gstate = tsd["state"][0], gsd["state"][0]
    assert sorted(gstate) == sorted(tstate) == sorted(STATE_KEYS)
    for key in ("d", "prev_flat_grad"):
        assert isinstance(gstate[key], genesis.Tensor) and gstate[key].device.type == device
        assert tuple(gstate[key].shape) == tuple(tstate[key].shape) == (21,)
    for key in ("old_dirs", "old_stps", "ro", "al"):
        assert isinstance(gstate[key], list) and len(gstate[key]) == len(tstate[key])
    pairs = zip(tstate["old_dirs"] + tstate["old_stps"], gstate["old_dirs"] + gstate["old_stps"])
    for tv, gv in pairs:
        assert _relative_error(gv, tv) <= 1e-8
    np.testing.assert_allclose(
        [float(v) for v in gstate["ro"]], [float(v) for v in tstate["ro"]], rtol=1e-8
    )


def _least_squares_run(device, options, steps, start=None, state_dict=None):
    """Steps genesis's LBFGS on the least-squares problem from the initial values (or `start`,
    with `state_dict` loaded into the fresh optimizer)."""
    init, loss_fn = PROBLEMS["least_squares"]()
    params = _params(genesis, start if start is not None else init, "float64", device)
    opt = optim.LBFGS(params, **options)
    if state_dict is not None:
        opt.load_state_dict(state_dict)
    closure = _closure(genesis, opt, params, loss_fn, "float64", [])
    losses = [opt.step(closure).item() for _ in range(steps)]
    return params, opt, losses


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(
    "options",
    [{"max_iter": 3, "history_size": 2}, {"max_iter": 2, "line_search_fn": "strong_wolfe"}],
    ids=_options_id,
)
def test_resumed_optimizer_continues_exactly(options, device, tmp_path):
    """A state_dict saved with genesis.save after some steps and loaded into a new optimizer
    (whose own options differ) continues exactly as the uninterrupted optimizer."""
    whole, _, whole_losses = _least_squares_run(device, options, 6)
    first, opt, first_losses = _least_squares_run(device, options, 3)
    genesis.save(
        {"optimizer": opt.state_dict(), "params": [p.detach() for p in first]}, tmp_path / "ck"
    )
    saved = genesis.load(tmp_path / "ck")
    start = [to_numpy(p) for p in saved["params"]]
    resumed, ropt, resumed_losses = _least_squares_run(
        device, {"lr": 0.1, "history_size": 50}, 3, start, saved["optimizer"]
    )
    assert ropt.param_groups[0]["history_size"] == options.get("history_size", 100)
    assert ropt.state[resumed[0]]["d"].device.type == device
    assert first_losses + resumed_losses == whole_losses
    for a, b in zip(whole, resumed):
        np.testing.assert_array_equal(_np(a), _np(b))


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_state_dict_loads_both_ways_with_torch(line_search_fn):
    """torch's state_dict continues in genesis, and genesis's in torch, as one run."""
    options = {"line_search_fn": line_search_fn, "history_size": 3, "max_iter": 4}
    (tparams, topt, _, _), (gparams, gopt, _, _) = _run_both(
        "least_squares", options, "float64", "cpu", 2
    )
    init, loss_fn = PROBLEMS["least_squares"]()
    gfresh = optim.LBFGS(gparams, lr=0.5)
    gfresh.load_state_dict(_to_genesis(topt.state_dict()))
    tfresh = torch.optim.LBFGS(tparams, lr=0.5)
    tfresh.load_state_dict(_to_torch(gopt.state_dict()))
    gclosure = _closure(genesis, gfresh, gparams, loss_fn, "float64", [])
    tclosure = _closure(torch, tfresh, tparams, loss_fn, "float64", [])
    for _ in range(2):
        np.testing.assert_allclose(
            gfresh.step(gclosure).item(), tfresh.step(tclosure).item(), rtol=1e-10
        )
    for tp, gp in zip(tparams, gparams):
        assert _relative_error(gp, tp) <= 1e-10


# -- errors and options -------------------------------------------------------------------------


def test_errors():
    a = genesis.nn.Parameter(genesis.ones(2))
    b = genesis.nn.Parameter(genesis.ones(3))
    with pytest.raises(ValueError, match="doesn't support per-parameter options"):
        optim.LBFGS([{"params": [a]}, {"params": [b], "lr": 0.1}])
    with pytest.raises(ValueError, match="Invalid learning rate"):
        optim.LBFGS([a], lr=-1.0)
    with pytest.raises(ValueError, match="1-element"):
        optim.LBFGS([a], lr=genesis.tensor([0.1, 0.2]))
    with pytest.raises(ValueError, match="empty parameter list"):
        optim.LBFGS([])
    opt = optim.LBFGS([a])
    with pytest.raises(TypeError, match="closure"):
        opt.step()
    with pytest.raises(TypeError, match="closure"):
        opt.step(None)
    bad = optim.LBFGS([a], line_search_fn="backtracking")  # accepted until a step, as torch
    closure = _closure(genesis, bad, [a], lambda lib, ps, dt: (ps[0] ** 2).sum(), "", [])
    with pytest.raises(RuntimeError, match="only 'strong_wolfe' is supported"):
        bad.step(closure)
    assert a.tolist() == [1.0, 1.0]


def _shifted_square(lib, params, dtype):
    return ((params[0] - 1) ** 2).sum()


def test_defaults_and_tensor_lr():
    p = genesis.nn.Parameter(genesis.tensor([2.0, -1.0], dtype=genesis.float64))
    opt = optim.LBFGS([p], max_iter=8)
    group = opt.param_groups[0]
    tgroup = torch.optim.LBFGS([torch.nn.Parameter(torch.zeros(2))], max_iter=8).param_groups[0]
    assert {k: v for k, v in group.items() if k != "params"} == {
        k: v for k, v in tgroup.items() if k != "params"
    }
    assert group["max_eval"] == 10 and repr(opt).startswith("LBFGS (")
    tensor_lr = optim.LBFGS([p], lr=genesis.tensor(0.5))
    tensor_lr.step(_closure(genesis, tensor_lr, [p], _shifted_square, "", []))
    t = torch.nn.Parameter(torch.tensor([2.0, -1.0], dtype=torch.float64))
    reference = torch.optim.LBFGS([t], lr=torch.tensor(0.5))
    reference.step(_closure(torch, reference, [t], _shifted_square, "", []))
    assert _relative_error(p, t) <= 1e-12
    assert tensor_lr.state[p]["n_iter"] == reference.state[t]["n_iter"] == 18


def test_step_hooks_run_once_per_step():
    p = genesis.nn.Parameter(genesis.tensor([3.0, 4.0], dtype=genesis.float64))
    opt = optim.LBFGS([p], max_iter=5)
    seen = []
    opt.register_step_pre_hook(lambda o, args, kwargs: seen.append("pre"))
    opt.register_step_post_hook(lambda o, args, kwargs: seen.append("post"))
    closure = _closure(genesis, opt, [p], lambda lib, ps, dt: (ps[0] ** 4).sum(), "", [])
    opt.step(closure)
    assert seen == ["pre", "post"]
