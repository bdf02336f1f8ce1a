"""Issue 19's audit of hidden waits: every op below runs on CUDA under
genesis.cuda.set_sync_debug_mode("error") (Note [Sync debug mode]), so an op that makes the host
wait for the device raises RuntimeError. Only the ops in ALLOWED may, each for the reason given;
every other op must queue its work and return. Index ops through index tensors on the device
defer their bounds check (Note [Deferred index errors]) and so are in the second group."""

import pytest
from conftest import requires_cuda

import genesis

# op -> why it must wait for the device: its result's size, or a value on the host, depends on
# the device's data.
ALLOWED = {
    "item": "returns a Python number: a copy to the host",
    "tolist": "returns Python numbers: a copy to the host",
    "cpu": "a copy to the host",
    "numpy": "a copy to the host",
    "x[mask]": "the result's length is the mask's count",
    "x[mask] = y[mask]": "the value's mask get counts its mask",
    "masked_select": "the result's length is the mask's count",
    "nonzero": "the result's length is the count of nonzeros",
    "x[x > 0] (argwhere-like)": "the result's length is the mask's count",
    "masked_scatter_": "the source prefix taken is the mask's count",
    "unique": "the result's length is the count of distinct values",
    "bincount": "the result's length is the largest value plus one",
    "histc (range from the data)": "min=max=0 reads the data's range on the host",
    "repeat_interleave (tensor repeats)": "the result's length is the sum of the repeats",
    "allclose": "returns a Python bool",
    "equal": "returns a Python bool",
    "masked_fill (0-d tensor value)": "the value tensor is read as a scalar",
}


def _ops(d):
    """(name, call) pairs on fresh tensors of device d, made before the mode is set."""
    x = genesis.randn(64, 32, device=d)
    v = genesis.randn(64, device=d)
    m = genesis.randn(32, 16, device=d)
    idx = genesis.randint(0, 64, (16,), device=d)
    col = genesis.randint(0, 32, (64, 8), device=d)
    mask = x > 0
    ints = genesis.randint(0, 10, (100,), device=d)
    src = genesis.randn(16, 32, device=d)
    zero_d = genesis.tensor(2.0, device=d)

    def setitem():
        y = x.clone()
        y[idx] = src

    def mask_copy():
        y = x.clone()
        y[mask] = x[mask]

    return [
        # elementwise, reductions, products, shapes: queued work only
        ("add", lambda: x + 1),
        ("mul", lambda: x * x),
        ("exp", lambda: x.exp()),
        ("where", lambda: genesis.where(mask, x, 0.0)),
        ("sum", lambda: x.sum()),
        ("mean dim", lambda: x.mean(1)),
        ("amax", lambda: x.amax(0)),
        ("argmax", lambda: x.argmax(1)),
        ("softmax", lambda: x.softmax(-1)),
        ("logsumexp", lambda: x.logsumexp(1)),
        ("cumsum", lambda: x.cumsum(1)),
        ("matmul", lambda: x @ m),
        ("transpose contiguous", lambda: x.t().contiguous()),
        ("cat", lambda: genesis.cat([x, x], 0)),
        ("to float16", lambda: x.to(genesis.float16)),
        ("randn", lambda: genesis.randn(100, device=d)),
        ("randint", lambda: genesis.randint(0, 5, (100,), device=d)),
        ("sort", lambda: x.sort(1)),
        ("topk", lambda: x.topk(4, 1)),
        ("masked_fill", lambda: x.masked_fill(mask, 0.0)),
        ("x[mask] = 0", lambda: x.clone().__setitem__(mask, 0.0)),
        # index ops through device index tensors: deferred bounds checks, no wait
        ("x[idx]", lambda: x[idx]),
        ("x[idx, 3]", lambda: x[idx, 3]),
        ("x[idx] = src", setitem),
        ("index_select", lambda: x.index_select(0, idx)),
        ("gather", lambda: x.gather(1, col)),
        ("take_along_dim", lambda: x.take_along_dim(col, 1)),
        ("take", lambda: x.take(idx)),
        ("scatter_", lambda: x.clone().scatter_(1, col, 1.0)),
        ("scatter_add_", lambda: x.clone().scatter_add_(1, col, x[:, :8])),
        ("scatter_reduce_", lambda: x.clone().scatter_reduce_(1, col, x[:, :8], "amax")),
        ("index_add_", lambda: x.clone().index_add_(0, idx, src)),
        ("index_copy_", lambda: x.clone().index_copy_(0, idx, src)),
        ("index_fill_", lambda: x.clone().index_fill_(0, idx, 1.0)),
        ("put_", lambda: x.clone().put_(idx, v[:16])),
        ("index_put_", lambda: x.clone().index_put_((idx,), src, True)),
        ("embedding-like rows", lambda: x[idx].sum(1)),
        # ops that must wait (ALLOWED)
        ("item", lambda: x.sum().item()),
        ("tolist", lambda: v.tolist()),
        ("cpu", lambda: x.cpu()),
        ("numpy", lambda: x.cpu().numpy()),
        ("x[mask]", lambda: x[mask]),
        ("x[mask] = y[mask]", mask_copy),
        ("masked_select", lambda: x.masked_select(mask)),
        ("nonzero", lambda: genesis.nonzero(mask)),
        ("x[x > 0] (argwhere-like)", lambda: v[v > 0]),
        ("masked_scatter_", lambda: x.clone().masked_scatter_(mask, x)),
        ("unique", lambda: genesis.unique(ints)),
        ("bincount", lambda: genesis.bincount(ints)),
        ("histc (range from the data)", lambda: genesis.histc(v, 10)),
        ("repeat_interleave (tensor repeats)", lambda: v.repeat_interleave(ints[:64] % 3)),
        ("allclose", lambda: genesis.allclose(x, x)),
        ("equal", lambda: genesis.equal(x, x)),
        ("masked_fill (0-d tensor value)", lambda: x.masked_fill(mask, zero_d)),
    ]


@requires_cuda
def test_every_op_waits_only_when_allowed():
    ops = _ops("cuda")
    genesis.cuda.synchronize()
    assert {name for name, _ in ops} >= set(ALLOWED), "every allowed op is exercised"
    unexpected, missing, broken = [], [], []
    for name, call in ops:
        genesis.cuda.set_sync_debug_mode("error")
        try:
            call()
            waited = False
        except RuntimeError as e:
            if "synchronizes the host with cuda:" not in str(e):
                broken.append(f"{name}: {e}")
                continue
            waited = True
        except Exception as e:  # noqa: BLE001 (reported below)
            broken.append(f"{name}: {type(e).__name__}: {e}")
            continue
        finally:
            genesis.cuda.set_sync_debug_mode("default")
        if waited and name not in ALLOWED:
            unexpected.append(name)
        if not waited and name in ALLOWED:
            missing.append(name)
        call()  # and it works once waits are allowed again
    genesis.cuda.synchronize()  # no deferred index error either: every index was in range
    assert not broken, f"ops that failed: {broken}"
    assert not unexpected, f"ops that wait for the device but are not in ALLOWED: {unexpected}"
    assert not missing, f"ALLOWED ops that no longer wait (drop them from ALLOWED): {missing}"


def test_every_op_runs_on_the_cpu():
    """The list itself is sound (every call valid) on any machine."""
    ops = _ops("cpu")
    assert {name for name, _ in ops} >= set(ALLOWED)
    for _, call in ops:
        call()


@pytest.mark.parametrize("name", sorted(ALLOWED))
def test_each_allowed_op_has_a_reason(name):
    assert len(ALLOWED[name]) > 10
