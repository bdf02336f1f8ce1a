"""What the stubs say where pybind11's signature lines don't tell the truth (tools/stubgen/emit.py).

pybind11 writes a binding's types from its C++ signature. That is exact for a function that takes
and returns C++ types (`Tensor exp(const Tensor&)` -> `def exp(input: Tensor) -> Tensor`), but
not where the C++ works with Python objects itself:

- A result of `py::object`, stubbed `typing.Any`: the C++ builds a Tensor and returns it as an
  object because another call returns something else: `out` (for out=), `self` (an in-place op
  `add_` returns the tensor it changed), `NotImplemented` (an operator `x + "a"`), a named tuple
  or a tuple (`max(x, dim)`, `split`), a dtype or device object, a Python number (`item()`).
  RETURNS and the rules under it say what each returns.
- A parameter of `py::object`, stubbed `object` (any value passes): the C++ converts it itself
  (dtype=, device=, generator=, out=, an operator's other operand). PARAMETERS and the operator
  rules say what it takes.
- `py::args` / `py::kwargs` (`zeros(*args)`, `randint(*args, **kwargs)`, `x.view(*args)`,
  `x.to(*args, **kwargs)`): the C++ parses the call itself, so pybind11 knows no parameter.
  SIGNATURES writes their forms out in full.
- Keywords that csrc/python/call_habits.cpp adds to a call pybind11 refused (Note [Call habits]):
  requires_grad= for PyTorch's factories and out= for the functions PyTorch gives it. They are in
  no pybind11 signature; REQUIRES_GRAD and OUT name where they work.

Types are written as pybind11 writes them (full names: `genesis._C.Tensor`, plain builtins), so
the generator rewrites them for each stub like pybind11's own (stubgen/annotations.py).
Everything here names a member as `module.name` or `module.Class.name`;
test_stub_signatures.py checks that each still exists and, by calling the run time, that
the results and keywords stated here are the run time's.
"""

from __future__ import annotations

from genesis._op_table import OPS

TENSOR = "genesis._C.Tensor"
TENSORS = "tuple[genesis._C.Tensor, ...]"  # split, chunk, unbind, where(condition) ...
DTYPE = "genesis._C.dtype"
DTYPE_LIKE = "genesis._C._DTypeLike"  # what dtype= takes
DEVICE = "genesis._C.device | str | int"  # genesis.device("cuda:0"), "cuda:0" or 0
SIZE = "genesis._size.Size"  # shape and size(): a tuple subclass with numel()
INDEX = "typing.SupportsIndex"  # an int, a NumPy integer or a one-element integer tensor
SIZES = f"collections.abc.Sequence[{INDEX}]"  # a tuple, list or genesis.Size of sizes
DIM = "int"  # where an int dim selects another result than a Tensor operand (max(x, 1), max(x, y))
ITEM = "int | float | bool"  # a Python number: item()

# ---- Names only the stubs have ------------------------------------------------------------------
# Aliases the stubs define to keep long unions readable (`_Operand`); typing-only.
ALIASES = {
    # Tensor's dtype and device properties hide the classes inside its body: there the stubs
    # name the classes by these aliases (stubgen/annotations.py).
    "genesis._C._dtype": "genesis._C.dtype",
    "genesis._C._device": "genesis._C.device",
    # What dtype= takes (to_dtype in csrc/python/dtype.cpp): a genesis dtype, its name
    # ("float16"), Python's bool, int (int64) or float (the default float dtype), a NumPy dtype
    # or NumPy scalar type (np.int8). The docs show every form.
    "genesis._C._DTypeLike": (
        "genesis._C.dtype | str | type[int] | type[float] | type[numpy.generic] | numpy.dtype"
    ),
    # What the arithmetic and comparison operators take besides a Tensor (x + 1, 2 * x,
    # x < np.zeros(3)); anything else (a str, a list, complex) gets NotImplemented: TypeError.
    "genesis._C._Operand": (
        "genesis._C.Tensor | int | float | bool | numpy.ndarray | numpy.number | numpy.bool_"
    ),
}
# The named tuples the C++ makes (collections.namedtuple types whose __module__ is
# genesis.return_types, as torch.return_types): one stub class per shape of fields, typing-only,
# so that `x.max(1).values` and `values, indices = x.sort()` are typed.
NAMED_TUPLES = {
    "genesis._C._ValuesIndices": (("values", TENSOR), ("indices", TENSOR)),
    "genesis._C._Aminmax": (("min", TENSOR), ("max", TENSOR)),
    "genesis._C._Histogram": (("hist", TENSOR), ("bin_edges", TENSOR)),
    "genesis._C._linalg._Eigh": (("eigenvalues", TENSOR), ("eigenvectors", TENSOR)),
    "genesis._C._linalg._QR": (("Q", TENSOR), ("R", TENSOR)),
    "genesis._C._linalg._SVD": (("U", TENSOR), ("S", TENSOR), ("Vh", TENSOR)),
    "genesis._C._linalg._Slogdet": (("sign", TENSOR), ("logabsdet", TENSOR)),
}
VALUES_INDICES = "genesis._C._ValuesIndices"

# ---- Parameters ---------------------------------------------------------------------------------
# The type of a parameter pybind11 types `object` (or that SIGNATURES leaves unannotated), by its
# name, wherever it appears; `| None` is added when its default is None. out= is typed from the
# result: a Tensor, or a sequence of tensors for a tuple.
PARAMETERS = {
    "dtype": DTYPE_LIKE,
    "device": DEVICE,
    "generator": "genesis._C.Generator",
}
# Parameter types of one member: {member: {parameter: type}}.
PARAMETER_TYPES = {
    "genesis._C.Tensor.grad": {"arg1": f"{TENSOR} | None"},  # the setter's value
    "genesis._C.full": {"size": SIZES},
    "genesis._C.Tensor.new_full": {"size": SIZES},
}
# Tensor's operators: the other operand is an _Operand, the result a Tensor (pybind11 says
# object: NotImplemented for other operands). == and != return a Tensor where object's return a
# bool, which type checkers call an incompatible override; PyTorch's stubs ignore it the same way.
# NumPy's comparisons take any object with __array__, a Tensor too, so mypy calls Tensor's
# reflected ones (x > a for a < x) unsafely overlapping with NumPy's: ignored, as NumPy hands
# such a comparison to Tensor.__array_ufunc__ at run time.
OPERATORS = {
    f"__{r}{op}__"
    for op in ("add sub mul truediv floordiv mod pow and or xor lshift rshift".split())
    for r in ("", "r", "i")
} | {"__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"}
IGNORES = {
    "genesis._C.Tensor.__eq__": "override",
    "genesis._C.Tensor.__ne__": "override",
    **{f"genesis._C.Tensor.__{op}__": "misc" for op in ("lt", "le", "gt", "ge")},
}

# ---- Results ------------------------------------------------------------------------------------
# Results by member: a type for every overload, or {pybind11's result: type} for some.
RETURNS = {
    # Properties and plain results the C++ returns as objects.
    "genesis._C.Tensor.dtype": DTYPE,
    "genesis._C._amp._get_dtype": DTYPE,
    "genesis._C.Tensor.device": "genesis._C.device",
    "genesis._C.Tensor.shape": SIZE,
    "genesis._C.Tensor.size": {"tuple": SIZE},
    "genesis._C.Tensor.stride": {"tuple": "tuple[int, ...]"},
    "genesis._C.Tensor.strides": "tuple[int, ...]",
    "genesis._C.Tensor.grad": f"{TENSOR} | None",
    "genesis._C.Tensor.grad_fn": "genesis._C._Node | None",  # None for a leaf
    "genesis._C.Tensor.item": ITEM,
    "genesis._C.Tensor.is_contiguous": "bool",
    "genesis._C.Tensor.__int__": "int",
    "genesis._C.Tensor.__array__": "numpy.ndarray",
    # The momentum buffers with the new ones in place, or None when none was made.
    "genesis._C._optim._sgd_step": f"list[{TENSOR}] | None",
    "genesis._C.Tensor.__iter__": f"collections.abc.Iterator[{TENSOR}]",
    "genesis._C.Generator.device": "genesis._C.device",
    "genesis._C.UntypedStorage.device": "genesis._C.device",
    "genesis._C.device.index": "int | None",
    "genesis._C._Node.variable": f"{TENSOR} | None",  # the leaf of an AccumulateGrad node
    "genesis._C._Node.next_functions": "tuple[tuple[genesis._C._Node | None, int], ...]",
    "genesis._C._autograd._record_function": "genesis._C._autograd._FunctionHandle",
    "genesis._C.promote_types": DTYPE,
    "genesis._C.result_type": DTYPE,
    "genesis._C._dtype_from_name": DTYPE,
    "genesis._C._get_default_dtype": DTYPE,
    "genesis._C._get_default_device": "genesis._C.device",
    # Tensors returned as objects: the argument itself when it needs no conversion, or self.
    **dict.fromkeys(
        [
            *(f"genesis._C.Tensor.{m}" for m in "bfloat16 bool byte char double float".split()),
            *(f"genesis._C.Tensor.{m}" for m in "half int long short type_as".split()),
            *(f"genesis._C.Tensor.{m}" for m in "clone contiguous cpu cuda pin_memory".split()),
            *(f"genesis._C.Tensor.{m}" for m in "argwhere histc logcumsumexp".split()),
            *(f"genesis._C.Tensor.{m}" for m in "cumsum cumprod quantile nanquantile".split()),
            "genesis._C.argwhere",
            "genesis._C.as_tensor",
            "genesis._C.asarray",
            *(f"genesis._C._nn.{f}" for f in "elu hardtanh leaky_relu mish relu silu".split()),
            *(f"genesis._C._nn.{f}_" for f in "elu hardtanh leaky_relu".split()),
        ],
        TENSOR,
    ),
    # Tuples of tensors.
    **dict.fromkeys(
        [
            *(f"genesis._C.{f}" for f in "split tensor_split chunk unbind".split()),
            *(f"genesis._C.Tensor.{m}" for m in "split tensor_split chunk unbind".split()),
        ],
        TENSORS,
    ),
    # Named tuples (values, indices) ...
    **dict.fromkeys(
        [
            *(f"genesis._C.{f}" for f in "cummax cummin kthvalue mode sort topk".split()),
            *(f"genesis._C.Tensor.{m}" for m in "cummax cummin kthvalue mode sort topk".split()),
        ],
        VALUES_INDICES,
    ),
    "genesis._C.aminmax": "genesis._C._Aminmax",
    "genesis._C.Tensor.aminmax": "genesis._C._Aminmax",
    "genesis._C.histogram": "genesis._C._Histogram",
    "genesis._C.Tensor.histogram": "genesis._C._Histogram",
    "genesis._C._linalg.eigh": "genesis._C._linalg._Eigh",
    "genesis._C._linalg.qr": "genesis._C._linalg._QR",
    "genesis._C._linalg.svd": "genesis._C._linalg._SVD",
    "genesis._C._linalg.slogdet": "genesis._C._linalg._Slogdet",
}
# Rules for a result pybind11 calls `object` that RETURNS does not name:
# - Tensor's in-place methods (a name ending in one "_": add_, zero_, requires_grad_) and its
#   operators (x + 1, and x += 1, which returns self) return a Tensor.
# - A function with an out= parameter returns its result as an object only because with out= it
#   returns `out`: the result is a Tensor (functions whose result is a tuple are in RETURNS).
# A result that stays `typing.Any` must be here, with the reason (test_stub_signatures.py):
ANY = {
    "genesis._C.Tensor.tolist": "nested lists of Python numbers, or one number for a 0-d tensor",
    "genesis._C.Tensor.__dlpack__": "a PyCapsule, which has no name in typing",
    "genesis._C.Tensor.__new__": "pybind11's; genesis.Tensor() raises TypeError: no constructor",
    "genesis._C._amp._call": "whatever the decorated nn.functional function returns",
}

# ---- Keywords the call habits add (Note [Call habits] in csrc/python/call_habits.cpp) -----------
# requires_grad=: the op table's requires_grad habits, less randint and randint_like, which parse
# their own keywords (py::kwargs) and refuse it. The members in SIGNATURES write it out themselves.
REQUIRES_GRAD = {
    *(f"genesis._C.{f}" for f in "full randperm arange linspace eye normal tensor".split()),
    *(f"genesis._C.{f}_like" for f in "zeros ones empty full rand randn".split()),
    "genesis._C.Tensor.new_full",
    "genesis._C.Tensor.new_tensor",
}
# out= and out_needs_dim: the op table's (genesis/_op_table.py; csrc/python/op_table.h), for
# functions (not methods) of HABIT_MODULES. Those in OUT_NEEDS_DIM take out= only with a dim:
# their stubs don't add it.
OUT = {r.name for r in OPS if "out" in r.forms}
OUT_NEEDS_DIM = {r.name for r in OPS if "out_needs_dim" in r.habits}
# The modules whose functions the habits wrap (install_call_habits).
HABIT_MODULES = {"genesis._C", "genesis._C._linalg", "genesis._C._nn", "genesis._C._cuda"}

# ---- Whole signatures ---------------------------------------------------------------------------
# The overloads of a member, in pybind11's notation, for the bindings that parse their own
# arguments or whose result depends on them, and for the members that genesis sets from Python
# on a bound class (the generator skips those otherwise). They are written out in full, keywords
# included; only PARAMETERS types their unannotated parameters (dtype=None -> dtype: _DTypeLike
# | None = None).
_FACTORY = "dtype=None, device=None, requires_grad: bool = False"
_OUT = f"out: {TENSOR} | None = None"
_OUTS = f"out: collections.abc.Sequence[{TENSOR}] | None = None"


def _sizes(keywords, self="", keyword="size"):
    """The two forms of a binding that takes sizes as *args: zeros(2, 3) and zeros((2, 3)).

    The second form's parameter has PyTorch's keyword (`zeros(size=(2, 3))`, a call habit).
    """
    rest = f", {keywords}" if keywords else ""
    return [
        f"({self}*{keyword}: {INDEX}{', ' if keywords else ''}{keywords}) -> {TENSOR}",
        f"({self}{keyword}: {SIZES}{', *' if keywords else ''}{rest}) -> {TENSOR}",
    ]


def _reduction(first, out_none, out_dim, tensor_form):
    """max/min/median/nanmedian: a Tensor without dim, (values, indices) with an int dim; max
    and min of two tensors are their elementwise maximum/minimum."""
    return [
        f"({first}, dim: None = None, keepdim: bool = False{out_none}) -> {TENSOR}",
        f"({first}, dim: {DIM}, keepdim: bool = False{out_dim}) -> {VALUES_INDICES}",
        *([f"({first}, other: {TENSOR}, /{out_none}) -> {TENSOR}"] if tensor_form else []),
    ]


def _unique(first, sorted_):
    """unique/unique_consecutive: a Tensor, or a tuple with return_inverse or return_counts."""
    false = "typing.Literal[False] = False"
    no = f"return_inverse: {false}, return_counts: {false}"
    maybe = "return_inverse: bool = False, return_counts: bool = False"
    dim = "dim: int | None = None"
    return [
        f"({first}{sorted_}, {no}, {dim}) -> {TENSOR}",
        f"({first}{sorted_}, {maybe}, {dim}) -> {TENSOR} | {TENSORS}",
    ]


def _nonzero(first, out):
    return [
        f"({first}, *, as_tuple: typing.Literal[False] = False{out}) -> {TENSOR}",
        f"({first}, *, as_tuple: typing.Literal[True]) -> {TENSORS}",
        f"({first}, *, as_tuple: bool) -> {TENSOR} | {TENSORS}",
    ]


def _atleast():
    return [
        f"(tensor: {TENSOR}, /) -> {TENSOR}",
        f"(tensors: collections.abc.Sequence[{TENSOR}], /) -> {TENSORS}",
        f"(first: {TENSOR}, second: {TENSOR}, /, *tensors: {TENSOR}) -> {TENSORS}",
    ]


_SELF = "self: genesis._C.Tensor"
_COPY = "non_blocking: bool = False, copy: bool = False, memory_format: object = None"
SIGNATURES = {
    # Factories: *size as ints or one sequence; the keywords the run time takes (habits too).
    "genesis._C.zeros": _sizes(f"{_OUT}, {_FACTORY}"),
    "genesis._C.ones": _sizes(f"{_OUT}, {_FACTORY}"),
    "genesis._C.empty": _sizes(f"{_OUT}, {_FACTORY}, pin_memory: bool = False"),
    "genesis._C.rand": _sizes(f"generator=None, {_OUT}, {_FACTORY}"),
    "genesis._C.randn": _sizes(f"generator=None, {_OUT}, {_FACTORY}"),
    # randint(high, size) and randint(low, high, size), positionally or by keyword.
    "genesis._C.randint": [
        f"(high: {INDEX}, size: {SIZES}, *, generator=None, {_OUT}, dtype=None, device=None)"
        f" -> {TENSOR}",
        f"(low: {INDEX}, high: {INDEX}, size: {SIZES}, *, generator=None, {_OUT}, dtype=None,"
        f" device=None) -> {TENSOR}",
    ],
    "genesis._C.randint_like": [
        f"(input: {TENSOR}, /, high: {INDEX}, *, generator=None, dtype=None, device=None)"
        f" -> {TENSOR}",
        f"(input: {TENSOR}, /, low: {INDEX}, high: {INDEX}, *, generator=None, dtype=None,"
        f" device=None) -> {TENSOR}",
    ],
    "genesis._C.Tensor.new_zeros": _sizes(_FACTORY, self=f"{_SELF}, "),
    "genesis._C.Tensor.new_ones": _sizes(_FACTORY, self=f"{_SELF}, "),
    "genesis._C.Tensor.new_empty": _sizes(_FACTORY, self=f"{_SELF}, "),
    # Views and copies that take sizes or dims as *args or one sequence.
    "genesis._C.Tensor.view": _sizes("", self=f"{_SELF}, "),
    "genesis._C.Tensor.reshape": _sizes("", self=f"{_SELF}, ", keyword="shape"),
    "genesis._C.Tensor.expand": _sizes("", self=f"{_SELF}, "),
    "genesis._C.Tensor.resize_": _sizes("", self=f"{_SELF}, "),
    "genesis._C.Tensor.permute": _sizes("", self=f"{_SELF}, ", keyword="dims"),
    "genesis._C.Tensor.flip": _sizes("", self=f"{_SELF}, ", keyword="dims"),
    "genesis._C.Tensor.repeat": _sizes("", self=f"{_SELF}, ", keyword="repeats"),
    # to(dtype), to(device, dtype), to(other): the forms of PyTorch, keywords after them.
    "genesis._C.Tensor.to": [
        f"({_SELF}, dtype: {DTYPE_LIKE}, /, *, device=None, {_COPY}) -> {TENSOR}",
        f"({_SELF}, device=None, dtype=None, *, {_COPY}) -> {TENSOR}",
        f"({_SELF}, other: {TENSOR}, /, *, {_COPY}) -> {TENSOR}",
    ],
    # type() names the dtype; type(dtype) converts.
    "genesis._C.Tensor.type": [
        f"({_SELF}, dtype: None = None) -> str",
        f"({_SELF}, dtype: {DTYPE_LIKE}) -> {TENSOR}",
    ],
    # Set from Python (genesis/__init__.py, genesis/_tensor_protocols.py): `x in t` takes a
    # number or a tensor (anything else raises RuntimeError).
    "genesis._C.Tensor.__contains__": [
        f"({_SELF}, element: {TENSOR} | int | float | complex | numpy.generic, /) -> bool",
    ],
    "genesis._C.max": _reduction(f"input: {TENSOR}", f", *, {_OUT}", f", *, {_OUTS}", True),
    "genesis._C.min": _reduction(f"input: {TENSOR}", f", *, {_OUT}", f", *, {_OUTS}", True),
    "genesis._C.median": _reduction(f"input: {TENSOR}", "", f", *, {_OUTS}", False),
    "genesis._C.nanmedian": _reduction(f"input: {TENSOR}", "", f", *, {_OUTS}", False),
    "genesis._C.Tensor.max": _reduction(_SELF, "", "", True),
    "genesis._C.Tensor.min": _reduction(_SELF, "", "", True),
    "genesis._C.Tensor.median": _reduction(_SELF, "", "", False),
    "genesis._C.Tensor.nanmedian": _reduction(_SELF, "", "", False),
    # where(condition) is nonzero(condition, as_tuple=True).
    "genesis._C.where": [
        f"(condition: {TENSOR}) -> {TENSORS}",
        f"(condition: {TENSOR}, input: object, other: object, *, {_OUT}) -> {TENSOR}",
    ],
    "genesis._C.nonzero": _nonzero(f"input: {TENSOR}", f", {_OUT}"),
    "genesis._C.Tensor.nonzero": _nonzero(_SELF, ""),
    "genesis._C.unique": _unique(f"input: {TENSOR}", ", sorted: bool = True"),
    "genesis._C.Tensor.unique": _unique(_SELF, ", sorted: bool = True"),
    "genesis._C.unique_consecutive": _unique(f"input: {TENSOR}", ""),
    "genesis._C.Tensor.unique_consecutive": _unique(_SELF, ""),
    "genesis._C.atleast_1d": _atleast(),
    "genesis._C.atleast_2d": _atleast(),
    "genesis._C.atleast_3d": _atleast(),
    "genesis._C.broadcast_tensors": [f"(*tensors: {TENSOR}) -> {TENSORS}"],
    "genesis._C.meshgrid": [
        f"(*tensors: {TENSOR}, indexing: str = 'ij') -> {TENSORS}",
        f"(tensors: collections.abc.Sequence[{TENSOR}], /, *, indexing: str = 'ij') -> {TENSORS}",
    ],
}
