"""genesis.load(weights_only=True) against hostile and damaged files (issue 43).

The restricted unpickler (genesis/_restricted_unpickler.py) spends a budget proportional to
data.pkl's size (Note [Load budget]) and says what is wrong with a malformed pickle. Here:
1. crafted pickles (wrapped in genesis-style archives) that once allocated gigabytes, overflowed
   the C stack or hung: each must raise quickly, with a "[load]" message;
2. damaged zip archives;
3. a seeded fuzz of real archives (bit flips, truncations, insertions, deletions, length fields
   set huge in the pickle and in the zip headers);
4. legitimate files large enough to meet a budget that was too tight.

Sections 1 and 3 run in a child process under a time limit and an address-space limit
(RLIMIT_AS, 2 GiB above what the child holds after importing genesis), so that a crash, a hang
or a runaway allocation fails a test instead of ending the run. Every load there must return,
or raise one of LOAD_ERRORS with a message starting with "[load]".
"""

import collections
import io
import json
import os
import pickle
import random
import resource
import struct
import subprocess
import sys
import tempfile
import time
import zipfile

import pytest

import genesis
from genesis import _restricted_unpickler as ru

# What genesis.load raises for a bad file: UnpicklingError for the pickle (malformed, refused,
# over budget), ValueError for the archive (damage, storage entries, layouts), TypeError,
# OverflowError, ValueError or RuntimeError where an allowed callable (a tensor's layout, a
# device name) refuses the file's arguments. Every message starts with "[load]".
LOAD_ERRORS = (pickle.UnpicklingError, ValueError, TypeError, OverflowError, RuntimeError)

TESTS = os.path.dirname(os.path.abspath(__file__))


# ---------------------------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------------------------


def archive(payload, storages=(), stem="archive"):
    """A genesis-style archive (as genesis.save lays it out) around a data.pkl payload:
    <stem>/data.pkl, <stem>/version and <stem>/data/<key> for each (key, bytes) of storages."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_STORED) as zf:
        zf.writestr(f"{stem}/data.pkl", payload)
        zf.writestr(f"{stem}/version", "1\n")
        for key, data in storages:
            zf.writestr(f"{stem}/data/{key}", data)
    return buf.getvalue()


def saved(obj, protocol=2):
    buf = io.BytesIO()
    genesis.save(obj, buf, pickle_protocol=protocol)
    return buf.getvalue()


def entries(raw):
    with zipfile.ZipFile(io.BytesIO(raw)) as zf:
        return [(n, zf.read(n)) for n in zf.namelist()]


def long1(n):
    """LONG1 n."""
    b = n.to_bytes((n.bit_length() + 8) // 8, "little", signed=True)
    return b"\x8a" + bytes([len(b)]) + b


def glob(module, name):
    """GLOBAL module.name (protocol 0-2 text form)."""
    return b"c" + module.encode() + b"\n" + name.encode() + b"\n"


P2 = b"\x80\x02"
SET, XRANGE = glob("__builtin__", "set"), glob("__builtin__", "xrange")
FROZENSET = glob("__builtin__", "frozenset")
BYTES, BYTEARRAY = glob("__builtin__", "bytes"), glob("__builtin__", "bytearray")
ODICT, ENCODE = glob("collections", "OrderedDict"), glob("_codecs", "encode")


def uni(s):
    """BINUNICODE s."""
    b = s.encode()
    return b"X" + struct.pack("<I", len(b)) + b


def ints_list(n, memo=0):
    """A list of n small ints, stored in memo slot `memo` (EMPTY_LIST BINPUT MARK ... APPENDS)."""
    return b"]q" + bytes([memo]) + b"(" + b"K\x01" * n + b"e"


# ---------------------------------------------------------------------------------------------
# 1. hostile pickles: (payload, exception class, message pattern)
# ---------------------------------------------------------------------------------------------

M61 = (1 << 61) - 1  # ints i * M61 all hash to 0

HOSTILE = {
    # Calls that iterate or allocate by argument (Note [Load budget]).
    "set(range(2**40))": (P2 + SET + XRANGE + long1(2**40) + b"\x85R\x85R.", "budget"),
    "set(range(2**28))": (P2 + SET + XRANGE + long1(2**28) + b"\x85R\x85R.", "budget"),
    "frozenset(range(2**40))": (P2 + FROZENSET + XRANGE + long1(2**40) + b"\x85R\x85R.", "budget"),
    "set(*range(2**28))": (P2 + SET + XRANGE + long1(2**28) + b"\x85RR.", "not a tuple"),
    "set(range(2**100))": (P2 + SET + XRANGE + long1(2**100) + b"\x85R\x85R.", "budget"),
    "bytes(2**40)": (P2 + BYTES + long1(2**40) + b"\x85R.", "makes 1099511627776 bytes"),
    "bytearray(2**33)": (P2 + BYTEARRAY + long1(2**33) + b"\x85R.", "makes 8589934592 bytes"),
    "bytes(range(2**30))": (P2 + BYTES + XRANGE + long1(2**30) + b"\x85R\x85R.", "budget"),
    "bytearray(range(2**30))": (P2 + BYTEARRAY + XRANGE + long1(2**30) + b"\x85R\x85R.", "budget"),
    "bytes(str, punycode)": (P2 + BYTES + uni("a" * 50) + uni("punycode") + b"\x86R.", "encoding"),
    "OrderedDict([range(2**40)])": (
        P2 + ODICT + b"]" + XRANGE + long1(2**40) + b"\x85Ra\x85R.",
        "pairs",
    ),
    "NEWOBJ bytes(2**40)": (P2 + BYTES + long1(2**40) + b"\x85\x81.", "makes 1099511627776 bytes"),
    "NEWOBJ frozenset(range)": (
        P2 + FROZENSET + XRANGE + long1(2**40) + b"\x85R\x85\x81.",
        "budget",
    ),
    # The same list given to set() again and again through the memo (each call copies it).
    "set(L) x 2000": (
        P2 + SET + b"q\x01" + ints_list(1000, memo=2) + b"0" + b"h\x01h\x02\x85R0" * 2000 + b"N.",
        "budget",
    ),
    "encode(s) x 2000": (
        P2
        + ENCODE
        + b"q\x01"
        + uni("a" * 1000)
        + b"q\x02"
        + uni("latin1")
        + b"q\x03"
        + b"0" * 2
        # (pops the two strings: they stay in the memo)
        + b"h\x01h\x02h\x03\x86R0" * 2000
        + b"N.",
        "bytes made by calls",
    ),
    # Lengths past the payload (refused before the allocation).
    "BINBYTES8 2**62": (b"\x80\x04\x8e" + struct.pack("<Q", 2**62) + b".", "2**62"),
    "BINBYTES8 2**64-1": (b"\x80\x04\x8e" + struct.pack("<Q", 2**64 - 1) + b".", "2**64-1"),
    "BINUNICODE8 2**62": (b"\x80\x04\x8d" + struct.pack("<Q", 2**62) + b".", "2**62"),
    "BYTEARRAY8 2**62": (b"\x80\x05\x96" + struct.pack("<Q", 2**62) + b".", "2**62"),
    "BINBYTES 2**32-1": (b"\x80\x03B" + struct.pack("<I", 2**32 - 1) + b"ab.", "remain"),
    "BINUNICODE 2**32-1": (P2 + b"X" + struct.pack("<I", 2**32 - 1) + b"ab.", "remain"),
    "SHORT_BINBYTES 255": (b"\x80\x03C\xffab.", "remain"),
    "LONG4 2**31-1": (P2 + b"\x8b" + struct.pack("<i", 2**31 - 1) + b"\x01.", "remain"),
    "LONG4 negative": (P2 + b"\x8b" + struct.pack("<i", -5) + b".", "negative"),
    "FRAME 2**62": (b"\x80\x04\x95" + struct.pack("<Q", 2**62) + b"N.", "frame"),
    "INT of 10**5 digits": (b"I" + b"7" * 100_000 + b"\n.", "integer of"),
    # Nesting: a hashed tuple nested 10**5 deep would overflow the C stack.
    "10**5 nested tuples as a dict key": (P2 + b"}" + b")" + b"\x85" * 100_000 + b"Ns.", "nested"),
    "10**5 nested tuples in a set": (
        P2 + SET + b"]" + b")" + b"\x85" * 100_000 + b"a\x85R.",
        "nested",
    ),
    "10**5 nested frozensets": (
        b"\x80\x04(\x91\x940"
        + b"".join(b"(j" + struct.pack("<I", i) + b"\x91\x940" for i in range(100_000))
        + b"j\x00\x00\x00\x00.",
        "nested",
    ),
    "10**5 nested lists": (P2 + b"]" * 100_000 + b"a" * 99_999 + b".", "nests containers"),
    "10**5 nested dicts": (
        P2 + b"}" + b"K\x01}" * 100_000 + b"s" * 100_000 + b".",
        "nests containers",
    ),
    # The same chain built top down through the memo (no list is deep when it is appended to).
    "10**5 nested lists through the memo": (
        P2
        + b"]r\x00\x00\x00\x00"
        + b"".join(
            b"j" + struct.pack("<I", i) + b"]r" + struct.pack("<I", i + 1) + b"a0"
            for i in range(100_000)
        )
        + b"0j\x00\x00\x00\x00.",
        "nests containers",
    ),
    # One hash for every key: each insertion would walk all the others.
    "hash flooding a dict": (
        P2 + b"}(" + b"".join(long1(i * M61) + b"N" for i in range(1, 20_001)) + b"u.",
        "hash flooding",
    ),
    "hash flooding a set": (
        b"\x80\x04\x8f(" + b"".join(long1(i * M61) for i in range(1, 20_001)) + b"\x90.",
        "hash flooding",
    ),
    # What weights_only refuses outright (Note [weights_only's BUILD]).
    "OBJ device()": (P2 + b"(" + glob("genesis._C", "device") + b"o.", "device"),
    "INST device": (P2 + b"(igenesis._C\ndevice\n.", "device"),
    "OBJ os.system": (P2 + b"(" + glob("os", "system") + uni("true") + b"o.", "refuses to load"),
    "call a dtype": (P2 + glob("genesis._C", "float32") + b")R.", "refuses to call"),
    "call a range object": (P2 + XRANGE + b"K\x03\x85R)R.", "refuses to call"),
    "SETITEM on a list": (P2 + b"]K\x01K\x02s.", "adds to a list"),
    "APPEND on a dict": (P2 + b"}K\x01a.", "adds to a dict"),
    "APPEND on a bytearray": (P2 + BYTEARRAY + b")RK\x01a.", "adds to a bytearray"),
    "EXT1": (P2 + b"\x82\x01.", "EXT1"),
    "NEXT_BUFFER": (b"\x80\x05\x97.", "NEXT_BUFFER"),
    # Malformed pickles.
    "unknown opcode": (P2 + b"\xff.", "no such opcode"),
    "stack underflow": (P2 + b"a.", "more items than the stack holds"),
    "TUPLE2 on one item": (P2 + b"N\x86.", "more items than the stack holds"),
    "APPENDS without MARK": (P2 + b"]e.", "no MARK"),
    "MARK left open": (P2 + b"(N.", "MARK is still open"),
    "items left at STOP": (P2 + b"NN.", "holds 2 items"),
    "STOP on empty stack": (P2 + b".", "holds 0 items"),
    "memo miss": (P2 + b"h\x05.", "no memo entry 5"),
    "LONG_BINGET miss": (P2 + b"j\xff\xff\xff\xff.", "no memo entry 4294967295"),
    "truncated": (P2 + b"]q\x00(K\x01K", "remain"),
    "no STOP": (P2 + b"]", "before its STOP"),
    "empty data.pkl": (b"", "before its STOP"),
    "bad protocol": (b"\x80\x09N.", "unsupported pickle protocol"),
    "DICT of odd items": (P2 + b"(Nd.", "odd number"),
    "bad utf-8": (P2 + b"X\x02\x00\x00\x00\xff\xfe.", "UnicodeDecodeError"),
    "GLOBAL without end of line": (P2 + b"cbuiltins", "end of line"),
    "BINPERSID of a list": (P2 + b"]Q.", "storage reference"),
    "tensor of range size": (
        P2
        + glob("genesis.serialization", "_rebuild_tensor")
        + b"(NK\x00"
        + XRANGE
        + long1(2**40)
        + b"\x85R)"
        + glob("genesis._C", "float32")
        + b"\x89tR.",
        "size must be a tuple",
    ),
}
EXPECTED_CLASS = {
    "OBJ device()": TypeError,
    "INST device": TypeError,
    "tensor of range size": TypeError,
}


def _peak_rss_mib():
    """This process's own peak resident memory: VmHWM of its address space. (getrusage's
    ru_maxrss carries over exec the peak of the process it was forked from: the pytest
    process, over a gigabyte late in the suite.)"""
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) / 1024 for line in f if line.startswith("VmHWM:"))


def _child_hostile():
    """Loads each HOSTILE case; one JSON line: name -> [class, message, seconds]."""
    out = {}
    for name, (payload, _) in HOSTILE.items():
        raw = archive(payload)
        start = time.perf_counter()
        try:
            got = genesis.load(io.BytesIO(raw))
            result = ["loaded", repr(type(got)), 0.0]
        except Exception as e:  # noqa: BLE001 - the parent checks the class
            result = [type(e).__name__, str(e), 0.0]
        result[2] = time.perf_counter() - start
        out[name] = result
    out["peak_rss_mib"] = _peak_rss_mib()
    print(json.dumps(out))


# ---------------------------------------------------------------------------------------------
# The child process
# ---------------------------------------------------------------------------------------------

HEADROOM = 2 << 30  # bytes of address space the child may add to what it holds at start


def _limit_memory():
    """RLIMIT_AS at what the process maps now (genesis may reserve address space at import)
    plus HEADROOM."""
    try:
        with open("/proc/self/status") as f:
            vm = next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmSize:"))
    except (OSError, StopIteration):
        return
    resource.setrlimit(resource.RLIMIT_AS, (vm + HEADROOM, vm + HEADROOM))


def _child_main(kind):
    _limit_memory()
    {"hostile": _child_hostile, "fuzz": _child_fuzz}[kind]()


def run_child(kind, timeout):
    """Runs _child_main(kind) in a new interpreter; its JSON line (a crash or hang fails)."""
    code = (
        f"import sys; sys.path.insert(0, {TESTS!r}); import test_load_hostile as m; "
        f"m._child_main({kind!r})"
    )
    try:
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"the {kind} child took more than {timeout} s (a hang?)")
    assert done.returncode == 0, (
        f"the {kind} child died (rc {done.returncode}): {done.stderr[-3000:]}"
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def hostile_results():
    return run_child("hostile", timeout=120)


@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_pickle_refused(hostile_results, name):
    kind, message, seconds = hostile_results[name]
    want = EXPECTED_CLASS.get(name, pickle.UnpicklingError)
    assert kind == want.__name__, (kind, message)
    assert message.startswith("[load] "), message
    pattern = HOSTILE[name][1].replace("2**62", str(2**62)).replace("2**64-1", str(2**64 - 1))
    assert pattern in message, message
    assert "MemoryError" not in message, message
    assert seconds < 5, f"{name} took {seconds:.1f} s"


def test_hostile_pickles_bounded_memory(hostile_results):
    # ~100 MiB with genesis imported; set(range(2**28)) alone would take over 10 GiB.
    assert hostile_results["peak_rss_mib"] < 1024, hostile_results["peak_rss_mib"]


def test_depth_limit_is_exact():
    depth = ru.MAX_DEPTH
    ok = P2 + b"]" * depth + b"a" * (depth - 1) + b"."
    assert len(genesis.load(io.BytesIO(archive(ok)))) == 1
    with pytest.raises(pickle.UnpicklingError, match=r"^\[load\] .*nests containers"):
        genesis.load(io.BytesIO(archive(P2 + b"]" * (depth + 1) + b"a" * depth + b".")))
    ok = P2 + b")" + b"\x85" * (depth - 1) + b"."
    assert isinstance(genesis.load(io.BytesIO(archive(ok))), tuple)
    with pytest.raises(pickle.UnpicklingError, match=r"^\[load\] .*nested more than"):
        genesis.load(io.BytesIO(archive(P2 + b")" + b"\x85" * depth + b".")))
    # A list that holds itself is not deep.
    got = genesis.load(io.BytesIO(archive(P2 + b"]q\x00h\x00a.")))
    assert got[0] is got


def test_shared_references_are_not_copies():
    # The same 1000-int list 10**4 times in a tuple: references, no budget spent per item.
    payload = P2 + ints_list(1000) + b"0(" + b"h\x00" * 10_000 + b"t."
    got = genesis.load(io.BytesIO(archive(payload)))
    assert len(got) == 10_000 and all(x is got[0] for x in got)
    # set() of it once is a copy the budget allows.
    got = genesis.load(io.BytesIO(archive(P2 + SET + ints_list(1000, 1) + b"\x85R.")))
    assert got == {1}


def test_a_few_equal_hashes_load():
    keys = [i * M61 for i in range(1, ru.MAX_EQUAL_HASHES + 1)]
    got = genesis.load(io.BytesIO(saved({k: None for k in keys})))
    assert list(got) == keys
    assert genesis.load(io.BytesIO(saved({-1: "a", -2: "b"}))) == {-1: "a", -2: "b"}


# ---------------------------------------------------------------------------------------------
# 2. damaged zip archives
# ---------------------------------------------------------------------------------------------


def patched(raw, signature, index, offset, fmt, value):
    """raw with the field at `offset` of the index-th record starting with `signature` set."""
    raw = bytearray(raw)
    at = -1
    for _ in range(index + 1):
        at = raw.find(signature, at + 1)
    struct.pack_into(fmt, raw, at + offset, value)
    return bytes(raw)


LOCAL, CENTRAL, END = b"PK\x03\x04", b"PK\x01\x02", b"PK\x05\x06"


class _Ref:
    def __init__(self, nbytes):
        self.nbytes = nbytes


class _Tensor:
    """Pickles as _rebuild_tensor over the storage ("storage", "0", "cpu", nbytes)."""

    def __init__(self, nbytes):
        self.ref = _Ref(nbytes)

    def __reduce__(self):
        from genesis.serialization import _rebuild_tensor

        return (_rebuild_tensor, (self.ref, 0, (4,), (1,), genesis.float32, False))


class _RefPickler(pickle.Pickler):
    def persistent_id(self, obj):
        return ("storage", "0", "cpu", obj.nbytes) if isinstance(obj, _Ref) else None


def tensor_archive(nbytes, data):
    buf = io.BytesIO()
    _RefPickler(buf, protocol=2).dump(_Tensor(nbytes))
    return archive(buf.getvalue(), [("0", data)])


def test_tensor_archive_loads():
    assert genesis.load(io.BytesIO(tensor_archive(16, bytes(16)))).tolist() == [0.0] * 4


def test_storage_entry_larger_than_the_archive():
    # A storage entry whose headers (and reference) say 2 GiB, in a file of a few hundred bytes:
    # refused before 2 GiB are allocated.
    n = (2 << 30) - 16
    raw = tensor_archive(n, bytes(16))
    for sig, off in [(LOCAL, 18), (LOCAL, 22), (CENTRAL, 20), (CENTRAL, 24)]:
        raw = patched(raw, sig, 2, off, "<I", n)
    with pytest.raises(
        ValueError, match=r"^\[load\] entry 'archive/data/0' is damaged.*do not fit"
    ):
        genesis.load(io.BytesIO(raw))


def test_data_pkl_sizes_disagree():
    raw = patched(saved([1, 2]), CENTRAL, 0, 20, "<I", 3)  # compressed size != size
    with pytest.raises(ValueError, match=r"^\[load\] entry 'archive/data.pkl' is damaged"):
        genesis.load(io.BytesIO(raw))


def test_data_pkl_crc_error():
    raw = bytearray(saved({"x": list(range(50))}))
    raw[raw.find(b"archive/data.pkl") + 20] ^= 0x01  # a byte of the pickle (in the first entry)
    with pytest.raises(ValueError, match=r"^\[load\] entry 'archive/data.pkl' is damaged.*CRC"):
        genesis.load(io.BytesIO(bytes(raw)))


@pytest.mark.parametrize("cut", [10, 100, -60, -22, -1])
def test_truncated_archive(cut):
    raw = saved({"w": genesis.ones(3), "n": 5})
    with pytest.raises(ValueError, match=r"^\[load\] "):
        genesis.load(io.BytesIO(raw[:cut]))


def test_compressed_data_pkl_refused():
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("archive/data.pkl", pickle.dumps([0] * 1000, 2), zipfile.ZIP_DEFLATED)
    with pytest.raises(ValueError, match=r"^\[load\] .*compressed"):
        genesis.load(io.BytesIO(buf.getvalue()))


def test_central_directory_offset_damaged():
    raw = saved([genesis.ones(2)])
    for value in [0, 0xFFFFFFFF, 0x7FFFFFFF]:
        with pytest.raises(ValueError, match=r"^\[load\] "):
            genesis.load(io.BytesIO(patched(raw, END, 0, 16, "<I", value)))


# ---------------------------------------------------------------------------------------------
# 3. the fuzz: mutants of real archives, in a child under time and memory limits
# ---------------------------------------------------------------------------------------------

FUZZ_SEED = 43
FUZZ_PER_KIND = 50  # mutants of each kind for each base archive


def fuzz_bases():
    """Real archives: a state dict of several dtypes; nested containers with views (protocols
    2 and 4)."""
    x = genesis.arange(12.0).reshape(3, 4)
    state = {
        "w": x,
        "b": genesis.arange(4, dtype=genesis.int64),
        "h": genesis.ones(2, 3, dtype=genesis.bfloat16),
        "f16": genesis.full((5,), 1.5, dtype=genesis.float16),
        "mask": genesis.tensor([True, False, True]),
        "u8": genesis.arange(7, dtype=genesis.uint8),
    }
    nested = {
        "views": [x, x.t(), x[1:, ::2], (x[0], [x[2]])],
        "od": collections.OrderedDict(k=genesis.arange(3, dtype=genesis.int16), step=7),
        "plain": [1, -(2**70), 2.5, "s\u00e9", None, True, b"\x00\xff", bytearray(b"ab")],
        "more": ({3, 4}, frozenset({"a"}), 1 - 2j, slice(1, None, 2), range(2, 9, 3)),
        "dt": genesis.float16,
        "dev": genesis.device("cpu"),
        "deep": [[[[{"k": (1, (2, (3,)))}]]]],
    }
    return [("state", saved(state, 2)), ("nested", saved(nested, 2)), ("nested4", saved(nested, 4))]


# Opcodes with a length field: (opcode byte, field size, struct format).
_LENGTH_FIELDS = {
    b"X"[0]: "<I",  # BINUNICODE
    b"B"[0]: "<I",  # BINBYTES
    b"T"[0]: "<i",  # BINSTRING
    b"\x8d"[0]: "<Q",  # BINUNICODE8
    b"\x8e"[0]: "<Q",  # BINBYTES8
    b"\x96"[0]: "<Q",  # BYTEARRAY8
    b"\x95"[0]: "<Q",  # FRAME
    b"\x8b"[0]: "<i",  # LONG4
    b"\x8c"[0]: "<B",  # SHORT_BINUNICODE
    b"C"[0]: "<B",  # SHORT_BINBYTES
    b"\x8a"[0]: "<B",  # LONG1
    b"r"[0]: "<I",  # LONG_BINPUT
    b"j"[0]: "<I",  # LONG_BINGET
}
_HUGE = {"<I": [2**32 - 1, 2**31, 2**20], "<i": [2**31 - 1, -1, -(2**31)],
         "<Q": [2**64 - 1, 2**63, 2**62, 2**32], "<B": [255, 254]}  # fmt: skip

# Zip header fields: (signature, offset, format).
_ZIP_FIELDS = [
    (LOCAL, 6, "<H"),  # flags
    (LOCAL, 8, "<H"),  # compression
    (LOCAL, 18, "<I"),  # compressed size
    (LOCAL, 22, "<I"),  # size
    (LOCAL, 26, "<H"),  # name length
    (LOCAL, 28, "<H"),  # extra length
    (CENTRAL, 10, "<H"),  # compression
    (CENTRAL, 16, "<I"),  # CRC
    (CENTRAL, 20, "<I"),  # compressed size
    (CENTRAL, 24, "<I"),  # size
    (CENTRAL, 28, "<H"),  # name length
    (CENTRAL, 30, "<H"),  # extra length
    (CENTRAL, 32, "<H"),  # comment length
    (CENTRAL, 42, "<I"),  # local header offset
    (END, 8, "<H"),  # entries on this disk
    (END, 10, "<H"),  # entries
    (END, 12, "<I"),  # directory size
    (END, 16, "<I"),  # directory offset
    (END, 20, "<H"),  # comment length
]


def _with_pickle(raw, pkl):
    """The archive with its data.pkl replaced (valid CRCs: the damage is the pickle's)."""
    files = entries(raw)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in files:
            zf.writestr(name, pkl if name.endswith("/data.pkl") else data)
    return buf.getvalue()


def _length_sites(pkl):
    import pickletools

    return [
        pos
        for op, _, pos in pickletools.genops(pkl)
        if op.code.encode("latin1")[0] in _LENGTH_FIELDS
    ]


def _edit(rng, data):
    """One random byte-level edit: flips, a cut, an insertion or a deletion."""
    data = bytearray(data)
    how = rng.choice(["flip", "flip", "cut", "insert", "delete"])
    if how == "flip":
        for _ in range(rng.randint(1, 4)):
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
    elif how == "cut":
        del data[rng.randrange(len(data)) :]
    elif how == "insert":
        at = rng.randrange(len(data) + 1)
        data[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
    else:
        at = rng.randrange(len(data))
        del data[at : at + rng.randint(1, 8)]
    return bytes(data)


def fuzz_mutants():
    """(description, archive bytes), seeded: for each base, byte edits of the archive and of its
    pickle, and length fields set huge in the pickle and in the zip headers."""
    rng = random.Random(FUZZ_SEED)
    out = []
    for base, raw in fuzz_bases():
        pkl = next(d for n, d in entries(raw) if n.endswith("/data.pkl"))
        sites = _length_sites(pkl)
        for i in range(FUZZ_PER_KIND):
            out.append((f"{base} archive edit {i}", _edit(rng, raw)))
            out.append((f"{base} pickle edit {i}", _with_pickle(raw, _edit(rng, pkl))))
        for _ in range(FUZZ_PER_KIND):
            at = rng.choice(sites)
            fmt = _LENGTH_FIELDS[pkl[at]]
            value = rng.choice(_HUGE[fmt])
            bad = bytearray(pkl)
            struct.pack_into(fmt, bad, at + 1, value)
            out.append(
                (f"{base} pickle length {pkl[at]:#x}@{at}={value}", _with_pickle(raw, bytes(bad)))
            )
        for _ in range(FUZZ_PER_KIND):
            sig, off, fmt = rng.choice(_ZIP_FIELDS)
            count = raw.count(sig)
            value = rng.choice(
                [0, 1, 0xFFFF, 0x7FFF] if fmt == "<H" else [0, 2**32 - 1, 2**31, 2**20]
            )
            index = rng.randrange(count)
            out.append(
                (
                    f"{base} zip {sig!r}#{index}+{off}={value}",
                    patched(raw, sig, index, off, fmt, value),
                )
            )
    return out


def _child_fuzz():
    """Loads every mutant (from memory; every third from a file, every sixth mapped): one JSON
    line with the outcomes, failures and time."""
    start = time.perf_counter()
    mutants = fuzz_mutants()
    outcomes = collections.Counter()
    failures = []
    slowest = (0.0, "")
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "mutant.pt")
        for i, (what, raw) in enumerate(mutants):
            t0 = time.perf_counter()
            try:
                if i % 3 == 0:
                    with open(path, "wb") as f:
                        f.write(raw)
                    genesis.load(path, mmap=i % 6 == 0)
                else:
                    genesis.load(io.BytesIO(raw))
                outcomes["loaded"] += 1
            except LOAD_ERRORS as e:
                outcomes[type(e).__name__] += 1
                if not str(e).startswith("[load] "):
                    failures.append([what, type(e).__name__, str(e)[:300]])
            except Exception as e:  # noqa: BLE001 - an error outside the documented set
                failures.append([what, type(e).__name__, str(e)[:300]])
            took = time.perf_counter() - t0
            if took > slowest[0]:
                slowest = (took, what)
    print(
        json.dumps(
            {
                "mutants": len(mutants),
                "outcomes": outcomes,
                "failures": failures,
                "seconds": time.perf_counter() - start,
                "slowest": slowest,
                "peak_rss_mib": _peak_rss_mib(),
            }
        )
    )


def test_fuzz_mutated_archives():
    got = run_child("fuzz", timeout=120)
    assert got["failures"] == [], got["failures"][:10]
    assert got["mutants"] >= 500, got["mutants"]
    # Some mutants load, most are refused (a check that the fuzz reaches the loader).
    assert got["outcomes"].get("loaded", 0) > 0 and got["outcomes"].get("UnpicklingError", 0) > 0
    assert got["slowest"][0] < 5, got["slowest"]
    assert got["peak_rss_mib"] < 1024, got["peak_rss_mib"]


# ---------------------------------------------------------------------------------------------
# 4. legitimate files stay within the budget
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("protocol", [2, 4])
def test_large_state_dict_round_trip(protocol):
    dtypes = [genesis.float32, genesis.int64, genesis.bfloat16, genesis.bool]
    state = {
        f"layer{i}.{'weight' if i % 2 else 'bias'}": genesis.zeros(i % 3 + 1, dtype=dtypes[i % 4])
        for i in range(10_000)
    }
    got = genesis.load(io.BytesIO(saved(state, protocol)))
    assert list(got) == list(state)
    for k in ["layer0.bias", "layer9999.weight", "layer4242.bias"]:
        assert got[k].dtype is state[k].dtype and got[k].shape == state[k].shape


@pytest.mark.parametrize("protocol", [2, 4, 5])
def test_large_plain_values_round_trip(protocol):
    obj = {
        "ints": list(range(100_000)),
        "set": set(range(20_000)),
        "frozenset": frozenset(range(5_000)),
        "bytes": bytes(range(256)) * 4096,  # 1 MiB
        "bytearray": bytearray(b"\xff" * 100_000),
        "latin1": "\u00ff" * 50_000,
        "optimizer state": {i: {"step": i, "exp_avg": genesis.zeros(2)} for i in range(2_000)},
        "tuples": [(i, (i, i + 1)) for i in range(10_000)],
        "od": collections.OrderedDict((str(i), i) for i in range(10_000)),
        "empty bytes": [b"" for _ in range(1000)],
    }
    got = genesis.load(io.BytesIO(saved(obj, protocol)))
    assert list(got) == list(obj)
    for k in ["ints", "set", "frozenset", "bytes", "bytearray", "latin1", "tuples", "od"]:
        assert got[k] == obj[k] and type(got[k]) is type(obj[k]), k
    assert list(got["optimizer state"]) == list(range(2_000))


def test_nesting_genesis_save_writes_loads():
    deep = []
    for _ in range(400):
        deep = [deep, {"t": (genesis.ones(1),)}]
    got = genesis.load(io.BytesIO(saved(deep)))
    for _ in range(400):
        got = got[0]
    assert got == []
