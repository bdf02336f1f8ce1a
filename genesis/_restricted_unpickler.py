"""The unpickler of ``genesis.load(weights_only=True)``: what a file may build, and how much.

``RestrictedUnpickler`` reads a ``data.pkl`` held in memory. It builds only tensors (through
``genesis.serialization._rebuild_tensor``, the names of PyTorch's checkpoints that the caller's
``find_global`` maps to genesis's builders (genesis/_torch_checkpoint.py) and the caller's
``persistent_load``), genesis dtypes and devices, and plain Python containers and values (Note
[weights_only's BUILD]); it spends at most a budget proportional to the pickle's size (Note
[Load budget]); and whatever is wrong with the pickle (a truncated or damaged file, an unknown
opcode, a hostile one) raises ``pickle.UnpicklingError`` with a message that starts with
``[load]`` and says what and where.
"""

from __future__ import annotations

import _compat_pickle
import importlib
import io
import pickle
import reprlib
import struct
import sys
from collections import Counter, OrderedDict
from typing import Any, Callable

from genesis._C import Tensor

# Note [weights_only's BUILD]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~
# The restricted unpickler is the pure-Python one (pickle._Unpickler), whose opcode table can be
# changed. find_class allows the globals of _SAFE_GLOBALS only, and the table's entries that
# could still reach past them are replaced:
# - BUILD (set an object's state) is allowed only on tensors (their Python attributes) and, for
#   the `_metadata` attribute of an nn.Module state_dict (genesis's and PyTorch's), on an
#   OrderedDict: on anything else it could patch an allowed class (setattr on genesis._C.device).
# - NEWOBJ, NEWOBJ_EX make cls.__new__(cls, ...) without __init__: for a class bound in C++
#   (genesis._C.device) that is an object whose C++ value was never built. Only Python's own
#   value types (_NEWOBJ_TYPES) may be made so; INST and OBJ, which do the same when given no
#   arguments, call the class instead.
# - REDUCE, INST and OBJ call only the callables find_class returned, each after its argument
#   check (Note [Load budget]).
# - APPEND(S), SETITEM(S) and ADDITEMS add to lists, dicts and sets only: on another object
#   they would call its methods (a tensor's __setitem__ runs an indexing op).
# - EXT1/2/4 (the copyreg registry), NEXT_BUFFER and READONLY_BUFFER (out-of-band buffers) are
#   refused: genesis.save writes none of them.

_DTYPE_NAMES = (
    "bool",
    "uint8",
    "int8",
    "int16",
    "int32",
    "int64",
    "float16",
    "bfloat16",
    "float32",
    "float64",
)
_SAFE_GLOBALS = {
    ("genesis.serialization", "_rebuild_tensor"),
    ("genesis.nn.parameter", "_rebuild_parameter"),
    ("genesis._C", "device"),
    *(("genesis._C", name) for name in _DTYPE_NAMES),
    ("collections", "OrderedDict"),
    ("collections", "Counter"),  # (PyTorch's weights_only allows it too)
    ("builtins", "set"),
    ("builtins", "frozenset"),
    ("builtins", "complex"),
    ("builtins", "slice"),
    ("builtins", "range"),  # genesis.save writes a range a user saves; it is lazy
    ("builtins", "bytearray"),
    ("builtins", "bytes"),
}
_NEWOBJ_TYPES = (complex, set, frozenset, bytes, bytearray)

# Note [Load budget]
# ~~~~~~~~~~~~~~~~~~
# A pickle is a program: a 270-byte archive once made load() allocate 4.5 GB over 10 s
# (set(range(2**28)), or any call that iterates a huge range). Everything the restricted
# unpickler makes is bounded by n, the size of data.pkl in bytes:
# - Opcodes: each reads at least one byte, so at most n run, each pushing at most one object
#   (the stack and the memo hold at most n); the items that TUPLE, LIST, DICT, FROZENSET,
#   APPEND(S), SETITEM(S) and ADDITEMS move into containers are charged to the items budget too.
# - Lengths: every length read from the pickle (BINBYTES8, BINUNICODE8, BYTEARRAY8, LONG4,
#   FRAME, ...) is checked against the bytes that remain before anything is allocated or read;
#   so the strings, bytes and ints that opcodes read hold at most n bytes in all.
# - Calls (REDUCE, NEWOBJ, INST, OBJ) run the allowed callables only, each after a check of its
#   arguments' types that charges what the call makes or iterates: set/frozenset/OrderedDict of
#   a list, tuple, set, dict, range, str or bytes charge its length in items; bytes/bytearray
#   charge the bytes they make (bytes(k) k bytes, bytes(list) its length, bytes(str, enc) up
#   to 4 per character with encoding latin1, ascii or utf-8 only); complex(str) and
#   _codecs.encode charge their string's length in bytes; range must be given ints (it is lazy:
#   its length is charged where something iterates it); a device name is at most 64 characters
#   and a tensor at most 64 dimensions (the C++ limit). A call's arguments must be a tuple
#   (never `*range(2**40)`).
# - The budgets: ITEMS_PER_BYTE * n + ITEMS_SLACK items (2n + 4096) and BYTES_PER_BYTE * n +
#   BYTES_SLACK bytes (2n + 64 KiB) made by calls; no single bytes object made by a call may be
#   longer than n. A file genesis.save wrote spends at most about n items (each item is at least
#   one opcode) plus the copies set()/frozenset() make of their list (at most n more), and calls
#   make bytes from strings read from the pickle (bytearray(_codecs.encode(s)) at most 2 per
#   byte of s), so its load never meets the budget.
# - Nesting: hashing a tuple (or frozenset, slice) recurses in C without a depth check, so a dict
#   key nested 10**6 tuples deep would overflow the C stack: a tuple, frozenset or slice may
#   nest at most MAX_DEPTH (1000) deep when it is made, and the loaded object, walked at the end
#   without recursion, may not nest containers (lists, dicts, sets, tensors' attributes) deeper
#   than MAX_DEPTH either. Python's pickler, recursive, cannot write deeper ones at the default
#   recursion limit (1000).
# - Hash flooding: ints, floats and tuples of them hash without a random seed, so a file could
#   give every key of a dict (or set) one hash and make each insertion walk all the others
#   (20 000 such keys take seconds, 10**5 a minute). At most MAX_EQUAL_HASHES (32) distinct keys
#   of one container may share a hash (strings' hashes are seeded, and ints smaller than the
#   hash modulus, 2**61 - 1, hash to themselves: neither is counted).
# PyTorch's weights_only unpickler allows set, bytearray, complex and _codecs.encode (without
# checking their arguments) but not range, bytes, frozenset or slice; genesis keeps those too,
# since genesis.save writes whatever ranges, sets and bytes a user saves, with these checks.
ITEMS_PER_BYTE = 2
ITEMS_SLACK = 4096
BYTES_PER_BYTE = 2
BYTES_SLACK = 64 << 10
MAX_DEPTH = 1000
MAX_EQUAL_HASHES = 32
_MAX_DIMS = 64
_MAX_DEVICE_NAME = 64
_MAX_INT_DIGITS = 4300  # Python's default int<->str limit: the pickler cannot write longer ones

_OPCODE_NAMES = {
    value[0]: name
    for name, value in vars(pickle).items()
    if name.isupper() and isinstance(value, bytes) and len(value) == 1
}
_SIZED = (list, tuple, set, frozenset, dict, OrderedDict, Counter, range, str, bytes, bytearray)
_PLAIN_HASH = frozenset({int, float, complex, tuple, frozenset, range, slice, bool})  # unseeded
_LEAVES = frozenset({int, float, complex, bool, str, bytes, bytearray, range, type(None)})
_HASH_MODULUS = sys.hash_info.modulus  # an int's hash is the int modulo this
_ENCODINGS = {"latin1": 1, "latin-1": 1, "iso-8859-1": 1, "ascii": 1, "utf-8": 4, "utf8": 4}


class _ShortRepr(reprlib.Repr):
    """Short reprs for messages, that run no code of the file's objects (a tensor's repr reads
    its values) and convert no huge int to decimal."""

    def __init__(self) -> None:
        super().__init__()
        self.maxstring = self.maxother = 60
        self.maxlevel = 3

    def repr_int(self, x: int, level: int) -> str:
        if x.bit_length() > 64:
            return f"<int of {x.bit_length()} bits>"
        return repr(x)

    def repr_instance(self, x: Any, level: int) -> str:
        t = type(x)
        if t is bool or t is float or t is complex or x is None:
            return repr(x)
        if t is bytes or t is bytearray:
            more = "..." if len(x) > self.maxstring else ""
            return repr(x[: self.maxstring]) + more
        return f"<{t.__name__}>"


_short = _ShortRepr()


def describe(obj: Any) -> str:
    """A short repr of an object a file made, for error messages."""
    return _short.repr(obj)


def _length(value: Any) -> int:
    """len(), or more than any budget for a range too long for len()."""
    try:
        return len(value)
    except OverflowError:
        return sys.maxsize


def _latin1_bytes(text: Any, encoding: Any = "latin1") -> bytes:
    """``_codecs.encode`` as protocols 0-2 pickle bytes (``encode(str, "latin1")``): the only
    use weights_only allows."""
    if type(text) is not str or type(encoding) is not str or encoding not in ("latin1", "latin-1"):
        raise pickle.UnpicklingError("[load] _codecs.encode is allowed for latin1 bytes only")
    return text.encode("latin1")


class _Stop(Exception):
    def __init__(self, value: Any) -> None:
        self.value = value


class RestrictedUnpickler(pickle._Unpickler):  # type: ignore[name-defined,misc]
    """Reads ``payload`` (a data.pkl) under weights_only: Note [weights_only's BUILD], Note
    [Load budget].

    Args:
        payload: The pickle's bytes.
        persistent_load: Builds the object of a persistent id (a storage); what it raises goes
            to the caller unchanged.
        find_global: Asked first for each global the pickle names, as ``(module, name)``: the
            object and the check of its call's arguments (None: it may not be called), or None
            for a name it does not know (then only genesis's own allowed names load). What it
            raises refuses the name. Default: None.
    """

    dispatch: dict[int, Any] = dict(pickle._Unpickler.dispatch)  # type: ignore[attr-defined,misc]

    def __init__(
        self,
        payload: bytes,
        persistent_load: Callable[[Any], Any],
        find_global: Callable[[str, str], tuple[Any, Any] | None] | None = None,
    ) -> None:
        super().__init__(io.BytesIO())  # (load() reads the payload instead)
        self._find_global = find_global
        self.memo: dict[int, Any] = {}
        self._data = bytes(payload)
        self._size = len(self._data)
        self._pos = 0
        self._at = 0  # where the running opcode is
        self._persistent_load = persistent_load
        self._passed: BaseException | None = None  # raised by code the file does not control
        self._items_left = self._items_budget = ITEMS_PER_BYTE * self._size + ITEMS_SLACK
        self._bytes_left = self._bytes_budget = BYTES_PER_BYTE * self._size + BYTES_SLACK
        self._callables: dict[int, tuple[Any, str, Callable[..., None]]] = {}
        self._depths: dict[int, tuple[int, Any]] = {}  # nested tuples etc.: id -> (depth, obj)
        self._hash_keys: dict[int, dict[int, list[Any]]] = {}  # container id -> hash -> keys

    # -- reading ----------------------------------------------------------------------------

    def read(self, n: int) -> bytes:
        pos = self._pos
        left = self._size - pos
        if n < 0 or n > left:
            what = "a negative length" if n < 0 else f"{n} bytes, but only {left} remain"
            raise self._malformed(f"it asks for {what} (a truncated or damaged file)")
        self._pos = pos + n
        return self._data[pos : pos + n]

    def readline(self) -> bytes:
        end = self._data.find(b"\n", self._pos)
        if end < 0:
            raise self._malformed("its text argument has no end of line (a truncated file)")
        line = self._data[self._pos : end + 1]
        self._pos = end + 1
        return line

    def readinto(self, buf: Any) -> int:
        buf[:] = self.read(len(buf))
        return len(buf)

    def _malformed(self, what: str) -> pickle.UnpicklingError:
        code = self._data[self._at] if self._at < self._size else None
        name = _OPCODE_NAMES.get(code, f"opcode 0x{code:02x}") if code is not None else "end"
        return pickle.UnpicklingError(
            f"[load] malformed archive: data.pkl's {name} at byte {self._at}: {what}"
        )

    # -- the loop ---------------------------------------------------------------------------

    def load(self) -> Any:
        self.metastack: list[list[Any]] = []
        self.stack: list[Any] = []
        self.append = self.stack.append
        self.proto = 0
        table = [self.dispatch.get(code, RestrictedUnpickler._load_unknown) for code in range(256)]
        data, size = self._data, self._size
        try:
            while True:
                at = self._pos
                if at >= size:
                    self._at = at
                    raise pickle.UnpicklingError(
                        f"[load] malformed archive: data.pkl ends at byte {size} before its "
                        "STOP opcode (a truncated file?)"
                    )
                self._at = at
                self._pos = at + 1
                table[data[at]](self)
        except _Stop as stop:
            value = stop.value
        except Exception as e:
            if e is self._passed:
                raise
            if str(e).startswith("[load]"):  # explained already (a refusal, an argument check)
                raise
            if isinstance(e, IndexError):
                what = "it needs more items than the stack holds (above the last MARK)"
            elif isinstance(e, pickle.UnpicklingError):
                what = str(e) or "UnpicklingError"
            else:
                what = f"{type(e).__name__}: {e}" if str(e) else type(e).__name__
            raise self._malformed(what) from None
        finally:
            self._passed = None
        self._check_nesting(value)
        return value

    def _load_unknown(self) -> None:
        raise self._malformed("no such opcode (a damaged file, or not a pickle)")

    def pop_mark(self) -> list[Any]:
        if not self.metastack:
            raise self._malformed("no MARK opened the items it takes")
        items = self.stack
        self.stack = self.metastack.pop()
        self.append = self.stack.append
        return items

    def load_stop(self) -> None:
        if self.metastack:
            raise self._malformed("a MARK is still open")
        if len(self.stack) != 1:
            raise self._malformed(f"the stack holds {len(self.stack)} items, not 1")
        raise _Stop(self.stack.pop())

    dispatch[pickle.STOP[0]] = load_stop

    def persistent_load(self, pid: Any) -> Any:
        try:
            return self._persistent_load(pid)
        except BaseException as e:
            self._passed = e
            raise

    # -- budget -----------------------------------------------------------------------------

    def _spend_items(self, n: int, what: str) -> None:
        self._items_left -= n
        if self._items_left < 0:
            raise pickle.UnpicklingError(
                f"[load] refused: {what} takes the pickle past its budget of "
                f"{self._items_budget} container items (data.pkl has {self._size} bytes; "
                "Note [Load budget])"
            )

    def _spend_bytes(self, n: int, what: str) -> None:
        if n > self._size:
            raise pickle.UnpicklingError(
                f"[load] refused: {what} makes {n} bytes, more than data.pkl's {self._size} "
                "(Note [Load budget])"
            )
        self._bytes_left -= n
        if self._bytes_left < 0:
            raise pickle.UnpicklingError(
                f"[load] refused: {what} takes the pickle past its budget of "
                f"{self._bytes_budget} bytes made by calls (data.pkl has {self._size} bytes; "
                "Note [Load budget])"
            )

    def _check_hashes(self, owner: Any, keys: Any) -> None:
        """At most MAX_EQUAL_HASHES distinct keys of one container (owner; None: a new one)
        share a hash (Note [Load budget]); a key given again is the same key."""
        seen: dict[int, list[Any]] | None = None
        for key in keys:
            t = type(key)
            if t in _PLAIN_HASH and not (t is int and -_HASH_MODULUS < key < _HASH_MODULUS):
                # (ints of the same hash differ by a multiple of the modulus: small ones cannot
                # collide, but for -1 and -2)
                if seen is None:
                    seen = {} if owner is None else self._hash_keys.setdefault(id(owner), {})
                h = hash(key)
                same = seen.setdefault(h, [])
                if any(k is key or k == key for k in same):
                    continue
                if len(same) >= MAX_EQUAL_HASHES:
                    raise pickle.UnpicklingError(
                        f"[load] refused: more than {MAX_EQUAL_HASHES} keys of one dict or set "
                        f"share the hash {h} (hash flooding; Note [Load budget])"
                    )
                same.append(key)

    def _made(self, obj: Any, items: Any) -> Any:
        """Records how deep a new tuple, frozenset or slice nests (Note [Load budget])."""
        depth = 1
        depths = self._depths
        for item in items:
            t = type(item)
            if t is tuple or t is frozenset or t is slice:
                known = depths.get(id(item))
                d = known[0] + 1 if known is not None else 2
                if d > depth:
                    depth = d
        if depth > 1:
            if depth > MAX_DEPTH:
                raise pickle.UnpicklingError(
                    f"[load] refused: tuples, frozensets or slices nested more than {MAX_DEPTH} "
                    "deep (Note [Load budget])"
                )
            depths[id(obj)] = (depth, obj)  # (keeps obj alive: its id stays its own)
        return obj

    def _check_nesting(self, root: Any) -> None:
        """The loaded object nests containers at most MAX_DEPTH deep, walked without recursion:
        the height of each container once (a shared one is not walked again), cycles cut."""

        def children(obj: Any) -> Any:
            t = type(obj)
            if t is list or t is tuple or t is set or t is frozenset:
                return iter(obj)
            if t is dict or t is OrderedDict or t is Counter:
                return (v for kv in obj.items() for v in kv)
            if t is slice:
                return iter((obj.start, obj.stop, obj.step))
            if isinstance(obj, Tensor):
                attrs = getattr(obj, "__dict__", None)
                return iter(list(attrs.values())) if attrs else None
            return None

        first = children(root)
        if first is None:
            return
        heights: dict[int, int] = {}
        on_path = {id(root)}
        frames: list[list[Any]] = [[root, first, 0]]
        while frames:
            frame = frames[-1]
            for child in frame[1]:
                if type(child) in _LEAVES:
                    continue
                cid = id(child)
                h = heights.get(cid)
                if h is not None:
                    if h > frame[2]:
                        frame[2] = h
                    continue
                if cid in on_path:
                    continue
                grand = children(child)
                if grand is None:
                    continue
                if len(frames) >= MAX_DEPTH:
                    raise self._too_deep()
                on_path.add(cid)
                frames.append([child, grand, 0])
                break
            else:
                frames.pop()
                h = frame[2] + 1
                if h > MAX_DEPTH:
                    raise self._too_deep()
                on_path.discard(id(frame[0]))
                heights[id(frame[0])] = h
                if frames and h > frames[-1][2]:
                    frames[-1][2] = h

    @staticmethod
    def _too_deep() -> pickle.UnpicklingError:
        return pickle.UnpicklingError(
            f"[load] refused: the object nests containers more than {MAX_DEPTH} deep "
            "(Note [Load budget])"
        )

    # -- globals and calls ------------------------------------------------------------------

    def find_class(self, module: str, name: str) -> Any:
        # Protocols 0-2 write Python 2 names (__builtin__.set, ...): check, and look up, the
        # Python 3 name.
        module, name = _compat_pickle.NAME_MAPPING.get((module, name), (module, name))
        module = _compat_pickle.IMPORT_MAPPING.get(module, module)
        sys.audit("pickle.find_class", module, name)
        obj: Any
        found = self._find_global(module, name) if self._find_global is not None else None
        if found is not None:  # (a name of PyTorch's checkpoints, genesis/_torch_checkpoint.py)
            obj, check = found
            if check is not None:
                self._callables[id(obj)] = (obj, f"{module}.{name}", check)
            return obj
        if (module, name) == ("_codecs", "encode"):
            obj = _latin1_bytes
        elif (module, name) in _SAFE_GLOBALS:
            obj = getattr(importlib.import_module(module), name)
        else:
            raise pickle.UnpicklingError(
                f"[load] weights_only=True refuses to load {_short.repr(module)[1:-1]}."
                f"{_short.repr(name)[1:-1]}: only tensors, genesis dtypes and devices and plain "
                "Python values are allowed (pass weights_only=False for files you trust)"
            )
        check = _ARGUMENT_CHECKS.get((module, name))
        if check is not None:
            self._callables[id(obj)] = (obj, f"{module}.{name}", check)
        return obj

    def _call(self, func: Any, args: Any, how: str = "call") -> Any:
        """func(*args) for a callable find_class returned, after its argument check."""
        entry = self._callables.get(id(func))
        if entry is None or entry[0] is not func:
            raise pickle.UnpicklingError(
                f"[load] weights_only=True refuses to {how} a {type(func).__name__} object: "
                "only the allowed globals' callables run"
            )
        if type(args) is not tuple:
            raise self._malformed(f"the arguments are a {type(args).__name__}, not a tuple")
        _, name, check = entry
        check(self, name, args)
        try:
            if how == "make":
                result = func.__new__(func, *args)
            else:
                result = func(*args)
        except (TypeError, ValueError, OverflowError, RuntimeError) as e:
            message = str(e)
            if not message.startswith("[load]"):
                kind = next(
                    k
                    for k in (OverflowError, TypeError, ValueError, RuntimeError)
                    if isinstance(e, k)
                )
                e = kind(f"[load] {name}{describe(args)} failed: {message or type(e).__name__}")
            self._passed = e
            raise e from None
        if type(result) is frozenset or type(result) is slice:
            self._made(result, result if type(result) is frozenset else args)
        return result

    def load_reduce(self) -> None:
        args = self.stack.pop()
        self.stack[-1] = self._call(self.stack[-1], args)

    dispatch[pickle.REDUCE[0]] = load_reduce

    def load_inst(self) -> None:
        module = self.readline()[:-1].decode("ascii")
        name = self.readline()[:-1].decode("ascii")
        cls = self.find_class(module, name)
        self.append(self._call(cls, tuple(self.pop_mark())))

    dispatch[pickle.INST[0]] = load_inst

    def load_obj(self) -> None:
        args = self.pop_mark()
        if not args:
            raise self._malformed("no class after its MARK")
        cls = args.pop(0)
        self.append(self._call(cls, tuple(args)))

    dispatch[pickle.OBJ[0]] = load_obj

    def _newobj(self, cls: Any, args: Any, kwargs: Any) -> None:
        if not any(cls is t for t in _NEWOBJ_TYPES) or type(kwargs) is not dict or kwargs:
            what = cls.__qualname__ if isinstance(cls, type) else type(cls).__name__
            if type(kwargs) is not dict or kwargs:
                what += " with keyword arguments"
            raise pickle.UnpicklingError(
                f"[load] weights_only=True refuses to make a {_short.repr(what)[1:-1]} object"
            )
        self.append(self._call(cls, args, how="make"))

    def load_newobj(self) -> None:
        args = self.stack.pop()
        cls = self.stack.pop()
        self._newobj(cls, args, {})

    dispatch[pickle.NEWOBJ[0]] = load_newobj

    def load_newobj_ex(self) -> None:
        kwargs = self.stack.pop()
        args = self.stack.pop()
        cls = self.stack.pop()
        self._newobj(cls, args, kwargs)

    dispatch[pickle.NEWOBJ_EX[0]] = load_newobj_ex

    def load_build(self) -> None:
        state = self.stack.pop()
        inst = self.stack[-1]
        is_dict = type(state) is dict
        tensor_attributes = (
            is_dict and isinstance(inst, Tensor) and all(type(k) is str for k in state)
        )
        # A state_dict's OrderedDict carries its modules' versions as `_metadata` (plain data).
        state_dict_metadata = is_dict and type(inst) is OrderedDict and set(state) == {"_metadata"}
        if not (tensor_attributes or state_dict_metadata):
            raise pickle.UnpicklingError(
                "[load] weights_only=True refuses to set the state of a "
                f"{type(inst).__name__} (only tensors' attributes may be set)"
            )
        inst.__dict__.update(state)

    dispatch[pickle.BUILD[0]] = load_build

    def _refuse_opcode(self) -> None:
        raise pickle.UnpicklingError(
            f"[load] weights_only=True refuses data.pkl's {_OPCODE_NAMES[self._data[self._at]]} "
            f"at byte {self._at}: genesis.save writes no extension codes or out-of-band buffers"
        )

    for _code in (
        pickle.EXT1,
        pickle.EXT2,
        pickle.EXT4,
        pickle.NEXT_BUFFER,
        pickle.READONLY_BUFFER,
    ):
        dispatch[_code[0]] = _refuse_opcode
    del _code

    # -- containers -------------------------------------------------------------------------

    def _target(self, kinds: tuple[type, ...], what: str) -> Any:
        target = self.stack[-1]
        if type(target) not in kinds:
            raise self._malformed(f"it adds to a {type(target).__name__}, not a {what}")
        return target

    def load_tuple(self) -> None:
        items = self.pop_mark()
        self._spend_items(len(items), "a tuple")
        self.append(self._made(tuple(items), items))

    dispatch[pickle.TUPLE[0]] = load_tuple

    def load_tuple1(self) -> None:
        self._spend_items(1, "a tuple")
        self.stack[-1] = self._made((self.stack[-1],), self.stack[-1:])

    dispatch[pickle.TUPLE1[0]] = load_tuple1

    def load_tuple2(self) -> None:
        self._spend_items(2, "a tuple")
        t = (self.stack[-2], self.stack[-1])
        self.stack[-2:] = [self._made(t, t)]

    dispatch[pickle.TUPLE2[0]] = load_tuple2

    def load_tuple3(self) -> None:
        self._spend_items(3, "a tuple")
        t = (self.stack[-3], self.stack[-2], self.stack[-1])
        self.stack[-3:] = [self._made(t, t)]

    dispatch[pickle.TUPLE3[0]] = load_tuple3

    def load_list(self) -> None:
        items = self.pop_mark()
        self._spend_items(len(items), "a list")
        self.append(items)

    dispatch[pickle.LIST[0]] = load_list

    def load_dict(self) -> None:
        items = self.pop_mark()
        if len(items) % 2:
            raise self._malformed("an odd number of items (keys and values)")
        self._spend_items(len(items), "a dict")
        d: dict[Any, Any] = {}
        self._check_hashes(d, items[::2])
        for i in range(0, len(items), 2):
            d[items[i]] = items[i + 1]
        self.append(d)

    dispatch[pickle.DICT[0]] = load_dict

    def load_frozenset(self) -> None:
        items = self.pop_mark()
        self._spend_items(len(items), "a frozenset")
        self._check_hashes(None, items)
        s = frozenset(items)
        self.append(self._made(s, s))

    dispatch[pickle.FROZENSET[0]] = load_frozenset

    def load_append(self) -> None:
        value = self.stack.pop()
        self._spend_items(1, "a list")
        self._target((list,), "list").append(value)

    dispatch[pickle.APPEND[0]] = load_append

    def load_appends(self) -> None:
        items = self.pop_mark()
        self._spend_items(len(items), "a list")
        self._target((list,), "list").extend(items)

    dispatch[pickle.APPENDS[0]] = load_appends

    def load_setitem(self) -> None:
        value = self.stack.pop()
        key = self.stack.pop()
        self._spend_items(2, "a dict")
        target = self._target((dict, OrderedDict, Counter), "dict")
        self._check_hashes(target, (key,))
        target[key] = value

    dispatch[pickle.SETITEM[0]] = load_setitem

    def load_setitems(self) -> None:
        items = self.pop_mark()
        if len(items) % 2:
            raise self._malformed("an odd number of items (keys and values)")
        self._spend_items(len(items), "a dict")
        target = self._target((dict, OrderedDict, Counter), "dict")
        self._check_hashes(target, items[::2])
        for i in range(0, len(items), 2):
            target[items[i]] = items[i + 1]

    dispatch[pickle.SETITEMS[0]] = load_setitems

    def load_additems(self) -> None:
        items = self.pop_mark()
        self._spend_items(len(items), "a set")
        target = self._target((set,), "set")
        self._check_hashes(target, items)
        target.update(items)

    dispatch[pickle.ADDITEMS[0]] = load_additems

    # -- lengths and numbers ----------------------------------------------------------------

    def load_frame(self) -> None:
        # The whole pickle is in memory: a frame only has to fit in what remains.
        (n,) = struct.unpack("<Q", self.read(8))
        if n > self._size - self._pos:
            raise self._malformed(f"a frame of {n} bytes, but only {self._size - self._pos} remain")

    dispatch[pickle.FRAME[0]] = load_frame

    def _read8(self, what: str) -> bytes:
        (n,) = struct.unpack("<Q", self.read(8))
        left = self._size - self._pos
        if n > left:  # (before anything is allocated: n may be 2**64 - 1)
            raise self._malformed(
                f"{what} of {n} bytes, but only {left} remain (a truncated or damaged file)"
            )
        return self.read(n)

    def load_binbytes8(self) -> None:
        self.append(self._read8("a bytes object"))

    dispatch[pickle.BINBYTES8[0]] = load_binbytes8

    def load_binunicode8(self) -> None:
        self.append(str(self._read8("a string"), "utf-8", "surrogatepass"))

    dispatch[pickle.BINUNICODE8[0]] = load_binunicode8

    def load_bytearray8(self) -> None:
        self.append(bytearray(self._read8("a bytearray")))

    dispatch[pickle.BYTEARRAY8[0]] = load_bytearray8

    def _text_int(self, line: bytes, base: int = 0) -> int:
        if len(line) > _MAX_INT_DIGITS + 3:
            raise self._malformed(f"an integer of {len(line)} characters")
        return int(line, base)

    def load_int(self) -> None:
        data = self.readline()
        if data == pickle.FALSE[1:]:
            self.append(False)
        elif data == pickle.TRUE[1:]:
            self.append(True)
        else:
            self.append(self._text_int(data))

    dispatch[pickle.INT[0]] = load_int

    def load_long(self) -> None:
        val = self.readline()[:-1]
        if val[-1:] == b"L":
            val = val[:-1]
        self.append(self._text_int(val))

    dispatch[pickle.LONG[0]] = load_long

    def load_get(self) -> None:
        i = self._text_int(self.readline()[:-1], 10)
        if i not in self.memo:
            raise self._malformed(f"no memo entry {i}")
        self.append(self.memo[i])

    dispatch[pickle.GET[0]] = load_get

    def load_put(self) -> None:
        i = self._text_int(self.readline()[:-1], 10)
        if i < 0:
            raise self._malformed(f"a negative memo index {i}")
        self.memo[i] = self.stack[-1]

    dispatch[pickle.PUT[0]] = load_put

    def load_binget(self) -> None:
        self._get(self.read(1)[0])

    dispatch[pickle.BINGET[0]] = load_binget

    def load_long_binget(self) -> None:
        self._get(struct.unpack("<I", self.read(4))[0])

    dispatch[pickle.LONG_BINGET[0]] = load_long_binget

    def _get(self, i: int) -> None:
        try:
            self.append(self.memo[i])
        except KeyError:
            raise self._malformed(f"no memo entry {i}") from None

    def load_persid(self) -> None:
        try:
            pid = self.readline()[:-1].decode("ascii")
        except UnicodeDecodeError:
            raise self._malformed("a protocol 0 persistent id must be ASCII") from None
        self.append(self.persistent_load(pid))

    dispatch[pickle.PERSID[0]] = load_persid


# -- the argument checks of the allowed callables (Note [Load budget]) -------------------------


def _no_more_than(unpickler: RestrictedUnpickler, name: str, args: tuple, most: int) -> None:
    if len(args) > most:
        raise pickle.UnpicklingError(
            f"[load] malformed archive: {name} takes at most {most} arguments, got {len(args)}"
        )


def _iterated(unpickler: RestrictedUnpickler, name: str, value: Any) -> int:
    """An argument that the call iterates: a sized container whose length is charged."""
    if type(value) not in _SIZED:
        raise pickle.UnpicklingError(
            f"[load] weights_only=True refuses {name}() of a {type(value).__name__} (a list, "
            "tuple, set, dict, range, str or bytes expected)"
        )
    n = _length(value)
    count = f"more than {n}" if n == sys.maxsize else str(n)
    unpickler._spend_items(n, f"{name}() of {count} items")
    return n


def _check_set(unpickler: RestrictedUnpickler, name: str, args: tuple) -> None:
    _no_more_than(unpickler, name, args, 1)
    if args:
        _iterated(unpickler, name, args[0])
        unpickler._check_hashes(None, args[0])


def _check_ordered_dict(unpickler: RestrictedUnpickler, name: str, args: tuple) -> None:
    _no_more_than(unpickler, name, args, 1)
    if not args:
        return
    (arg,) = args
    if type(arg) in (dict, OrderedDict):
        _iterated(unpickler, name, arg)
        unpickler._check_hashes(None, arg)
        return
    if type(arg) not in (list, tuple):
        raise pickle.UnpicklingError(
            f"[load] weights_only=True refuses {name}() of a {type(arg).__name__} (a dict or a "
            "list of pairs expected)"
        )
    _iterated(unpickler, name, arg)
    if not all(type(pair) is tuple and len(pair) == 2 for pair in arg):
        raise pickle.UnpicklingError(f"[load] malformed archive: {name}() of items not pairs")
    unpickler._check_hashes(None, (pair[0] for pair in arg))


def _check_counter(unpickler: RestrictedUnpickler, name: str, args: tuple) -> None:
    # Counter(dict) (as a Counter pickles): Counter(list) would count the list's items instead.
    _no_more_than(unpickler, name, args, 1)
    if args and type(args[0]) is not dict:
        raise pickle.UnpicklingError(
            f"[load] weights_only=True refuses {name}() of a {type(args[0]).__name__} (a dict "
            "expected)"
        )
    if args:
        _iterated(unpickler, name, args[0])
        unpickler._check_hashes(None, args[0])


def _check_bytes(unpickler: RestrictedUnpickler, name: str, args: tuple) -> None:
    _no_more_than(unpickler, name, args, 3)
    if not args:
        return
    source = args[0]
    if len(args) > 1:  # bytes(str, encoding[, errors])
        if type(source) is not str or any(type(a) is not str for a in args[1:]):
            raise pickle.UnpicklingError(
                f"[load] malformed archive: {name}() with an encoding takes strings"
            )
        per_char = _ENCODINGS.get(args[1].lower())
        if per_char is None or args[2:] not in ((), ("strict",)):
            raise pickle.UnpicklingError(
                f"[load] weights_only=True refuses {name}() with encoding "
                f"{_short.repr(args[1:])}: latin1, ascii or utf-8 (strict) only"
            )
        unpickler._spend_bytes(per_char * len(source), f"{name}() of a string")
    elif type(source) is int or type(source) is bool:
        unpickler._spend_bytes(max(int(source), 0), f"{name}({int(source)})")
    elif type(source) in (bytes, bytearray):
        unpickler._spend_bytes(len(source), f"{name}() of {len(source)} bytes")
    elif type(source) in (list, tuple, range):
        n = _iterated(unpickler, name, source)
        unpickler._spend_bytes(n, f"{name}() of {n} items")
    else:
        raise pickle.UnpicklingError(
            f"[load] weights_only=True refuses {name}() of a {type(source).__name__} (an int, "
            "bytes, a list of ints or a string and its encoding expected)"
        )


def _check_complex(unpickler: RestrictedUnpickler, name: str, args: tuple) -> None:
    _no_more_than(unpickler, name, args, 2)
    for a in args:
        if type(a) is str:
            unpickler._spend_bytes(len(a), f"{name}() of a string")
        elif type(a) not in (int, float, complex, bool):
            raise pickle.UnpicklingError(
                f"[load] weights_only=True refuses {name}() of a {type(a).__name__}"
            )


def _check_slice(unpickler: RestrictedUnpickler, name: str, args: tuple) -> None:
    _no_more_than(unpickler, name, args, 3)


def _check_range(unpickler: RestrictedUnpickler, name: str, args: tuple) -> None:
    _no_more_than(unpickler, name, args, 3)
    if any(type(a) is not int and type(a) is not bool for a in args):
        raise pickle.UnpicklingError(f"[load] malformed archive: {name}() takes ints")


def _check_device(unpickler: RestrictedUnpickler, name: str, args: tuple) -> None:
    _no_more_than(unpickler, name, args, 2)
    for a in args:
        if type(a) is str and len(a) > _MAX_DEVICE_NAME:
            raise pickle.UnpicklingError(
                f"[load] malformed archive: a device name of {len(a)} characters"
            )
        if type(a) not in (str, int):
            raise pickle.UnpicklingError(
                f"[load] malformed archive: {name}() of a {type(a).__name__}"
            )


def _check_rebuild_tensor(unpickler: RestrictedUnpickler, name: str, args: tuple) -> None:
    # _rebuild_tensor(storage, offset, size, stride, dtype, requires_grad) copies size and
    # stride into lists: they must be short sequences (not range(2**40)). Other mistakes are
    # _tensor_on_storage's to report.
    for what, value in zip(("size", "stride"), args[2:4]):
        if type(value) not in (tuple, list):
            raise TypeError(
                f"[load] a tensor's {what} must be a tuple of ints, not a {type(value).__name__}"
            )
        if len(value) > _MAX_DIMS:
            raise ValueError(
                f"[load] a tensor has at most {_MAX_DIMS} dimensions, got {len(value)}"
            )


def _check_rebuild_parameter(unpickler: RestrictedUnpickler, name: str, args: tuple) -> None:
    # _rebuild_parameter(data, requires_grad): a Parameter aliasing a tensor already loaded.
    if len(args) != 2 or not isinstance(args[0], Tensor) or type(args[1]) is not bool:
        raise pickle.UnpicklingError(
            f"[load] malformed archive: {name}() takes a tensor and a bool"
        )


def _check_latin1(unpickler: RestrictedUnpickler, name: str, args: tuple) -> None:
    _no_more_than(unpickler, name, args, 2)
    if args and type(args[0]) is str:
        unpickler._spend_bytes(len(args[0]), f"{name}() of a string")


_ARGUMENT_CHECKS: dict[tuple[str, str], Callable[[RestrictedUnpickler, str, tuple], None]] = {
    ("genesis.serialization", "_rebuild_tensor"): _check_rebuild_tensor,
    ("genesis.nn.parameter", "_rebuild_parameter"): _check_rebuild_parameter,
    ("genesis._C", "device"): _check_device,
    ("collections", "OrderedDict"): _check_ordered_dict,
    ("collections", "Counter"): _check_counter,
    ("builtins", "set"): _check_set,
    ("builtins", "frozenset"): _check_set,
    ("builtins", "complex"): _check_complex,
    ("builtins", "slice"): _check_slice,
    ("builtins", "range"): _check_range,
    ("builtins", "bytearray"): _check_bytes,
    ("builtins", "bytes"): _check_bytes,
    ("_codecs", "encode"): _check_latin1,
}
