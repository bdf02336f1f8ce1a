"""CUDA graphs (Note [CUDA graphs]): capture and replay equal to eager runs, the graph's private
pool in the memory statistics, errors inside a capture, and make_graphed_callables.

The first part runs anywhere (argument checks and the CPU-only stand-ins); the rest needs a GPU.
"""

import numpy as np
import pytest
from conftest import HAS_CUDA, no_cuda, requires_cuda

import genesis
from genesis import _C

cuda = genesis.cuda
SYNC_MESSAGE = "cannot synchronize while a CUDA graph is being captured"


# ---- anywhere ----------------------------------------------------------------------------


def test_graph_objects_without_capture():
    g = cuda.CUDAGraph()
    assert repr(g) == "<genesis.cuda.CUDAGraph empty>"
    g.reset()  # nothing to drop
    with pytest.raises(RuntimeError, match=r"^\[CUDAGraph.pool\] this graph has no pool"):
        g.pool()
    assert cuda.is_current_stream_capturing() is False


@pytest.mark.parametrize("pool", [3, (1, 2), (0, 0), (0, -1), ("a", 1), (0, True), [0, 1]])
def test_bad_pool_handles(pool):
    g = cuda.CUDAGraph()
    with pytest.raises(TypeError, match=r"^\[CUDAGraph.capture_begin\] pool must be a handle"):
        g.capture_begin(pool=pool)
    with pytest.raises(TypeError, match=r"^\[graph\] pool must be a handle"):
        cuda.graph(g, pool=pool)


def test_bad_graph_arguments():
    g = cuda.CUDAGraph()
    with pytest.raises(ValueError, match=r"^\[CUDAGraph.capture_begin\] capture_error_mode"):
        g.capture_begin(capture_error_mode="strict")
    with pytest.raises(ValueError, match=r"^\[graph\] capture_error_mode"):
        cuda.graph(g, capture_error_mode="strict")
    with pytest.raises(TypeError, match=r"^\[graph\] expected a genesis.cuda.CUDAGraph"):
        cuda.graph(object())
    with pytest.raises(TypeError, match=r"^\[graph\] stream must be a genesis.cuda.Stream"):
        cuda.graph(g, stream=0)


def test_make_graphed_callables_argument_checks():
    def f(x):
        return x + 1

    x = genesis.ones(3)
    with pytest.raises(TypeError, match=r"^\[make_graphed_callables\] callables must be"):
        cuda.make_graphed_callables((f, 3), ((x,), (x,)))
    with pytest.raises(TypeError, match=r"^\[make_graphed_callables\] sample_args must hold"):
        cuda.make_graphed_callables((f, f), ((x,),))
    with pytest.raises(TypeError, match=r"^\[make_graphed_callables\] sample_args must be a"):
        cuda.make_graphed_callables(f, [x])
    with pytest.raises(TypeError, match=r"^\[make_graphed_callables\] sample_args\[0\] must"):
        cuda.make_graphed_callables(f, (3,))
    with pytest.raises(ValueError, match=r"must be a CUDA tensor, got a cpu"):
        cuda.make_graphed_callables(f, (x,))
    with pytest.raises(ValueError, match=r"num_warmup_iters must be >= 0"):
        cuda.make_graphed_callables(f, (x,), num_warmup_iters=-1)


@no_cuda
def test_cpu_only_stand_ins_raise():
    assert _C._cuda._graph_launch_through_driver() is False
    g = cuda.CUDAGraph()
    with pytest.raises(RuntimeError, match=r"^\[cuda\] "):
        g.capture_begin()
    with pytest.raises(RuntimeError, match=r"^\[cuda\] "):
        g.replay()
    with pytest.raises(RuntimeError, match=r"^\[cuda\] "):
        g.capture_end()
    with pytest.raises(RuntimeError, match=r"^\[cuda\] "):
        cuda.graph_pool_handle()


def test_replay_is_a_method_of_graphs_only():
    # replay is a plain CPython method (Note [The replay's own call]): it checks its self.
    assert type(_C._cuda._CUDAGraph.replay).__name__ == "method_descriptor"
    assert cuda.CUDAGraph.replay is _C._cuda._CUDAGraph.replay
    with pytest.raises(TypeError, match=r"'replay' .* doesn't apply to a 'int' object"):
        _C._cuda._CUDAGraph.replay(3)

    class NoInit(_C._cuda._CUDAGraph):
        def __init__(self):
            pass

    with pytest.raises(TypeError, match=r"__init__\(\) must be called"):
        NoInit().replay()


# ---- on a GPU ------------------------------------------------------------------------------


def host(t):
    return t.cpu().numpy()


def chain(x, n=100):
    """n small elementwise ops."""
    y = x
    for i in range(n):
        k = i % 4
        if k == 0:
            y = y * 1.01
        elif k == 1:
            y = y + 0.5
        elif k == 2:
            y = y.relu()
        else:
            y = y - 0.25
    return y


def captured(fn, *args, pool=None):
    """Warms fn up on a side stream, captures it, returns (graph, outputs)."""
    s = cuda.Stream()
    s.wait_stream(cuda.current_stream())
    with cuda.stream(s):
        fn(*args)
    cuda.current_stream().wait_stream(s)
    g = cuda.CUDAGraph()
    with cuda.graph(g, pool=pool):
        out = fn(*args)
    return g, out


@requires_cuda
def test_replay_equals_eager_for_a_chain():
    x = genesis.randn(1000, device="cuda")
    g, y = captured(chain, x)
    assert repr(g) == "<genesis.cuda.CUDAGraph captured>"
    for seed in range(3):
        new = genesis.randn(1000, device="cuda") * (seed + 1)
        x.copy_(new)
        g.replay()
        np.testing.assert_array_equal(host(y), host(chain(new)))


@requires_cuda
def test_training_step_matches_eager_bit_for_bit():
    def step(x, w, b):
        h = (x @ w + b).relu()
        return h.sum(), h.mean(0)

    x = genesis.randn(64, 128, device="cuda")
    w = genesis.randn(128, 256, device="cuda")
    b = genesis.randn(256, device="cuda")
    g, (loss, col) = captured(step, x, w, b)
    for seed in range(3):
        genesis.manual_seed(seed)
        x.copy_(genesis.randn(64, 128, device="cuda"))
        w.copy_(genesis.randn(128, 256, device="cuda"))
        g.replay()
        eager_loss, eager_col = step(x, w, b)
        assert host(loss).tobytes() == host(eager_loss).tobytes()
        assert host(col).tobytes() == host(eager_col).tobytes()


@requires_cuda
def test_replay_runs_on_the_current_stream():
    x = genesis.ones(256, device="cuda")
    g, y = captured(lambda t: t * 3 + 1, x)
    s = cuda.Stream()
    s.wait_stream(cuda.current_stream())
    with cuda.stream(s):
        x.fill_(2.0)
        g.replay()
    cuda.current_stream().wait_stream(s)
    assert host(y).tolist() == [7.0] * 256


@requires_cuda
def test_is_current_stream_capturing():
    g = cuda.CUDAGraph()
    x = genesis.ones(4, device="cuda")
    with cuda.graph(g):
        inside = cuda.is_current_stream_capturing()
        x.add_(1)
    assert inside is True
    assert cuda.is_current_stream_capturing() is False


@requires_cuda
def test_private_pool_accounting():
    x = genesis.ones(1 << 16, device="cuda")
    cuda.synchronize()
    before = cuda.memory_stats()["allocated_bytes.all.current"]
    g, y = captured(lambda t: (t * 2).exp() + 1, x)  # two intermediates, one output
    handle = g.pool()
    pid = handle[1]
    reserved, allocated = _C._cuda.graph_pool_bytes(pid)
    assert allocated == (1 << 18)  # y: 256 KiB; the intermediate was freed into the pool
    assert reserved >= allocated
    assert _C._cuda.graph_pool_use_count(pid) == 1
    stats = cuda.memory_stats()
    assert stats["allocated_bytes.all.current"] == before + allocated
    segments = [s for s in cuda.memory_snapshot() if s["segment_pool_id"] == handle]
    assert sum(s["total_size"] for s in segments) == reserved
    # Eager allocations never get the pool's memory while the graph lives.
    spans = [(s["address"], s["address"] + s["total_size"]) for s in segments]
    eager = [genesis.empty(1 << 16, device="cuda") for _ in range(8)]
    for t in eager:
        assert not any(lo <= t.data_ptr() < hi for lo, hi in spans)
    # reset(): the pool dies; its free memory goes back, y keeps the values of the last replay
    # (a capture runs nothing: y holds them only once replayed).
    g.replay()
    cuda.synchronize()
    g.reset()
    assert _C._cuda.graph_pool_use_count(pid) == 0
    assert host(y)[0] == pytest.approx(np.exp(2.0) + 1, rel=1e-5)
    del y
    assert _C._cuda.graph_pool_bytes(pid) == (0, 0)


@requires_cuda
def test_graphs_sharing_a_pool():
    x = genesis.ones(1024, device="cuda")
    pool = cuda.graph_pool_handle()
    g1, y = captured(lambda t: t * 2, x, pool=pool)
    g2, z = captured(lambda t: t + 1, y, pool=g1.pool())
    assert g2.pool() == g1.pool() == pool
    assert _C._cuda.graph_pool_use_count(pool[1]) == 2
    x.fill_(5.0)
    g1.replay()
    g2.replay()
    assert host(z).tolist() == [11.0] * 1024
    g1.reset()
    assert _C._cuda.graph_pool_use_count(pool[1]) == 1
    g2.replay()
    assert host(z).tolist() == [11.0] * 1024
    g2.reset()


def _item(x):
    x.sum().item()


def _to_host(x):
    x.cpu()


def _from_host(x):
    genesis.tensor([1.0, 2.0], device="cuda")


def _mask(x):
    x[x > 0]


SYNCS = [
    (_item, "copy"),
    (_to_host, "copy"),
    (_from_host, "copy"),
    (_mask, "mask count"),
    (lambda x: cuda.synchronize(), "synchronize"),
    (lambda x: cuda.current_stream().synchronize(), "Stream.synchronize"),
    (lambda x: cuda.current_stream().query(), "Stream.query"),
]


@requires_cuda
@pytest.mark.parametrize("sync, op", SYNCS, ids=[op for _, op in SYNCS])
def test_syncs_inside_a_capture_raise_and_leave_cuda_usable(sync, op):
    x = genesis.randn(1000, device="cuda")
    _mask(x)  # warm-up (first-use setup)
    g = cuda.CUDAGraph()
    with pytest.raises(RuntimeError) as info:
        with cuda.graph(g):
            y = x * 2
            sync(y)
    assert str(info.value).startswith(f"[{op}] {SYNC_MESSAGE}"), str(info.value)
    assert repr(g) == "<genesis.cuda.CUDAGraph empty>"  # the failed capture was dropped
    assert cuda.is_current_stream_capturing() is False
    # Nothing is corrupted: eager work, syncs and a new capture all work.
    cuda.synchronize()
    assert host(x * 2).tolist() == (host(x) * 2).tolist()
    g2, z = captured(lambda t: t + 1, x)
    g2.replay()
    np.testing.assert_array_equal(host(z), host(x) + 1)


@requires_cuda
def test_event_calls_inside_a_capture_raise():
    e = cuda.Event()
    e.record()
    g = cuda.CUDAGraph()
    with pytest.raises(RuntimeError, match=rf"^\[Event.query\] {SYNC_MESSAGE}"):
        with cuda.graph(g):
            e.query()
    with pytest.raises(RuntimeError, match=rf"^\[Event.synchronize\] {SYNC_MESSAGE}"):
        with cuda.graph(g):
            e.synchronize()
    with pytest.raises(RuntimeError, match=r"^\[empty_cache\] cannot return cached memory"):
        with cuda.graph(g):
            cuda.empty_cache()
    assert e.query() is True


@requires_cuda
def test_capture_api_errors():
    g = cuda.CUDAGraph()
    with pytest.raises(RuntimeError, match=r"^\[CUDAGraph.replay\] nothing was captured"):
        g.replay()
    with pytest.raises(RuntimeError, match=r"^\[CUDAGraph.capture_end\] no capture is underway"):
        g.capture_end()
    with pytest.raises(RuntimeError, match=r"^\[CUDAGraph.capture_begin\] cannot capture the"):
        g.capture_begin()  # on the default stream
    x = genesis.ones(8, device="cuda")
    with cuda.graph(g):
        with pytest.raises(RuntimeError, match=r"already capturing"):
            g.capture_begin()
        with pytest.raises(RuntimeError, match=r"^\[CUDAGraph.reset\] cannot reset during"):
            g.reset()
        with pytest.raises(RuntimeError, match=r"already being captured"):
            cuda.CUDAGraph().capture_begin()
        x.mul_(2)
    with pytest.raises(RuntimeError, match=r"already holds a capture"):
        with cuda.graph(g):
            pass
    g.replay()
    g.reset()
    with pytest.raises(RuntimeError, match=r"^\[CUDAGraph.replay\] nothing was captured"):
        g.replay()  # after reset
    with cuda.graph(g):  # capturing again after reset works
        x.add_(1)
        with pytest.raises(RuntimeError, match=r"^\[CUDAGraph.replay\] the graph is still"):
            g.replay()  # inside its own capture
    g.replay()
    assert host(x).tolist() == [3.0] * 8  # 1*2 (first replay) + 1 (second); captures ran nothing


@requires_cuda
def test_replays_launch_through_the_driver():
    # Note [Driver graph launches]: the driver's entry point is found (CUDA 10.0's form; asking
    # for an older version than the function's finds nothing, and replays took the runtime).
    assert _C._cuda._graph_launch_through_driver() is True


@requires_cuda
def test_back_to_back_replays_in_order_and_from_another_thread():
    import threading

    x = genesis.zeros(4096, device="cuda")
    g, _ = captured(lambda t: t.mul_(1.5).add_(1.0), x)
    x.zero_()
    expect = np.zeros(4096, dtype=np.float32)
    for _ in range(50):  # each replay reads what the one before wrote
        g.replay()
        expect = expect * np.float32(1.5) + np.float32(1.0)
    np.testing.assert_array_equal(host(x), expect)
    errors = []

    def worker():  # a thread's first CUDA call is a replay (Note [A thread's first CUDA call])
        try:
            g.replay()
            cuda.synchronize()
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    t = threading.Thread(target=worker)
    t.start()
    t.join()
    assert errors == []
    np.testing.assert_array_equal(host(x), expect * np.float32(1.5) + np.float32(1.0))


@requires_cuda
def test_capture_on_an_explicit_stream_and_low_level_calls():
    x = genesis.ones(16, device="cuda")
    s = cuda.Stream()
    g = cuda.CUDAGraph()
    with cuda.stream(s):
        g.capture_begin()
        y = x + 1
        g.capture_end()
    x.fill_(4.0)
    g.replay()
    assert host(y).tolist() == [5.0] * 16
    g2 = cuda.CUDAGraph()
    with cuda.graph(g2, stream=s, capture_error_mode="thread_local"):
        z = y * 2
    g2.replay()
    assert host(z).tolist() == [10.0] * 16


@requires_cuda
def test_make_graphed_callables_matches_eager():
    def step(x, w):
        return (x @ w).relu().sum(0)

    def two(a):
        return a * 2, a - 1

    x = genesis.randn(64, 32, device="cuda")
    w = genesis.randn(32, 16, device="cuda")
    graphed = cuda.make_graphed_callables(step, (x, w))
    for seed in range(3):
        genesis.manual_seed(seed)
        nx = genesis.randn(64, 32, device="cuda")
        out = graphed(nx, w)
        assert host(out).tobytes() == host(step(nx, w)).tobytes()
    # The samples become the static inputs: each callable gets its own.
    samples = ((x.clone(), w.clone()), (x.clone(),))
    g_step, g_two = cuda.make_graphed_callables((step, two), samples, num_warmup_iters=1)
    inp = x + 1
    a, b = g_two(inp)
    np.testing.assert_array_equal(host(a), host(inp * 2))
    np.testing.assert_array_equal(host(b), host(inp - 1))
    assert isinstance(g_two(x), tuple)
    assert host(g_step(x, w)).tobytes() == host(step(x, w)).tobytes()


@requires_cuda
def test_make_graphed_callables_errors():
    x = genesis.randn(8, device="cuda")
    graphed = cuda.make_graphed_callables(lambda t: t * 2, (x,))
    with pytest.raises(ValueError, match=r"^\[make_graphed_callables\] argument 0 must be"):
        graphed(genesis.randn(9, device="cuda"))
    with pytest.raises(TypeError, match=r"captured with 1 argument"):
        graphed(x, x)
    with pytest.raises(ValueError, match=r"argument 0 requires grad but its sample did not"):
        graphed(x.clone().requires_grad_())
    with pytest.raises(TypeError, match=r"must return a tensor"):
        cuda.make_graphed_callables(lambda t: 3, (x,))


@pytest.mark.skipif(HAS_CUDA, reason="checks the message without a GPU")
def test_graphed_callables_need_cuda_tensors_without_gpu():
    with pytest.raises(ValueError, match=r"must be a CUDA tensor"):
        cuda.make_graphed_callables(lambda t: t, (genesis.ones(2),))


@requires_cuda
def test_whole_training_step_of_a_module_replays_as_eager_steps():
    # Issue 47's whole step in a graph: forward under autocast (GELU, LayerNorm, the chunked
    # classifier), backward and a capturable AdamW step, captured once after three eager steps
    # and replayed: the losses and weights of eager steps from the same start.
    import genesis.nn as nn
    import genesis.nn.functional as F

    x = genesis.randn(16, 32, device="cuda")
    y = genesis.randint(0, 10, (16,), device="cuda")

    def build():
        genesis.manual_seed(0)
        model = nn.Sequential(
            nn.Linear(32, 64), nn.GELU(approximate="tanh"), nn.LayerNorm(64), nn.Linear(64, 24)
        ).cuda()
        opt = genesis.optim.AdamW(model.parameters(), lr=1e-2, capturable=True)
        return model, opt

    def body(model, opt):
        with genesis.autocast("cuda", dtype=genesis.bfloat16):
            h = model(x)
            loss = F.linear_cross_entropy(h, model[0].weight[:10, :24], y)
        loss.backward()
        opt.step()
        return loss

    model, opt = build()
    eager = []
    for _ in range(6):
        opt.zero_grad(set_to_none=True)
        eager.append(host(body(model, opt)).item())
    want = [host(p.detach()) for p in model.parameters()]

    model, opt = build()
    side = cuda.Stream()
    side.wait_stream(cuda.current_stream())
    got = []
    with cuda.stream(side):
        for _ in range(3):
            opt.zero_grad(set_to_none=True)
            got.append(body(model, opt))
    cuda.current_stream().wait_stream(side)
    got = [host(t).item() for t in got]
    opt.zero_grad(set_to_none=True)
    g = cuda.CUDAGraph()
    with cuda.graph(g):
        loss = body(model, opt)
    for _ in range(3):
        g.replay()
        got.append(host(loss).item())
    np.testing.assert_allclose(got, eager, rtol=1e-5, atol=1e-6)
    for p, w in zip(model.parameters(), want):
        np.testing.assert_allclose(host(p.detach()), w, rtol=1e-5, atol=1e-6)
