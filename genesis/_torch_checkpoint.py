"""PyTorch's checkpoint names as genesis reads them, without importing torch.

A file ``torch.save`` wrote names PyTorch's globals in its pickle: ``torch._utils``'s tensor
rebuilds, the storage classes ``torch.<Name>Storage``, dtypes, ``torch.device``, ``torch.Size``.
``TorchNames`` maps each to genesis's own builder or value for one ``genesis.load`` (Note
[PyTorch checkpoints]); the unpicklers of genesis/serialization.py ask it first, so nothing
named ``torch`` is imported, and what genesis cannot hold (complex or float8 tensors, sparse or
quantized ones) raises an error naming it.
"""

from __future__ import annotations

import pickle
from typing import Any, Callable

from genesis import _C
from genesis._C import Tensor, UntypedStorage, _tensor_on_storage
from genesis._restricted_unpickler import (
    _check_device,
    _check_rebuild_tensor,
    _iterated,
    describe,
)
from genesis._size import Size

# Note [PyTorch checkpoints]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~
# The format (torch.save since PyTorch 1.6) is a zip archive of stored entries under one folder
# (the file's stem, or "archive"):
#   data.pkl    the object, pickled (protocol 2). Each storage is a persistent id
#               ("storage", storage_class, key, location, numel): storage_class is a global
#               torch.<Name>Storage that stands for a dtype (FloatStorage float32, ...;
#               torch.storage.UntypedStorage bytes), numel counts that dtype's items, location
#               is the device ("cpu", "cuda:0"). A tensor is
#               torch._utils._rebuild_tensor_v2(storage, offset, size, stride, requires_grad,
#               hooks[, metadata]) of its storage's dtype, or _rebuild_tensor_v3(..., hooks,
#               dtype[, metadata]) for a dtype named apart from its storage (PyTorch's newer
#               dtypes: uint16, float8, ... over an UntypedStorage); a Parameter is
#               _rebuild_parameter(data, requires_grad, hooks) (_with_state: and attributes); a
#               tensor with Python attributes is torch._tensor._rebuild_from_type_v2(rebuild,
#               torch.Tensor, args, attributes).
#   data/<key>  the storage's bytes, in the byte order of the `byteorder` entry (little when
#               absent), each starting at a multiple of 64 bytes in the file.
#   version     "3";  byteorder  "little" or "big".
# PyTorch 2.x also writes .format_version, .storage_alignment and .data/serialization_id.
# torch.load needs none of them; genesis writes none: .format_version >= 1 lets torch compute
# entry offsets from miniz's own layout (its data descriptors) instead of reading the local
# headers, which Python's zipfile does not match, and a random id would make saves differ.
# The first reference to a key decides its storage's dtype (as in torch.load): a later one with
# another storage class gets the same storage, and _rebuild_tensor_v2 over it the first dtype.
#
# The legacy format (torch.save(..., _use_new_zipfile_serialization=False), and every file of
# PyTorch 0.4-1.5) is one stream: five pickles (the magic number 0x1950a86a20f9469cfc6c, the
# protocol version 1001, a dict of the writer's byte order and type sizes, the object, the
# sorted list of storage keys) and then, for each key in that order, the storage's item count
# as 8 little-endian bytes and its bytes. Its persistent ids carry a sixth field, a view of
# another storage (always None since PyTorch 1.0). Storage bytes are little-endian whatever the
# writer was (its C++ converted them). See genesis/_torch_legacy.py.
#
# Decisions:
# - genesis.save writes this zip format (genesis/_torch_pickler.py), not genesis's older one:
#   everything that format recorded has a slot in PyTorch's (genesis's ten dtypes are PyTorch
#   dtypes, its devices are locations "cpu" and "cuda:N", requires_grad, Python attributes,
#   Parameters, storages saved alone), so one format serves both, and a file genesis writes of
#   tensors, Parameters, dtypes, devices, Sizes and containers of plain values is one
#   torch.load(weights_only=True) reads (with the default pickle protocol 2). A storage seen as
#   two dtypes, or whose size is not a whole number of items, is saved as an UntypedStorage with
#   each tensor's dtype in _rebuild_tensor_v3 (torch.save refuses to write those; torch.load
#   reads them right). What else a user saves (range, frozenset, slice, a class with
#   weights_only=False) is pickled as Python pickles it: genesis reads it back, torch.load's
#   weights_only refuses it, as it would refuse torch.save's pickle of the same object.
# - genesis.load still reads genesis's older archives (genesis.serialization._rebuild_tensor,
#   persistent ids ("storage", key, device, nbytes)).
# - Reading, the names below are genesis's builders: nothing is imported, and under
#   weights_only each call's arguments are checked as genesis's own are (Note [Load budget]).
#   Dtypes genesis lacks (complex, uint16-64, float8, ...), tensors with a conj or neg bit, and
#   sparse, quantized, nested, meta and wrapper-subclass tensors raise UnpicklingError naming
#   what the file holds; a storage of such a dtype saved alone still loads (as bytes).
# - A "big" byte order is undone storage by storage as the bytes are read (such storages are
#   never mapped with mmap=True); another value of the entry is an error.
# - The legacy format is read, never written. Its object's pickle is read as weights_only says;
#   the pickles around it (magic number, version, system info, keys) are plain values and always
#   read restricted. Its storages cannot be mapped (mmap=True is an error, as in torch.load).
#   PyTorch's tar format (before 0.4) is not read: it is no zip archive and no legacy stream.

# A PyTorch dtype, by name: its storage class (None where it has none: PyTorch saves such
# tensors over an UntypedStorage with _rebuild_tensor_v3), its item size and the unit its bytes
# swap by.
_TORCH_DTYPES: dict[str, tuple[str | None, int, int]] = {
    "float16": ("HalfStorage", 2, 2),
    "bfloat16": ("BFloat16Storage", 2, 2),
    "float32": ("FloatStorage", 4, 4),
    "float64": ("DoubleStorage", 8, 8),
    "int8": ("CharStorage", 1, 1),
    "int16": ("ShortStorage", 2, 2),
    "int32": ("IntStorage", 4, 4),
    "int64": ("LongStorage", 8, 8),
    "uint8": ("ByteStorage", 1, 1),
    "bool": ("BoolStorage", 1, 1),
    "complex64": ("ComplexFloatStorage", 8, 4),  # (the real and imaginary parts swap apart)
    "complex128": ("ComplexDoubleStorage", 16, 8),
    "qint8": ("QInt8Storage", 1, 1),
    "quint8": ("QUInt8Storage", 1, 1),
    "qint32": ("QInt32Storage", 4, 4),
    "quint4x2": ("QUInt4x2Storage", 1, 1),
    "quint2x4": ("QUInt2x4Storage", 1, 1),
    "complex32": (None, 4, 2),
    "uint16": (None, 2, 2),
    "uint32": (None, 4, 4),
    "uint64": (None, 8, 8),
    "float8_e4m3fn": (None, 1, 1),
    "float8_e5m2": (None, 1, 1),
    "float8_e4m3fnuz": (None, 1, 1),
    "float8_e5m2fnuz": (None, 1, 1),
    "float8_e8m0fnu": (None, 1, 1),
    "float4_e2m1fn_x2": (None, 1, 1),
    "bits1x8": (None, 1, 1),
    "bits2x4": (None, 1, 1),
    "bits4x2": (None, 1, 1),
    "bits8": (None, 1, 1),
    "bits16": (None, 2, 2),
    **{f"uint{n}": (None, 1, 1) for n in range(1, 8)},
    **{f"int{n}": (None, 1, 1) for n in range(1, 8)},
}
# genesis's dtypes are all PyTorch's, by the same names.
GENESIS_DTYPES: dict[str, Any] = {
    name: getattr(_C, name)
    for name in _TORCH_DTYPES
    if isinstance(getattr(_C, name, None), _C.dtype)
}


class StorageType:
    """A storage class of PyTorch's (``torch.FloatStorage``, ...) as a file names it: the dtype
    its references give their storage, and how many bytes its ``numel`` counts."""

    __slots__ = ("name", "torch_dtype", "dtype", "itemsize", "swap_unit")

    def __init__(self, name: str, torch_dtype: str, itemsize: int, swap_unit: int) -> None:
        self.name = name
        self.torch_dtype = torch_dtype
        self.dtype = GENESIS_DTYPES.get(torch_dtype)  # None: genesis has no such dtype
        self.itemsize = itemsize
        self.swap_unit = swap_unit

    def __repr__(self) -> str:
        return f"torch.{self.name}"


STORAGE_TYPES: dict[str, StorageType] = {
    storage: StorageType(storage, torch_dtype, size, unit)
    for torch_dtype, (storage, size, unit) in _TORCH_DTYPES.items()
    if storage is not None
}
# A storage saved alone, or under tensors of the newer dtypes: bytes (torch.load types it uint8).
STORAGE_TYPES["UntypedStorage"] = StorageType("UntypedStorage", "uint8", 1, 1)


class _Marker:
    """A class of PyTorch's that a file may name only as _rebuild_from_type_v2's new type."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


TORCH_TENSOR = _Marker("torch.Tensor")
TORCH_PARAMETER = _Marker("torch.nn.parameter.Parameter")

# Names of PyTorch's that genesis recognizes but cannot build: the reason, said in the error.
_CANNOT = {
    ("torch._utils", "_rebuild_qtensor"): "genesis has no quantized tensors",
    ("torch._utils", "_rebuild_sparse_tensor"): "genesis has no sparse tensors",
    ("torch._utils", "_rebuild_nested_tensor"): "genesis has no nested tensors",
    ("torch._utils", "_rebuild_meta_tensor_no_storage"): "genesis has no meta device",
    ("torch._utils", "_rebuild_wrapper_subclass"): "genesis has no tensor subclasses of PyTorch",
    ("torch._utils", "_rebuild_device_tensor_from_numpy"): "it would call NumPy to rebuild",
    ("torch._utils", "_rebuild_xla_tensor"): "it would call NumPy to rebuild",
    ("torch.serialization", "_get_layout"): "genesis has no layout objects (torch.strided, ...)",
    **{
        ("torch", scheme): "genesis has no quantized tensors"
        for scheme in (
            "per_tensor_affine",
            "per_tensor_symmetric",
            "per_channel_affine",
            "per_channel_symmetric",
            "per_channel_affine_float_qparams",
        )
    },
}
_MODULE_ALIASES = {"torch.tensor": "torch._tensor"}  # the module's name before PyTorch 1.8


def _refused(module: str, name: str, reason: str) -> pickle.UnpicklingError:
    return pickle.UnpicklingError(
        f"[load] genesis cannot load {describe(module)[1:-1]}.{describe(name)[1:-1]}: {reason}"
    )


def _no_dtype(torch_dtype: str, what: str) -> pickle.UnpicklingError:
    return pickle.UnpicklingError(
        f"[load] genesis cannot load {what}: genesis has no dtype {torch_dtype} (its dtypes: "
        f"{', '.join(GENESIS_DTYPES)})"
    )


def _set_attributes(obj: Tensor, state: Any, what: str) -> None:
    """A tensor's Python attributes as PyTorch pickles them (``__getstate__``: None, a dict, or
    a (dict, slots) pair), set in its ``__dict__`` (never through setattr: a property's setter,
    ``data`` or ``grad``, would run)."""
    slots = None
    if type(state) is tuple and len(state) == 2:
        state, slots = state
    if slots:
        raise pickle.UnpicklingError(f"[load] {what}: a tensor has no slots to set")
    if state is None:
        return
    if type(state) is not dict or not all(type(k) is str for k in state):
        raise pickle.UnpicklingError(
            f"[load] {what}: a tensor's attributes must be a dict of names, got {describe(state)}"
        )
    obj.__dict__.update(state)


def _check_hooks_and_metadata(hooks: Any, metadata: Any, what: str) -> None:
    if hooks is not None and not isinstance(hooks, dict):
        raise TypeError(f"[load] {what}: backward hooks must be a dict, got {describe(hooks)}")
    if metadata is None:
        return
    if not isinstance(metadata, dict):
        raise TypeError(f"[load] {what}: metadata must be a dict, got {describe(metadata)}")
    bits = sorted(str(k) for k, v in metadata.items() if v)
    if bits:
        raise pickle.UnpicklingError(
            f"[load] genesis cannot load {what} with the bits {bits}: genesis has no conj or "
            "neg bits (resolve them in PyTorch first: t.resolve_conj().resolve_neg())"
        )


def _check_size(unpickler: Any, name: str, args: tuple) -> None:
    # torch.Size(sizes): one tuple or list of ints, its length charged (Note [Load budget]).
    if len(args) != 1 or type(args[0]) not in (tuple, list):
        raise pickle.UnpicklingError(f"[load] malformed archive: {name}() takes a tuple of ints")
    _iterated(unpickler, name, args[0])
    if not all(type(s) is int for s in args[0]):
        raise pickle.UnpicklingError(f"[load] malformed archive: {name}() takes ints")


def _check_tensor(unpickler: Any, name: str, args: tuple) -> None:
    _check_rebuild_tensor(unpickler, name, args)


def _check_any(unpickler: Any, name: str, args: tuple) -> None:
    """The builder checks its own arguments (they make nothing larger than what they hold)."""


class TorchNames:
    """PyTorch's globals for one load: ``lookup`` is what the unpicklers ask first.

    Args:
        place_device: The device a tensor saved on device ``name`` goes to under the load's
            ``map_location`` (None: where a callable sends storages, the CPU here).
    """

    def __init__(self, place_device: Callable[[str], str | None]) -> None:
        self._place_device = place_device
        self._storage_types: dict[int, StorageType] = {}  # storage._cdata -> its first class
        builders: dict[tuple[str, str], tuple[Any, Callable[..., None]]] = {
            ("torch._utils", "_rebuild_tensor"): (self.rebuild_tensor, _check_tensor),
            ("torch._utils", "_rebuild_tensor_v2"): (self.rebuild_tensor_v2, _check_tensor),
            ("torch._utils", "_rebuild_tensor_v3"): (self.rebuild_tensor_v3, _check_tensor),
            ("torch._utils", "_rebuild_parameter"): (self.rebuild_parameter, _check_any),
            ("torch._utils", "_rebuild_parameter_with_state"): (
                self.rebuild_parameter_with_state,
                _check_any,
            ),
            ("torch._tensor", "_rebuild_from_type_v2"): (self.rebuild_from_type_v2, _check_any),
            ("torch._utils", "_rebuild_device_tensor_from_cpu_tensor"): (
                self.rebuild_device_tensor_from_cpu_tensor,
                _check_any,
            ),
            ("torch", "Size"): (Size, _check_size),
            ("torch", "device"): (_C.device, _check_device),
        }
        self._tensor_builders = {
            id(builders[("torch._utils", n)][0]): builders[("torch._utils", n)]
            for n in ("_rebuild_tensor", "_rebuild_tensor_v2", "_rebuild_tensor_v3")
        }
        table: dict[tuple[str, str], tuple[Any, Callable[..., None] | None]] = dict(builders)
        table[("torch", "Tensor")] = (TORCH_TENSOR, None)
        table[("torch.nn.parameter", "Parameter")] = (TORCH_PARAMETER, None)
        table.update({("torch", n): (d, None) for n, d in GENESIS_DTYPES.items()})
        for name, storage_type in STORAGE_TYPES.items():
            # (torch.cuda.<Name>Storage: PyTorch 0.4's legacy files name a CUDA storage's class)
            for module in ("torch", "torch.cuda", "torch.storage"):
                table[(module, name)] = (storage_type, None)
        self._table = table

    # -- names ------------------------------------------------------------------------------

    def lookup(self, module: str, name: str) -> tuple[Any, Callable[..., None] | None] | None:
        """What a global of PyTorch's builds, and its argument check (None: not callable).

        Args:
            module: The global's module.
            name: Its name.

        Returns:
            The (object, check) pair, or None for a name that is not PyTorch's.

        Raises:
            pickle.UnpicklingError: for a name of PyTorch's that genesis cannot build.
        """
        module = _MODULE_ALIASES.get(module, module)
        found = self._table.get((module, name))
        if found is not None:
            return found
        reason = _CANNOT.get((module, name))
        if reason is not None:
            raise _refused(module, name, reason)
        if module == "torch" and name in _TORCH_DTYPES:
            raise _no_dtype(name, f"torch.{name}")
        if module in ("torch", "torch.cuda") and name.endswith("Tensor") and name != "Tensor":
            raise _refused(
                module, name, "PyTorch's tensor classes of files before 0.4 are not read"
            )
        return None

    def note_storage(self, storage: UntypedStorage, storage_type: StorageType) -> None:
        """Records the storage class the first reference to a storage named."""
        self._storage_types.setdefault(storage._cdata, storage_type)

    # -- tensors ----------------------------------------------------------------------------

    def _tensor(
        self, storage: Any, offset: Any, size: Any, stride: Any, dtype: Any, what: str
    ) -> Tensor:
        if not isinstance(storage, UntypedStorage):
            raise TypeError(f"[load] {what}: the storage is a {type(storage).__name__}")
        if dtype is None:
            storage_type = self._storage_types.get(storage._cdata)
            if storage_type is None:
                raise TypeError(f"[load] {what}: the storage's reference names no storage class")
            if storage_type.dtype is None:
                raise _no_dtype(storage_type.torch_dtype, f"a tensor over a {storage_type!r}")
            dtype = storage_type.dtype
        elif type(dtype) is not _C.dtype:
            raise TypeError(f"[load] {what}: the dtype is a {type(dtype).__name__}")
        for which, value in (("size", size), ("stride", stride)):
            if not isinstance(value, (tuple, list)):
                raise TypeError(f"[load] {what}: the {which} is a {type(value).__name__}")
        return _tensor_on_storage(storage, offset, list(size), list(stride), dtype)

    @staticmethod
    def _requires_grad(t: Tensor, requires_grad: Any, what: str) -> Tensor:
        if type(requires_grad) is not bool:
            raise TypeError(f"[load] {what}: requires_grad is a {type(requires_grad).__name__}")
        if requires_grad:
            t.requires_grad_()
        return t

    def rebuild_tensor(self, storage: Any, storage_offset: Any, size: Any, stride: Any) -> Tensor:
        """``torch._utils._rebuild_tensor``: a tensor of its storage's dtype (PyTorch < 1.0)."""
        what = "torch._utils._rebuild_tensor"
        return self._tensor(storage, storage_offset, size, stride, None, what)

    def rebuild_tensor_v2(
        self,
        storage: Any,
        storage_offset: Any,
        size: Any,
        stride: Any,
        requires_grad: Any,
        backward_hooks: Any,
        metadata: Any = None,
    ) -> Tensor:
        """``torch._utils._rebuild_tensor_v2``: a tensor of its storage's dtype (hooks are never
        saved with a tensor and are dropped, as torch.load drops them)."""
        what = "torch._utils._rebuild_tensor_v2"
        t = self._tensor(storage, storage_offset, size, stride, None, what)
        _check_hooks_and_metadata(backward_hooks, metadata, what)
        return self._requires_grad(t, requires_grad, what)

    def rebuild_tensor_v3(
        self,
        storage: Any,
        storage_offset: Any,
        size: Any,
        stride: Any,
        requires_grad: Any,
        backward_hooks: Any,
        dtype: Any,
        metadata: Any = None,
    ) -> Tensor:
        """``torch._utils._rebuild_tensor_v3``: a tensor of the dtype given, over its storage's
        bytes."""
        what = "torch._utils._rebuild_tensor_v3"
        t = self._tensor(storage, storage_offset, size, stride, dtype, what)
        _check_hooks_and_metadata(backward_hooks, metadata, what)
        return self._requires_grad(t, requires_grad, what)

    # -- parameters and subclasses ----------------------------------------------------------

    @staticmethod
    def _parameter(data: Any, requires_grad: Any, what: str) -> Tensor:
        from genesis.nn.parameter import _rebuild_parameter

        if not isinstance(data, Tensor) or type(requires_grad) is not bool:
            raise TypeError(f"[load] {what}: takes a tensor and a bool")
        return _rebuild_parameter(data, requires_grad)

    def rebuild_parameter(self, data: Any, requires_grad: Any, backward_hooks: Any) -> Tensor:
        """``torch._utils._rebuild_parameter``: a ``genesis.nn.Parameter`` over ``data``."""
        what = "torch._utils._rebuild_parameter"
        _check_hooks_and_metadata(backward_hooks, None, what)
        return self._parameter(data, requires_grad, what)

    def rebuild_parameter_with_state(
        self, data: Any, requires_grad: Any, backward_hooks: Any, state: Any
    ) -> Tensor:
        """``torch._utils._rebuild_parameter_with_state``: a Parameter and its attributes."""
        what = "torch._utils._rebuild_parameter_with_state"
        _check_hooks_and_metadata(backward_hooks, None, what)
        p = self._parameter(data, requires_grad, what)
        _set_attributes(p, state, what)
        return p

    def rebuild_from_type_v2(self, func: Any, new_type: Any, args: Any, state: Any) -> Tensor:
        """``torch._tensor._rebuild_from_type_v2``: a tensor (or Parameter) that carries Python
        attributes, rebuilt by one of PyTorch's tensor rebuilds."""
        what = "torch._tensor._rebuild_from_type_v2"
        builder = self._tensor_builders.get(id(func))
        if builder is None or builder[0] is not func:
            raise pickle.UnpicklingError(
                f"[load] {what}: rebuilds with one of PyTorch's tensor rebuilds, not "
                f"{describe(func)}"
            )
        if new_type is not TORCH_TENSOR and new_type is not TORCH_PARAMETER:
            raise pickle.UnpicklingError(
                f"[load] {what}: makes a torch.Tensor or a Parameter, not {describe(new_type)}"
            )
        if type(args) is not tuple:
            raise TypeError(f"[load] {what}: the rebuild's arguments are a {type(args).__name__}")
        builder[1](None, what, args)  # the check find_class would have attached
        t = func(*args)
        if new_type is TORCH_PARAMETER:
            t = self._parameter(t, t.requires_grad, what)
        _set_attributes(t, state, what)
        return t

    def rebuild_device_tensor_from_cpu_tensor(
        self, data: Any, dtype: Any, device: Any, requires_grad: Any
    ) -> Tensor:
        """``torch._utils._rebuild_device_tensor_from_cpu_tensor``: a tensor of a device without
        storages of its own (XLA, ...), saved as a CPU copy: sent where ``map_location`` sends
        that device (a callable ``map_location`` leaves it on the CPU)."""
        what = "torch._utils._rebuild_device_tensor_from_cpu_tensor"
        if not isinstance(data, Tensor) or type(dtype) is not _C.dtype:
            raise TypeError(f"[load] {what}: takes a tensor and a dtype")
        if not isinstance(device, (str, _C.device)) or len(str(device)) > 64:
            raise TypeError(f"[load] {what}: the device is {describe(device)}")
        target = self._place_device(str(device)) or "cpu"
        return self._requires_grad(data.to(dtype=dtype, device=target), requires_grad, what)


def storage_reference(pid: Any) -> tuple[str, str, int, StorageType | None]:
    """What a storage's persistent id in a zip archive's ``data.pkl`` says.

    PyTorch's is ``("storage", storage class, key, location, numel)``; genesis's older archives
    wrote ``("storage", key, device, nbytes)``.

    Args:
        pid: The persistent id, as the pickle made it.

    Returns:
        ``(key, saved device, nbytes, storage class)``: the class is None for genesis's form.

    Raises:
        pickle.UnpicklingError: for anything else.
    """
    if type(pid) is tuple and len(pid) == 5 and pid[0] in ("storage", b"storage"):
        _, storage_type, key, location, numel = pid
        if type(location) is bytes:  # (Python 2's pickles: ASCII)
            location = location.decode("ascii", "replace")
        if (
            isinstance(storage_type, StorageType)
            and type(key) is str
            and type(location) is str
            and type(numel) is int
            and numel >= 0
        ):
            return key, location, numel * storage_type.itemsize, storage_type
    if (
        type(pid) is tuple
        and len(pid) == 4
        and all(type(v) is str for v in pid[:3])
        and pid[0] == "storage"
        and type(pid[3]) is int
        and pid[3] >= 0
    ):
        return pid[1], pid[2], pid[3], None
    raise pickle.UnpicklingError(f"[load] malformed storage reference {describe(pid)}")


def byteswap(host: Tensor, unit: int, name: str) -> Tensor:
    """Reverses, in place, each ``unit``-byte item of a uint8 CPU tensor: a storage written in
    the other byte order, as this machine's.

    Args:
        host: The storage's bytes.
        unit: The bytes of one item (its storage class's ``swap_unit``).
        name: The archive entry, for the error.

    Returns:
        ``host``.
    """
    import numpy as np

    n = host.numel()
    if n % unit:
        raise ValueError(
            f"[load] entry {name!r} holds {n} bytes: not whole items of {unit} bytes to swap"
        )
    if n:
        host.numpy().view(np.dtype(f"u{unit}")).byteswap(inplace=True)
    return host
