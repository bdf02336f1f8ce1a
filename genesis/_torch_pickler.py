"""The pickler of ``genesis.save``: ``data.pkl`` in PyTorch's terms (Note [PyTorch checkpoints]).

Tensors, Parameters, storages, dtypes, devices and ``genesis.Size`` are written as
``torch.save`` writes their PyTorch counterparts, naming PyTorch's globals
(``torch._utils._rebuild_tensor_v2``, ``torch.FloatStorage``, ``torch.float32``, ...) so that
``torch.load`` reads the file without genesis, while genesis reads them back as its own
(genesis/_torch_checkpoint.py). Nothing here imports torch.
"""

from __future__ import annotations

import pickle
import sys
from collections import OrderedDict
from typing import IO, Any

from genesis._C import Tensor, UntypedStorage, dtype
from genesis._C import device as _device
from genesis._size import Size
from genesis._torch_checkpoint import _TORCH_DTYPES, STORAGE_TYPES


class _TorchGlobal:
    """A global of PyTorch's, written by its name (the pickler would import it to check an
    object's name; these have no object here)."""

    __slots__ = ("module", "name")

    def __init__(self, module: str, name: str) -> None:
        self.module = module
        self.name = name

    def __call__(self, *args: Any) -> Any:
        # (pickle takes only callables as a reduce's function; this one is never called)
        raise TypeError(f"[save] {self.module}.{self.name} is PyTorch's: genesis only names it")


_REBUILD_TENSOR_V2 = _TorchGlobal("torch._utils", "_rebuild_tensor_v2")
_REBUILD_TENSOR_V3 = _TorchGlobal("torch._utils", "_rebuild_tensor_v3")
_REBUILD_PARAMETER = _TorchGlobal("torch._utils", "_rebuild_parameter")
_REBUILD_PARAMETER_WITH_STATE = _TorchGlobal("torch._utils", "_rebuild_parameter_with_state")
_REBUILD_FROM_TYPE_V2 = _TorchGlobal("torch._tensor", "_rebuild_from_type_v2")
_TENSOR = _TorchGlobal("torch", "Tensor")
_SIZE = _TorchGlobal("torch", "Size")
_DEVICE = _TorchGlobal("torch", "device")
# (torch.storage.UntypedStorage is how torch.save names it; torch.load also takes torch.<Name>)
_UNTYPED_STORAGE = _TorchGlobal("torch.storage", "UntypedStorage")
_STORAGE_OF = {
    name: _TorchGlobal("torch", storage)
    for name, (storage, _, _) in _TORCH_DTYPES.items()
    if storage is not None
}
_TORCH_DTYPE = {name: _TorchGlobal("torch", name) for name in _TORCH_DTYPES}
assert all(s.name in STORAGE_TYPES for s in _STORAGE_OF.values())


def _location(storage: UntypedStorage) -> str:
    """PyTorch's location tag of a storage's device: "cpu", "cuda:N"."""
    where = storage.device
    if where.type == "cuda":
        return f"cuda:{where.index or 0}"
    return str(where)


# The pure-Python pickler (typeshed describes only the C one).
_PurePickler: Any = pickle._Pickler  # type: ignore[attr-defined]


class TorchPickler(_PurePickler):
    """Pickles ``data.pkl`` as ``torch.save`` would; ``storages`` then holds each storage once,
    by key, for the archive's ``data/<key>`` entries.

    The pure-Python pickler, since only it lets a global be written by name (``save`` of a
    ``_TorchGlobal``); the pickle is small next to the storages it refers to.

    Args:
        file: Where the pickle goes.
        protocol: The pickle protocol (2, PyTorch's, for files torch.load reads with
            weights_only=True).
    """

    dispatch = dict(_PurePickler.dispatch)

    def __init__(self, file: IO[bytes], protocol: int) -> None:
        from genesis.nn.parameter import Parameter  # (genesis.nn imports genesis: not at the top)

        super().__init__(file, protocol=protocol)
        self._parameter = Parameter
        self.storages: dict[str, UntypedStorage] = {}  # key -> storage ("0", "1", ...)
        self._keys: dict[int, str] = {}  # storage._cdata -> key
        # storage._cdata -> the dtype its references name (None: bytes, an UntypedStorage).
        self._dtypes: dict[int, Any] = {}

    def dump(self, obj: Any) -> None:
        # The pure-Python pickler spends about three Python frames on each level of nesting
        # where the C one counts one against the recursion limit: the limit is raised for the
        # dump, so that what pickle.dumps writes (the C pickler) this writes too. (From Python
        # 3.11 such frames take no C stack: Python-to-Python calls do not recurse in C.)
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(4 * limit)
        try:
            super().dump(obj)
        finally:
            sys.setrecursionlimit(limit)

    # -- storages ---------------------------------------------------------------------------

    def _storage_dtype(self, storage: UntypedStorage, wanted: Any) -> Any:
        """The dtype a storage is saved as: the first tensor's over it, if its bytes are whole
        items of that dtype; bytes when a storage saved alone came first, or they are not."""
        cdata = storage._cdata
        if cdata not in self._dtypes:
            whole = storage.nbytes() % wanted.itemsize == 0
            self._dtypes[cdata] = wanted if whole else None
        return self._dtypes[cdata]

    def persistent_id(self, obj: Any) -> tuple[Any, ...] | None:
        if not isinstance(obj, UntypedStorage):
            return None
        cdata = obj._cdata
        key = self._keys.get(cdata)
        if key is None:
            key = self._keys[cdata] = str(len(self._keys))
            self.storages[key] = obj
        saved_as = self._dtypes.setdefault(cdata, None)
        if saved_as is None:
            return ("storage", _UNTYPED_STORAGE, key, _location(obj), obj.nbytes())
        numel = obj.nbytes() // saved_as.itemsize
        return ("storage", _STORAGE_OF[saved_as.name], key, _location(obj), numel)

    # -- tensors ----------------------------------------------------------------------------

    def _tensor_args(self, t: Tensor) -> tuple[_TorchGlobal, tuple[Any, ...]]:
        """PyTorch's rebuild of a tensor and its arguments: _rebuild_tensor_v2 over a storage
        saved as its dtype, _rebuild_tensor_v3 (the dtype given) over one saved otherwise."""
        storage = t.untyped_storage()
        args: tuple[Any, ...] = (
            storage,
            t.storage_offset(),
            tuple(t.shape),
            tuple(t.stride()),
            t.requires_grad,
            OrderedDict(),  # backward hooks: never saved (PyTorch saves an empty dict too)
        )
        if self._storage_dtype(storage, t.dtype) is t.dtype:
            return _REBUILD_TENSOR_V2, args
        return _REBUILD_TENSOR_V3, (*args, t.dtype)

    def reducer_override(self, obj: Any) -> Any:
        kind = type(obj)
        if kind is self._parameter:
            data = obj.data
            hooks: OrderedDict = OrderedDict()
            if obj.__dict__:
                state = dict(obj.__dict__)
                return (_REBUILD_PARAMETER_WITH_STATE, (data, obj.requires_grad, hooks, state))
            return (_REBUILD_PARAMETER, (data, obj.requires_grad, hooks))
        if isinstance(obj, Tensor) and kind.__reduce_ex__ is Tensor.__reduce_ex__:
            # (a subclass with a pickling of its own keeps it: genesis names in the file)
            rebuild, args = self._tensor_args(obj)
            if obj.__dict__:
                return (_REBUILD_FROM_TYPE_V2, (rebuild, _TENSOR, args, dict(obj.__dict__)))
            return (rebuild, args)
        if kind is _device:
            return (_DEVICE, (str(obj),))
        if kind is Size:
            return (_SIZE, (tuple(obj),))
        return NotImplemented

    # -- names ------------------------------------------------------------------------------

    def _save_torch_global(self, obj: _TorchGlobal) -> None:
        # As pickle writes a global: STACK_GLOBAL of two strings from protocol 4, GLOBAL's two
        # lines before (PyTorch's names are ASCII and need no Python 2 renaming).
        if self.proto >= 4:
            self.save(obj.module)
            self.save(obj.name)
            self.write(pickle.STACK_GLOBAL)
        else:
            self.write(pickle.GLOBAL + f"{obj.module}\n{obj.name}\n".encode("ascii"))
        self.memoize(obj)

    dispatch[_TorchGlobal] = _save_torch_global

    def _save_dtype(self, obj: Any) -> None:
        # A genesis dtype is the PyTorch dtype of its name (saved through the memo: once).
        self.save(_TORCH_DTYPE[obj.name])

    dispatch[dtype] = _save_dtype
