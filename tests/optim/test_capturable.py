"""Capturable optimizer steps (Note [Capturable steps] in csrc/vocab/optimizer_rules.h): with
``capturable=True`` SGD's lr, and Adam, AdamW, RMSprop, Adadelta, RAdam, Adamax, Rprop, NAdam and
ASGD's step counts, scalar states (NAdam's mu_product, ASGD's eta and mu) and lr live on the GPU,
so a step replays correctly from a CUDA graph. Checked against torch's ``capturable=True`` on
identical parameters and gradients, against genesis's own eager steps bit for bit under graph
replay, through state_dict, and the errors on the CPU."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import requires_cuda, to_numpy

import genesis
from genesis import cuda, optim

torch = pytest.importorskip("torch")

CAPTURABLE = [
    ("Adam", {"lr": 1e-2, "weight_decay": 0.1}),
    ("Adam", {"lr": 1e-2, "amsgrad": True, "maximize": True}),
    ("AdamW", {"lr": 1e-2, "weight_decay": 0.1}),
    ("RMSprop", {"lr": 1e-2, "centered": True, "momentum": 0.9, "weight_decay": 0.1}),
    ("Adadelta", {"lr": 0.5, "weight_decay": 0.1}),
    ("RAdam", {"lr": 1e-2, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("Adamax", {"lr": 1e-2, "weight_decay": 0.1}),
    ("Rprop", {"lr": 1e-2, "maximize": True}),
    ("NAdam", {"lr": 1e-2, "weight_decay": 0.1}),
    ("NAdam", {"lr": 1e-2, "weight_decay": 0.1, "decoupled_weight_decay": True, "maximize": True}),
    # t0 = 5: the average starts inside the run; lambd large enough that eta moves.
    ("ASGD", {"lr": 1e-2, "lambd": 1e-2, "t0": 5.0, "weight_decay": 0.1}),
]
# The scalar states each optimizer keeps beside its step count (Note [Capturable steps]).
SCALAR_STATES = {"NAdam": ("mu_product",), "ASGD": ("eta", "mu")}
SHAPES = [(7, 5), (300,), (), (4, 1, 3)]


def _pair(name, options, lr_tensor=False, seed=0):
    """genesis and torch optimizers (capturable) over identical CUDA parameters."""
    rng = np.random.default_rng(seed)
    values = [rng.standard_normal(s).astype(np.float32) for s in SHAPES]
    g_params = [genesis.nn.Parameter(genesis.tensor(v, device="cuda")) for v in values]
    t_params = [torch.nn.Parameter(torch.tensor(v)) for v in values]
    g_opts, t_opts = dict(options), dict(options)
    if lr_tensor:
        g_opts["lr"] = genesis.tensor(options["lr"], device="cuda")
        t_opts["lr"] = torch.tensor(options["lr"])
    g = getattr(optim, name)(g_params, capturable=True, **g_opts)
    # torch's reference runs on its CPU build: its capturable path needs a GPU, and its default
    # path does the same arithmetic in the order genesis does.
    t = getattr(torch.optim, name)(t_params, **t_opts)
    return g, g_params, t, t_params, rng


def _set_grads(g_params, t_params, rng):
    for gp, tp in zip(g_params, t_params):
        grad = rng.standard_normal(tuple(gp.shape)).astype(np.float32)
        gp.grad = genesis.tensor(grad, device="cuda")
        tp.grad = torch.tensor(grad)


@requires_cuda
@pytest.mark.parametrize("name,options", CAPTURABLE)
@pytest.mark.parametrize("lr_tensor", [False, True])
def test_capturable_steps_match_torch(name, options, lr_tensor):
    g, g_params, t, t_params, rng = _pair(name, options, lr_tensor)
    for step in range(20):
        _set_grads(g_params, t_params, rng)
        if lr_tensor and step == 10:  # a scheduler's change, read on the device
            g.param_groups[0]["lr"].fill_(options["lr"] / 2)
            t.param_groups[0]["lr"].fill_(options["lr"] / 2)
        g.step()
        t.step()
    for gp, tp in zip(g_params, t_params):
        np.testing.assert_allclose(to_numpy(gp), tp.detach().numpy(), rtol=2e-5, atol=2e-6)
        for key in SCALAR_STATES.get(name, ()):  # the same float32 arithmetic as torch's
            got, want = g.state[gp][key], t.state[tp][key]
            assert got.is_cuda and got.dtype == genesis.float32 and tuple(got.shape) == ()
            np.testing.assert_allclose(float(got.item()), float(want.item()), rtol=1e-6)
    state = g.state[g_params[0]]
    assert state["step"].is_cuda and state["step"].dtype == genesis.float32
    assert float(state["step"].item()) == 20.0


@requires_cuda
def test_sgd_reads_a_cuda_lr_on_the_device():
    rng = np.random.default_rng(1)
    values = [rng.standard_normal(s).astype(np.float32) for s in SHAPES]
    g_params = [genesis.nn.Parameter(genesis.tensor(v, device="cuda")) for v in values]
    t_params = [torch.nn.Parameter(torch.tensor(v)) for v in values]
    lr = genesis.tensor(0.1, device="cuda")
    g = optim.SGD(g_params, lr=lr, momentum=0.9, nesterov=True)
    t = optim_t = torch.optim.SGD(t_params, lr=0.1, momentum=0.9, nesterov=True)
    for step in range(6):
        _set_grads(g_params, t_params, rng)
        if step == 3:
            lr.fill_(0.05)
            optim_t.param_groups[0]["lr"] = 0.05
        g.step()
        t.step()
    for gp, tp in zip(g_params, t_params):
        np.testing.assert_allclose(to_numpy(gp), tp.detach().numpy(), rtol=1e-5, atol=1e-6)


def _captured_step(opt):
    """Warms opt.step() up on a side stream, then captures it."""
    s = cuda.Stream()
    s.wait_stream(cuda.current_stream())
    with cuda.stream(s):
        opt.step()
    cuda.current_stream().wait_stream(s)
    graph = cuda.CUDAGraph()
    with cuda.graph(graph):
        opt.step()
    return graph


@requires_cuda
@pytest.mark.parametrize("name,options", CAPTURABLE)
def test_a_captured_step_replays_as_eager_steps(name, options):
    """A graph of one step, replayed with new gradients and a new lr, gives what eager steps
    give, bit for bit (the counts advance on the device at each replay)."""
    rng = np.random.default_rng(2)
    values = [rng.standard_normal(s).astype(np.float32) for s in SHAPES]
    runs = []
    for _ in range(2):
        params = [genesis.nn.Parameter(genesis.tensor(v, device="cuda")) for v in values]
        for p in params:
            p.grad = genesis.zeros_like(p)
        opts = dict(options, lr=genesis.tensor(options["lr"], device="cuda"))
        runs.append((params, getattr(optim, name)(params, capturable=True, **opts)))
    (eager_params, eager), (graph_params, graphed) = runs
    graph = _captured_step(graphed)
    eager.step()  # as the warm-up (the capture records the step without running it)
    for step in range(8):
        grads = [rng.standard_normal(tuple(p.shape)).astype(np.float32) for p in eager_params]
        for p, q, grad in zip(eager_params, graph_params, grads):
            p.grad.copy_(genesis.tensor(grad, device="cuda"))
            q.grad.copy_(genesis.tensor(grad, device="cuda"))
        if step == 4:
            eager.param_groups[0]["lr"].fill_(options["lr"] / 3)
            graphed.param_groups[0]["lr"].fill_(options["lr"] / 3)
        eager.step()
        graph.replay()
    for p, q in zip(eager_params, graph_params):
        np.testing.assert_array_equal(to_numpy(q), to_numpy(p))
        for key in ("step", *SCALAR_STATES.get(name, ())):
            np.testing.assert_array_equal(
                to_numpy(graphed.state[q][key]), to_numpy(eager.state[p][key])
            )
    assert float(graphed.state[graph_params[0]]["step"].item()) == 9.0


@requires_cuda
def test_capturable_state_dict_keeps_counts_on_the_device():
    p = genesis.nn.Parameter(genesis.ones(3, device="cuda"))
    p.grad = genesis.ones(3, device="cuda")
    opt = optim.AdamW([p], capturable=True)
    opt.step()
    saved = opt.state_dict()
    assert saved["state"][0]["step"].is_cuda
    again = optim.AdamW([p], capturable=True)
    again.load_state_dict(saved)
    assert again.state[p]["step"].is_cuda
    plain = optim.AdamW([p])
    saved = opt.state_dict()
    saved["param_groups"][0]["capturable"] = False
    plain.load_state_dict(saved)
    assert not plain.state[p]["step"].is_cuda  # as torch: the count on the CPU unless capturable
    plain.step()
    again.step()
    np.testing.assert_array_equal(
        to_numpy(plain.state[p]["exp_avg"]), to_numpy(again.state[p]["exp_avg"])
    )


@pytest.mark.parametrize(
    "name", ["Adam", "AdamW", "RMSprop", "Adadelta", "RAdam", "Adamax", "Rprop", "NAdam", "ASGD"]
)
def test_capturable_on_the_cpu_raises_as_torch(name):
    held = {
        "NAdam": "params, mu_products and state_steps",
        "ASGD": "params, mus, etas, and state_steps",
    }.get(name, "params and state_steps")
    p = genesis.nn.Parameter(genesis.ones(2))
    p.grad = genesis.ones(2)
    opt = getattr(optim, name)([p], capturable=True)
    with pytest.raises(AssertionError, match=rf"^\[{name}\] If capturable=True, {held} must"):
        opt.step()
    tp = torch.nn.Parameter(torch.ones(2))
    tp.grad = torch.ones(2)
    with pytest.raises(AssertionError, match=f"If capturable=True, {held} must"):
        getattr(torch.optim, name)([tp], capturable=True).step()


@requires_cuda
@pytest.mark.parametrize("name", ["NAdam", "ASGD"])
def test_scalar_states_follow_the_count_through_state_dict(name):
    """The scalar states load onto the device under capturable and onto the CPU without, and
    either way the next steps agree with an optimizer that never stopped."""
    rng = np.random.default_rng(3)
    value = rng.standard_normal(5).astype(np.float32)
    grads = [rng.standard_normal(5).astype(np.float32) for _ in range(6)]
    options = {"lr": 1e-2} if name == "NAdam" else {"lr": 1e-2, "lambd": 1e-2, "t0": 2.0}
    params = [genesis.nn.Parameter(genesis.tensor(value, device="cuda"))]
    first = getattr(optim, name)(params, capturable=True, **options)
    for grad in grads[:3]:
        params[0].grad = genesis.tensor(grad, device="cuda")
        first.step()
    saved = first.state_dict()
    for key in ("step", *SCALAR_STATES[name]):
        assert saved["state"][0][key].is_cuda
    params += [genesis.nn.Parameter(params[0].detach().clone()) for _ in range(2)]
    resumed = getattr(optim, name)([params[1]], capturable=True, **options)
    resumed.load_state_dict(saved)
    plain = getattr(optim, name)([params[2]], **options)
    saved["param_groups"][0]["capturable"] = False
    plain.load_state_dict(saved)
    for key in ("step", *SCALAR_STATES[name]):
        assert resumed.state[params[1]][key].is_cuda
        assert not plain.state[params[2]][key].is_cuda
    for grad in grads[3:]:
        for p, opt in zip(params, (first, resumed, plain)):
            p.grad = genesis.tensor(grad, device="cuda")
            opt.step()
    np.testing.assert_array_equal(to_numpy(params[1]), to_numpy(params[0]))
    # The host works the factors out with the host's pow: equal to the last bit or two.
    np.testing.assert_allclose(to_numpy(params[2]), to_numpy(params[0]), rtol=1e-6)
    for key in SCALAR_STATES[name]:
        np.testing.assert_allclose(
            to_numpy(plain.state[params[2]][key]), to_numpy(first.state[params[0]][key]), rtol=1e-6
        )


@requires_cuda
def test_mixed_scalar_states_name_the_step():
    """A capturable count with a host mu_product (or eta) is refused, naming the state."""
    p = genesis.nn.Parameter(genesis.ones(2, device="cuda"))
    p.grad = genesis.ones(2, device="cuda")
    opt = optim.NAdam([p], capturable=True)
    opt.step()
    opt.state[p]["mu_product"] = genesis.tensor(0.9)
    with pytest.raises(RuntimeError, match=r"^\[nadam_step\] mu_product 0 must be a one-element"):
        opt.step()
    opt = optim.ASGD([p], capturable=True)
    opt.step()
    opt.state[p]["eta"] = genesis.tensor(0.01)
    with pytest.raises(RuntimeError, match=r"^\[asgd_step\] eta 0 must be a one-element"):
        opt.step()


@requires_cuda
def test_bad_device_scalars_name_the_step():
    p = genesis.nn.Parameter(genesis.ones(2, device="cuda"))
    p.grad = genesis.ones(2, device="cuda")
    q = genesis.nn.Parameter(genesis.ones(2, device="cuda"))
    q.grad = genesis.ones(2, device="cuda")
    opt = optim.Adam([p, q], capturable=True)
    opt.step()
    opt.state[p]["step"] = genesis.tensor(1.0)  # a host count among device ones
    with pytest.raises(RuntimeError, match=r"^\[adam_step\] step count 0 must be a one-element"):
        opt.step()
    device_lists = ([genesis.zeros(2, device="cuda")], [genesis.zeros(2, device="cuda")], [])
    with (
        genesis.no_grad(),
        pytest.raises(RuntimeError, match=r"^\[adam_step\] expected lr as a one-element float32"),
    ):
        genesis._C._optim._adam_step(
            [p],
            [p.grad],
            *device_lists,
            [genesis.zeros((), device="cuda")],
            lr=0.0,
            beta1=0.9,
            beta2=0.99,
            eps=1e-8,
            weight_decay=0.0,
            decoupled=False,
            amsgrad=False,
            maximize=False,
            lr_tensor=genesis.ones(2, device="cuda"),
        )
