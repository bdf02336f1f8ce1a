"""The CPU heap's cache of freed large blocks (Note [Host block cache] in
csrc/core/cpu_allocator.cpp): a freed block of 1 MiB or more is handed to the next tensor of the
same rounded size, zeros() gets one cleared, the cap holds, genesis.empty_cache() releases the
blocks, and a forked child may use the parent's."""

import os
import sys

import numpy as np
import pytest

import genesis

heap = genesis._C._host_heap
MIB = 1 << 20
CAP = heap.cap()


@pytest.fixture(autouse=True)
def empty_heap_cache():
    genesis.empty_cache()
    yield
    genesis.empty_cache()


def test_a_freed_block_is_reused_by_the_same_size():
    x = genesis.empty(16 * MIB // 4)
    ptr = x.data_ptr()
    del x
    assert heap.cached_bytes() == 16 * MIB
    y = genesis.empty(16 * MIB // 4)
    assert y.data_ptr() == ptr
    assert heap.cached_bytes() == 0
    # Sizes within one small page share blocks (the mapped length is rounded to small pages);
    # a larger size does not take a smaller block.
    a = genesis.empty(3 * MIB + 1, dtype=genesis.uint8)
    ptr = a.data_ptr()
    del a
    b = genesis.empty(3 * MIB + 100, dtype=genesis.uint8)
    assert b.data_ptr() == ptr
    del b
    c = genesis.empty(3 * MIB + 8192, dtype=genesis.uint8)
    assert c.data_ptr() != ptr


def test_results_of_ops_reuse_freed_blocks_and_stay_right():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((1024, 1024)).astype(np.float32)
    x = genesis.tensor(a)
    first = x + 1.0
    ptr = first.data_ptr()
    del first
    second = x * 2.0  # the same size: the freed block, whose old values are all overwritten
    assert second.data_ptr() == ptr
    np.testing.assert_array_equal(second.numpy(), a * 2.0)


def test_zeros_get_a_cleared_block():
    x = genesis.full((4 * MIB // 4,), 7.0)
    ptr = x.data_ptr()
    del x
    assert heap.cached_bytes() == 4 * MIB
    z = genesis.zeros(4 * MIB // 4)
    assert z.data_ptr() == ptr and heap.cached_bytes() == 0  # the block, cleared
    assert not z.numpy().any()
    w = genesis.zeros(4 * MIB // 4)  # none cached: a fresh mapping, zero already
    assert w.data_ptr() != ptr and not w.numpy().any()
    del z
    z2 = genesis.zeros_like(w)
    assert z2.data_ptr() == ptr and not z2.numpy().any()


@pytest.mark.parametrize("dtype", ["int8", "bool", "bfloat16", "float64"])
def test_zeros_clear_a_reused_block_of_any_dtype(dtype):
    # zeros() clears a reused block with its fill on every thread (the allocator says the
    # block is not zero already); the bytes left by a tensor of another dtype never show.
    dt = getattr(genesis, dtype)
    x = genesis.full((4 * MIB,), -1, dtype=genesis.int8)
    ptr = x.data_ptr()
    del x
    z = genesis.zeros(4 * MIB // dt.itemsize, dtype=dt)
    assert z.data_ptr() == ptr
    values = z.float() if dt == genesis.bfloat16 else z  # NumPy has no bfloat16
    assert not values.numpy().any()


def test_small_tensors_are_not_cached():
    x = genesis.empty(MIB // 4 - 16)  # just under 1 MiB: the plain heap
    del x
    assert heap.cached_bytes() == 0


def test_empty_cache_releases_the_blocks():
    blocks = [genesis.empty(2 * MIB // 4) for _ in range(3)]
    del blocks
    assert heap.cached_bytes() == 6 * MIB
    genesis.empty_cache()
    assert heap.cached_bytes() == 0
    assert heap.empty_cache() == 0


def test_the_cap_is_two_gib_or_an_eighth_of_the_memory():
    memory = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    assert CAP == min(2 << 30, memory // 8)


def test_the_cap_holds():
    # Untouched mappings cost address space only. A block over the cap is unmapped at once;
    # others push the oldest out to stay within it.
    huge = genesis.empty(CAP + 2 * MIB, dtype=genesis.uint8)
    del huge
    assert heap.cached_bytes() == 0
    half = CAP // 2 // MIB * MIB  # whole pages
    old = genesis.empty(half + 2 * MIB, dtype=genesis.uint8)
    new = genesis.empty(half + 4 * MIB, dtype=genesis.uint8)
    small = genesis.empty(2 * MIB, dtype=genesis.uint8)
    del old, small
    assert heap.cached_bytes() == half + 4 * MIB
    del new  # over the cap with old: the oldest (old) goes; small, newer, stays
    assert heap.cached_bytes() == half + 6 * MIB


@pytest.mark.skipif(sys.platform != "linux", reason="fork")
@pytest.mark.parametrize(
    "cuda_started",
    [
        False,
        pytest.param(
            True,
            marks=pytest.mark.skipif(not genesis.cuda.is_available(), reason="needs CUDA"),
        ),
    ],
)
def test_a_forked_child_uses_the_parents_blocks(cuda_started):
    if cuda_started:  # the child then has no CUDA pools of its own: empty_cache skips them
        genesis.ones(4, device="cuda").sum().item()
    x = genesis.ones(8 * MIB // 4)
    del x
    assert heap.cached_bytes() == 8 * MIB
    pid = os.fork()
    if pid == 0:  # the child: take the block, write it, free it, release the cache
        code = 1
        try:
            y = genesis.empty(8 * MIB // 4)
            y.fill_(3.0)
            ok = float(y.sum()) == 3.0 * (8 * MIB // 4)
            del y
            genesis.empty_cache()
            genesis.cuda.empty_cache()
            code = 0 if ok and heap.cached_bytes() == 0 else 2
        except BaseException as e:  # say why on the test's stderr
            print(f"child: {type(e).__name__}: {e}", file=sys.stderr, flush=True)
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.WEXITSTATUS(status) == 0
    assert heap.cached_bytes() == 8 * MIB  # the parent's cache is its own
