"""Random ops in CUDA graphs (Note [Random ops in graphs] in csrc/cuda/graph_random.h).

Every replay of a graph that captured random ops draws new numbers: replay k gives exactly what
the k-th eager run of the captured code gives from the same generator state, the capture leaves
the generator where it was (as in PyTorch), each replay advances it by what the capture drew,
and eager code after a replay continues the stream. The first part runs anywhere; the rest
needs a GPU.
"""

import gc

import numpy as np
import pytest
from conftest import HAS_CUDA, requires_cuda

import genesis

cuda = genesis.cuda
SEED = 1234
N = 1000  # elements per draw: not a multiple of 4, so randn's float path has a tail


# ---- anywhere ----------------------------------------------------------------------------


def test_generator_state_calls_work_outside_a_capture():
    # The capture checks cost nothing and change nothing when no capture is underway.
    g = genesis.Generator().manual_seed(7)
    state = g.get_state()
    a = genesis.rand(5, generator=g)
    g.set_state(state)
    np.testing.assert_array_equal(a.numpy(), genesis.rand(5, generator=g).numpy())
    assert g.initial_seed() == 7
    genesis.manual_seed(3)
    with genesis.fork_rng():
        genesis.rand(10)
    assert genesis.initial_seed() == 3
    assert genesis.poisson(genesis.ones(3)).shape == (3,)
    assert genesis.multinomial(genesis.ones(4), 2).shape == (2,)


def test_register_generator_state_is_accepted():
    g = cuda.CUDAGraph()
    assert g.register_generator_state(genesis.Generator()) is None
    with pytest.raises(TypeError, match=r"^\[CUDAGraph.register_generator_state\] expected"):
        g.register_generator_state(3)


# ---- on a GPU ------------------------------------------------------------------------------


def host(t):
    return t.cpu().numpy().copy()


def rng_state():
    return bytes(genesis.get_rng_state().numpy())


def capture(fn):
    """Warms fn up on a side stream, seeds, captures fn; returns (graph, output)."""
    s = cuda.Stream()
    s.wait_stream(cuda.current_stream())
    with cuda.stream(s):
        fn()
    cuda.current_stream().wait_stream(s)
    genesis.manual_seed(SEED)
    g = cuda.CUDAGraph()
    with cuda.graph(g):
        out = fn()
    return g, out


def static(dtype=genesis.float32, fill=0.5):
    return genesis.full((N,), fill, dtype=dtype, device="cuda")


class Statics:
    """The tensors the in-place cases draw into (made once per test, on the GPU)."""

    def __init__(self):
        self.x = static()
        self.x16 = static(genesis.float16)
        self.x64 = static(genesis.float64)
        self.xi = genesis.zeros(N, dtype=genesis.int32, device="cuda")
        self.p = genesis.linspace(0, 1, N, device="cuda")
        self.mean = genesis.linspace(-3, 3, N, device="cuda")
        self.std = genesis.linspace(0.1, 2, N, device="cuda")


# Every random op with a CUDA path that can be captured: name -> fn(statics) returning the
# drawn tensor (a fresh one, or the static tensor filled in place).
CASES = {
    "rand": lambda s: genesis.rand(N, device="cuda"),
    "rand_f64": lambda s: genesis.rand(N, dtype=genesis.float64, device="cuda"),
    "randn": lambda s: genesis.randn(N, device="cuda"),
    "randn_f16": lambda s: genesis.randn(N, dtype=genesis.float16, device="cuda"),
    "randn_f64": lambda s: genesis.randn(N, dtype=genesis.float64, device="cuda"),
    "randint": lambda s: genesis.randint(-5, 100, (N,), device="cuda"),
    "rand_like": lambda s: genesis.rand_like(s.x16),
    "randn_like": lambda s: genesis.randn_like(s.x64),
    "randint_like": lambda s: genesis.randint_like(s.xi, 0, 7),
    "normal_tensors": lambda s: genesis.normal(s.mean, s.std),
    "uniform_": lambda s: s.x.uniform_(-1, 2),
    "normal_": lambda s: s.x.normal_(1.0, 2.0),
    "normal_f16": lambda s: s.x16.normal_(),
    "random_": lambda s: s.xi.random_(0, 50),
    "exponential_": lambda s: s.x.exponential_(1.5),
    "bernoulli_p": lambda s: s.x.bernoulli_(0.3),
    "bernoulli_tensor": lambda s: s.x.bernoulli_(s.p),
    "bernoulli": lambda s: genesis.bernoulli(s.p),
    "geometric_": lambda s: s.x.geometric_(0.2),
    "log_normal_": lambda s: s.x64.log_normal_(0.0, 0.5),
    "cauchy_": lambda s: s.x.cauchy_(),
    "randperm": lambda s: genesis.randperm(N, device="cuda"),
    "two_ops": lambda s: genesis.rand(N, device="cuda") + genesis.randn(7, device="cuda").sum(),
    # the fused dropout (Note [Fused dropout]): its own kernel, drawing a counter per 4 items
    "dropout": lambda s: genesis.nn.functional.dropout(s.x16, 0.3),
    "dropout_mask": lambda s: genesis._C._nn._fused_dropout(s.x64, 0.6)[1],
}


@pytest.fixture(scope="module", autouse=True)
def warm_kernels():
    """Runs every case once eagerly, so no kernel is first loaded inside a capture."""
    if HAS_CUDA:
        statics = Statics()
        for fn in CASES.values():
            fn(statics)
        (statics.x * 2 + 1).relu()
        cuda.synchronize()


@requires_cuda
@pytest.mark.parametrize("name", list(CASES))
def test_replays_draw_the_eager_sequence(name):
    statics = Statics()

    def fn():
        return CASES[name](statics)

    g, out = capture(fn)
    # As in PyTorch: the capture leaves the generator where it was.
    seeded = rng_state()
    genesis.manual_seed(SEED)
    assert rng_state() == seeded
    replays = []
    for _ in range(3):
        g.replay()
        replays.append(host(out))
    after = rng_state()
    assert not np.array_equal(replays[0], replays[1])
    assert not np.array_equal(replays[1], replays[2])
    # Replay k equals the k-th eager run from the same generator state, bit for bit.
    genesis.manual_seed(SEED)
    for k in range(3):
        assert host(fn()).tobytes() == replays[k].tobytes(), f"replay {k}"
    assert rng_state() == after  # each replay advanced the generator as an eager run does


@requires_cuda
def test_capture_leaves_the_generator_and_replays_advance_it():
    genesis.manual_seed(SEED)
    genesis.rand(3, device="cuda")  # a nonzero offset
    g = cuda.CUDAGraph()
    x = static()
    before = genesis.get_rng_state()
    with cuda.graph(g):
        x.normal_()
    assert rng_state() == bytes(before.numpy())
    g.replay()
    replayed = host(x)
    after_one = rng_state()
    genesis.set_rng_state(before)
    assert host(x.normal_()).tobytes() == replayed.tobytes()
    assert rng_state() == after_one


@requires_cuda
def test_eager_after_replay_continues_the_stream():
    g, out = capture(lambda: genesis.randn(N, device="cuda"))
    genesis.manual_seed(SEED)
    g.replay()
    g.replay()
    then = host(genesis.rand(N, device="cuda"))
    g.replay()
    last = host(out)
    genesis.manual_seed(SEED)
    genesis.randn(N, device="cuda")
    genesis.randn(N, device="cuda")
    assert host(genesis.rand(N, device="cuda")).tobytes() == then.tobytes()
    assert host(genesis.randn(N, device="cuda")).tobytes() == last.tobytes()


@requires_cuda
def test_manual_seed_between_replays_takes_effect():
    g, out = capture(lambda: genesis.rand(N, device="cuda"))
    genesis.manual_seed(5)
    g.replay()
    first = host(out)
    g.replay()
    assert host(out).tobytes() != first.tobytes()
    genesis.manual_seed(5)
    g.replay()
    assert host(out).tobytes() == first.tobytes()
    genesis.manual_seed(6)
    g.replay()
    assert host(out).tobytes() != first.tobytes()
    genesis.manual_seed(6)
    assert host(genesis.rand(N, device="cuda")).tobytes() == host(out).tobytes()


@requires_cuda
def test_several_generators():
    ga = genesis.Generator("cuda").manual_seed(1)
    gb = genesis.Generator("cuda").manual_seed(2)

    def fn():
        a = genesis.rand(N, device="cuda", generator=ga)
        d = genesis.randn(N, device="cuda")  # the default generator
        b = genesis.randn(N, device="cuda", generator=gb)
        a2 = genesis.rand(5, device="cuda", generator=ga)
        return a, d, b, a2

    g, outs = capture(fn)
    sa, sb, sd = ga.get_state(), gb.get_state(), genesis.get_rng_state()
    got = []
    for _ in range(2):
        g.replay()
        got.append([host(o) for o in outs])
    assert not np.array_equal(got[0][0], got[1][0])
    ga.set_state(sa)
    gb.set_state(sb)
    genesis.set_rng_state(sd)
    for k in range(2):
        for o, r in zip(fn(), got[k]):
            assert host(o).tobytes() == r.tobytes()
    # Reseeding a generator between replays takes effect for its draws.
    ga.manual_seed(1)
    g.replay()
    ga.manual_seed(1)
    assert host(genesis.rand(N, device="cuda", generator=ga)).tobytes() == host(outs[0]).tobytes()


@requires_cuda
def test_the_graph_keeps_its_generators_alive():
    gens = [genesis.Generator("cuda").manual_seed(9)]
    g, out = capture(lambda: genesis.rand(N, device="cuda", generator=gens[0]))
    gens.clear()  # the graph holds the only reference now
    gc.collect()
    g.replay()
    first = host(out)
    g.replay()
    assert host(out).tobytes() != first.tobytes()
    g.reset()  # frees the buffers and the generator


@requires_cuda
def test_reset_frees_the_generator_buffers():
    cuda.synchronize()
    before = cuda.memory_allocated()
    g, out = capture(lambda: genesis.rand(N, device="cuda"))
    g.replay()
    del out
    cuda.synchronize()
    assert cuda.memory_allocated() > before  # the buffer {seed, offset}
    g.reset()
    gc.collect()
    assert cuda.memory_allocated() == before


@requires_cuda
def test_a_side_stream_joined_to_the_capture_draws_fresh_numbers():
    side = cuda.Stream()
    g = cuda.CUDAGraph()
    genesis.manual_seed(SEED)
    with cuda.graph(g):
        side.wait_stream(cuda.current_stream())
        with cuda.stream(side):
            y = genesis.rand(N, device="cuda")
        cuda.current_stream().wait_stream(side)
        z = y * 2
    g.replay()
    first = host(z)
    g.replay()
    assert host(z).tobytes() != first.tobytes()
    genesis.manual_seed(SEED)
    assert host(genesis.rand(N, device="cuda") * 2).tobytes() == first.tobytes()


@requires_cuda
def test_graphs_without_random_ops_leave_the_generator_alone():
    x = static()
    g, y = capture(lambda: x * 2 + 1)
    state = rng_state()
    g.replay()
    g.replay()
    assert rng_state() == state
    assert np.all(host(y) == 2.0)


@requires_cuda
def test_reset_and_capture_again():
    g, out = capture(lambda: genesis.rand(N, device="cuda"))
    g.replay()
    g.reset()
    genesis.manual_seed(SEED)
    with cuda.graph(g):
        out = genesis.randn(N, device="cuda")
    g.replay()
    genesis.manual_seed(SEED)
    assert host(genesis.randn(N, device="cuda")).tobytes() == host(out).tobytes()


@requires_cuda
def test_two_graphs_share_the_stream_in_replay_order():
    g1, o1 = capture(lambda: genesis.rand(N, device="cuda"))
    g2, o2 = capture(lambda: genesis.randn(N, device="cuda"))
    genesis.manual_seed(SEED)
    g1.replay()
    g2.replay()
    g1.replay()
    r = [host(o1), host(o2)]
    genesis.manual_seed(SEED)
    genesis.rand(N, device="cuda")
    assert host(genesis.randn(N, device="cuda")).tobytes() == r[1].tobytes()
    assert host(genesis.rand(N, device="cuda")).tobytes() == r[0].tobytes()


@requires_cuda
@pytest.mark.parametrize(
    "call",
    [
        lambda: genesis.manual_seed(1),
        lambda: genesis.seed(),
        lambda: genesis.initial_seed(),
        lambda: genesis.get_rng_state(),
        lambda: genesis.set_rng_state(genesis.Generator().get_state()),
        lambda: genesis.Generator().manual_seed(3),
        lambda: genesis.Generator().get_state(),
    ],
)
def test_generator_state_calls_raise_during_a_capture(call):
    g = cuda.CUDAGraph()
    state = rng_state()
    with pytest.raises(RuntimeError, match=r"^\[\w+\] cannot read or change a generator's state"):
        with cuda.graph(g):
            genesis.rand(3, device="cuda")
            call()
    assert rng_state() == state
    assert not cuda.is_current_stream_capturing()


@requires_cuda
def test_fork_rng_raises_during_a_capture():
    g = cuda.CUDAGraph()
    with pytest.raises(RuntimeError, match=r"^\[get_state\] cannot read or change"):
        with cuda.graph(g):
            with genesis.fork_rng():
                genesis.rand(3, device="cuda")


@requires_cuda
@pytest.mark.parametrize(
    "name, call",
    [
        ("poisson", lambda: genesis.poisson(genesis.ones(8, device="cuda"))),
        ("multinomial", lambda: genesis.multinomial(genesis.ones(8, device="cuda"), 2)),
    ],
)
def test_host_validated_random_ops_cannot_be_captured(name, call):
    call()  # fine eagerly
    g = cuda.CUDAGraph()
    with pytest.raises(RuntimeError, match=rf"^\[{name}\] cannot be captured in a CUDA graph"):
        with cuda.graph(g):
            call()


@requires_cuda
def test_replaying_a_random_graph_inside_a_capture_raises():
    inner, _ = capture(lambda: genesis.rand(N, device="cuda"))
    outer = cuda.CUDAGraph()
    state = rng_state()
    with pytest.raises(RuntimeError, match=r"^\[CUDAGraph.replay\] a graph with random ops"):
        with cuda.graph(outer):
            inner.replay()
    assert rng_state() == state


@requires_cuda
def test_make_graphed_callables_with_a_random_op():
    def noisy(x):
        return x + genesis.randn_like(x) * 0.1

    x = genesis.zeros(N, device="cuda")
    graphed = cuda.make_graphed_callables(noisy, (x,))
    genesis.manual_seed(SEED)
    first = host(graphed(x))
    second = host(graphed(x))
    assert first.tobytes() != second.tobytes()
    genesis.manual_seed(SEED)
    assert host(noisy(x)).tobytes() == first.tobytes()
    assert host(noisy(x)).tobytes() == second.tobytes()
