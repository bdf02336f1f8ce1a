"""The generated programs of genesis.compile (Note [Fused groups on CUDA] in
csrc/fusion/cuda_source.cpp), their NVRTC compilation (no GPU needed), the kernel cache (Note
[Kernel cache]), the eager executor that CUDA groups fall back to, and, on a GPU, CUDA groups run
as generated kernels against eager."""

import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import test_fusion as base
import test_row_groups as rows
from conftest import requires_cuda
from test_fusion import fuse_small_cpu_tensors  # noqa: F401

import genesis

fusion = genesis._C._fusion
genesis._compile._find_nvrtc()
HAS_NVRTC, WHY_NO_NVRTC = fusion.nvrtc_available()
requires_nvrtc = pytest.mark.skipif(not HAS_NVRTC, reason=f"no NVRTC: {WHY_NO_NVRTC}")


def random_programs(seed, count, device="cpu"):
    """Runs `count` random programs of test_fusion's fuzz compiled; returns (got, want) pairs."""
    rng = np.random.default_rng(seed)
    compiled = genesis.compile(base._run_program)
    pairs = []
    for _ in range(count):
        shape = [(7,), (3, 5), (2, 3, 4), (64, 33), (1, 1), (0, 3), ()][int(rng.integers(0, 7))]
        dtypes = base.FLOAT_DTYPES + base.INT_DTYPES
        dtype = str(rng.choice(dtypes, p=[0.3, 0.1, 0.15, 0.1] + [0.35 / 4] * 4))
        reductions = base.EXACT_REDUCE if device == "cuda" else base.REDUCE
        n_inputs, steps = base._random_program(rng, reductions)
        inputs = [
            (base._input(rng, shape, dtype) if shape else base._random_value(rng, (), dtype)).to(
                device
            )
            for _ in range(n_inputs)
        ]
        with np.errstate(all="ignore"):
            want = base._run_program(steps, inputs)
            got = compiled(steps, inputs)
        pairs.extend(zip(got, want))
    return pairs


@pytest.fixture
def captured():
    fusion._capture_sources(True)
    try:
        yield fusion._captured_sources
    finally:
        fusion._capture_sources(False)


def test_programs_name_their_structure(captured):
    x = genesis.randn(100)
    genesis.compile(base.gelu_tanh)(x)
    genesis.compile(base.gelu_tanh)(genesis.randn(7, 3))  # another shape, the same programs
    # each group: the item-at-a-time program and the one over 16-byte packs
    (name1, text1), (vname1, vtext1), (name2, text2), (vname2, vtext2) = captured()
    assert (name1, text1, vname1, vtext1) == (name2, text2, vname2, vtext2)
    assert name1.startswith("genesis_fused_") and name1 != vname1
    assert "gm::Tanh{}" in text1 and text1.count("out8[i] = v8;") == 1
    assert "out0[i]" not in text1  # temporaries are not written
    assert "g_pack<float, 4>" in vtext1 and "q8.v[j] = v8;" in vtext1
    genesis.compile(base.gelu_tanh)(x.double())
    assert captured()[4][0] != name1  # another dtype, another program
    genesis.compile(base.gelu_tanh)(x.bfloat16())
    assert "g_pack<g_bf16, 8>" in captured()[-1][1]


def test_strided_inputs_read_through_strides(captured):
    a, row = genesis.randn(6, 4), genesis.randn(4)
    genesis.compile(lambda a, row: (a.t() * 2).t() + row)(a, row)  # t() of a result: runs it
    genesis.compile(lambda a, row: a * row + 1)(a, row)
    text = captured()[-1][1]
    assert "struct Geo" in text and "g.strides1[d]" in text  # row is broadcast
    assert "in0[i]" in text  # a is dense


def test_broadcast_reads_walk_collapsed_dims(captured):
    """Note [Collapsed geometry]: size-1 dims dropped, neighbours every strided input steps over
    alike walked as one."""
    x, b = genesis.randn(8, 16, 24), genesis.randn(24)
    genesis.compile(lambda x, b: (x + b) * 2)(x, b)  # b: (8 x 16, 24) with strides (0, 1)
    genesis.compile(lambda x, b: (x.transpose(0, 1) + b) * 2)(x, b)  # nothing merges
    genesis.compile(lambda x, b: (x + b) * 2)(genesis.randn(1, 8, 1, 24), b)
    texts = [t for _, t in captured() if "struct Geo" in t]
    assert len(texts) == 3
    assert "int sizes[2];" in texts[0] and "int sizes[3];" in texts[1]
    assert "int sizes[2];" in texts[2]  # (1, 8, 1, 24): the 1s dropped


@requires_cuda
@requires_nvrtc
def test_cuda_collapsed_geometry_matches_eager(cuda_fusion):
    x = genesis.randn(4, 6, 8, 10, device="cuda")
    b = genesis.randn(10, device="cuda")
    cases = [
        (x, b),
        (x.transpose(1, 2), b),
        (x[:, :, ::2], b),
        (x.permute(3, 1, 2, 0), genesis.randn(4, device="cuda")),
        (genesis.randn(1, 6, 1, 10, device="cuda").expand(4, 6, 8, 10), b),
        (x[:1, :, :1], genesis.randn(6, 1, 10, device="cuda")),
        (x[0, 0, 0, 0], b),
    ]
    for a, c in cases:
        fn = lambda a, c: (a + c) * 2 - a  # noqa: E731
        base.same(genesis.compile(fn)(a, c), fn(a, c))


@requires_nvrtc
@pytest.mark.parametrize("seed", range(3))
def test_every_generated_program_compiles(captured, seed):
    """The programs of 200 random graphs (every dtype, numbers, where, strided inputs) compile."""
    random_programs(seed, 200)
    seen = set()
    for name, text in captured():
        if name in seen:
            continue
        seen.add(name)
        cubin = fusion._nvrtc_compile(text, name + ".cu", 90)
        assert cubin[:4] == b"\x7fELF"
    assert len(seen) > 50


def test_structure_keys_name_programs_one_to_one(captured):
    """A run finds its kernel by a compact key instead of the text: the two must agree."""
    for seed in range(4):
        random_programs(seed, 100)
    assert len(captured()) > 300
    assert fusion._captured_key_mismatches() == 0


def test_structure_keys_tell_apart_what_the_text_does(captured):
    """The facts a program's text holds beyond its ops: var's divisor (row length less the
    correction), a row input against a full one, a column mean's divisor; groups differing only
    there must not share a key (a run would launch the other's kernel)."""
    fusion.reset_stats()
    for cols in (64, 96):
        x = genesis.randn(40, cols)
        for correction in (0, 1):
            genesis.compile(lambda x, c=correction: (x * 2).var(-1, correction=c) + 1)(x)
        m = genesis.randn(40, 1)
        genesis.compile(lambda x, m: ((x - m) * 3).sum(-1))(x, m)  # a row input
        genesis.compile(lambda x, y: ((x - y) * 3).sum(-1))(x, genesis.randn(40, cols))
    for count in (30, 50):  # column means over different row counts
        genesis.compile(lambda x: (x * 2).mean(0))(genesis.randn(count, 70))
    names = {name for name, _ in captured()}
    # var: 4 divisors; the row input's program and the full input's, each of 2 and of 3 items a
    # lane (Note [Warp rows]); 2 column means
    assert len(names) == 10
    assert fusion._captured_key_mismatches() == 0


@requires_nvrtc
def test_nvrtc_errors_name_the_program():
    with pytest.raises(RuntimeError, match=r"\[compile\] NVRTC could not compile a fused kernel"):
        fusion._nvrtc_compile("this is not C++", "broken.cu", 90)


@pytest.mark.parametrize("seed", range(3))
def test_eager_executor_matches_eager(seed):
    """The fallback of CUDA groups, run on the CPU: the same values, and no write versions."""
    fusion._set_eager_executor(True)
    try:
        for got, want in random_programs(seed, 100):
            base.same(got, want)
        x, w = genesis.randn(50).requires_grad_(), genesis.randn(50).requires_grad_()
        genesis.compile(lambda x, w: (base.gelu_tanh(x * w) * 3).sum())(x, w).backward()
        assert x.grad is not None
    finally:
        fusion._set_eager_executor(False)


# ---- the kernel cache ------------------------------------------------------------------------


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("GENESIS_CACHE_DIR", str(tmp_path))
    fusion.clear_memory_cache()
    yield tmp_path / "kernels"
    fusion.clear_memory_cache()


def test_cache_builds_once_then_reads_memory_then_disk(cache_dir):
    key = f"test-key-{os.getpid()}"
    assert fusion.cache_folder() == str(cache_dir)
    value, built = fusion._cached(key, "cubin bytes \x00\x01")
    assert built and value == b"cubin bytes \x00\x01"
    files = list(cache_dir.glob("*.cubin"))
    assert len(files) == 1 and not list(cache_dir.glob(".tmp-*"))
    assert fusion._cached(key, "other") == (b"cubin bytes \x00\x01", False)  # memory
    fusion.clear_memory_cache()
    before = fusion.cache_stats()["disk_hits"]
    assert fusion._cached(key, "other") == (b"cubin bytes \x00\x01", False)  # disk
    assert fusion.cache_stats()["disk_hits"] == before + 1


@pytest.mark.parametrize("damage", ["truncate", "flip", "empty", "garbage"])
def test_a_corrupt_cache_file_is_ignored_and_rebuilt(cache_dir, damage):
    key = f"corrupt-{damage}"
    fusion._cached(key, "good value")
    (path,) = cache_dir.glob("*.cubin")
    data = path.read_bytes()
    data = {
        "truncate": data[: len(data) // 2],
        "flip": data[:30] + bytes([data[30] ^ 1]) + data[31:],
        "empty": b"",
        "garbage": os.urandom(len(data)),
    }[damage]
    path.write_bytes(data)
    fusion.clear_memory_cache()
    rejected = fusion.cache_stats()["disk_rejected"]
    assert fusion._cached(key, "rebuilt") == (b"rebuilt", True)
    assert fusion.cache_stats()["disk_rejected"] == rejected + 1
    fusion.clear_memory_cache()
    assert fusion._cached(key, "unused") == (b"rebuilt", False)  # the file was replaced


def test_cache_keys_are_checked_on_read(cache_dir):
    fusion._cached("key-a", "value a")
    (path,) = cache_dir.glob("*.cubin")
    # a file of another key under this key's name (a hash collision) is a miss
    fusion._cached("key-b", "value b")
    other = [p for p in cache_dir.glob("*.cubin") if p != path][0]
    other.replace(path)
    fusion.clear_memory_cache()
    assert fusion._cached("key-a", "value a again") == (b"value a again", True)


def test_an_unwritable_cache_folder_is_no_error(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("GENESIS_CACHE_DIR", str(blocker))
    fusion.clear_memory_cache()
    assert fusion._cached("key", "value") == (b"value", True)
    fusion.clear_memory_cache()


def test_processes_filling_the_cache_at_once(cache_dir):
    """Eight processes build the same 20 entries at once: every read is whole and right."""
    script = textwrap.dedent(
        """
        import sys
        import genesis
        f = genesis._C._fusion
        for i in range(20):
            value = ("entry %d " % i) * 5000
            got, _ = f._cached("shared-%d" % i, value)
            assert got == value.encode(), i
            f.clear_memory_cache()
            got, _ = f._cached("shared-%d" % i, "wrong")
            assert got == value.encode(), i
        """
    )
    env = dict(os.environ, GENESIS_CACHE_DIR=str(cache_dir.parent))
    procs = [
        subprocess.Popen([sys.executable, "-c", script], env=env, stderr=subprocess.PIPE)
        for _ in range(8)
    ]
    for p in procs:
        _, err = p.communicate(timeout=300)
        assert p.returncode == 0, err.decode()
    assert len(list(cache_dir.glob("*.cubin"))) == 20
    assert not list(cache_dir.glob(".tmp-*"))


# ---- CUDA groups as generated kernels (GPU) ----------------------------------------------------


@pytest.fixture
def cuda_fusion():
    was = fusion.cuda_fusion()
    fusion.set_cuda_fusion(True)
    try:
        yield
    finally:
        fusion.set_cuda_fusion(was)


@requires_cuda
@requires_nvrtc
@pytest.mark.parametrize("seed", range(5))
def test_cuda_groups_match_eager(cuda_fusion, seed):
    assert fusion.cuda_fusion()
    fusion.reset_stats()
    for got, want in random_programs(seed, 100, device="cuda"):
        # amax/amin of a row holding +0.0 and -0.0 return either (a > b ? a : b keeps the later
        # on a tie), and a block's shuffles meet the items in another order than eager's loop
        base.same(got, want, zero_signs=False)
    assert fusion.stats()["groups"] > 0


@requires_cuda
@requires_nvrtc
@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16", "float16"])
def test_cuda_gelu_chain_is_one_kernel(cuda_fusion, dtype):
    x = genesis.randn(1 << 20, device="cuda").to(getattr(genesis, dtype))
    fusion.reset_stats()
    got = genesis.compile(base.gelu_tanh)(x)
    assert fusion.stats()["groups"] == 1
    base.same(got, base.gelu_tanh(x))


def rounding_cases():
    """float32 values at every kind of place for a 16-bit float: halfway between two of them
    (ties to even, up and down), just off halfway, their largest and past it (to inf), their
    subnormals and below, zeros, infinities and NaN; and random bits."""
    bits = [
        0x3F808000,
        0x3F818000,
        0x3F808001,
        0x3F807FFF,
        0x7F7F8000,
        0x7F7FFFFF,
        0x477FEFFF,
        0x477FF000,
        0x477FF001,
        0x00008000,
        0x00018000,
        0x387FE000,
        0x33800000,
        0x33800001,
        0x00000001,
        0x80000000,
        0x00000000,
        0x7F800000,
        0xFF800000,
        0x7FC00000,
        0x3F800FFF,
    ]
    rng = np.random.default_rng(48)
    bits = np.concatenate([np.array(bits, np.uint32), rng.integers(0, 2**32, 4096, np.uint32)])
    return np.concatenate([bits, bits ^ 0x80000000]).view(np.float32)


@requires_cuda
@requires_nvrtc
@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_cuda_rounding_to_16_bits_matches_eager(cuda_fusion, dtype):
    """Note [Rounding to 16 bits in pairs]: a fused program rounds a float32 result to bf16 or
    half, and a 16-bit op's result again, bit for bit as eager's kernels do."""
    dt = getattr(genesis, dtype)
    x = genesis.tensor(rounding_cases(), device="cuda")

    def fn(x):
        return (x * 1.0).to(dt) * 3 - (x * 0.5).to(dt)

    got = genesis.compile(fn)(x)
    base.same(got, fn(x))


@requires_cuda
@requires_nvrtc
def test_cuda_strided_and_large_offsets(cuda_fusion):
    a = genesis.randn(3000, 700, device="cuda")
    row = genesis.randn(700, device="cuda")

    def f(a, row):
        return genesis.tanh(a.t() * 2) + row.unsqueeze(1), a[:, ::3] * 0.5 + 1

    for g, w in zip(genesis.compile(f)(a, row), f(a, row)):
        base.same(g, w)


@requires_cuda
@requires_nvrtc
def test_cuda_autograd_and_streams(cuda_fusion):
    x0, w0 = genesis.randn(4096, device="cuda"), genesis.randn(4096, device="cuda")
    grads = []
    for fn in (lambda x, w: (base.gelu_tanh(x * w) * 3).sum(),) * 2:
        x, w = x0.clone().requires_grad_(), w0.clone().requires_grad_()
        compiled = genesis.compile(fn) if grads else fn
        compiled(x, w).backward()
        grads.append((x.grad, w.grad))
    for g, w in zip(*grads):
        base.same(g, w)
    s = genesis.cuda.Stream()
    with genesis.cuda.stream(s):
        y = genesis.compile(base.gelu_tanh)(x0)
    s.synchronize()
    base.same(y, base.gelu_tanh(x0))


@requires_cuda
@requires_nvrtc
def test_cuda_a_stream_change_starts_a_group(cuda_fusion):
    s = genesis.cuda.Stream()
    x = genesis.randn(1 << 16, device="cuda")

    def f(x):
        y = x * 2
        with genesis.cuda.stream(s):
            z = (x + 1) * 3  # ops on another stream: a group of their own, run there
        s.synchronize()
        return y - 1, z

    fusion.reset_stats()
    got = genesis.compile(f)(x)
    # x * 2, then (x + 1) * 3 on s; s.synchronize() runs all deferred work, so y - 1 starts a third
    assert fusion.stats()["groups"] == 3
    for g, w in zip(got, f(x)):
        base.same(g, w)


@requires_cuda
@requires_nvrtc
def test_cuda_events_order_deferred_work(cuda_fusion):
    """An event recorded after deferred ops comes after their kernels (the record runs the
    groups first), so another stream that waits on it reads written values."""
    side = genesis.cuda.Stream()
    x = genesis.randn(1 << 22, device="cuda")

    def f(x):
        y = genesis.tanh(x * 2) + 1  # deferred on the current stream
        done = genesis.cuda.Event()
        done.record()
        side.wait_event(done)
        with genesis.cuda.stream(side):
            z = y * 3
        genesis.cuda.current_stream().wait_stream(side)
        return z

    for _ in range(3):
        base.same(genesis.compile(f)(x), (genesis.tanh(x * 2) + 1) * 3)


@requires_cuda
def test_cuda_graph_capture_runs_earlier_deferred_ops(cuda_fusion):
    x = genesis.randn(1000, device="cuda")

    def f(x):
        y = x * 2  # deferred before the capture: must run now, not inside the graph
        g = genesis.cuda.CUDAGraph()
        static = genesis.zeros(1000, device="cuda")
        with genesis.cuda.graph(g):
            static.copy_(x + 1)
        g.replay()
        return y, static

    y, static = genesis.compile(f)(x)
    genesis.cuda.synchronize()
    base.same(y, x * 2)
    base.same(static, x + 1)


# ---- row groups as generated kernels (Note [Fused row groups on CUDA]) ----------------------


def row_programs():
    """Row groups of every kind a row program has: softmax, norms with a column input (weight),
    strided full inputs, a row input, integer sums, 16-bit floats."""
    x = genesis.randn(64, 100)
    w, b = genesis.randn(100), genesis.randn(100)
    for dtype in (genesis.float32, genesis.float64, genesis.bfloat16, genesis.float16):
        genesis.compile(rows.softmax)(x.to(dtype))
        genesis.compile(rows.layer_norm)(x.to(dtype), w.to(dtype), b.to(dtype))
    genesis.compile(rows.rms_norm)(x.t(), genesis.randn(64))  # a transposed input
    genesis.compile(lambda x, r: (x * 2).sum(-1) * r)(x, genesis.randn(64))  # a row input
    genesis.compile(lambda x: (x > 0).long().sum(-1, keepdim=True) * x.long().amax(-1))(x)
    genesis.compile(lambda x: x.prod(-1).abs().log() + x.amin(-1))(x)
    for dtype in (genesis.float32, genesis.float64, genesis.bfloat16):  # var's centred phase
        genesis.compile(rows.layer_norm_by_var)(x.to(dtype))
    genesis.compile(lambda x: x.std(-1, correction=2))(x)


@requires_nvrtc
def test_row_programs_compile(captured):
    row_programs()
    programs = {name: text for name, text in captured() if "g_block_reduce" in text}
    assert len(programs) >= 10
    for name, text in programs.items():
        assert fusion._nvrtc_compile(text, name + ".cu", 90)[:4] == b"\x7fELF"
    layer_norm = next(t for t in programs.values() if "Rsqrt" in t and "float*" in t)
    assert "in1[c]" in layer_norm and "in2[c]" in layer_norm  # the weight and bias: columns
    assert layer_norm.count("out8[i] = v8;") == 1  # written once, in the last phase
    assert any("in1[row]" in t for t in programs.values())  # the row input
    centred = [t for t in programs.values() if re.search(r"acc\d+, d(\d+) \* d\1\)", t)]
    assert len(centred) >= 4 and any("gm::m_sqrt(" in t for t in centred)  # var, std
    assert fusion._captured_key_mismatches() == 0


def row_layout(text):
    """The warps a row program gives a row (1, 2, 4, 8), or "block"."""
    if "g_block_reduce(acc" in text:
        return "block"
    several = re.search(r"g_rows_reduce<(\d)>\(acc", text)
    return int(several.group(1)) if several else 1 if "g_warp_reduce(acc" in text else None


@requires_nvrtc
def test_rows_take_warps_by_their_length(captured):
    """Note [Warp rows], Note [Rows over several warps]: a row goes to as many warps (1, 2, 4 or 8)
    as bring a lane's items to 32 or fewer and its kept item values (items times the values
    carried between phases and inputs read again) to 32 or fewer; a row longer than 8 warps hold,
    or one carrying too many values, to a block. Note [Values carried between phases]: a value a
    later phase needs is kept, not recomputed."""
    genesis.compile(rows.softmax)(genesis.randn(64, 1024))  # x and exp kept: 2 warps, 16 items
    genesis.compile(rows.softmax)(genesis.randn(64, 1025))  # 4 warps, 9 items a lane
    genesis.compile(rows.softmax)(genesis.randn(4, 2048))  # 4 warps, 16 items a lane
    genesis.compile(rows.softmax)(genesis.randn(4, 8192))  # 8 warps, 32 items: as many as fit
    genesis.compile(rows.softmax)(genesis.randn(4, 8193))  # longer than 8 warps hold
    many = [genesis.randn(16, 1024) for _ in range(4)]  # 4 inputs read in one phase: one value
    genesis.compile(lambda a, b, c, d: (a * b + c * d).sum(-1))(*many)

    def kept(*xs):  # one value kept for the second phase per input (the inputs read once)
        p, q, r, s = xs[0] * xs[1], xs[1] * xs[2], xs[0] + xs[2], xs[-1] - xs[0]
        values = (p, q, r, s)[: len(xs)]
        t = sum(values).sum(-1, keepdim=True)
        return sum(v * t for v in values)

    genesis.compile(kept)(*[genesis.randn(4, 8192) for _ in range(4)])  # 4 x 32: a block
    genesis.compile(kept)(*[genesis.randn(8, 1024) for _ in range(3)])  # 3 x 8: 4 warps
    x, m = genesis.randn(2, 3, 64, 64), genesis.randn(2, 3, 64, 1)
    genesis.compile(lambda x, m: (x * m.expand(2, 3, 64, 64)).sum(-1))(x, m)
    genesis.compile(lambda x: (x * 3).amax(-1) * 2)(genesis.randn(64, 300))  # a row op written
    texts = [t for _, t in captured()]
    assert len(texts) == 10
    assert [row_layout(t) for t in texts] == [2, 4, 4, 8, "block", 1, "block", 4, 1, 1]
    assert "if (lane == 0) out2[row] = v2;" in texts[9]  # by one lane of the row
    # softmax: x read by two phases (the max, then exp(x - max)) is kept; exp is carried to the
    # division, not computed again; a row of exactly 64 * 16 items tests no item against C
    softmax = texts[0]
    assert "xr0[j] = in0[i];" in softmax and "const float x0 = xr0[j];" in softmax
    assert softmax.count("gm::Exp{}") == 1 and re.search(r"vr(\d+)\[j\] = v\1;", softmax)
    assert "c >= C" not in softmax and "c = lane + 64 * j;" in softmax
    assert "c >= C" in texts[1] and "c = lane + 128 * j;" in texts[1]
    assert "c >= C" not in texts[3] and "c = lane + 256 * j;" in texts[3]
    assert "in0[i]" in texts[4] and "xr0" not in texts[4] and "vr" not in texts[4]
    assert "xr" not in texts[5] and "vr" not in texts[5]  # one phase: nothing kept
    assert len(re.findall(r" vr\d+\[8\];", texts[7])) == 3 and "xr" not in texts[7]
    # the expanded row value: read once a row, at the row's offset; x from memory, once
    assert "const float x1 = in1[b1];" in texts[8] and "xr1" not in texts[8]
    for name, text in captured():
        assert fusion._nvrtc_compile(text, name + ".cu", 90)[:4] == b"\x7fELF"
    assert fusion._captured_key_mismatches() == 0


def two_levels(x, y):
    """Two reductions independent of each other, a third that reads both (its terms all of one
    sign: a sum of mixed signs that cancels would differ from eager's order of adding by more
    than float32's rounding)."""
    a, b = x.mean(-1, keepdim=True), y.amax(-1, keepdim=True)
    return ((x - a).abs() * (b - y)).sum(-1, keepdim=True) + a * b


@requires_nvrtc
def test_independent_reductions_share_a_walk(captured):
    """Note [Reductions by dependency level]: x's sum and y's max fold in the row's first walk,
    the sum that reads both in the second; then the row op that reads all three."""
    for shape in ((16, 64), (16, 2048), (4, 9000)):  # a warp, 4 warps, a block a row
        genesis.compile(two_levels)(genesis.randn(*shape), genesis.randn(*shape))
    texts = [t for _, t in captured()]
    assert [row_layout(t) for t in texts] == [1, 4, "block"]
    for text in texts:
        body = text[text.index('extern "C"') :]
        first, second = re.findall(
            r"((?:    float acc\d+ = [^\n]*\n)+)(?:#pragma unroll\n)?    for", body
        )
        assert first.count("acc") == 2 and second.count("acc") == 1
        assert len(re.findall(r"_reduce(?:<\d>)?\(acc", body)) == body.count("_reduce") == 3
    for name, text in captured():
        assert fusion._nvrtc_compile(text, name + ".cu", 90)[:4] == b"\x7fELF"
    assert fusion._captured_key_mismatches() == 0


@requires_nvrtc
def test_warp_rows_min_blocks_for_experiments(tmp_path):
    """GENESIS_WARP_ROW_MIN_BLOCKS (read once a process) asks ptxas for blocks a multiprocessor
    in warp-row programs; GENESIS_ROW_LANE_VALUES moves the item values a lane that a row's warps
    aim at (8: a row of 1024 items keeping one value in 4 warps); the programs still build."""
    script = tmp_path / "probe.py"
    script.write_text(
        "import genesis\n"
        "from genesis import _C\n"
        "_C._fusion._capture_sources(True)\n"
        "x = genesis.randn(64, 1024)\n"
        "genesis.compile(lambda x: (x - x.amax(-1, keepdim=True)).exp().sum(-1))(x)\n"
        "(name, text), = [p for p in _C._fusion._captured_sources() if 'lane' in p[1]]\n"
        "assert '__launch_bounds__(256, 3)' in text, text[-400:]\n"
        "assert 'g_rows_reduce<4>(acc' in text and 'c = lane + 128 * j;' in text\n"
        "assert _C._fusion._nvrtc_compile(text, name + '.cu', 90)[:4] == b'\\x7fELF'\n"
    )
    env = dict(os.environ, GENESIS_WARP_ROW_MIN_BLOCKS="3", GENESIS_ROW_LANE_VALUES="8")
    out = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]


def close(got, want, rtol):
    wide = genesis.float64 if got.dtype == genesis.float64 else genesis.float32
    np.testing.assert_allclose(
        got.to(wide).cpu().numpy(), want.to(wide).cpu().numpy(), rtol=rtol, atol=rtol
    )


@requires_cuda
@requires_nvrtc
@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16", "float16"])
@pytest.mark.parametrize(
    "shape",
    # rows of 1 to 8 warps, as many as the values each function keeps ask (20000 and 10000 rows:
    # several rows a block's loop, the last pass partial), and of a block
    [
        (3, 7),
        (1000, 100),
        (300, 4, 33),
        (20000, 300),
        (10000, 1500),
        (64, 3000),
        (33, 5000),
        (16, 50257),
    ],
)
def test_cuda_row_groups_match_eager(cuda_fusion, dtype, shape):
    """One kernel per norm; sums add in another order than eager's kernel (within rounding).
    Note [Rows over several warps]: rows of 1, 2, 4 and 8 warps and of a block."""
    dt = getattr(genesis, dtype)
    rtol = {"float32": 2e-5, "float64": 1e-12}.get(dtype, 2e-2)
    x = (genesis.randn(*shape, device="cuda") * 3).to(dt)
    w = genesis.randn(shape[-1], device="cuda").to(dt)
    b = genesis.randn(shape[-1], device="cuda").to(dt)
    for fn, args in (
        (rows.softmax, (x,)),
        (rows.log_softmax, (x,)),
        (rows.layer_norm, (x, w, b)),
        (rows.rms_norm, (x, w)),
        (rows.layer_norm_by_var, (x,)),
        (lambda x: x.std(-1, correction=2), (x,)),
        (two_levels, (x, w.expand_as(x) * x)),
    ):
        fusion.reset_stats()
        got = genesis.compile(fn)(*args)
        assert fusion.stats()["groups"] == 1
        # rms_norm squares and sums in float32 (x.float()) whatever x's dtype: float32's rounding
        close(got, fn(*args), max(rtol, 2e-5) if fn is rows.rms_norm else rtol)
    # max and min are exact
    base.same(
        genesis.compile(lambda x: x - x.amax(-1, keepdim=True))(x), x - x.amax(-1, keepdim=True)
    )


@requires_cuda
@requires_nvrtc
def test_cuda_row_groups_backward_and_odd_inputs(cuda_fusion):
    x0 = genesis.randn(128, 300, device="cuda")
    w0 = genesis.randn(300, device="cuda")
    grads = []
    for compiled in (False, True):
        x, w = x0.clone().requires_grad_(), w0.clone().requires_grad_()
        fn = genesis.compile(rows.rms_norm) if compiled else rows.rms_norm
        (fn(x, w) * genesis.linspace(-1, 1, 300, device="cuda")).sum().backward()
        grads.append((x.grad, w.grad))
    for g, e in zip(*grads):
        close(g, e, 1e-4)
    a = genesis.randn(300, 128, device="cuda")
    for fn in (
        lambda a: rows.softmax(a.t()) + 1,  # a transposed input
        lambda a: (a[:, ::2] * 2).sum(-1) * a[:, 0],  # a strided input and a row input
        lambda a: (a > 0).long().sum(-1, keepdim=True) * a.long().amax(-1, keepdim=True),
    ):
        close(genesis.compile(fn)(a), fn(a), 1e-5)


@requires_cuda
@requires_nvrtc
# rows of 1 to 8 warps (the forward keeps 2 values a lane, the backward 4)
@pytest.mark.parametrize("size", [64, 300, 1024, 1100, 2100])
@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_cuda_masked_softmax_forward_and_backward(cuda_fusion, size, dtype):
    """Attention's softmax of plain ops: a mask broadcast over batch and heads, row values
    expanded in the backward (Note [Strided reads in row programs], Note [Warp rows])."""
    dt = getattr(genesis, dtype)
    mask = genesis.tensor(np.triu(np.ones((size, size), dtype=bool), k=1)).cuda()
    scores = genesis.randn(2, 3, size, size, device="cuda").to(dt)
    weights = genesis.randn(2, 3, size, size, device="cuda").to(dt)

    def softmax(s):
        s = (s * 0.125).masked_fill(mask, float("-inf"))
        e = (s - s.amax(-1, keepdim=True)).exp()
        return e / e.sum(-1, keepdim=True)

    results = []
    for fn in (softmax, genesis.compile(softmax)):
        s = scores.clone().requires_grad_()
        out = fn(s)
        (out.float() * weights.float()).sum().backward()
        results.append((out, s.grad))
    rtol = 2e-5 if dtype == "float32" else 2e-2
    for got, want in zip(results[1], results[0]):
        close(got, want, rtol)


def test_logs_from_the_environment():
    script = "import genesis; genesis.compile(lambda x: x * 2 + 1)(genesis.ones(5000))"
    env = dict(os.environ, GENESIS_LOGS="compile")
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "[genesis.compile] fused group: 2 ops over (5000,)" in out.stderr
    assert "Add(%0, 1)" in out.stderr


def test_errors_point_at_the_users_line():
    def f(x):
        y = x * 2
        return y @ genesis.ones(5)  # the failing line

    with pytest.raises(RuntimeError) as info:
        genesis.compile(f)(genesis.ones(3))
    assert "return y @ genesis.ones(5)" in str(info.traceback[-1])
