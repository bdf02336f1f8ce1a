"""Autograd on random small graphs against PyTorch (CPU, float64), driven by Hypothesis.

A drawn graph has 1-3 leaves, each of a shape from LEAF_SHAPES ((3, 4), (4,), (1, 4), (3, 1),
()), which broadcast against one another, and 2-6 steps. A step applies an op of OPS, a table of
(name, arity, fn(lib, *args), kink) where fn works alike for lib=genesis and lib=torch, to values
computed before (leaves or earlier steps, any of them, so a value can feed several steps: the
graph is a DAG with fan-out, not a chain). The last step's value is the output: it is summed
(.sum().backward()) or given a random upstream gradient of its shape.

Only valid steps are drawn: while the strategy draws a step it evaluates it with torch on the
actual data (no grad), and keeps the op only with operands for which torch succeeds (shapes that
broadcast, matmul's inner sizes, cat's other dims, at least two elements for var...) and gives
a finite result of at most 3 dims, 1 to 48 elements and magnitude at most 1e4. Ops with a kink
(relu, where, maximum, clamp, norm) also need their inputs at the kink exactly (ties, relu of
relu's zeros: decided alike by both libraries) or at least 1e-6 away from it, so that rounding
differences between the two libraries cannot put a value on different sides of the kink.

test_random_graph_backward runs the graph on genesis and torch leaves made of the same data and
compares the output and every leaf's .grad (None where torch has None) to rtol 1e-6, atol
1e-9. test_random_graph_double_backward takes the graph's gradients with respect to the leaves
with create_graph=True, then the gradient of sum_i(sum(grad_i * w_i)) for random w_i, and
compares both orders with torch (a second-order gradient that one library leaves None and the
other gives as zeros, or as roundoff-sized values, counts as equal). Both draw 60 examples,
derandomized (the same every run); as Hypothesis starts from small draws, these leave some ops
out, so test_every_op_in_a_random_graph draws 5 graphs that contain each op of the table and
runs both checks on them.

The bugs this found have regression tests at the end: mean/var over a dim of a 0-d tensor
that requires grad crashed; prod's second derivative (and cumprod's gradient) was NaN at a zero
input. known_genesis_bug is where a bug found later is kept out of the draws until it is fixed.
"""

import subprocess
import sys
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st
from test_autograd import ATOL, RTOL, assert_close, assert_grad, check_grads, np_of, rand

import genesis

torch = pytest.importorskip("torch")

LEAF_SHAPES = [(3, 4), (4,), (1, 4), (3, 1), ()]
LEAVES = (1, 3)  # how many leaves a graph has, at least and at most
STEPS = (2, 6)  # how many steps

MAX_NDIM = 3
MAX_NUMEL = 48
MAX_ABS = 1e4  # keeps sin/exp arguments and products well conditioned
KINK_GAP = 1e-6  # a kink's argument is 0 exactly or at least this far from it

SETTINGS = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


# (name, arity, fn(lib, *args), kink(*torch_args) -> tensor of arguments whose kink is at 0, or
# None). fn must give the same result for lib=genesis and lib=torch.
OPS = [
    ("add", 2, lambda m, x, y: x + y, None),
    ("sub", 2, lambda m, x, y: m.sub(x, y), None),
    ("mul", 2, lambda m, x, y: x * y, None),
    ("div", 2, lambda m, x, y: x / (y * y + 1), None),
    ("sin", 1, lambda m, x: m.sin(x), None),
    ("tanh", 1, lambda m, x: x.tanh(), None),
    ("exp_tanh", 1, lambda m, x: m.exp(m.tanh(x)), None),
    ("sigmoid", 1, lambda m, x: m.sigmoid(x), None),
    ("relu", 1, lambda m, x: m.relu(x), lambda x: x),
    ("square", 1, lambda m, x: x**2, None),
    ("sqrt", 1, lambda m, x: m.sqrt(x * x + 1), None),
    ("matmul", 2, lambda m, x, y: x @ y, None),
    ("sum_keepdim", 1, lambda m, x: x.sum(-1, keepdim=True), None),
    ("sum0_keepdim", 1, lambda m, x: x.sum(0, keepdim=True), None),
    ("mean", 1, lambda m, x: x.mean(), None),
    ("mean_dim", 1, lambda m, x: m.mean(x, 0), None),
    ("softmax", 1, lambda m, x: m.softmax(x, dim=-1), None),
    ("log_softmax", 1, lambda m, x: m.log_softmax(x, dim=-1), None),
    ("logsumexp", 1, lambda m, x: m.logsumexp(x, -1, keepdim=True), None),
    ("transpose", 1, lambda m, x: x.transpose(0, -1), None),
    ("permute", 1, lambda m, x: x.permute(1, 0), None),
    ("reshape", 1, lambda m, x: x.reshape(-1), None),
    ("unsqueeze_expand", 1, lambda m, x: x.unsqueeze(0).expand(2, *x.shape), None),
    ("slice", 1, lambda m, x: x[..., :2], None),
    ("index", 1, lambda m, x: x[m.tensor([0, -1, 0])], None),  # duplicate indices
    ("cat", 2, lambda m, x, y: m.cat([x, y], dim=-1), None),
    ("stack", 2, lambda m, x, y: m.stack([x, y]), None),
    ("flip", 1, lambda m, x: x.flip(-1), None),
    ("cumsum", 1, lambda m, x: x.cumsum(-1), None),
    ("where", 2, lambda m, x, y: m.where(x > 0, x, y), lambda x, y: x),
    ("maximum", 2, lambda m, x, y: m.maximum(x, y), lambda x, y: x - y),
    ("clamp", 1, lambda m, x: m.clamp(x, -0.5, 0.5), lambda x: torch.stack([x + 0.5, x - 0.5])),
    ("prod", 1, lambda m, x: (1 + 0.5 * m.tanh(x)).prod(-1), None),  # factors in [0.5, 1.5]
    ("prod_raw", 1, lambda m, x: x.prod(-1), None),  # zeros from relu included
    ("var", 1, lambda m, x: x.var(-1), None),
    ("norm", 1, lambda m, x: m.norm(x), lambda x: torch.linalg.vector_norm(x)),
]
OP_NAMES = [op[0] for op in OPS]
OP_BY_NAME = {op[0]: op for op in OPS}


class Graph:
    """Leaf data (leaf i is rand(shape, seed + i)) and steps (op name, operand indices into the
    leaves and earlier steps' values). double_backward_ok: no step of the graph has second
    derivatives that genesis is known to get wrong (see known_genesis_bug)."""

    def __init__(self, leaves, steps, reduce_sum, seed, double_backward_ok):
        self.leaves = leaves
        self.steps = steps
        self.reduce_sum = reduce_sum
        self.seed = seed
        self.grad_seed = seed + 1000
        self.double_backward_ok = double_backward_ok

    def __repr__(self):
        n = len(self.leaves)
        lines = [
            f"v{i}: leaf {tuple(a.shape)}, seed {self.seed + i}" for i, a in enumerate(self.leaves)
        ]
        for j, (name, args) in enumerate(self.steps):
            lines.append(f"v{n + j} = {name}({', '.join(f'v{a}' for a in args)})")
        lines.append("output: " + ("sum()" if self.reduce_sum else f"grad seed {self.grad_seed}"))
        return "Graph(\n  " + "\n  ".join(lines) + "\n)"


def run_graph(lib, graph, leaves):
    """The output of the graph on lib's leaves (the last step's value, summed if asked)."""
    values = list(leaves)
    for name, args in graph.steps:
        values.append(OP_BY_NAME[name][2](lib, *(values[a] for a in args)))
    out = values[-1]
    return out.sum() if graph.reduce_sum else out


# Steps that hit a known genesis bug, so that the rest still runs: "crash" steps are never
# drawn, "double_backward" steps only into graphs whose second derivatives are not compared.
def known_genesis_bug(name, operands):
    # None known: a bug found by these draws goes here ("crash": never drawn;
    # "double_backward": only into graphs whose second derivatives are not compared), with a
    # regression test at the end of the file, until it is fixed.
    del name, operands
    return None


def valid(name, operands, double_backward=False):
    """The torch value of op `name` on torch tensors `operands`, or None when the step is not
    allowed (torch raises, too large, not finite, near a kink, a known genesis bug: any that
    crashes, and with double_backward one that gets second derivatives wrong)."""
    _, _, fn, kink = OP_BY_NAME[name]
    bug = known_genesis_bug(name, operands)
    if bug == "crash" or (bug and double_backward):
        return None
    try:
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # var over one element: torch warns, gives nan
            r = fn(torch, *operands)
            k = kink(*operands) if kink is not None else None
    except (RuntimeError, IndexError, ValueError, TypeError):
        return None
    if r.ndim > MAX_NDIM or not 1 <= r.numel() <= MAX_NUMEL:
        return None
    if not torch.isfinite(r).all() or r.abs().max() > MAX_ABS:
        return None
    if k is not None:
        d = k.abs()
        if ((d > 0) & (d < KINK_GAP)).any():
            return None
    return r


def valid_operands(name, values, double_backward):
    """The (operand indices, torch value) of every valid application of op `name` to values."""
    arity = OP_BY_NAME[name][1]
    idx = range(len(values))
    combos = [(a,) for a in idx] if arity == 1 else [(a, b) for a in idx for b in idx]
    ok = []
    for args in combos:
        r = valid(name, [values[a] for a in args], double_backward)
        if r is not None:
            ok.append((args, r))
    return ok


@st.composite
def graphs(draw, force=None, double_backward=False):
    """A random Graph; with force (an op name), one with that op in it (from a drawn step on,
    the first step where the op applies to some values; rejected where it never does). With
    double_backward, one whose second derivatives genesis is not known to get wrong."""
    n_leaves = draw(st.integers(*LEAVES))
    shapes = [draw(st.sampled_from(LEAF_SHAPES)) for _ in range(n_leaves)]
    seed = draw(st.integers(0, 2**16))
    leaves = [rand(s, seed + i) for i, s in enumerate(shapes)]
    values = [torch.tensor(a) for a in leaves]
    n_steps = draw(st.integers(*STEPS))
    force_at = draw(st.integers(0, n_steps - 1)) if force is not None else None
    steps = []
    double_backward_ok = True
    for step in range(n_steps):
        forcing = force_at is not None and step >= force_at
        ok = valid_operands(force, values, double_backward) if forcing else []
        if ok:
            name, force_at = force, None
        else:
            names = list(OP_NAMES)
            while True:
                if not names:  # no op applies to any of the values (does not happen in practice)
                    reject()
                name = draw(st.sampled_from(names))
                ok = valid_operands(name, values, double_backward)
                if ok:
                    break
                names.remove(name)
        args, r = draw(st.sampled_from(ok))
        if known_genesis_bug(name, [values[a] for a in args]):
            double_backward_ok = False
        steps.append((name, args))
        values.append(r)
    if force_at is not None:
        reject()
    reduce_sum = draw(st.booleans())
    return Graph(leaves, steps, reduce_sum, seed, double_backward_ok)


def leaves_of(graph):
    gx = [genesis.tensor(a, requires_grad=True) for a in graph.leaves]
    tx = [torch.tensor(a, requires_grad=True) for a in graph.leaves]
    return gx, tx


def upstream(graph, tout):
    """The same upstream gradient for both libraries (None: the output is a summed scalar)."""
    if graph.reduce_sum:
        return None, None
    v = rand(tuple(tout.shape), graph.grad_seed)
    return genesis.tensor(v), torch.tensor(v)


def assert_same_or_zero(got, want):
    """Second-order gradients: equal, where None counts as zeros (and torch's roundoff-sized
    values where the exact derivative is zero, e.g. of prod over a dim of size 1, too)."""
    if got is None and want is None:
        return
    if got is not None and want is not None:
        assert_close(got, want)
        return
    value = np_of(want if got is None else got)
    np.testing.assert_allclose(value, np.zeros_like(value), rtol=0, atol=ATOL)


def check_backward(graph):
    """The graph's output and every leaf's .grad agree with torch's."""
    gx, tx = leaves_of(graph)
    gout = run_graph(genesis, graph, gx)
    tout = run_graph(torch, graph, tx)
    assert gout.requires_grad and gout.grad_fn is not None
    gv, tv = upstream(graph, tout)
    tout.backward(tv)
    gout.backward(gv)
    assert_close(gout, tout)
    for g, t in zip(gx, tx):
        assert_grad(g, t, RTOL, ATOL)


def check_double_backward(graph):
    """The graph's first derivatives (create_graph=True) and second ones agree with torch's."""
    gx, tx = leaves_of(graph)
    gout = run_graph(genesis, graph, gx)
    tout = run_graph(torch, graph, tx)
    gv, tv = upstream(graph, tout)
    g1 = genesis.autograd.grad(gout, gx, gv, create_graph=True, allow_unused=True)
    t1 = torch.autograd.grad(tout, tx, tv, create_graph=True, allow_unused=True)
    assert_close(gout, tout)
    for g, t in zip(g1, t1):
        assert (g is None) == (t is None), (g, t)
        if t is not None:
            assert_close(g, t)

    ws = [rand(a.shape, graph.grad_seed + 1 + i) for i, a in enumerate(graph.leaves)]
    gterms = [(g * genesis.tensor(w)).sum() for g, w in zip(g1, ws) if g is not None]
    tterms = [(t * torch.tensor(w)).sum() for t, w in zip(t1, ws) if t is not None]
    gs, ts = sum(gterms), sum(tterms)
    assert_close(gs, ts)
    # A graph linear in every leaf has constant first derivatives: nothing to differentiate.
    t2 = torch.autograd.grad(ts, tx, allow_unused=True) if ts.requires_grad else [None] * len(tx)
    g2 = genesis.autograd.grad(gs, gx, allow_unused=True) if gs.requires_grad else [None] * len(gx)
    for g, t in zip(g2, t2):
        assert_same_or_zero(g, t)


@SETTINGS
@given(graphs())
def test_random_graph_backward(graph):
    check_backward(graph)


@SETTINGS
@given(graphs(double_backward=True))
def test_random_graph_double_backward(graph):
    check_double_backward(graph)


# The 60 derandomized examples above leave some ops out (Hypothesis starts from small draws):
# a few graphs that contain each op make sure that every op of the table is exercised.
@pytest.mark.parametrize("op", OP_NAMES)
@settings(SETTINGS, max_examples=5)
@given(data=st.data())
def test_every_op_in_a_random_graph(op, data):
    graph = data.draw(graphs(force=op), label="graph")
    assert op in [name for name, _ in graph.steps]
    check_backward(graph)
    if graph.double_backward_ok:
        check_double_backward(graph)


# ----------------------------------------------------------------------------------------------
# Regression tests of the genesis bugs these draws found
# ----------------------------------------------------------------------------------------------

ZERO_DIM_REDUCTIONS = """
import genesis
x = genesis.tensor(1.5, dtype=genesis.float64, requires_grad=True)
ys = (x.mean(0), x.mean(-1, keepdim=True), genesis.mean(x, (0,)), x.var(0), x.std(0),
      genesis.var_mean(x, 0)[0], genesis.std_mean(x, 0)[1])
for y in ys:
    assert tuple(y.shape) == (), y.shape
(x.mean(0) * 3 + x.var(0, correction=0)).backward()
print(x.grad.item())
"""


def test_zero_dim_mean_over_dim_with_grad_does_not_crash():
    """torch.tensor(1.5, requires_grad=True).mean(0) is 1.5 with gradient 1; genesis crashed in
    reduced_dims (csrc/autograd/reduce.cpp), and so did var, std, var_mean and std_mean. Run in
    a subprocess, so that a crash fails this test only."""
    r = subprocess.run(
        [sys.executable, "-c", ZERO_DIM_REDUCTIONS], capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 0, (r.returncode, r.stderr[-2000:])
    assert r.stdout.split() == ["3.0"], r.stdout


def test_prod_double_backward_with_a_zero():
    """Second derivatives of prod over rows with one and with two zeros match torch's (they
    were NaN at every zero: prod_grad goes through cumprod's gradient, which divided by x)."""
    a = np.array([[0.0, 0.7, 1.3], [0.5, 0.0, 0.0], [1.0, 2.0, 3.0]])
    grads = {}
    for m in (genesis, torch):
        x = m.tensor(a, requires_grad=True)
        (g1,) = m.autograd.grad(x.prod(-1).sum(), [x], create_graph=True)
        (g2,) = m.autograd.grad((g1 * g1).sum(), [x])
        grads[m] = (g1, g2)
    for got, want in zip(grads[genesis], grads[torch]):
        assert_close(got, want)


@pytest.mark.parametrize(
    "a",
    [
        [0.7, 0.0, 1.3, 2.0],
        [0.0, 0.0, 1.5, 2.0],
        [1.2, 0.8, 0.0],
        [0.0, 0.0, 0.0],
        [[0.5, 0.0], [0.0, 3.0]],
    ],
    ids=["one_zero", "two_zeros", "last_zero", "only_zeros", "rows"],
)
def test_cumprod_backward_with_a_zero(a):
    """cumprod's gradient at and after the zeros of the input (Note [cumprod's gradient]):
    with [0.7, 0, 1.3, 2] and the upstream [1, 2, 3, 4], torch gives [1.0, 11.41, 0.0, 0.0]
    (genesis gave NaN at the zero); and its second derivative."""
    check_grads(lambda m, x: x.cumprod(-1), [np.array(a)], "cpu")
    grads = {}
    for m in (genesis, torch):
        x = m.tensor(np.array(a), requires_grad=True)
        (g1,) = m.autograd.grad((x.cumprod(-1) * 1.5).sum(), [x], create_graph=True)
        (g2,) = m.autograd.grad((g1 * g1).sum(), [x])
        grads[m] = (g1, g2)
    for got, want in zip(grads[genesis], grads[torch]):
        assert_close(got, want)
