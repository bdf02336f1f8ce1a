"""genesis.optim.lr_scheduler against torch.optim.lr_scheduler.

Each scheduler runs beside torch's, built with the same arguments over a genesis and a torch
optimizer with the same param groups, for 300 steps: the learning rates (and the momenta that
CyclicLR and OneCycleLR cycle) must be torch's exactly, since the formulas are the same floats in
the same order. Then state_dicts (equal to torch's, loadable both ways, resumable), chaining,
resuming with ``last_epoch``, lrs held as 0-d Tensors, the warnings (the same messages as
torch's in the same situations) and the errors (the same exception classes), and last the
docstrings, by the project's own rules (tests/project/test_docstrings.py).
"""

import math
import pickle
import random
import warnings

import pytest

torch = pytest.importorskip("torch")

import test_docstrings as project_docs  # noqa: E402  (tests/project, on sys.path: conftest.py)
import torch.optim.lr_scheduler as T  # noqa: E402

import genesis  # noqa: E402
from genesis.optim import SGD, Adam, Optimizer  # noqa: E402
from genesis.optim import lr_scheduler as G  # noqa: E402

STEPS = 300
LRS = [pytest.param((0.1,), id="1group"), pytest.param((0.3, 0.05), id="2groups")]
HYPER = ("lr", "initial_lr", "momentum", "betas", "max_lr", "min_lr", "max_momentum")


# -- building the pairs -----------------------------------------------------------------------


def make_optimizer(lib, lrs=(0.1,), kind="sgd", values=None, **options):
    """An SGD or Adam of ``lib`` (torch or genesis) with one param group per lr, each with one
    parameter (zeros(1), or float64 ``values[i]``)."""
    param = torch.nn.Parameter if lib is torch else genesis.nn.Parameter
    data = (
        [lib.zeros(1)] * len(lrs)
        if values is None
        else [lib.tensor(v, dtype=lib.float64) for v in values]
    )
    groups = [{"params": [param(d.clone())], "lr": lr} for d, lr in zip(data, lrs)]
    if lib is torch:
        return {"sgd": torch.optim.SGD, "adam": torch.optim.Adam}[kind](groups, **options)
    return {"sgd": SGD, "adam": Adam}[kind](groups, **options)


def per_group(opt, *values):
    """One value per param group, cycling through ``values``."""
    return [values[i % len(values)] for i in range(len(opt.param_groups))]


def hyper(opt):
    return [{k: g[k] for k in HYPER if k in g} for g in opt.param_groups]


def check_same(t_sched, g_sched, t_opt, g_opt):
    assert g_sched.get_last_lr() == t_sched.get_last_lr()
    assert hyper(g_opt) == hyper(t_opt)


def step_pair(t_sched, g_sched, t_opt, g_opt, metric=None):
    t_opt.step()
    g_opt.step()
    if metric is None:
        t_sched.step()
        g_sched.step()
    else:
        t_sched.step(metric)
        g_sched.step(metric)


class Decay:
    """A callable object for lr_lambda: its attributes are what a state_dict saves."""

    def __init__(self, rate):
        self.rate = rate

    def __call__(self, epoch):
        return self.rate**epoch


class Scale:
    """A callable object for CyclicLR's scale_fn."""

    def __init__(self, power):
        self.power = power

    def __call__(self, x):
        return 1.0 / (x**self.power)


def case(name, build, kind="sgd", **options):
    """A scheduler to run beside torch's: build(module, optimizer), over an optimizer of ``kind``
    with ``options``."""
    return pytest.param(build, kind, options, id=name)


def two_phases(m, o):
    return [m.LinearLR(o, 0.1, total_iters=10), m.CosineAnnealingLR(o, 100)]


def three_phases(m, o):
    return [m.ConstantLR(o, 0.5, 5), m.ExponentialLR(o, 0.97), m.StepLR(o, 30, 0.5)]


def nested(m, o):
    inner = m.SequentialLR(o, [m.ConstantLR(o, 0.2, 4), m.ExponentialLR(o, 0.9)], [4])
    return m.SequentialLR(o, [inner, m.StepLR(o, 10)], [30])


def cyclic_lists(m, o):
    return m.CyclicLR(
        o,
        per_group(o, 0.01, 0.02),
        per_group(o, 0.1, 0.3),
        17,
        mode="triangular2",
        base_momentum=per_group(o, 0.8, 0.7),
        max_momentum=per_group(o, 0.9, 0.95),
    )


def one_cycle_options(m, o):
    return m.OneCycleLR(
        o,
        per_group(o, 0.5, 0.2),
        STEPS,
        pct_start=0.5,
        div_factor=10.0,
        final_div_factor=100.0,
        base_momentum=per_group(o, 0.8, 0.7),
        max_momentum=per_group(o, 0.9, 0.99),
    )


def one_cycle_three_phase(m, o):
    return m.OneCycleLR(o, 0.5, STEPS + 1, three_phase=True)


MOMENTUM = {"momentum": 0.9}
NO_MOMENTUM = {"cycle_momentum": False}
# Every scheduler and option.
CASES = [
    case("LambdaLR", lambda m, o: m.LambdaLR(o, lambda e: 0.97**e)),
    case(
        "LambdaLR-list",
        lambda m, o: m.LambdaLR(o, per_group(o, Decay(0.98), lambda e: 1 / (1 + e))),
    ),
    case("MultiplicativeLR", lambda m, o: m.MultiplicativeLR(o, lambda e: 0.99)),
    case(
        "MultiplicativeLR-list",
        lambda m, o: m.MultiplicativeLR(
            o, per_group(o, lambda e: 0.99, lambda e: 0.9 + e % 3 / 20)
        ),
    ),
    case("StepLR", lambda m, o: m.StepLR(o, 7)),
    case("StepLR-gamma", lambda m, o: m.StepLR(o, step_size=13, gamma=0.7)),
    case("MultiStepLR", lambda m, o: m.MultiStepLR(o, [10, 30, 30, 80, 250])),
    case("MultiStepLR-unsorted", lambda m, o: m.MultiStepLR(o, (80, 10, 30, 30), gamma=0.5)),
    case("ConstantLR", lambda m, o: m.ConstantLR(o)),
    case("ConstantLR-options", lambda m, o: m.ConstantLR(o, factor=0.5, total_iters=40)),
    case("ConstantLR-factor1", lambda m, o: m.ConstantLR(o, factor=1.0, total_iters=3)),
    case("LinearLR", lambda m, o: m.LinearLR(o)),
    case("LinearLR-options", lambda m, o: m.LinearLR(o, 0.1, 0.9, total_iters=120)),
    case("LinearLR-decay", lambda m, o: m.LinearLR(o, 1.0, 0.0, total_iters=250)),
    case("ExponentialLR", lambda m, o: m.ExponentialLR(o, gamma=0.98)),
    case("PolynomialLR", lambda m, o: m.PolynomialLR(o)),
    case("PolynomialLR-square", lambda m, o: m.PolynomialLR(o, total_iters=200, power=2.0)),
    case("PolynomialLR-sqrt", lambda m, o: m.PolynomialLR(o, total_iters=280, power=0.5)),
    case("CosineAnnealingLR", lambda m, o: m.CosineAnnealingLR(o, T_max=50)),
    case("CosineAnnealingLR-eta_min", lambda m, o: m.CosineAnnealingLR(o, 37, eta_min=1e-3)),
    case("CosineAnnealingLR-long", lambda m, o: m.CosineAnnealingLR(o, T_max=300)),
    case("CosineAnnealingWarmRestarts", lambda m, o: m.CosineAnnealingWarmRestarts(o, 10)),
    case(
        "CosineAnnealingWarmRestarts-T_mult2",
        lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=7, T_mult=2, eta_min=1e-3),
    ),
    case(
        "CosineAnnealingWarmRestarts-T_mult3",
        lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=5, T_mult=3),
    ),
    case(
        "CyclicLR-triangular", lambda m, o: m.CyclicLR(o, 0.01, 0.1, step_size_up=20, **NO_MOMENTUM)
    ),
    case(
        "CyclicLR-triangular2",
        lambda m, o: m.CyclicLR(o, 0.01, 0.1, 15, 25, mode="triangular2", **NO_MOMENTUM),
    ),
    case(
        "CyclicLR-exp_range",
        lambda m, o: m.CyclicLR(
            o, 0.01, 0.1, 10, mode="exp_range", gamma=0.99, scale_mode="cycle", **NO_MOMENTUM
        ),
    ),
    case(
        "CyclicLR-scale_fn-cycle",
        lambda m, o: m.CyclicLR(o, 0.01, 0.1, 12, scale_fn=Scale(0.5), **NO_MOMENTUM),
    ),
    case(
        "CyclicLR-scale_fn-iterations",
        lambda m, o: m.CyclicLR(
            o, 0.01, 0.1, 12, 8, scale_fn=lambda x: 0.999**x, scale_mode="iterations", **NO_MOMENTUM
        ),
    ),
    case("CyclicLR-momentum", lambda m, o: m.CyclicLR(o, 0.01, 0.1, step_size_up=9), **MOMENTUM),
    case(
        "CyclicLR-betas",
        lambda m, o: m.CyclicLR(o, 1e-3, 1e-2, 9, base_momentum=0.85, max_momentum=0.95),
        "adam",
    ),
    case("CyclicLR-lists", cyclic_lists, momentum=0.5),
    case(
        "OneCycleLR-cos",
        lambda m, o: m.OneCycleLR(o, max_lr=0.5, total_steps=STEPS + 1),
        **MOMENTUM,
    ),
    case(
        "OneCycleLR-linear",
        lambda m, o: m.OneCycleLR(o, 0.5, STEPS + 1, anneal_strategy="linear"),
        **MOMENTUM,
    ),
    case("OneCycleLR-three_phase", one_cycle_three_phase, **MOMENTUM),
    case(
        "OneCycleLR-three_phase-linear",
        lambda m, o: m.OneCycleLR(
            o,
            0.5,
            STEPS + 1,
            pct_start=0.25,
            anneal_strategy="linear",
            three_phase=True,
            **NO_MOMENTUM,
        ),
    ),
    case(
        "OneCycleLR-betas",
        lambda m, o: m.OneCycleLR(o, 0.01, STEPS + 1, base_momentum=0.8, max_momentum=0.9),
        "adam",
    ),
    case(
        "OneCycleLR-epochs",
        lambda m, o: m.OneCycleLR(o, 0.5, epochs=30, steps_per_epoch=11, **NO_MOMENTUM),
    ),
    case("OneCycleLR-options", one_cycle_options, **MOMENTUM),
    case("SequentialLR", lambda m, o: m.SequentialLR(o, two_phases(m, o), [10])),
    case("SequentialLR-three", lambda m, o: m.SequentialLR(o, three_phases(m, o), [5, 100])),
    case(
        "SequentialLR-lambda",
        lambda m, o: m.SequentialLR(
            o, [m.LambdaLR(o, Decay(0.9)), m.MultiStepLR(o, [20, 40])], milestones=[50]
        ),
    ),
    case("SequentialLR-nested", nested),
    case(
        "ChainedScheduler",
        lambda m, o: m.ChainedScheduler(
            [m.ConstantLR(o, 0.5, total_iters=20), m.ExponentialLR(o, 0.99)]
        ),
    ),
    case(
        "ChainedScheduler-optimizer",
        lambda m, o: m.ChainedScheduler(
            [m.LinearLR(o, 0.2, total_iters=30), m.StepLR(o, 25, 0.5)], optimizer=o
        ),
    ),
]


def build_pair(build, lrs, kind, options):
    """(torch scheduler, genesis scheduler, torch optimizer, genesis optimizer); building them
    warns the same (a nested SequentialLR steps its inner schedulers before any optimizer step)."""
    t_opt = make_optimizer(torch, lrs, kind, **options)
    g_opt = make_optimizer(genesis, lrs, kind, **options)
    made = {}
    theirs = warnings_of(lambda: made.setdefault("t", build(T, t_opt)))
    mine = warnings_of(lambda: made.setdefault("g", build(G, g_opt)))
    assert [w[:2] for w in mine] == [w[:2] for w in theirs]
    return made["t"], made["g"], t_opt, g_opt


# -- every scheduler against torch's ----------------------------------------------------------


@pytest.mark.parametrize("lrs", LRS)
@pytest.mark.parametrize("build, kind, options", CASES)
def test_matches_torch(build, kind, options, lrs):
    pair = build_pair(build, lrs, kind, options)
    check_same(*pair)
    for _ in range(STEPS):
        step_pair(*pair)
        check_same(*pair)


def _metric_series(shape, n=STEPS):
    rng = random.Random(0)
    if shape == "falling":  # plateaus of 25 steps, small noise
        return [1.0 / (1 + i // 25) + 1e-4 * rng.random() for i in range(n)]
    if shape == "rising":
        return [1.0 - 1.0 / (1 + i // 30) + 1e-3 * rng.random() for i in range(n)]
    return [rng.random() for _ in range(n)]  # noise


PLATEAU_CASES = [
    ("default", {}, "falling"),
    ("noise", {"patience": 3}, "noise"),
    ("max", {"mode": "max", "patience": 5}, "rising"),
    (
        "max-abs",
        {"mode": "max", "threshold_mode": "abs", "threshold": 0.01, "patience": 2},
        "rising",
    ),
    ("min-abs", {"threshold_mode": "abs", "threshold": 0.05, "patience": 4}, "falling"),
    ("cooldown", {"factor": 0.5, "patience": 2, "cooldown": 5}, "noise"),
    ("min_lr", {"factor": 0.5, "patience": 1, "min_lr": 0.01}, "noise"),
    ("min_lr-list", {"factor": 0.5, "patience": 1, "min_lr": "per-group"}, "noise"),
    ("eps", {"factor": 0.9, "patience": 0, "eps": 0.005}, "noise"),
    ("threshold", {"threshold": 0.3, "patience": 1, "factor": 0.8}, "falling"),
]


@pytest.mark.parametrize("lrs", LRS)
@pytest.mark.parametrize("options, shape", [pytest.param(o, s, id=i) for i, o, s in PLATEAU_CASES])
def test_reduce_lr_on_plateau_matches_torch(options, shape, lrs):
    def build(m, o):
        kwargs = dict(options)
        if kwargs.get("min_lr") == "per-group":
            kwargs["min_lr"] = per_group(o, 0.02, 0.001)
        return m.ReduceLROnPlateau(o, **kwargs)

    pair = build_pair(build, lrs, "sgd", {})
    t_sched, g_sched = pair[:2]
    check_same(*pair)
    for metric in _metric_series(shape):
        step_pair(*pair, metric=metric)
        check_same(*pair)
        for attr in ("best", "num_bad_epochs", "cooldown_counter", "last_epoch", "in_cooldown"):
            assert getattr(g_sched, attr) == getattr(t_sched, attr), attr


def test_reduce_lr_on_plateau_takes_a_tensor_metric():
    pair = build_pair(lambda m, o: m.ReduceLROnPlateau(o, patience=1), (0.1,), "sgd", {})
    t_sched, g_sched, t_opt, g_opt = pair
    for value in [1.0, 2.0, 2.0, 2.0, 0.5, 0.6, 0.7]:
        t_sched.step(torch.tensor(value))
        g_sched.step(genesis.tensor(value))
        check_same(*pair)


def test_first_values_and_initial_lr():
    opt = make_optimizer(genesis, (0.1, 0.2))
    G.StepLR(opt, 3)
    assert [g["initial_lr"] for g in opt.param_groups] == [0.1, 0.2]
    opt.param_groups[0]["lr"] = 5.0
    sched = G.ExponentialLR(opt, 0.5)  # initial_lr is set once, by the first scheduler
    assert sched.base_lrs == [0.1, 0.2] and sched.last_epoch == 0
    assert sched.get_last_lr() == [5.0, 0.2]


# -- state_dict -------------------------------------------------------------------------------


def _fresh_copy(build, lrs, kind, options, saved_groups, state):
    """A new genesis optimizer and scheduler given a saved state: the groups' hyperparameters
    as an optimizer's load_state_dict would restore them, then the scheduler's."""
    g_opt = make_optimizer(genesis, lrs, kind, **options)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        g_sched = build(G, g_opt)
    for group, saved in zip(g_opt.param_groups, saved_groups):
        group.update(saved)
    g_sched.load_state_dict(state)
    return g_sched, g_opt


def _saved_groups(opt):
    return [{k: v for k, v in g.items() if k != "params"} for g in opt.param_groups]


@pytest.mark.parametrize("lrs", LRS)
@pytest.mark.parametrize("build, kind, options", CASES)
def test_state_dict_round_trip(build, kind, options, lrs):
    t_sched, g_sched, t_opt, g_opt = pair = build_pair(build, lrs, kind, options)
    for _ in range(37):
        step_pair(*pair)
    state = g_sched.state_dict()
    assert state == t_sched.state_dict()  # PyTorch's keys and values
    assert "optimizer" not in state
    pickle.loads(pickle.dumps(state))  # no functions in it
    # A fresh scheduler given the genesis state, and another given torch's, continue as torch.
    mine = _fresh_copy(build, lrs, kind, options, _saved_groups(g_opt), state)
    theirs = _fresh_copy(build, lrs, kind, options, _saved_groups(t_opt), t_sched.state_dict())
    for _ in range(STEPS - 37):
        step_pair(*pair)
        for other_sched, other_opt in (mine, theirs):
            other_opt.step()
            other_sched.step()
            check_same(t_sched, other_sched, t_opt, other_opt)


def test_state_dict_loads_into_torch():
    build = one_cycle_three_phase
    t_sched, g_sched, t_opt, g_opt = pair = build_pair(build, (0.1, 0.2), "sgd", {"momentum": 0.9})
    for _ in range(50):
        step_pair(*pair)
    t_opt2 = make_optimizer(torch, (0.1, 0.2), "sgd", momentum=0.9)
    t_sched2 = build(T, t_opt2)
    for group, saved in zip(t_opt2.param_groups, _saved_groups(g_opt)):
        group.update(saved)
    t_sched2.load_state_dict(g_sched.state_dict())
    for _ in range(100):
        step_pair(*pair)
        t_opt2.step()
        t_sched2.step()
        assert t_sched2.get_last_lr() == g_sched.get_last_lr()


@pytest.mark.parametrize("cls", ["LambdaLR", "MultiplicativeLR"])
def test_state_dict_of_lr_lambdas(cls):
    def build(m, o):
        return getattr(m, cls)(o, [Decay(0.9), lambda e: 0.95])

    t_sched, g_sched, _, _ = build_pair(build, (0.1, 0.2), "sgd", {})
    g_sched.lr_lambdas[0].rate = t_sched.lr_lambdas[0].rate = 0.8
    state = g_sched.state_dict()
    assert state["lr_lambdas"] == [{"rate": 0.8}, None] == t_sched.state_dict()["lr_lambdas"]
    fresh = getattr(G, cls)(make_optimizer(genesis, (0.1, 0.2)), [Decay(0.5), lambda e: 1.0])
    fresh.load_state_dict(state)
    assert fresh.lr_lambdas[0].rate == 0.8
    assert state["lr_lambdas"] == [{"rate": 0.8}, None]  # the caller's dict is left as it was


def test_state_dict_of_cyclic_scale_fn():
    g_sched = G.CyclicLR(make_optimizer(genesis), 0.01, 0.1, scale_fn=Scale(0.7))
    t_sched = T.CyclicLR(make_optimizer(torch), 0.01, 0.1, scale_fn=Scale(0.7))
    assert g_sched.state_dict() == t_sched.state_dict()
    assert g_sched.state_dict()["_scale_fn_custom"] == {"power": 0.7}
    fresh = G.CyclicLR(make_optimizer(genesis), 0.01, 0.1, scale_fn=Scale(2.0))
    fresh.load_state_dict(g_sched.state_dict())
    assert fresh._scale_fn_custom.power == 0.7 and fresh.scale_fn(4) == Scale(0.7)(4)
    plain = G.CyclicLR(make_optimizer(genesis), 0.01, 0.1, scale_fn=lambda x: 1.0)
    assert plain.state_dict()["_scale_fn_custom"] is None


# -- resuming, subclasses, several schedulers ------------------------------------------------

RESUMED = [
    ("StepLR", lambda m, o, e: m.StepLR(o, 7, 0.5, last_epoch=e)),
    ("LinearLR", lambda m, o, e: m.LinearLR(o, 0.2, total_iters=40, last_epoch=e)),
    ("ConstantLR", lambda m, o, e: m.ConstantLR(o, 0.5, total_iters=20, last_epoch=e)),
    ("ExponentialLR", lambda m, o, e: m.ExponentialLR(o, 0.9, last_epoch=e)),
    ("PolynomialLR", lambda m, o, e: m.PolynomialLR(o, 100, 2.0, last_epoch=e)),
    ("CosineAnnealingLR", lambda m, o, e: m.CosineAnnealingLR(o, 30, last_epoch=e)),
    (
        "CosineAnnealingWarmRestarts",
        lambda m, o, e: m.CosineAnnealingWarmRestarts(o, 6, 2, last_epoch=e),
    ),
    ("CyclicLR", lambda m, o, e: m.CyclicLR(o, 0.01, 0.1, 8, last_epoch=e)),
    ("OneCycleLR", lambda m, o, e: m.OneCycleLR(o, 0.5, 200, last_epoch=e)),
    ("LambdaLR", lambda m, o, e: m.LambdaLR(o, Decay(0.95), last_epoch=e)),
]


@pytest.mark.parametrize("build", [pytest.param(b, id=i) for i, b in RESUMED])
def test_resume_with_last_epoch(build):
    """A scheduler made with last_epoch=k over an optimizer another one has run k steps."""
    pair = [make_optimizer(lib, (0.1, 0.05), momentum=0.9) for lib in (torch, genesis)]
    first = [build(m, o, -1) for m, o in zip((T, G), pair)]
    for _ in range(23):
        for sched, opt in zip(first, pair):
            opt.step()
            sched.step()
    t_sched, g_sched = (build(m, o, 22) for m, o in zip((T, G), pair))
    check_same(t_sched, g_sched, *pair)
    for _ in range(60):
        step_pair(t_sched, g_sched, *pair)
        check_same(t_sched, g_sched, *pair)


def _halving(m):
    class Halving(m._LRScheduler):
        def get_lr(self):
            return [base_lr * 0.5 ** (self.last_epoch // 3) for base_lr in self.base_lrs]

        def _get_closed_form_lr(self):
            return [base_lr * 0.25**self.last_epoch for base_lr in self.base_lrs]

    return Halving


def test_user_subclass():
    assert issubclass(G._LRScheduler, G.LRScheduler) and G._LRScheduler is not G.LRScheduler
    pair = build_pair(lambda m, o: _halving(m)(o), (0.1, 0.3), "sgd", {})
    for _ in range(20):
        step_pair(*pair)
        check_same(*pair)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pair[0].step(2)
        pair[1].step(2)  # the closed form, where a subclass defines one
    check_same(*pair)


def test_two_schedulers_on_one_optimizer_compound():
    def run(m, lib):
        opt = make_optimizer(lib, (0.1,))
        a, b = m.StepLR(opt, 5, 0.5), m.ExponentialLR(opt, 0.9)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lrs = []
            for _ in range(30):
                opt.step()
                a.step()
                b.step()
                lrs.append((a.get_last_lr(), b.get_last_lr()))
        assert not caught  # the optimizer's step is wrapped once, for both
        return lrs

    assert run(G, genesis) == run(T, torch)


def test_added_param_group():
    """A group added later: the chainable forms take it along, the lambda ones fail."""
    t_sched, g_sched, t_opt, g_opt = pair = build_pair(
        lambda m, o: m.StepLR(o, 3), (0.1,), "sgd", {}
    )
    t_opt.add_param_group({"params": [torch.nn.Parameter(torch.zeros(1))], "lr": 0.5})
    g_opt.add_param_group({"params": [genesis.nn.Parameter(genesis.zeros(1))], "lr": 0.5})
    for _ in range(10):
        step_pair(*pair)
        check_same(*pair)
    pair = build_pair(lambda m, o: m.LambdaLR(o, Decay(0.9)), (0.1,), "sgd", {})
    pair[2].add_param_group({"params": [torch.nn.Parameter(torch.zeros(1))], "lr": 0.5})
    pair[3].add_param_group({"params": [genesis.nn.Parameter(genesis.zeros(1))], "lr": 0.5})

    def step(m):
        sched, opt = (pair[0], pair[2]) if m is T else (pair[1], pair[3])
        opt.step()
        sched.step()

    assert_same_error(step, same_message=False)  # genesis says which count is off


@pytest.mark.parametrize("kind", ["sgd", "adam"])
def test_training_follows_the_schedule(kind):
    """Real steps: the parameters move as torch's under the scheduled lr (and momentum)."""
    values, options = [[0.5, -1.0, 2.0], [1.5]], ({"momentum": 0.9} if kind == "sgd" else {})
    opts = [make_optimizer(lib, (0.05, 0.01), kind, values, **options) for lib in (torch, genesis)]
    scheds = [m.OneCycleLR(o, [0.1, 0.02], total_steps=40) for m, o in zip((T, G), opts)]
    for step in range(40):
        for opt, sched in zip(opts, scheds):
            for group in opt.param_groups:
                for p in group["params"]:
                    p.grad = p.detach() * 0.5 + (step % 3 - 1)
            opt.step()
            sched.step()
    for t_group, g_group in zip(*(o.param_groups for o in opts)):
        theirs = t_group["params"][0].detach().tolist()
        assert g_group["params"][0].detach().tolist() == pytest.approx(theirs, rel=1e-12)


# -- learning rates held as Tensors -----------------------------------------------------------

TENSOR_CASES = [
    ("StepLR", lambda m, o: m.StepLR(o, 4, 0.5)),
    ("LambdaLR", lambda m, o: m.LambdaLR(o, Decay(0.97))),
    ("MultiplicativeLR", lambda m, o: m.MultiplicativeLR(o, lambda e: 0.97)),
    ("LinearLR", lambda m, o: m.LinearLR(o, 0.25, total_iters=10)),
    ("ConstantLR", lambda m, o: m.ConstantLR(o, 0.5, 6)),
    ("PolynomialLR", lambda m, o: m.PolynomialLR(o, 30, 1.5)),
    ("CosineAnnealingLR", lambda m, o: m.CosineAnnealingLR(o, 10, 0.01)),
    ("CosineAnnealingWarmRestarts", lambda m, o: m.CosineAnnealingWarmRestarts(o, 5, 2)),
    ("CyclicLR", lambda m, o: m.CyclicLR(o, 0.01, 0.1, 5, cycle_momentum=False)),
    ("OneCycleLR", lambda m, o: m.OneCycleLR(o, 0.5, 40, cycle_momentum=False)),
    ("ReduceLROnPlateau", lambda m, o: m.ReduceLROnPlateau(o, patience=1)),
    (
        "SequentialLR",
        lambda m, o: m.SequentialLR(o, [m.ExponentialLR(o, 0.9), m.StepLR(o, 3)], [5]),
    ),
]


@pytest.mark.parametrize("build", [pytest.param(b, id=i) for i, b in TENSOR_CASES])
def test_tensor_lr(build):
    """An lr held as a 0-d float64 Tensor is filled in place; get_last_lr gives clones."""
    opts = [make_optimizer(lib, (0.1, 0.2)) for lib in (torch, genesis)]
    held = []
    for lib, opt in zip((torch, genesis), opts):
        opt.param_groups[0]["lr"] = lib.tensor(0.1, dtype=lib.float64)
        held.append(opt.param_groups[0]["lr"])
    t_sched, g_sched = build(T, opts[0]), build(G, opts[1])
    plateau = isinstance(g_sched, G.ReduceLROnPlateau)
    assert isinstance(g_sched.get_last_lr()[0], genesis.Tensor)
    if not isinstance(g_sched, (G.ReduceLROnPlateau, G.SequentialLR)):
        # base_lrs: clones of the initial lrs, but CyclicLR's and OneCycleLR's are their floats
        from_floats = isinstance(g_sched, (G.CyclicLR, G.OneCycleLR))
        assert isinstance(g_sched.base_lrs[0], genesis.Tensor) is not from_floats
    for step in range(30):
        for opt in opts:
            opt.step()
        metric = [3.0, 2.0][step % 2 == 0] if plateau else None
        for sched in (t_sched, g_sched):
            sched.step() if metric is None else sched.step(metric)
        t_lrs, g_lrs = t_sched.get_last_lr(), g_sched.get_last_lr()
        assert [float(x) for x in g_lrs] == pytest.approx([float(x) for x in t_lrs], rel=1e-12)
        assert opts[1].param_groups[0]["lr"] is held[1]  # filled in place
        assert g_lrs[0] is not held[1]  # a clone
    assert float(held[1]) == pytest.approx(float(held[0]), rel=1e-12)


# -- warnings ---------------------------------------------------------------------------------


def warnings_of(fn):
    """(category, message) of the warnings ``fn`` raises, and whether each names this file."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [(w.category, str(w.message), w.filename == __file__) for w in caught]


def both(scenario):
    """The warnings of ``scenario(module, lib)`` for torch and for genesis."""
    return warnings_of(lambda: scenario(T, torch)), warnings_of(lambda: scenario(G, genesis))


def scheduler_first(m, lib):
    opt = make_optimizer(lib)
    sched = m.StepLR(opt, 2)
    sched.step()
    sched.step()  # warns once only
    opt.step()


def step_replaced(m, lib):
    opt = make_optimizer(lib)
    sched = m.ExponentialLR(opt, 0.5)
    opt.step = lambda closure=None: None
    opt.step()
    sched.step()


def right_order(m, lib):
    opt = make_optimizer(lib)
    sched = m.OneCycleLR(opt, 0.1, 10)
    for _ in range(5):
        opt.step()
        sched.step()


def warm_restarts_first(m, lib):
    sched = m.CosineAnnealingWarmRestarts(make_optimizer(lib), 3)
    sched.step()  # it overrides step: no check of the order, as in PyTorch


def plateau_first(m, lib):
    m.ReduceLROnPlateau(make_optimizer(lib)).step(1.0)


def get_lr_outside_step(m, lib):
    sched = m.StepLR(make_optimizer(lib), 2)
    assert sched.get_lr() == [0.1]


def epoch_argument(m, lib):
    opt = make_optimizer(lib)
    sched = m.StepLR(opt, 2)
    opt.step()
    sched.step(4)


def plateau_epoch(m, lib):
    m.ReduceLROnPlateau(make_optimizer(lib)).step(1.0, 3)


@pytest.mark.parametrize(
    "scenario, expected",
    [
        (scheduler_first, ["before `optimizer.step()`"]),
        (step_replaced, ["has been overridden"]),
        (right_order, []),
        (warm_restarts_first, []),
        (plateau_first, []),
        (get_lr_outside_step, ["please use `get_last_lr()`"]),
        (epoch_argument, ["The epoch parameter"]),
        (plateau_epoch, ["The epoch parameter"]),
    ],
)
def test_warnings_match_torch(scenario, expected):
    theirs, mine = both(scenario)
    # torch's get_lr warning names torch's own file; genesis's names the caller, as its others
    assert [w[:2] for w in mine] == [w[:2] for w in theirs]
    assert len(mine) == len(expected)
    for phrase, (category, message, here) in zip(expected, mine):
        assert category is UserWarning and phrase in message and here


# The closed forms of step(epoch), and the schedulers without one (get_lr at that epoch).
EPOCH_CASES = [
    ("StepLR", lambda m, o: m.StepLR(o, 4, 0.5)),
    ("MultiStepLR", lambda m, o: m.MultiStepLR(o, [3, 7, 7, 20], 0.5)),
    ("ConstantLR", lambda m, o: m.ConstantLR(o, 0.25, 6)),
    ("LinearLR", lambda m, o: m.LinearLR(o, 0.2, 0.8, 12)),
    ("ExponentialLR", lambda m, o: m.ExponentialLR(o, 0.9)),
    ("PolynomialLR", lambda m, o: m.PolynomialLR(o, 15, 2.0)),
    ("CosineAnnealingLR", lambda m, o: m.CosineAnnealingLR(o, 10, 0.01)),
    ("LambdaLR", lambda m, o: m.LambdaLR(o, Decay(0.9))),
    ("CyclicLR", lambda m, o: m.CyclicLR(o, 0.01, 0.1, 4, mode="triangular2")),
    ("CosineAnnealingWarmRestarts", lambda m, o: m.CosineAnnealingWarmRestarts(o, 3)),
    ("CosineAnnealingWarmRestarts-T_mult", lambda m, o: m.CosineAnnealingWarmRestarts(o, 3, 2)),
]


@pytest.mark.parametrize("build", [pytest.param(b, id=i) for i, b in EPOCH_CASES])
def test_step_with_epoch_matches_torch(build):
    pair = build_pair(build, (0.1, 0.3), "sgd", {"momentum": 0.9})
    t_sched, g_sched, t_opt, g_opt = pair
    epochs = [3, 10, 7, 0, 25, 25, 2.5, 13.25, 100, 1, 2]
    for epoch in epochs:
        t_opt.step()
        g_opt.step()
        if isinstance(g_sched, G.CyclicLR) and not float(epoch).is_integer():
            continue
        theirs = warnings_of(lambda: t_sched.step(epoch))  # noqa: B023
        mine = warnings_of(lambda: g_sched.step(epoch))  # noqa: B023
        assert mine == theirs
        check_same(*pair)
        assert g_sched.last_epoch == t_sched.last_epoch
        step_pair(*pair)  # and the chainable form from there
        check_same(*pair)


# -- errors -----------------------------------------------------------------------------------


def raised(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return type(e), str(e)
    return None


def assert_same_error(case, same_message=True):
    """``case(module)`` raises in genesis what it raises in torch."""
    theirs, mine = raised(lambda: case(T)), raised(lambda: case(G))
    assert theirs is not None, "torch raised nothing"
    assert mine is not None, f"genesis raised nothing; torch raised {theirs}"
    assert mine[0] is theirs[0], f"genesis: {mine}, torch: {theirs}"
    if same_message:
        assert mine[1] == theirs[1]


def opt_of(m, *lrs, **options):
    return make_optimizer(torch if m is T else genesis, lrs or (0.1,), **options)


def foreign_opt(m):
    """The other library's optimizer: not an Optimizer of this one."""
    return make_optimizer(genesis if m is T else torch)


def plain_optimizer(m):
    """An Optimizer with neither momentum nor betas."""
    base = torch.optim.Optimizer if m is T else Optimizer
    param = torch.nn.Parameter(torch.zeros(1)) if m is T else genesis.nn.Parameter(genesis.zeros(1))
    return base([param], {"lr": 0.1})


def step_n(sched, n):
    for _ in range(n):
        sched.optimizer.step()
        sched.step()


def with_group_added(m):
    sched = m.ReduceLROnPlateau(opt_of(m), patience=0, min_lr=[0.0])
    lib = torch if m is T else genesis
    param = (torch.nn.Parameter if m is T else genesis.nn.Parameter)(lib.zeros(1))
    sched.optimizer.add_param_group({"params": [param], "lr": 0.5})
    sched.step(1.0)
    sched.step(2.0)


ERRORS = [
    ("not-an-optimizer", lambda m: m.StepLR(foreign_opt(m), 3)),
    ("not-an-optimizer-object", lambda m: m.ExponentialLR(object(), 0.5)),
    ("not-an-optimizer-plateau", lambda m: m.ReduceLROnPlateau(foreign_opt(m))),
    ("not-an-optimizer-cyclic", lambda m: m.CyclicLR(foreign_opt(m), 0.1, 1.0)),
    ("not-an-optimizer-onecycle", lambda m: m.OneCycleLR(foreign_opt(m), 1.0, 10)),
    ("not-an-optimizer-lambda", lambda m: m.LambdaLR(foreign_opt(m), lambda e: 1.0)),
    ("base-class", lambda m: m.LRScheduler(opt_of(m))),
    ("plateau-get_lr", lambda m: m.ReduceLROnPlateau(opt_of(m)).get_lr()),
    ("resume-without-initial_lr", lambda m: m.StepLR(opt_of(m), 3, last_epoch=4)),
    ("lambda-count", lambda m: m.LambdaLR(opt_of(m), [lambda e: 1.0] * 2)),
    ("multiplicative-count", lambda m: m.MultiplicativeLR(opt_of(m, 0.1, 0.2), [lambda e: 1.0])),
    ("multiplicative-not-callable", lambda m: m.MultiplicativeLR(opt_of(m), 0.9)),
    ("constant-factor-high", lambda m: m.ConstantLR(opt_of(m), factor=1.5)),
    ("constant-factor-negative", lambda m: m.ConstantLR(opt_of(m), factor=-0.1)),
    ("linear-start-0", lambda m: m.LinearLR(opt_of(m), start_factor=0)),
    ("linear-start-high", lambda m: m.LinearLR(opt_of(m), start_factor=1.5)),
    ("linear-end-negative", lambda m: m.LinearLR(opt_of(m), end_factor=-0.5)),
    ("linear-end-high", lambda m: m.LinearLR(opt_of(m), end_factor=2.0)),
    ("warm-T_0-zero", lambda m: m.CosineAnnealingWarmRestarts(opt_of(m), 0)),
    ("warm-T_0-float", lambda m: m.CosineAnnealingWarmRestarts(opt_of(m), 2.5)),
    ("warm-T_mult-zero", lambda m: m.CosineAnnealingWarmRestarts(opt_of(m), 2, T_mult=0)),
    ("warm-T_mult-float", lambda m: m.CosineAnnealingWarmRestarts(opt_of(m), 2, T_mult=1.5)),
    ("warm-eta_min", lambda m: m.CosineAnnealingWarmRestarts(opt_of(m), 2, eta_min="0")),
    ("warm-negative-epoch", lambda m: m.CosineAnnealingWarmRestarts(opt_of(m), 2).step(-1)),
    ("cyclic-mode", lambda m: m.CyclicLR(opt_of(m), 0.1, 1.0, mode="triangle")),
    ("cyclic-base_lr-count", lambda m: m.CyclicLR(opt_of(m), [0.1, 0.2], 1.0)),
    ("cyclic-max_lr-count", lambda m: m.CyclicLR(opt_of(m, 0.1, 0.2), 0.1, [1.0])),
    ("cyclic-momentum-count", lambda m: m.CyclicLR(opt_of(m), 0.1, 1.0, base_momentum=[0.8] * 2)),
    ("cyclic-no-momentum", lambda m: m.CyclicLR(plain_optimizer(m), 0.1, 1.0)),
    ("onecycle-total-zero", lambda m: m.OneCycleLR(opt_of(m), 1.0, total_steps=0)),
    ("onecycle-total-negative", lambda m: m.OneCycleLR(opt_of(m), 1.0, total_steps=-5)),
    ("onecycle-total-float", lambda m: m.OneCycleLR(opt_of(m), 1.0, total_steps=10.0)),
    ("onecycle-epochs-zero", lambda m: m.OneCycleLR(opt_of(m), 1.0, epochs=0, steps_per_epoch=3)),
    ("onecycle-steps-zero", lambda m: m.OneCycleLR(opt_of(m), 1.0, epochs=2, steps_per_epoch=0)),
    ("onecycle-no-length", lambda m: m.OneCycleLR(opt_of(m), 1.0)),
    ("onecycle-epochs-only", lambda m: m.OneCycleLR(opt_of(m), 1.0, epochs=3)),
    ("onecycle-pct-high", lambda m: m.OneCycleLR(opt_of(m), 1.0, 10, pct_start=1.5)),
    ("onecycle-pct-negative", lambda m: m.OneCycleLR(opt_of(m), 1.0, 10, pct_start=-0.1)),
    ("onecycle-pct-int", lambda m: m.OneCycleLR(opt_of(m), 1.0, 10, pct_start=1)),
    ("onecycle-anneal", lambda m: m.OneCycleLR(opt_of(m), 1.0, 10, anneal_strategy="cosine")),
    ("onecycle-max_lr-count", lambda m: m.OneCycleLR(opt_of(m), [1.0, 2.0], 10)),
    ("onecycle-no-momentum", lambda m: m.OneCycleLR(plain_optimizer(m), 1.0, 10)),
    ("onecycle-past-the-end", lambda m: step_n(m.OneCycleLR(opt_of(m), 1.0, 5), 6)),
    ("plateau-factor", lambda m: m.ReduceLROnPlateau(opt_of(m), factor=1.0)),
    ("plateau-mode", lambda m: m.ReduceLROnPlateau(opt_of(m), mode="avg")),
    ("plateau-threshold_mode", lambda m: m.ReduceLROnPlateau(opt_of(m), threshold_mode="pct")),
    ("plateau-min_lr-count", lambda m: m.ReduceLROnPlateau(opt_of(m), min_lr=[0.1, 0.2])),
    ("plateau-group-added", with_group_added),
]


def _sequence_errors(cls):
    def make(m, schedulers, *rest):
        opt = opt_of(m)
        built = [s(m, opt) if callable(s) else s for s in schedulers]
        return (
            m.SequentialLR(opt, built, *rest)
            if cls == "SequentialLR"
            else m.ChainedScheduler(built, opt)
        )

    step = lambda m, o: m.StepLR(o, 2)  # noqa: E731
    return [
        (f"{cls}-empty", lambda m: make(m, [], []), True),
        (f"{cls}-not-a-scheduler", lambda m: make(m, [step, object()], [2]), True),
        (
            f"{cls}-plateau",
            lambda m: make(m, [step, lambda m, o: m.ReduceLROnPlateau(o)], [2]),
            True,
        ),
        (
            f"{cls}-other-optimizer",
            lambda m: make(m, [step, lambda m, o: m.StepLR(opt_of(m), 2)], [2]),
            False,
        ),
    ]


SEQUENCE_ERRORS = [
    *_sequence_errors("SequentialLR"),
    *_sequence_errors("ChainedScheduler"),
    (
        "SequentialLR-milestones",
        lambda m: m.SequentialLR(opt_of(m), [m.StepLR(opt_of(m), 2)], [3]),
        False,
    ),
]


@pytest.mark.parametrize(
    "case, same_message",
    [pytest.param(c, True, id=i) for i, c in ERRORS]
    + [pytest.param(c, s, id=i) for i, c, s in SEQUENCE_ERRORS],
)
def test_errors_match_torch(case, same_message):
    assert_same_error(case, same_message)


def test_messages_of_foreign_optimizers():
    with pytest.raises(TypeError, match=r"^SGD is not an Optimizer$"):
        G.StepLR(make_optimizer(torch), 3)
    with pytest.raises(TypeError, match=r"^object is not an Optimizer$"):
        G.LambdaLR(object(), lambda e: 1.0)  # checked first (torch: an AttributeError)


# -- docstrings -------------------------------------------------------------------------------


def _documented():
    items = []
    for name in G.__all__:
        qualname = f"genesis.optim.lr_scheduler.{name}"
        items.append((qualname, getattr(G, name)))
        items.extend(project_docs._members(qualname, getattr(G, name)))
    return items


DOCUMENTED = _documented()


@pytest.mark.parametrize("qualname, obj", DOCUMENTED, ids=[q for q, _ in DOCUMENTED])
def test_docstring(qualname, obj):
    project_docs.test_docstring(qualname, obj)
    project_docs.test_examples_run(qualname, obj)


def test_names_and_signatures_match_torch():
    import inspect

    assert sorted(G.__all__) == sorted(T.__all__)
    for name in T.__all__:
        theirs = inspect.signature(getattr(T, name).__init__).parameters
        mine = inspect.signature(getattr(G, name).__init__).parameters
        assert list(mine) == list(theirs), name
        for p in theirs:
            assert mine[p].default == theirs[p].default, (name, p)
        for method in ("step", "get_lr", "get_last_lr", "state_dict", "load_state_dict"):
            t_params = inspect.signature(getattr(getattr(T, name), method)).parameters
            g_params = inspect.signature(getattr(getattr(G, name), method)).parameters
            assert list(g_params) == list(t_params), (name, method)
    assert G.EPOCH_DEPRECATION_WARNING == T.EPOCH_DEPRECATION_WARNING
    assert math.isinf(G.ReduceLROnPlateau(make_optimizer(genesis)).best)
