"""Autograd under hostile use: deep graphs, threads, hooks, exports of saved tensors.

Each case runs in a process of its own with a time limit (tests/isolated.py), so a crash or a
hang is a failure of that case. What each class must do:
- deep graphs: a chain of hundreds of thousands of nodes, in-place ops or NumPy round trips is
  built, differentiated and freed without running out of stack (Note [Iterative graph
  teardown], Note [Round trips through NumPy]); a long chain of views costs linear time
  (ViewSteps in autograd/meta.h);
- threads: backward in several threads into one leaf, and .grad read during another thread's
  backward, finish (Note [Waiting for a lock]) with the right gradient;
- hooks: a hook's replacement must be a Tensor of the gradient's shape, dtype and device;
- exports: numpy() and __array__ of a tensor that requires grad or is saved for backward are
  read-only, and DLPack exports of them are flagged read-only or copied (Note [Exports of saved
  tensors]), so backward never uses values changed behind its back.
"""

import textwrap

import pytest
from conftest import DEVICES, requires_cuda
from isolated import SANITIZED, run_isolated

# Each snippet asserts what must hold and prints "ok" last.
DEEP = {
    "chain_teardown": """
        import genesis
        x = genesis.ones(1, requires_grad=True)
        y = x
        for _ in range(N):
            y = y * 1.0
        del y
        print("ok")
    """,
    "chain_backward_then_teardown": """
        import genesis
        x = genesis.ones(2, requires_grad=True)
        y = x
        for _ in range(N // 2):
            y = y * 1.0
        y.sum().backward()
        assert x.grad.tolist() == [1.0, 1.0]
        del y
        print("ok")
    """,
    "chain_retained_graph_teardown": """
        import genesis
        x = genesis.ones(1, requires_grad=True)
        y = x
        for _ in range(N // 2):
            y = (y * 1.0).exp().log()  # saved inputs and outputs along the chain
        y.backward(retain_graph=True)
        del y
        print("ok")
    """,
    "inplace_history_teardown": """
        import genesis
        x = genesis.ones(3, requires_grad=True)
        y = x * 1.0
        for _ in range(N):
            y.mul_(1.0)
        del y
        print("ok")
    """,
    "inplace_history_backward": """
        import genesis
        x = genesis.ones(3, requires_grad=True)
        y = x * 1.0
        for _ in range(N // 4):
            y.add_(1.0)
        y.sum().backward()
        assert x.grad.tolist() == [1.0, 1.0, 1.0]
        print("ok")
    """,
    "numpy_round_trips": """
        import genesis
        t = genesis.arange(4.0)
        first = t
        for _ in range(N):
            t = genesis.from_numpy(t.numpy())
        t[0] = 7.0  # still the same memory
        assert first.tolist() == [7.0, 1.0, 2.0, 3.0]
        del t, first
        print("ok")
    """,
    "dlpack_round_trips": """
        import genesis
        t = genesis.arange(4.0)
        first = t
        for k in range(N):
            t = genesis.from_dlpack(t if k % 2 else t.__dlpack__())
        t[0] = 7.0  # still the same memory
        assert first.tolist() == [7.0, 1.0, 2.0, 3.0]
        del t, first
        print("ok")
    """,
    "views_of_a_non_leaf": """
        import time, genesis
        x = genesis.ones(4, requires_grad=True)
        y = x * 2.0
        start = time.perf_counter()
        for _ in range(N // 6):
            y = y.view(4)
        (y * 3.0).sum().backward()
        assert x.grad.tolist() == [6.0] * 4
        del y
        print("ok", time.perf_counter() - start)
    """,
    "inplace_on_the_end_of_a_view_chain": """
        import genesis
        x = genesis.ones(4, requires_grad=True)
        base = x * 1.0
        v = base
        for _ in range(N // 10):
            v = v.view(2, 2).view(4)
        v.mul_(5.0)  # rebases base's history through the whole chain of views
        base.sum().backward()
        assert x.grad.tolist() == [5.0] * 4
        print("ok")
    """,
    "function_chain_teardown": """
        import genesis
        class Twice(genesis.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                ctx.save_for_backward(a)
                return a * 2.0
            @staticmethod
            def backward(ctx, g):
                return g * 2.0
        x = genesis.ones(1, requires_grad=True)
        y = x
        for _ in range(N // 4):
            y = Twice.apply(y) * 0.5
        y.backward()
        assert x.grad.tolist() == [1.0]
        del y
        print("ok")
    """,
}


# The chains' length: 200000 nodes ran out of stack before; under the sanitizers' -O0 build a
# quarter of it does (its frames are larger) and keeps the run short.
N = 50_000 if SANITIZED else 200_000


def deep(case):
    return f"N = {N}\n" + textwrap.dedent(DEEP[case])


@pytest.mark.parametrize("case", sorted(DEEP))
def test_deep_graphs(case):
    assert run_isolated(deep(case), timeout=120).split()[0] == "ok"


@requires_cuda
@pytest.mark.parametrize("case", ["chain_backward_then_teardown", "inplace_history_backward"])
def test_deep_graphs_on_cuda(case):
    code = deep(case).replace("requires_grad=True)", "device='cuda', requires_grad=True)")
    assert "device='cuda'" in code
    assert run_isolated(code, timeout=120).split()[0] == "ok"


@pytest.mark.skipif(SANITIZED, reason="times a loop; the sanitizers' build is many times slower")
def test_a_chain_of_views_costs_linear_time():
    # 30000 views took 30 s before ViewSteps (each copied the whole chain); now well under 3.
    out = run_isolated(deep("views_of_a_non_leaf"), timeout=120)
    seconds = float(out.split()[1])
    assert seconds < 10, f"N // 6 views and their backward took {seconds:.1f} s"


THREADS = {
    "backward_into_one_shared_leaf": """
        import threading, genesis
        w = genesis.ones(1000, 1000, device="{device}", requires_grad=True)
        errors = []
        def work():
            try:
                for _ in range(5):
                    (w * 2.0).sum().backward()
            except BaseException as e:
                errors.append(e)
        ts = [threading.Thread(target=work) for _ in range(8)]
        for t in ts: t.start()
        for t in ts: t.join()
        assert not errors, errors
        assert w.grad.min().item() == w.grad.max().item() == 80.0, w.grad
        print("ok")
    """,
    "reading_grad_during_backward": """
        import threading, genesis
        w = genesis.ones(1000, 1000, device="{device}", requires_grad=True)
        stop = []
        reads = [0]
        def reader():
            while not stop:
                g = w.grad
                if g is not None:
                    assert g.shape == (1000, 1000)
                reads[0] += 1
        r = threading.Thread(target=reader)
        r.start()
        for _ in range(20):
            (w * 2.0).sum().backward()
        stop.append(1)
        r.join()
        assert w.grad.max().item() == 40.0 and reads[0] > 0
        print("ok")
    """,
    "eight_threads_shared_and_separate_graphs": """
        import threading, genesis
        shared = genesis.ones(256, 256, device="{device}", requires_grad=True)
        own = [genesis.full((256, 256), float(k), device="{device}", requires_grad=True)
               for k in range(8)]
        errors = []
        def work(k):
            try:
                for _ in range(10):
                    loss = ((shared @ own[k]) * 0.001).sum() + own[k].sum()
                    loss.backward()
                    own[k].grad = None
                    g = shared.grad  # read while others accumulate
            except BaseException as e:
                errors.append(e)
        ts = [threading.Thread(target=work, args=(k,)) for k in range(8)]
        for t in ts: t.start()
        for t in ts: t.join()
        assert not errors, errors
        # d/dshared of sum(shared @ own_k) * 0.001 is 0.001 * 256 * k per element, summed over k
        # and ten steps.
        expected = 0.001 * 256 * sum(range(8)) * 10
        got = shared.grad.cpu()
        assert abs(got.min().item() - expected) < 1e-2 and abs(got.max().item() - expected) < 1e-2
        print("ok")
    """,
    "hooks_and_retain_grad_in_threads": """
        import threading, genesis
        w = genesis.ones(64, device="{device}", requires_grad=True)
        w.register_hook(lambda g: g * 2.0)
        errors = []
        def work():
            try:
                for _ in range(20):
                    y = w * 3.0
                    y.retain_grad()
                    y.register_hook(lambda g: g + 0.0)
                    y.sum().backward()
                    assert y.grad.tolist() == [1.0] * 64
            except BaseException as e:
                errors.append(e)
        ts = [threading.Thread(target=work) for _ in range(8)]
        for t in ts: t.start()
        for t in ts: t.join()
        assert not errors, errors
        assert w.grad.cpu().tolist() == [8 * 20 * 6.0] * 64
        print("ok")
    """,
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", sorted(THREADS))
def test_threads(case, device):
    assert run_isolated(THREADS[case].replace("{device}", device), timeout=120).strip() == "ok"


@pytest.mark.parametrize("device", DEVICES)
def test_a_hook_must_keep_the_gradient_shape(device):
    import genesis

    for leaf in (True, False):
        x = genesis.ones(3, device=device, requires_grad=True)
        t = x if leaf else x * 1.0

        def widen(g):
            return genesis.ones(2, 3, device=device)

        t.register_hook(widen)
        with pytest.raises(
            RuntimeError, match=r"^\[backward\] hook '.*widen' has changed the size"
        ):
            (t * 2.0).sum().backward()
        assert x.grad is None


@pytest.mark.parametrize("device", DEVICES)
def test_a_hook_must_keep_the_gradient_dtype_and_device(device):
    import genesis

    x = genesis.ones(3, device=device, requires_grad=True)
    x.register_hook(lambda g: g.double())
    with pytest.raises(RuntimeError, match=r"^\[backward\] hook '.*lambda.*' has changed the type"):
        x.sum().backward()
    if device == "cuda":
        y = genesis.ones(3, device=device, requires_grad=True)
        y.register_hook(lambda g: g.cpu())
        with pytest.raises(RuntimeError, match=r"has changed the device of value"):
            y.sum().backward()


def test_a_hook_returning_a_non_tensor_is_a_type_error():
    import genesis

    for leaf in (True, False):
        x = genesis.ones(3, requires_grad=True)
        t = x if leaf else x * 1.0

        def scale(g):
            return 2.0

        t.register_hook(scale)
        with pytest.raises(
            TypeError, match=r"^\[backward\] hook '.*scale' returned an object of type float"
        ):
            t.sum().backward()


def test_a_hook_may_replace_the_gradient_with_one_of_its_shape():
    import genesis

    x = genesis.ones(3, requires_grad=True)
    x.register_hook(lambda g: g * 10.0)
    y = x * 2.0
    y.register_hook(lambda g: None)  # None keeps it
    y.sum().backward()
    assert x.grad.tolist() == [20.0] * 3


def test_numpy_of_a_tensor_that_requires_grad_is_read_only():
    import numpy as np

    import genesis

    w = genesis.ones(3, requires_grad=True)
    a = w.numpy()
    assert not a.flags.writeable
    assert np.asarray(w).tolist() == [1.0] * 3  # reading (plotting) keeps working
    with pytest.raises(ValueError, match="read-only"):
        a[0] = 5.0
    d = w.detach().numpy()  # PyTorch's way to a writable array
    assert d.flags.writeable


def test_numpy_of_a_saved_tensor_is_read_only_until_backward_frees_it():
    import genesis

    x = genesis.arange(3.0)  # needs no grad; mul saves it for w's gradient
    w = genesis.ones(3, requires_grad=True)
    y = (x * w).sum()
    a = x.numpy()
    assert not a.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        a[:] = 100.0
    y.backward()
    assert w.grad.tolist() == [0.0, 1.0, 2.0]
    assert x.numpy().flags.writeable  # nothing holds it for backward now


def test_a_write_through_dlpack_of_a_saved_tensor_cannot_change_the_gradient():
    import numpy as np

    import genesis

    x = genesis.arange(3.0)
    w = genesis.ones(3, requires_grad=True)
    y = (x * w).sum()
    # A versioned capsule says read-only; NumPy honours it.
    a = np.from_dlpack(x)
    assert not a.flags.writeable
    # A legacy capsule cannot say it: the consumer gets a copy, whose writes stay there.
    legacy = genesis.from_dlpack(x.__dlpack__())
    legacy.fill_(100.0)
    with pytest.raises(BufferError, match="saved for backward"):
        x.__dlpack__(copy=False)
    y.backward()
    assert w.grad.tolist() == [0.0, 1.0, 2.0]


def test_exports_made_before_saving_stay_writable_as_in_pytorch():
    import genesis

    x = genesis.arange(3.0)
    a = x.numpy()
    w = genesis.ones(3, requires_grad=True)
    (x * w).sum()
    assert a.flags.writeable


def test_from_dlpack_of_a_read_only_export_stays_read_only():
    import genesis

    w = genesis.ones(3, requires_grad=True)
    t = genesis.from_dlpack(w)  # a versioned capsule flagged read-only
    assert not t.is_writable
    with pytest.raises(ValueError, match="read-only"):
        t.fill_(2.0)
    free = genesis.ones(3)
    back = genesis.from_dlpack(free)  # genesis's own export: the same storage, writable
    back.fill_(5.0)
    assert free.tolist() == [5.0] * 3
