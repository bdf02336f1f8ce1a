"""Random numbers: manual_seed/initial_seed/seed, rand, randn, randint and the *_like forms.

Values are checked against a NumPy model of Philox4x32-10 (checked in turn against Random123's
known answers): element i of a call takes counter offset + i under key seed (offset + i // 4 for
randn with a float32 or 16-bit output), and the offset moves on by the call's element count.
"""

import subprocess
import sys
import threading

import numpy as np
import pytest
from conftest import (
    FLOAT_DTYPES,
    INT_DTYPES,
    check_message,
    dtype_id,
    requires_cuda,
    round_to_bfloat16,
    to_numpy,
)

import genesis

# --- a NumPy model of the generator ---

MASK32 = np.uint64(0xFFFFFFFF)


def philox(c0, c1, c2, c3, k0, k1):
    """Philox4x32-10 on uint64 arrays holding 32-bit words; returns the 4 output words."""
    c0, c1, c2, c3 = (np.asarray(c, dtype=np.uint64) for c in (c0, c1, c2, c3))
    k0, k1 = np.uint64(k0), np.uint64(k1)
    for r in range(10):
        if r:
            k0 = (k0 + np.uint64(0x9E3779B9)) & MASK32
            k1 = (k1 + np.uint64(0xBB67AE85)) & MASK32
        p0 = c0 * np.uint64(0xD2511F53)  # < 2^64: no overflow
        p1 = c2 * np.uint64(0xCD9E8D57)
        c0, c1, c2, c3 = (p1 >> 32) ^ c1 ^ k0, p1 & MASK32, (p0 >> 32) ^ c3 ^ k1, p0 & MASK32
    return c0, c1, c2, c3


def words_at(seed, ctr):
    """The Philox words of the counters ctr (a uint64 array) under key seed."""
    zero = np.zeros(len(ctr), dtype=np.uint64)
    seed = np.uint64(seed)
    return philox(ctr & MASK32, ctr >> 32, zero, zero, seed & MASK32, seed >> 32)


def words(seed, offset, n):
    """The Philox words of n elements of a call with this seed and base offset."""
    return words_at(seed, np.uint64(offset) + np.arange(n, dtype=np.uint64))


def uniform53(a, b):
    return (((a << 32) | b) >> 11).astype(np.float64) * 2.0**-53


def ref_rand(seed, offset, n, dtype):
    w = words(seed, offset, n)
    if dtype is genesis.float64:
        return uniform53(w[0], w[1])
    u = (w[0] >> 8).astype(np.float32) * np.float32(2.0**-24)
    if dtype is genesis.float16:
        return np.minimum(u, np.float32(1 - 2.0**-11)).astype(np.float16)
    if dtype is genesis.bfloat16:
        return round_to_bfloat16(np.minimum(u, np.float32(1 - 2.0**-8)))
    return u


def ref_randn(seed, offset, n):
    """float64 randn: Box-Muller in float64 on one counter per element."""
    w = words(seed, offset, n)
    u1 = 1.0 - uniform53(w[0], w[1])
    u2 = uniform53(w[2], w[3])
    return np.sqrt(-2.0 * np.log(u1)) * np.cos(2.0 * np.pi * u2)


def ref_randn_float(seed, offset, n):
    """float32 (and, rounded, 16-bit) randn: Box-Muller in float32. Element i takes counter
    offset + i // 4; words (w0, w1) give elements 4k and 4k + 1 (r cos, r sin), (w2, w3) the next
    two.
    """
    i = np.arange(n, dtype=np.uint64)
    w = words_at(seed, np.uint64(offset) + i // 4)
    second_pair = i % 4 >= 2
    wa, wb = np.where(second_pair, w[2], w[0]), np.where(second_pair, w[3], w[1])
    u1 = ((wa >> 8) + 1).astype(np.float32) * np.float32(2.0**-24)  # (0, 1]
    r = np.sqrt(np.float32(-2) * np.log(u1))
    # The angle 2 pi k / 2^24 exactly (Note [Exact-angle sincos]): its sine and cosine in
    # float64, rounded to float32 (genesis's are within 0.73 ulp of these, most of them equal).
    theta = 2 * np.pi * (wb >> 8).astype(np.float64) * 2.0**-24
    cos, sin = np.cos(theta).astype(np.float32), np.sin(theta).astype(np.float32)
    return np.where(i % 2 == 0, r * cos, r * sin)


def round_to_dtype(a, dtype):
    """float32 values rounded to a 16-bit genesis dtype, as to_numpy returns them."""
    if dtype is genesis.float16:
        return a.astype(np.float16)
    return round_to_bfloat16(a)


def ref_randint(seed, offset, n, low, high):
    w = words(seed, offset, n)
    bits = (w[0] << 32) | w[1]
    span = np.uint64((high - low) % 2**64)
    return (bits % span + np.uint64(low % 2**64)).view(np.int64)


def test_model_matches_random123_known_answers():
    def hexes(out):
        return [f"{int(x):08x}" for x in out]

    assert hexes(philox(0, 0, 0, 0, 0, 0)) == ["6627e8d5", "e169c58d", "bc57ac4c", "9b00dbd8"]
    m = 0xFFFFFFFF
    assert hexes(philox(m, m, m, m, m, m)) == ["408f276d", "41c83b0e", "a20bc7c6", "6d5451fd"]
    pi = philox(0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344, 0xA4093822, 0x299F31D0)
    assert hexes(pi) == ["d16cfe09", "94fdcceb", "5001e420", "24126ea1"]


# --- values: the model, on every device ---

SEED = 0x1234_5678_9ABC_DEF0


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
def test_rand_matches_model(device, dtype):
    genesis.manual_seed(SEED)
    a = genesis.rand(1000, dtype=dtype, device=device)
    b = genesis.rand(7, 3, dtype=dtype, device=device)  # the next 21 counters
    np.testing.assert_array_equal(to_numpy(a), ref_rand(SEED, 0, 1000, dtype))
    np.testing.assert_array_equal(to_numpy(b).ravel(), ref_rand(SEED, 1000, 21, dtype))


def test_randn_matches_model(device):
    genesis.manual_seed(SEED)
    genesis.rand(5, device=device)
    t = genesis.randn(2000, dtype=genesis.float64, device=device)
    # Only the last bits of log/cos may differ between libm, NumPy and CUDA.
    np.testing.assert_allclose(to_numpy(t), ref_randn(SEED, 5, 2000), rtol=1e-12, atol=1e-12)
    f = genesis.randn(2000, device=device)
    # logf/cosf/sinf of libm, NumPy and CUDA may differ in the last bit or two.
    np.testing.assert_allclose(to_numpy(f), ref_randn_float(SEED, 2005, 2000), rtol=2e-6, atol=2e-6)


@pytest.mark.parametrize("dtype", [genesis.float16, genesis.bfloat16], ids=dtype_id)
def test_randn_16bit_rounds_the_float_model(device, dtype):
    genesis.manual_seed(SEED)
    got = to_numpy(genesis.randn(2001, dtype=dtype, device=device))
    want = round_to_dtype(ref_randn_float(SEED, 0, 2001), dtype)
    # A last-bit difference in logf/cosf flips a rounding to 16 bits only rarely.
    np.testing.assert_allclose(got, want, rtol=1e-2, atol=1e-2)
    assert (got == want).mean() > 0.99


def test_randn_groups_of_4_start_at_each_calls_offset(device):
    genesis.manual_seed(SEED)
    a = to_numpy(genesis.randn(5, device=device))
    b = to_numpy(genesis.randn(7, device=device))
    c = to_numpy(genesis.randn(2, 3, dtype=genesis.float16, device=device))
    d = to_numpy(genesis.rand(3, dtype=genesis.float64, device=device))
    tol = {"rtol": 2e-6, "atol": 2e-6}
    np.testing.assert_allclose(a, ref_randn_float(SEED, 0, 5), **tol)  # counters 0 0 0 0 1
    np.testing.assert_allclose(b, ref_randn_float(SEED, 5, 7), **tol)  # 5 5 5 5 6 6 6
    want_c = round_to_dtype(ref_randn_float(SEED, 12, 6), genesis.float16)
    np.testing.assert_allclose(c.ravel(), want_c, rtol=1e-2, atol=1e-2)  # 12 12 12 12 13 13
    # Each call still reserves numel counters, so the next call starts at 18.
    np.testing.assert_array_equal(d, ref_rand(SEED, 18, 3, genesis.float64))
    assert not np.allclose(b[:3], ref_randn_float(SEED, 0, 8)[5:8])  # no carry-over of a's group


def test_randn_float_is_the_same_without_fma_instructions():
    # The CPU's float randn runs its FMAs inline where the CPU has them and through the C
    # library's fmaf elsewhere (GENESIS_CPU_ISA=base): both round once, so the bits agree.
    import os

    code = (
        "import genesis, sys; genesis.manual_seed(11); "
        "sys.stdout.write(genesis.randn(100_003).numpy().tobytes().hex())"
    )
    env = dict(os.environ, GENESIS_CPU_ISA="base")
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    genesis.manual_seed(11)
    assert done.stdout == genesis.randn(100_003).numpy().tobytes().hex()
    genesis.manual_seed(11)
    np.testing.assert_allclose(
        genesis.randn(100_003).numpy(), ref_randn_float(11, 0, 100_003), rtol=2e-6, atol=2e-6
    )


@pytest.mark.parametrize(
    "low, high",
    [
        (0, 10),
        (-5, 3),
        (0, 2**62 + 1),
        (-(2**63), 2**63 - 1),
        (2**63 - 2, 2**63 - 1),
        # CUDA's modulo by multiply-high (Note [Invariant modulo] in kernels/random.cu): powers
        # of two, odd and even ranges of every size, and the largest it takes (2^63 - 1)
        (0, 2**28),
        (7, 1_000_010),
        (-3, 3 * 2**40 + 4),
        (0, 2**63 - 1),
        (-(2**62), 2**62 + 3),
        (-(2**62), 2**62),
    ],
)
def test_randint_matches_model(device, low, high):
    genesis.manual_seed(SEED)
    t = genesis.randint(low, high, (3000,), device=device)
    got = to_numpy(t)
    np.testing.assert_array_equal(got, ref_randint(SEED, 0, 3000, low, high))
    assert got.min() >= low and got.max() < high


def test_fresh_process_starts_from_torchs_default_seed():
    code = "import genesis; print(genesis.initial_seed())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "67280421310721"


# --- shapes, dtypes, devices ---


@pytest.mark.parametrize("fn", [genesis.rand, genesis.randn])
def test_rand_randn_sizes_and_defaults(device, fn):
    for args, shape in [((2, 3), (2, 3)), (((2, 3),), (2, 3)), (([4],), (4,)), ((5,), (5,))]:
        t = fn(*args, device=device)
        assert t.shape == shape
        assert t.dtype is genesis.float32
        assert t.device.type == device
        assert t.is_contiguous()
    assert fn(3).device.type == "cpu"


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
def test_rand_in_unit_interval(device, dtype):
    # 16-bit dtypes: about 1 in 2^12 (float16) / 2^9 (bfloat16) of the floats round to 1.0 and
    # must be clamped below it; 10^5 elements hit that many times.
    genesis.manual_seed(7)
    a = to_numpy(genesis.rand(100_000, dtype=dtype, device=device))
    assert a.min() >= 0.0
    assert a.max() < 1.0
    assert len(np.unique(a)) > 100


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
def test_randn_dtypes(device, dtype):
    genesis.manual_seed(3)
    t = genesis.randn(4, 5, dtype=dtype, device=device)
    assert t.dtype is dtype and t.shape == (4, 5)
    assert np.isfinite(to_numpy(t)).all()


@pytest.mark.parametrize("dtype", INT_DTYPES + FLOAT_DTYPES, ids=dtype_id)
def test_randint_dtypes_and_bounds(device, dtype):
    genesis.manual_seed(11)
    lo = -3 if dtype is not genesis.uint8 else 0
    t = genesis.randint(lo, 9, (50_000,), dtype=dtype, device=device)
    assert t.dtype is dtype and t.device.type == device
    a = to_numpy(t)
    np.testing.assert_array_equal(np.unique(a), np.arange(lo, 9))


def test_randint_signatures(device):
    genesis.manual_seed(5)
    a = genesis.randint(10, (4, 5), device=device)
    assert a.shape == (4, 5) and a.dtype is genesis.int64
    assert 0 <= to_numpy(a).min() and to_numpy(a).max() < 10
    genesis.manual_seed(5)
    b = genesis.randint(0, 10, (4, 5), device=device)
    np.testing.assert_array_equal(to_numpy(a), to_numpy(b))  # low defaults to 0
    genesis.manual_seed(5)
    c = genesis.randint(low=0, high=10, size=(4, 5), device=device)
    np.testing.assert_array_equal(to_numpy(a), to_numpy(c))
    genesis.manual_seed(5)
    d = genesis.randint(10, size=[4, 5], device=device)
    np.testing.assert_array_equal(to_numpy(a), to_numpy(d))
    genesis.manual_seed(5)
    e = genesis.randint(3, high=10, size=(4, 5), device=device)
    assert to_numpy(e).min() >= 3
    assert genesis.randint(2, 4, (3,), dtype=genesis.int16).dtype is genesis.int16


def test_like_forms(device):
    base = genesis.zeros(3, 4, dtype=genesis.float64, device=device)
    for fn in (genesis.rand_like, genesis.randn_like):
        t = fn(base)
        assert t.shape == (3, 4) and t.dtype is genesis.float64 and t.device.type == device
        h = fn(base, dtype=genesis.float16, device="cpu")
        assert h.dtype is genesis.float16 and h.device.type == "cpu"
    ints = genesis.zeros(2, 5, dtype=genesis.int32, device=device)
    r = genesis.randint_like(ints, 4)
    assert r.shape == (2, 5) and r.dtype is genesis.int32 and r.device.type == device
    assert to_numpy(r).min() >= 0 and to_numpy(r).max() < 4
    r = genesis.randint_like(ints, 10, 12)
    assert set(to_numpy(r).ravel()) <= {10, 11}
    r = genesis.randint_like(ints, low=-2, high=0, dtype=genesis.float32)
    assert r.dtype is genesis.float32 and set(to_numpy(r).ravel()) <= {-2.0, -1.0}
    r = genesis.randint_like(ints, high=3)
    assert set(to_numpy(r).ravel()) <= {0, 1, 2}


@pytest.mark.parametrize("fn", [genesis.rand, genesis.randn])
def test_zero_size_and_0d(device, fn):
    genesis.manual_seed(9)
    empty = fn(0, 3, device=device)
    assert empty.shape == (0, 3) and empty.numel() == 0
    z = fn((), device=device)
    assert z.shape == () and z.ndim == 0
    assert genesis.randint(5, (), device=device).shape == ()
    assert genesis.randint(5, (2, 0), device=device).shape == (2, 0)
    # The zero-size call consumed nothing; the 0-d ones one counter each.
    genesis.manual_seed(9)
    whole = to_numpy(fn(3, device=device))
    genesis.manual_seed(9)
    fn(0, device=device)
    first = to_numpy(fn((), device=device))
    fn(2, device=device)
    after = to_numpy(genesis.rand(1, dtype=genesis.float64, device=device))
    assert first.reshape(1)[0] == whole[0]
    np.testing.assert_array_equal(after, ref_rand(9, 3, 1, genesis.float64))


# --- seeding ---


def test_same_seed_same_numbers_and_calls_differ(device):
    genesis.manual_seed(42)
    a1, b1 = genesis.rand(100, device=device), genesis.randn(100, device=device)
    c1 = genesis.randint(0, 1000, (100,), device=device)
    genesis.manual_seed(42)
    a2, b2 = genesis.rand(100, device=device), genesis.randn(100, device=device)
    c2 = genesis.randint(0, 1000, (100,), device=device)
    np.testing.assert_array_equal(to_numpy(a1), to_numpy(a2))
    np.testing.assert_array_equal(to_numpy(b1), to_numpy(b2))
    np.testing.assert_array_equal(to_numpy(c1), to_numpy(c2))
    x, y = to_numpy(genesis.rand(100, device=device)), to_numpy(genesis.rand(100, device=device))
    assert not np.array_equal(x, y)
    genesis.manual_seed(43)
    assert not np.array_equal(to_numpy(genesis.rand(100, device=device)), to_numpy(a1))


def test_seed_functions():
    assert genesis.manual_seed(123) is None
    assert genesis.initial_seed() == 123
    genesis.rand(10)
    assert genesis.initial_seed() == 123  # drawing numbers does not change the seed
    s = genesis.seed()
    assert isinstance(s, int) and 0 <= s < 2**64
    assert genesis.initial_seed() == s
    first = to_numpy(genesis.rand(5))
    genesis.manual_seed(s)
    np.testing.assert_array_equal(to_numpy(genesis.rand(5)), first)
    assert genesis.seed() != genesis.seed()  # 64 random bits: equal with chance 2^-64
    genesis.manual_seed(2**64 - 1)
    assert genesis.initial_seed() == 2**64 - 1
    genesis.manual_seed(-1)  # negative seeds wrap, as two's complement
    assert genesis.initial_seed() == 2**64 - 1
    genesis.manual_seed(np.int64(77))
    assert genesis.initial_seed() == 77


def test_cuda_manual_seed_sets_the_global_generator():
    genesis.cuda.manual_seed(321)
    assert genesis.initial_seed() == 321
    genesis.cuda.manual_seed_all(654)
    assert genesis.initial_seed() == 654


def test_concurrent_calls_take_disjoint_counters():
    genesis.manual_seed(99)
    results = []
    lock = threading.Lock()

    def work():
        for _ in range(20):
            a = to_numpy(genesis.rand(500, dtype=genesis.float64))
            with lock:
                results.append(a)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    got = np.sort(np.concatenate(results))
    np.testing.assert_array_equal(got, np.sort(ref_rand(99, 0, 4 * 20 * 500, genesis.float64)))


# --- statistics ---


@pytest.mark.parametrize("dtype", [genesis.float32, genesis.float64], ids=dtype_id)
def test_rand_moments(device, dtype):
    genesis.manual_seed(2024)
    a = to_numpy(genesis.rand(10**6, dtype=dtype, device=device)).astype(np.float64)
    assert abs(a.mean() - 0.5) < 3e-3
    assert abs(a.var() - 1 / 12) < 2e-3
    hist, _ = np.histogram(a, bins=10, range=(0, 1))
    assert (np.abs(hist - 10**5) < 2000).all(), hist


@pytest.mark.parametrize("dtype", [genesis.float32, genesis.float64], ids=dtype_id)
def test_randn_moments(device, dtype):
    genesis.manual_seed(2025)
    a = to_numpy(genesis.randn(10**6, dtype=dtype, device=device)).astype(np.float64)
    assert abs(a.mean()) < 5e-3
    assert abs(a.std() - 1) < 5e-3
    assert abs((np.abs(a) < 1).mean() - 0.6827) < 5e-3  # the normal's one-sigma mass
    assert abs(np.mean(a**3)) < 2e-2 and abs(np.mean(a**4) - 3) < 5e-2


def test_randint_uniform_counts(device):
    genesis.manual_seed(77)
    a = to_numpy(genesis.randint(0, 10, (10**5,), device=device))
    counts = np.bincount(a, minlength=10)
    assert (np.abs(counts - 10**4) < 500).all(), counts


# --- CPU and CUDA agree ---


@requires_cuda
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
def test_cpu_and_cuda_give_the_same_numbers(dtype):
    n = 100_003
    genesis.manual_seed(31337)
    cpu_u = to_numpy(genesis.rand(n, dtype=dtype))
    cpu_n = to_numpy(genesis.randn(n, dtype=dtype))
    cpu_i = to_numpy(genesis.randint(-1000, 1000, (n,)))
    genesis.manual_seed(31337)
    gpu_u = to_numpy(genesis.rand(n, dtype=dtype, device="cuda"))
    gpu_n = to_numpy(genesis.randn(n, dtype=dtype, device="cuda"))
    gpu_i = to_numpy(genesis.randint(-1000, 1000, (n,), device="cuda"))
    np.testing.assert_array_equal(cpu_u, gpu_u)
    np.testing.assert_array_equal(cpu_i, gpu_i)
    if dtype is genesis.float64:
        np.testing.assert_allclose(cpu_n, gpu_n, rtol=1e-6, atol=1e-6)
    elif dtype is genesis.float32:  # logf/cosf/sinf may differ in the last bit or two
        np.testing.assert_allclose(cpu_n, gpu_n, rtol=2e-6, atol=2e-6)
    else:  # and that can flip a rounding to 16 bits, rarely
        np.testing.assert_allclose(cpu_n, gpu_n, rtol=1e-2, atol=1e-2)
        assert (cpu_n == gpu_n).mean() > 0.999


# --- bad input ---


@pytest.mark.parametrize("op", ["rand", "randn"])
def test_bad_rand_inputs(device, op):
    fn = getattr(genesis, op)
    with pytest.raises(ValueError) as e:
        fn(2, -1, device=device)
    check_message(e, op)
    for dtype in (genesis.bool, genesis.int64, genesis.uint8):
        with pytest.raises(TypeError) as e:
            fn(2, dtype=dtype, device=device)
        check_message(e, op)
    with pytest.raises(TypeError) as e:
        fn(2.5)
    check_message(e, op)
    like = getattr(genesis, op + "_like")
    with pytest.raises(TypeError) as e:
        like(genesis.zeros(3, dtype=genesis.int32, device=device))
    check_message(e, op + "_like")
    with pytest.raises(TypeError) as e:
        like([1.0, 2.0])
    check_message(e, op + "_like")


def test_bad_randint_inputs(device):
    cases = [
        (ValueError, (5, 5, (2,)), {}),
        (ValueError, (5, 2, (2,)), {}),
        (ValueError, (0, (2,)), {}),
        (ValueError, (0, 257, (2,)), {"dtype": genesis.uint8}),
        (ValueError, (-1, 5, (2,)), {"dtype": genesis.uint8}),
        (ValueError, (0, 2**11 + 2, (2,)), {"dtype": genesis.float16}),
        (ValueError, (3, (2, -1)), {}),
        (TypeError, (0, 2, (2,)), {"dtype": genesis.bool}),
        (TypeError, (10,), {}),  # no size
        (TypeError, (1, 2, 3, 4), {}),
        (TypeError, (10, (2,)), {"low": 1}),  # low given twice
        (TypeError, (10, (2,)), {"generator": 5}),
        (TypeError, (1.5, (2,)), {}),
    ]
    for exc, args, kwargs in cases:
        with pytest.raises(exc) as e:
            genesis.randint(*args, device=device, **kwargs)
        check_message(e, "randint")
    assert genesis.randint(0, 256, (2,), dtype=genesis.uint8).dtype is genesis.uint8
    assert genesis.randint(-128, 128, (2,), dtype=genesis.int8).dtype is genesis.int8
    t = genesis.zeros(2, dtype=genesis.bool, device=device)
    with pytest.raises(TypeError) as e:
        genesis.randint_like(t, 2)
    check_message(e, "randint_like")
    with pytest.raises(ValueError) as e:
        genesis.randint_like(genesis.zeros(2, device=device), 3, 3)
    check_message(e, "randint_like")


def test_bad_seeds():
    for bad in (2**64, -(2**63) - 1):
        with pytest.raises(ValueError) as e:
            genesis.manual_seed(bad)
        check_message(e, "manual_seed")
    for bad in (1.5, "3", None):
        with pytest.raises(TypeError) as e:
            genesis.manual_seed(bad)
        check_message(e, "manual_seed")
