"""A GPU tensor library for Python with a C++/CUDA core and PyTorch's API.

``genesis.Tensor`` is a multi-dimensional array on the CPU or a CUDA GPU. The library has
PyTorch's names and semantics: factories (``tensor``, ``zeros``, ``ones``, ``full``, ``arange``,
``linspace``, ``eye``, ``rand``, ``randn``, ``randint`` and the ``*_like`` forms), views and
NumPy-style indexing, elementwise math with PyTorch's type promotion, reductions, ``matmul``,
``cat`` and ``stack``, and zero-copy exchange with NumPy (``from_numpy``, ``Tensor.numpy``) and
DLPack (``from_dlpack``). ``genesis.cuda`` has ``torch.cuda``'s device, stream, event and
memory functions. ``genesis.autograd`` differentiates (``requires_grad=True``, ``backward``,
``genesis.no_grad``); not every op has a gradient yet (docs/user_guide.md's Autograd section
lists those that do).

Dtypes are objects: ``genesis.float32`` (alias ``float``), ``float64`` (``double``),
``float16`` (``half``), ``bfloat16``, ``uint8``, ``int8``, ``int16`` (``short``), ``int32``
(``int``), ``int64`` (``long``) and ``bool``. Devices are ``"cpu"``, ``"cuda"``, ``"cuda:N"``
or a ``genesis.device``.

Example::

    >>> import genesis
    >>> x = genesis.arange(6, dtype=genesis.float32).view(2, 3)
    >>> (x * 2 + 1).sum(dim=1)
    tensor([ 9., 27.])
    >>> x[:, 1:] @ genesis.ones(2)
    tensor([3., 9.])

``help(genesis.Tensor)`` lists the tensor methods, ``docs/user_guide.md`` covers the library
and where it differs from PyTorch, and ``python -m genesis`` runs a self-check.
"""

# The compiled core that belongs to these files, or an ImportError that says what to run
# (Note [Build identifier] in _core_loader.py).
from os.path import dirname as _dirname  # noqa: E402

from ._core_loader import load_core as _load_core

# The directory of these .py files (an editable install's __path__ also names the build's).
# load_core registers the checked core as genesis._C; importing it by name lets type checkers
# see the module (and its stubs, genesis/_C/*.pyi) rather than a variable.
_load_core(__name__, _dirname(__file__))
# The compiled functions' docstrings and text signatures (Note [Docstrings in Python]).
from . import _C as _core  # noqa: E402
from ._docs import install as _install_docs  # noqa: E402

_install_docs(_core)
# Every name the core binds for users, listed so that a missing one fails here, at import. The
# compute ops shadow Python builtins inside this namespace only, as in PyTorch (genesis.abs,
# genesis.max, genesis.sum ...).
from . import (
    _C,  # noqa: E402
    autograd,  # noqa: E402
    backends,  # noqa: E402  (backends.cuda.matmul.allow_tf32)
    cpu,  # noqa: E402  (enable_pinned_memory)
    cuda,  # noqa: E402
    linalg,  # noqa: E402
    memory_manager,  # noqa: E402  (empty_cache, collect_garbage, compact)
    multiprocessing,  # noqa: E402  (sends CPU tensors between processes as shared memory)
    nn,  # noqa: E402
    safetensors,  # noqa: E402
    serialization,  # noqa: E402  (also makes tensors picklable)
    testing,  # noqa: E402  (assert_close)
)
from ._C import (  # noqa: E402
    Generator,
    IndexKind,
    IndexPath,
    IndexPlan,
    Tensor,
    UntypedStorage,
    _dtype_from_name,  # noqa: F401  (used by pickling of dtypes)
    abs,
    acos,
    acosh,
    add,
    addbmm,
    addcdiv,
    addcmul,
    addmm,
    addmv,
    all,
    allclose,
    amax,
    amin,
    aminmax,
    any,
    arange,
    arccos,
    arccosh,
    arcsin,
    arcsinh,
    arctan,
    arctan2,
    arctanh,
    argmax,
    argmin,
    argsort,
    argwhere,
    as_tensor,
    asarray,
    asin,
    asinh,
    atan,
    atan2,
    atanh,
    atleast_1d,
    atleast_2d,
    atleast_3d,
    baddbmm,
    bernoulli,
    bfloat16,
    bincount,
    bitwise_and,
    bitwise_left_shift,
    bitwise_not,
    bitwise_or,
    bitwise_right_shift,
    bitwise_xor,
    bmm,
    bool,
    broadcast_tensors,
    broadcast_to,
    bucketize,
    can_cast,
    cat,
    cdist,
    ceil,
    chunk,
    clamp,
    clamp_max,
    clamp_min,
    clip,
    column_stack,
    concat,
    concatenate,
    copysign,
    cos,
    cosh,
    count_nonzero,
    cross,
    cummax,
    cummin,
    cumprod,
    cumsum,
    default_generator,
    device,
    diag,
    diag_embed,
    diagonal,
    diff,
    digamma,
    div,
    divide,
    dot,
    dstack,
    dtype,
    einsum,
    empty,
    empty_like,
    eq,
    equal,
    erf,
    erfc,
    erfinv,
    exp,
    exp2,
    expand_copy,
    expm1,
    eye,
    fix,
    flatten,
    flip,
    fliplr,
    flipud,
    float16,
    float32,
    float64,
    floor,
    floor_divide,
    fmod,
    frac,
    from_dlpack,
    from_numpy,
    full,
    full_like,
    gather,
    ge,
    get_rng_state,
    gt,
    heaviside,
    histc,
    histogram,
    hstack,
    hypot,
    index_add,
    index_copy,
    index_fill,
    index_put,
    index_reduce,
    index_select,
    initial_seed,
    inner,
    int8,
    int16,
    int32,
    int64,
    is_floating_point,
    is_nonzero,
    isclose,
    isfinite,
    isinf,
    isnan,
    isneginf,
    isposinf,
    kron,
    kthvalue,
    le,
    lerp,
    lgamma,
    linspace,
    log,
    log1p,
    log2,
    log10,
    log_softmax,
    logcumsumexp,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    logsumexp,
    lt,
    manual_seed,
    masked_fill,
    masked_scatter,
    masked_select,
    matmul,
    max,
    maximum,
    mean,
    median,
    meshgrid,
    min,
    minimum,
    mm,
    mode,
    moveaxis,
    movedim,
    msort,
    mul,
    multinomial,
    multiply,
    mv,
    nan_to_num,
    nanmean,
    nanmedian,
    nanquantile,
    nansum,
    narrow,
    ne,
    neg,
    negative,
    nonzero,
    norm,
    normal,
    numel,
    ones,
    ones_like,
    outer,
    permute,
    poisson,
    polygamma,
    pow,
    prod,
    promote_types,
    put,
    quantile,
    rand,
    rand_like,
    randint,
    randint_like,
    randn,
    randn_like,
    randperm,
    reciprocal,
    relu,
    remainder,
    repeat_interleave,
    reshape,
    result_type,
    roll,
    rot90,
    round,
    rsqrt,
    scatter,
    scatter_add,
    scatter_reduce,
    searchsorted,
    seed,
    select,
    set_rng_state,
    sgn,
    sigmoid,
    sign,
    sin,
    sinh,
    softmax,
    sort,
    split,
    sqrt,
    square,
    squeeze,
    stack,
    std,
    std_mean,
    sub,
    subtract,
    sum,
    swapaxes,
    swapdims,
    t,
    take,
    take_along_dim,
    tanh,
    tensor,
    tensor_split,
    tensordot,
    tile,
    topk,
    transpose,
    tril,
    tril_indices,
    triu,
    triu_indices,
    true_divide,
    trunc,
    uint8,
    unbind,
    unflatten,
    unique,
    unique_consecutive,
    unsqueeze,
    var,
    var_mean,
    vdot,
    vstack,
    where,
    zeros,
    zeros_like,
)
from ._C import (
    _addmm_activation as _addmm_activation,  # PyTorch's private name; not in __all__
)
from ._C._nn import elu, gelu, hardtanh, leaky_relu, mish, silu, softplus
from ._defaults import (
    get_default_device,
    get_default_dtype,
    set_default_device,
    set_default_dtype,
)
from ._dtype_info import finfo, iinfo
from ._mapped_file import from_file  # noqa: E402
from ._memory_stats import detailed_memory_stats, memory_stats
from ._random import fork_rng
from ._size import Size
from ._tensor_protocols import tensor_array_ufunc as _tensor_array_ufunc
from ._tensor_protocols import tensor_contains as _tensor_contains
from ._tensor_str import (
    get_printoptions,
    printoptions,
    set_printoptions,
    tensor_repr,
)
from ._tensor_str import tensor_format as _tensor_format
from .autograd.grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    no_grad,
    set_grad_enabled,
)
from .memory_manager import empty_cache  # noqa: E402
from .memory_profiler import (  # noqa: E402
    check_memory_leaks,
    enable_memory_debugging,
    enable_memory_profiling,
)
from .serialization import load, save  # noqa: E402

__version__ = _C.__version__

# PyTorch's aliases.
half = float16
float = float32  # noqa: A001
double = float64
short = int16
int = int32  # noqa: A001
long = int64

Tensor.__repr__ = tensor_repr  # type: ignore[method-assign]
Tensor.__str__ = tensor_repr  # type: ignore[method-assign]
Tensor.__format__ = _tensor_format  # type: ignore[method-assign]
setattr(Tensor, "__contains__", _tensor_contains)  # noqa: B010  (x in t)
setattr(Tensor, "__array_ufunc__", _tensor_array_ufunc)  # noqa: B010  (NumPy ufuncs)
_C._set_size_type(Size)  # shape and size() return genesis.Size


def is_tensor(obj):
    """Returns True when ``obj`` is a genesis tensor.

    Args:
        obj: any object.

    Returns:
        bool: ``isinstance(obj, genesis.Tensor)``.

    Example::

        >>> genesis.is_tensor(genesis.zeros(2)), genesis.is_tensor([0.0, 0.0])
        (True, False)
    """
    return isinstance(obj, Tensor)


def inspect_storage(t):  # noqa: F811  (the parameter, not genesis.t)
    """Returns a dict that describes tensor ``t`` and the storage behind it, for debugging.

    Args:
        t (Tensor): the tensor.

    Returns:
        dict: ``shape``, ``dtype``, ``device``, ``size_bytes`` (of the whole storage),
        ``is_contiguous``, ``data_ptr`` (the storage's address as a hex string, None when
        empty), ``storage_offset`` and ``strides`` (in elements) and ``use_count`` (see
        ``UntypedStorage.use_count``).

    Example::

        >>> x = genesis.arange(12, dtype=genesis.float32).view(3, 4)
        >>> info = genesis.inspect_storage(x[1])
        >>> info["shape"], info["storage_offset"], info["strides"], info["size_bytes"]
        (genesis.Size([4]), 4, (1,), 48)
    """
    s = t.untyped_storage()
    return {
        "shape": t.shape,
        "dtype": t.dtype,
        "device": t.device,
        "size_bytes": s.nbytes(),
        "is_contiguous": t.is_contiguous(),
        "data_ptr": hex(s.data_ptr()) if s.data_ptr() else None,
        "storage_offset": t.storage_offset(),
        "strides": t.stride(),
        "use_count": s.use_count(),
    }


def build_info():
    """Returns how this genesis was built: its version and its CUDA backend.

    Returns:
        dict: ``version``; ``cuda_compiled`` (whether the CUDA backend is in this build);
        ``cuda_runtime`` (the CUDA runtime version as an int, None when not compiled or
        unknown); ``cuda_architectures`` (the GPU architectures compiled for, as strings such
        as ``"90"``; empty without CUDA).

    Example::

        >>> info = genesis.build_info()
        >>> info["version"] == genesis.__version__
        True
        >>> info["cuda_compiled"] == genesis.cuda.is_compiled()
        True
    """
    return {
        "version": __version__,
        "cuda_compiled": _C._cuda.is_compiled(),
        "cuda_runtime": _C._cuda.runtime_version() or None,
        "cuda_architectures": _C._cuda.architectures().split() if _C._cuda.is_compiled() else [],
    }


# ---- Public names -------------------------------------------------------------------------------
# Kept apart from the imports above so the two can change independently. pydoc (help(genesis))
# documents exactly these names, classes bound in genesis._C included, and hides everything else;
# tests/project/test_docstrings.py checks that the list and the module's public contents agree. The
# dtypes bool, int and float are left out so that `from genesis import *` keeps Python's types.
__all__ = [
    "enable_grad",
    "inference_mode",
    "is_grad_enabled",
    "no_grad",
    "set_grad_enabled",
    # classes
    "IndexKind",
    "IndexPath",
    "IndexPlan",
    "Tensor",
    "UntypedStorage",
    "addbmm",
    "addmm",
    "addmv",
    "baddbmm",
    "cdist",
    "cross",
    "device",
    "dot",
    "dtype",
    # dtypes and PyTorch's aliases for them
    "bfloat16",
    "double",
    "einsum",
    "float16",
    "float32",
    "float64",
    "half",
    "inner",
    "int8",
    "int16",
    "int32",
    "int64",
    "kron",
    "long",
    "mv",
    "outer",
    "short",
    "tensordot",
    "uint8",
    # creation and random numbers
    "arange",
    "empty",
    "empty_like",
    "eye",
    "from_dlpack",
    "from_numpy",
    "full",
    "full_like",
    "initial_seed",
    "linspace",
    "manual_seed",
    "ones",
    "ones_like",
    "rand",
    "rand_like",
    "randint",
    "randint_like",
    "randn",
    "randn_like",
    "seed",
    "tensor",
    "vdot",
    "zeros",
    "zeros_like",
    "as_tensor",
    "asarray",
    "can_cast",
    "is_floating_point",
    "is_nonzero",
    "numel",
    "finfo",
    "iinfo",
    "Size",
    "set_default_dtype",
    "get_default_dtype",
    "set_default_device",
    "get_default_device",
    # the index family
    "argwhere",
    "gather",
    "index_copy",
    "index_fill",
    "index_select",
    "masked_fill",
    "masked_scatter",
    "masked_select",
    "nonzero",
    "scatter",
    "take",
    "take_along_dim",
    # the accumulating index family
    "index_add",
    "index_put",
    "index_reduce",
    "put",
    "scatter_add",
    "scatter_reduce",
    # activations and elementwise composites
    "addcdiv",
    "addcmul",
    "allclose",
    "clamp_max",
    "clamp_min",
    "elu",
    "equal",
    "gelu",
    "hardtanh",
    "isclose",
    "leaky_relu",
    "lerp",
    "mish",
    "nan_to_num",
    "silu",
    "softplus",
    # elementwise math
    "abs",
    "floor",
    "ceil",
    "trunc",
    "fix",
    "frac",
    "sign",
    "sgn",
    "square",
    "reciprocal",
    "log1p",
    "expm1",
    "log2",
    "log10",
    "exp2",
    "erf",
    "erfc",
    "erfinv",
    "lgamma",
    "digamma",
    "polygamma",
    "sinh",
    "cosh",
    "asin",
    "arcsin",
    "acos",
    "arccos",
    "atan",
    "arctan",
    "asinh",
    "arcsinh",
    "acosh",
    "arccosh",
    "atanh",
    "arctanh",
    "round",
    "atan2",
    "arctan2",
    "hypot",
    "fmod",
    "copysign",
    "heaviside",
    "logical_and",
    "logical_or",
    "logical_xor",
    "bitwise_left_shift",
    "bitwise_right_shift",
    "isnan",
    "isinf",
    "isposinf",
    "isneginf",
    "isfinite",
    "add",
    "bitwise_and",
    "bitwise_not",
    "bitwise_or",
    "bitwise_xor",
    "clamp",
    "clip",
    "cos",
    "div",
    "divide",
    "eq",
    "exp",
    "floor_divide",
    "ge",
    "gt",
    "le",
    "log",
    "logical_not",
    "lt",
    "maximum",
    "minimum",
    "mul",
    "multiply",
    "ne",
    "neg",
    "negative",
    "pow",
    "promote_types",
    "relu",
    "remainder",
    "result_type",
    "rsqrt",
    "sigmoid",
    "sin",
    "sqrt",
    "sub",
    "subtract",
    "tanh",
    "true_divide",
    "where",
    # reductions
    "all",
    "any",
    "argmax",
    "argmin",
    "log_softmax",
    "max",
    "mean",
    "min",
    "prod",
    "softmax",
    "std",
    "sum",
    "var",
    "amax",
    "amin",
    "aminmax",
    "count_nonzero",
    "diff",
    "logsumexp",
    "nanmean",
    "nansum",
    "norm",
    "std_mean",
    "var_mean",
    # scans
    "cummax",
    "cummin",
    "cumprod",
    "cumsum",
    "logcumsumexp",
    # matrix products and joins
    "bmm",
    "cat",
    "concat",
    "concatenate",
    "matmul",
    "mm",
    "stack",
    # shapes, splits and rearrangements
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "broadcast_tensors",
    "broadcast_to",
    "chunk",
    "column_stack",
    "diagonal",
    "dstack",
    "flatten",
    "flip",
    "fliplr",
    "flipud",
    "hstack",
    "moveaxis",
    "movedim",
    "narrow",
    "permute",
    "reshape",
    "roll",
    "select",
    "split",
    "squeeze",
    "swapaxes",
    "swapdims",
    "t",
    "tensor_split",
    "transpose",
    "unbind",
    "unflatten",
    "unsqueeze",
    "vstack",
    "diag",
    "diag_embed",
    "expand_copy",
    "meshgrid",
    "repeat_interleave",
    "tile",
    "tril",
    "tril_indices",
    "triu",
    "triu_indices",
    # printing, memory and build information
    "build_info",
    "get_printoptions",
    "inspect_storage",
    "is_tensor",
    "memory_stats",
    "detailed_memory_stats",
    "empty_cache",
    "check_memory_leaks",
    "enable_memory_debugging",
    "enable_memory_profiling",
    "printoptions",
    "set_printoptions",
    "tensor_repr",
    # submodules
    "backends",
    "cuda",
    "linalg",
    "nn",
    "argsort",
    "bucketize",
    "kthvalue",
    "median",
    "mode",
    "msort",
    "nanmedian",
    "nanquantile",
    "quantile",
    "searchsorted",
    "sort",
    "topk",
    "unique",
    "unique_consecutive",
    "bincount",
    "histc",
    "histogram",
    "rot90",
    "Generator",
    "bernoulli",
    "get_rng_state",
    "multinomial",
    "normal",
    "poisson",
    "randperm",
    "set_rng_state",
    "fork_rng",
    "save",
    "load",
    "from_file",
]


def __getattr__(name):
    # genesis.distributed loads on first use (sockets, threads, the launcher: tens of ms that a
    # single-process program should not pay at import); `import genesis.distributed` works too.
    if name == "distributed":
        import importlib

        return importlib.import_module(".distributed", __name__)
    raise AttributeError(f"module 'genesis' has no attribute {name!r}")
