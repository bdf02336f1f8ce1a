"""The op table: one row for each op the compiled core binds (Note [The op table]).

A row says what a user can call and how: the op's name, its family (the binding file
``csrc/python/<family>.cpp`` and the docstrings ``genesis/_docs/<family>.py``), its forms, whether
it has a derivative, and the per-op habits of its binding. ``tools/generate_ops.py`` generates
from these rows:

- ``csrc/python/op_table.h``: the elementwise binding rows (``elementwise=``) and the habit lists
  that ``call_habits.cpp`` consults (``out=``, sizes keywords, factories, ``requires_grad=``);
- the op names ``genesis/__init__.py`` imports from the core and lists in ``__all__``;
- ``docs/ops.md``, the op index.

``tests/project/test_op_table.py`` checks that the rows and the built core agree (every public
function and method is a row's form, and every form a row names exists), that the generated files
are current, and that every op has forward tests and, if it has a derivative, gradient tests.

Fields:
    name: the function's name (for a method-only op, the method's; in-place-only ops keep the
        trailing underscore).
    family: the binding area.
    forms: ``function`` (``genesis.<name>``, or ``<module>.<name>``), ``method``
        (``Tensor.<name>``), ``inplace`` (``Tensor.<name>_``; for a module function,
        ``<module>.<name>_``), ``out`` (the function takes ``out=``).
    grad: ``formula`` (a derivative; aliases share their target's), ``none`` (the results carry
        no gradient: integer, bool or non-tensor results, factories, random draws without
        tensor parameters) or ``missing`` (float results whose backward raises "not
        implemented", as PyTorch's).
    module: ``genesis``, ``linalg`` (``genesis.linalg``) or ``nn.functional``.
    alias: the op this one is another name of (same code, same derivative).
    elementwise: ``unary <UnaryOp>`` or ``binary <BinaryOp> [<second argument's name>]``: the
        op is bound from a generated row in ``csrc/python/op_table.h`` (function, method,
        in-place method and ``out=`` as ``forms`` says).
    habits: ``factory`` (out= gives the dtype and device), ``requires_grad`` (the function takes
        PyTorch's ``requires_grad=``), ``method_requires_grad`` (the method does),
        ``out_needs_dim`` (out= only with a dim, as PyTorch), ``no_numpy_aliases`` (no
        ``axis=``/``x=`` aliases: PyTorch writes the op in Python), ``method_no_numpy_aliases``
        (the method only).
    sizes: PyTorch's keyword for sizes the binding takes as ``*args`` (``size``, ``shape``,
        ``dims``, ``repeats``).
    dtypes: the input dtypes the op takes on the CPU (on CUDA for a CUDA-only op): a class of
        DTYPE_CLASSES, stated on every row (``none`` for an op without tensor input). For an op
        of several tensors it is the dtype they all have (the data, not the int64 indices or
        bool masks beside it). An integer input of a float op computes in float32 and gives a
        float32 result (docs/user_guide.md, Math); any other dtype is refused with an ``[op]``
        TypeError or RuntimeError.
    devices: where the op's tensors (its inputs; a factory's results) may be: ``cpu``, ``cuda``
        (space-separated words; default both). On another device the op raises for every dtype.
    cuda_dtypes: the input dtypes the op takes on CUDA, when fewer than ``dtypes`` (a class of
        DTYPE_CLASSES within it; default ``dtypes``): integer products are refused on CUDA
        (cuBLAS multiplies floats only).
    tests/ops/test_op_dtypes.py calls every row (but the ``none`` ones) with each dtype on each
    device and checks that exactly the stated dtypes run.
"""

from __future__ import annotations

from typing import NamedTuple

FORMS = ("function", "method", "inplace", "out")
GRADS = ("formula", "none", "missing")
MODULES = ("genesis", "linalg", "nn.functional")
# The input dtypes an op takes (a row's dtypes= and cuda_dtypes=): one of these classes.
DTYPE_CLASSES = {
    # every dtype
    "all": ("bool", "uint8", "int8", "int16", "int32", "int64")
    + ("float16", "bfloat16", "float32", "float64"),
    # numbers: all but bool
    "numeric": ("uint8", "int8", "int16", "int32", "int64")
    + ("float16", "bfloat16", "float32", "float64"),
    # bool and the integers (the bitwise ops)
    "integral": ("bool", "uint8", "int8", "int16", "int32", "int64"),
    # the integers, not bool (shifts, bincount)
    "integer": ("uint8", "int8", "int16", "int32", "int64"),
    # the floating dtypes
    "float": ("float16", "bfloat16", "float32", "float64"),
    # float32 and float64, no half precision (LAPACK's dtypes, and PyTorch's for quantile and
    # histogram)
    "float32_64": ("float32", "float64"),
    # the dtypes NumPy has: all but bfloat16 (Tensor.numpy)
    "numpy": ("bool", "uint8", "int8", "int16", "int32", "int64")
    + ("float16", "float32", "float64"),
    # uint8 only: the generator's state bytes (set_rng_state)
    "uint8": ("uint8",),
    # takes no tensor input (factories, seeds, dtype queries): nothing to check
    "none": (),
}
DEVICES = ("cpu", "cuda")
HABITS = (
    "factory",
    "requires_grad",
    "method_requires_grad",
    "out_needs_dim",
    "no_numpy_aliases",
    "method_no_numpy_aliases",
)


# The op families csrc/python/module.cpp binds through the generated csrc/python/op_families.h,
# in this order: each one's binding file csrc/python/<family>.cpp defines
# init_<family>(py::module_& m, py::class_<Tensor>& cls), which the generated header declares and
# init_op_families calls. A new family is a name here (where its bindings may come: after the
# families it adds to) and its rows. The families of the rows not listed here are the Tensor's
# own machinery (tensor, convert, index, math, reduce, ...), which module.cpp binds by hand
# before the operator slots are installed.
BOUND_FAMILIES = (
    "join",
    "creation_helpers",
    "activation",
    "index_ops",
    "sort",
    "index_reduce",
    "reduce_composite",
    "scan",
    "products",  # adds linalg.cross to the _C._linalg submodule reduce_composite makes
    "linalg_decomp",  # genesis.linalg's decompositions, also in _C._linalg
    "shape_ops",
    "counting",
    "random",
    "generator",
    "resize",
)


class Op(NamedTuple):
    name: str
    family: str
    forms: frozenset[str]
    grad: str = "formula"
    module: str = "genesis"
    alias: str = ""
    elementwise: str = ""
    habits: frozenset[str] = frozenset()
    sizes: str = ""
    dtypes: str = ""
    devices: frozenset[str] = frozenset(DEVICES)
    cuda_dtypes: str = ""

    @property
    def qualified_name(self) -> str:
        return self.name if self.module == "genesis" else f"{self.module}.{self.name}"


def op(
    name: str,
    family: str,
    forms: str,
    grad: str = "formula",
    module: str = "genesis",
    alias: str = "",
    elementwise: str = "",
    habits: str = "",
    sizes: str = "",
    dtypes: str = "",
    devices: str = "cpu cuda",
    cuda_dtypes: str = "",
) -> Op:
    """A row; ``forms``, ``habits`` and ``devices`` are space-separated words."""
    row = Op(
        name,
        family,
        frozenset(forms.split()),
        grad,
        module,
        alias,
        elementwise,
        frozenset(habits.split()),
        sizes,
        dtypes,
        frozenset(devices.split()),
        cuda_dtypes or dtypes,
    )
    unknown = (row.forms - set(FORMS)) | (row.habits - set(HABITS)) | (row.devices - set(DEVICES))
    if unknown or grad not in GRADS or module not in MODULES or not row.devices:
        raise ValueError(f"op table: row {name!r} has an unknown word: {sorted(unknown)}")
    if dtypes not in DTYPE_CLASSES or row.cuda_dtypes not in DTYPE_CLASSES:
        raise ValueError(
            f"op table: row {name!r} states no dtypes class ({dtypes!r}, cuda {cuda_dtypes!r}): "
            f"one of {sorted(DTYPE_CLASSES)}, 'none' for an op without tensor input"
        )
    if not set(DTYPE_CLASSES[row.cuda_dtypes]) <= set(DTYPE_CLASSES[dtypes]):
        raise ValueError(f"op table: row {name!r}: cuda_dtypes must be within its dtypes")
    return row


# fmt: off
OPS: tuple[Op, ...] = (
    op("abs", "math", "function method inplace out", elementwise="unary Abs", dtypes="numeric"),
    op("absolute", "math", "function method inplace out", alias="abs", elementwise="unary Abs", dtypes="numeric"),
    op("acos", "math_functions", "function method inplace out", elementwise="unary Acos", dtypes="all"),
    op("acosh", "math_functions", "function method inplace out", elementwise="unary Acosh", dtypes="all"),
    op("add", "math", "function method inplace out", elementwise="binary Add", dtypes="all"),
    op("addbmm", "products", "function method inplace out", dtypes="numeric", cuda_dtypes="float"),
    op("addcdiv", "activation", "function method inplace out", dtypes="float"),
    op("addcmul", "activation", "function method inplace out", dtypes="all"),
    op("addmm", "products", "function method inplace out", dtypes="numeric", cuda_dtypes="float"),
    op("addmv", "products", "function method inplace out", dtypes="numeric", cuda_dtypes="float"),
    op("all", "reduce", "function method out", dtypes="all"),
    op("allclose", "activation", "function method", grad="none", dtypes="all"),
    op("amax", "reduce_composite", "function method out", dtypes="all"),
    op("amin", "reduce_composite", "function method out", dtypes="all"),
    op("aminmax", "reduce_composite", "function method out", dtypes="all"),
    op("any", "reduce", "function method out", dtypes="all"),
    op("arange", "creation", "function out", grad="none", habits="factory requires_grad", dtypes="none"),
    op("arccos", "math_functions", "function method inplace out", alias="acos", elementwise="unary Acos", dtypes="all"),
    op("arccosh", "math_functions", "function method inplace out", alias="acosh", elementwise="unary Acosh", dtypes="all"),
    op("arcsin", "math_functions", "function method inplace out", alias="asin", elementwise="unary Asin", dtypes="all"),
    op("arcsinh", "math_functions", "function method inplace out", alias="asinh", elementwise="unary Asinh", dtypes="all"),
    op("arctan", "math_functions", "function method inplace out", alias="atan", elementwise="unary Atan", dtypes="all"),
    op("arctan2", "math_functions", "function method inplace out", alias="atan2", elementwise="binary Atan2", dtypes="all"),
    op("arctanh", "math_functions", "function method inplace out", alias="atanh", elementwise="unary Atanh", dtypes="all"),
    op("argmax", "reduce", "function method out", grad="none", dtypes="all"),
    op("argmin", "reduce", "function method out", grad="none", dtypes="all"),
    op("argsort", "sort", "function method", grad="none", dtypes="all"),
    op("argwhere", "index_ops", "function method", grad="none", dtypes="all"),
    op("as_tensor", "creation_helpers", "function", grad="none", dtypes="all"),
    op("asarray", "creation_helpers", "function", grad="none", dtypes="all"),
    op("asin", "math_functions", "function method inplace out", elementwise="unary Asin", dtypes="all"),
    op("asinh", "math_functions", "function method inplace out", elementwise="unary Asinh", dtypes="all"),
    op("atan", "math_functions", "function method inplace out", elementwise="unary Atan", dtypes="all"),
    op("atan2", "math_functions", "function method inplace out", elementwise="binary Atan2", dtypes="all"),
    op("atanh", "math_functions", "function method inplace out", elementwise="unary Atanh", dtypes="all"),
    op("atleast_1d", "shape_ops", "function", dtypes="all"),
    op("atleast_2d", "shape_ops", "function", dtypes="all"),
    op("atleast_3d", "shape_ops", "function", dtypes="all"),
    op("backward", "autograd", "method", grad="none", dtypes="float"),
    op("baddbmm", "products", "function method inplace out", dtypes="numeric", cuda_dtypes="float"),
    op("bernoulli", "generator", "function method inplace", grad="none", dtypes="float"),
    op("bfloat16", "convert", "method", dtypes="all"),
    op("bincount", "counting", "function method", grad="none", dtypes="integer"),
    op("bitwise_and", "math", "function method inplace out", grad="none", elementwise="binary BitAnd", dtypes="integral"),
    op("bitwise_left_shift", "math_functions", "function method inplace out", grad="none", elementwise="binary ShiftLeft", dtypes="integer"),
    op("bitwise_not", "math", "function method inplace out", grad="none", elementwise="unary BitNot", dtypes="integral"),
    op("bitwise_or", "math", "function method inplace out", grad="none", elementwise="binary BitOr", dtypes="integral"),
    op("bitwise_right_shift", "math_functions", "function method inplace out", grad="none", elementwise="binary ShiftRight", dtypes="integer"),
    op("bitwise_xor", "math", "function method inplace out", grad="none", elementwise="binary BitXor", dtypes="integral"),
    op("bmm", "linalg", "function method out", dtypes="numeric", cuda_dtypes="float"),
    op("bool", "convert", "method", grad="none", dtypes="all"),
    op("broadcast_tensors", "shape_ops", "function", dtypes="all"),
    op("broadcast_to", "shape_ops", "function method", dtypes="all"),
    op("bucketize", "sort", "function out", grad="none", dtypes="all"),
    op("byte", "convert", "method", grad="none", dtypes="all"),
    op("can_cast", "creation_helpers", "function", grad="none", dtypes="none"),
    op("cat", "join", "function out", dtypes="all"),
    op("cauchy_", "generator", "method", grad="none", dtypes="float"),
    op("cdist", "products", "function", dtypes="float"),
    op("ceil", "math_functions", "function method inplace out", elementwise="unary Ceil", dtypes="numeric"),
    op("char", "convert", "method", grad="none", dtypes="all"),
    op("chunk", "shape_ops", "function method", dtypes="all"),
    op("clamp", "math", "function method inplace out", dtypes="all"),
    op("clamp_max", "activation", "function method inplace out", dtypes="all"),
    op("clamp_min", "activation", "function method inplace out", dtypes="all"),
    op("clip", "math", "function method inplace out", alias="clamp", dtypes="all"),
    op("clone", "convert", "method", dtypes="all"),
    op("column_stack", "shape_ops", "function out", dtypes="all"),
    op("concat", "join", "function out", alias="cat", dtypes="all"),
    op("concatenate", "join", "function out", alias="cat", dtypes="all"),
    op("contiguous", "convert", "method", dtypes="all"),
    op("copy_", "convert", "method", dtypes="all"),
    op("copysign", "math_functions", "function method inplace out", elementwise="binary Copysign", dtypes="all"),
    op("cos", "math", "function method inplace out", elementwise="unary Cos", dtypes="all"),
    op("cosh", "math_functions", "function method inplace out", elementwise="unary Cosh", dtypes="all"),
    op("count_nonzero", "reduce_composite", "function method", grad="none", dtypes="all"),
    op("cpu", "convert", "method", dtypes="all"),
    op("cross", "products", "function method out", dtypes="numeric"),
    op("cuda", "convert", "method", dtypes="all"),
    op("cummax", "scan", "function method out", dtypes="all"),
    op("cummin", "scan", "function method out", dtypes="all"),
    op("cumprod", "scan", "function method inplace out", dtypes="all"),
    op("cumsum", "scan", "function method inplace out", dtypes="all"),
    op("data_ptr", "tensor", "method", grad="none", dtypes="all"),
    op("detach", "autograd", "method inplace", grad="none", dtypes="all"),
    op("diag", "shape_ops", "function method out", dtypes="all"),
    op("diag_embed", "shape_ops", "function method", dtypes="all"),
    op("diagonal", "shape_ops", "function method", dtypes="all"),
    op("diff", "reduce_composite", "function method out", dtypes="all"),
    op("digamma", "math_functions", "function method inplace out", elementwise="unary Digamma", dtypes="all"),
    op("dim", "tensor", "method", grad="none", dtypes="all"),
    op("div", "math", "function method inplace out", dtypes="all"),
    op("divide", "math", "function method inplace out", alias="div", dtypes="all"),
    op("dot", "products", "function method out", dtypes="numeric", cuda_dtypes="float"),
    op("double", "convert", "method", dtypes="all"),
    op("dstack", "shape_ops", "function out", dtypes="all"),
    op("einsum", "products", "function", dtypes="numeric", cuda_dtypes="float"),  # contracting: an einsum without a shared subscript also takes bool (and integers on CUDA)
    op("element_size", "tensor", "method", grad="none", dtypes="all"),
    op("empty", "creation", "function out", grad="none", habits="factory requires_grad", sizes="size", dtypes="none"),
    op("empty_like", "creation", "function", grad="none", habits="requires_grad", dtypes="all"),
    op("eq", "math", "function method out", grad="none", elementwise="binary Eq", dtypes="all"),
    op("equal", "activation", "function method", grad="none", dtypes="all"),
    op("erf", "math_functions", "function method inplace out", elementwise="unary Erf", dtypes="all"),
    op("erfc", "math_functions", "function method inplace out", elementwise="unary Erfc", dtypes="all"),
    op("erfinv", "math_functions", "function method inplace out", elementwise="unary Erfinv", dtypes="all"),
    op("exp", "math", "function method inplace out", elementwise="unary Exp", dtypes="all"),
    op("exp2", "math_functions", "function method inplace out", elementwise="unary Exp2", dtypes="all"),
    op("expand", "tensor", "method", sizes="size", dtypes="all"),
    op("expand_as", "tensor", "method", dtypes="all"),
    op("expand_copy", "shape_ops", "function", dtypes="all"),
    op("expm1", "math_functions", "function method inplace out", elementwise="unary Expm1", dtypes="all"),
    op("exponential_", "generator", "method", grad="none", dtypes="float"),
    op("eye", "creation", "function out", grad="none", habits="factory requires_grad", dtypes="none"),
    op("fill_", "convert", "method", grad="none", dtypes="all"),
    op("fix", "math_functions", "function method inplace out", alias="trunc", elementwise="unary Trunc", dtypes="numeric"),
    op("flatten", "tensor", "function method", dtypes="all"),
    op("flip", "shape_ops", "function method", sizes="dims", dtypes="all"),
    op("fliplr", "shape_ops", "function method", dtypes="all"),
    op("flipud", "shape_ops", "function method", dtypes="all"),
    op("float", "convert", "method", dtypes="all"),
    op("floor", "math_functions", "function method inplace out", elementwise="unary Floor", dtypes="numeric"),
    op("floor_divide", "math", "function method inplace out", elementwise="binary FloorDiv", dtypes="numeric"),
    op("fmod", "math_functions", "function method inplace out", elementwise="binary Fmod", dtypes="numeric"),
    op("frac", "math_functions", "function method inplace out", elementwise="unary Frac", dtypes="float"),
    op("from_dlpack", "dlpack", "function", dtypes="all"),
    op("from_numpy", "numpy", "function", dtypes="none", devices="cpu"),
    op("full", "creation", "function out", grad="none", habits="factory requires_grad", dtypes="none"),
    op("full_like", "creation", "function", grad="none", habits="requires_grad", dtypes="all"),
    op("gather", "index_ops", "function method out", dtypes="all"),
    op("ge", "math", "function method out", grad="none", elementwise="binary Ge", dtypes="all"),
    op("geometric_", "generator", "method", grad="none", dtypes="all"),
    op("get_rng_state", "generator", "function", grad="none", dtypes="none", devices="cpu"),
    op("greater", "math", "function method out", grad="none", alias="gt", elementwise="binary Gt", dtypes="all"),
    op("greater_equal", "math", "function method out", grad="none", alias="ge", elementwise="binary Ge", dtypes="all"),
    op("gt", "math", "function method out", grad="none", elementwise="binary Gt", dtypes="all"),
    op("half", "convert", "method", dtypes="all"),
    op("heaviside", "math_functions", "function method inplace out", grad="missing", elementwise="binary Heaviside values", dtypes="all"),
    op("histc", "counting", "function method out", grad="none", dtypes="float"),
    op("histogram", "counting", "function method", grad="missing", dtypes="float32_64"),
    op("hstack", "shape_ops", "function out", dtypes="all"),
    op("hypot", "math_functions", "function method inplace out", elementwise="binary Hypot", dtypes="float"),
    op("index_add", "index_reduce", "function method inplace out", dtypes="all"),
    op("index_copy", "index_ops", "function method inplace", dtypes="all"),
    op("index_fill", "index_ops", "function method inplace", dtypes="all"),
    op("index_put", "index_reduce", "function method inplace", dtypes="all"),
    op("index_reduce", "index_reduce", "function method inplace out", dtypes="numeric"),
    op("index_select", "index_ops", "function method out", dtypes="all"),
    op("initial_seed", "random", "function", grad="none", dtypes="none"),
    op("inner", "products", "function method out", dtypes="numeric", cuda_dtypes="float"),
    op("int", "convert", "method", grad="none", dtypes="all"),
    op("is_contiguous", "tensor", "method", grad="none", dtypes="all"),
    op("is_floating_point", "creation_helpers", "function method", grad="none", dtypes="all"),
    op("is_nonzero", "creation_helpers", "function method", grad="none", dtypes="all"),
    op("is_pinned", "convert", "method", grad="none", dtypes="all"),
    op("is_shared", "shared_memory", "method", grad="none", dtypes="all"),
    op("isclose", "activation", "function method", grad="none", dtypes="all"),
    op("isfinite", "math_functions", "function method", grad="none", dtypes="all"),
    op("isinf", "math_functions", "function method", grad="none", dtypes="all"),
    op("isnan", "math_functions", "function method", grad="none", dtypes="all"),
    op("isneginf", "math_functions", "function method out", grad="none", dtypes="all"),
    op("isposinf", "math_functions", "function method out", grad="none", dtypes="all"),
    op("item", "convert", "method", grad="none", dtypes="all"),
    op("kron", "products", "function method out", dtypes="all"),
    op("kthvalue", "sort", "function method out", dtypes="all"),
    op("le", "math", "function method out", grad="none", elementwise="binary Le", dtypes="all"),
    op("lerp", "activation", "function method inplace out", dtypes="float"),
    op("less", "math", "function method out", grad="none", alias="lt", elementwise="binary Lt", dtypes="all"),
    op("less_equal", "math", "function method out", grad="none", alias="le", elementwise="binary Le", dtypes="all"),
    op("lgamma", "math_functions", "function method inplace out", elementwise="unary Lgamma", dtypes="all"),
    op("linspace", "creation", "function out", grad="none", habits="factory requires_grad", dtypes="none"),
    op("log", "math", "function method inplace out", elementwise="unary Log", dtypes="all"),
    op("log10", "math_functions", "function method inplace out", elementwise="unary Log10", dtypes="all"),
    op("log1p", "math_functions", "function method inplace out", elementwise="unary Log1p", dtypes="all"),
    op("log2", "math_functions", "function method inplace out", elementwise="unary Log2", dtypes="all"),
    op("log_normal_", "generator", "method", grad="none", dtypes="float"),
    op("log_softmax", "reduce", "function method out", dtypes="float"),
    op("logcumsumexp", "scan", "function method out", dtypes="float"),
    op("logical_and", "math_functions", "function method inplace out", grad="none", elementwise="binary LogicalAnd", dtypes="all"),
    op("logical_not", "math", "function method inplace out", grad="none", dtypes="all"),
    op("logical_or", "math_functions", "function method inplace out", grad="none", elementwise="binary LogicalOr", dtypes="all"),
    op("logical_xor", "math_functions", "function method inplace out", grad="none", elementwise="binary LogicalXor", dtypes="all"),
    op("logsumexp", "reduce_composite", "function method out", dtypes="all"),
    op("long", "convert", "method", grad="none", dtypes="all"),
    op("lt", "math", "function method out", grad="none", elementwise="binary Lt", dtypes="all"),
    op("manual_seed", "random", "function", grad="none", dtypes="none"),
    op("masked_fill", "index_ops", "function method inplace", dtypes="all"),
    op("masked_scatter", "index_ops", "function method inplace", dtypes="all"),
    op("masked_select", "index_ops", "function method out", dtypes="all"),
    op("matmul", "linalg", "function method out", dtypes="numeric", cuda_dtypes="float"),
    op("max", "reduce", "function method out", dtypes="all"),
    op("maximum", "math", "function method out", elementwise="binary Maximum", dtypes="all"),
    op("mean", "reduce", "function method out", dtypes="float"),
    op("median", "sort", "function method out", habits="out_needs_dim", dtypes="all"),
    op("meshgrid", "shape_ops", "function", grad="missing", dtypes="all"),
    op("min", "reduce", "function method out", dtypes="all"),
    op("minimum", "math", "function method out", elementwise="binary Minimum", dtypes="all"),
    op("mm", "linalg", "function method out", dtypes="numeric", cuda_dtypes="float"),
    op("mode", "sort", "function method out", dtypes="all"),
    op("moveaxis", "shape_ops", "function method", alias="movedim", dtypes="all"),
    op("movedim", "shape_ops", "function method", dtypes="all"),
    op("msort", "sort", "function method out", dtypes="all"),
    op("mul", "math", "function method inplace out", elementwise="binary Mul", dtypes="all"),
    op("multinomial", "generator", "function method out", grad="none", dtypes="float"),
    op("multiply", "math", "function method inplace out", alias="mul", elementwise="binary Mul", dtypes="all"),
    op("mv", "products", "function method out", dtypes="numeric", cuda_dtypes="float"),
    op("nan_to_num", "activation", "function method inplace out", dtypes="all"),
    op("nanmean", "reduce_composite", "function method out", dtypes="float"),
    op("nanmedian", "sort", "function method out", habits="out_needs_dim", dtypes="all"),
    op("nanquantile", "sort", "function method out", dtypes="float32_64"),
    op("nansum", "reduce_composite", "function method out", dtypes="all"),
    op("narrow", "tensor", "function method", dtypes="all"),
    op("ne", "math", "function method out", grad="none", elementwise="binary Ne", dtypes="all"),
    op("neg", "math", "function method inplace out", elementwise="unary Neg", dtypes="numeric"),
    op("negative", "math", "function method inplace out", alias="neg", elementwise="unary Neg", dtypes="numeric"),
    op("new_empty", "creation_helpers", "method", grad="none", habits="method_requires_grad", sizes="size", dtypes="all"),
    op("new_full", "creation_helpers", "method", grad="none", habits="method_requires_grad", dtypes="all"),
    op("new_ones", "creation_helpers", "method", grad="none", habits="method_requires_grad", sizes="size", dtypes="all"),
    op("new_tensor", "creation_helpers", "method", grad="none", habits="method_requires_grad", dtypes="all"),
    op("new_zeros", "creation_helpers", "method", grad="none", habits="method_requires_grad", sizes="size", dtypes="all"),
    op("nonzero", "index_ops", "function method out", grad="none", dtypes="all"),
    op("norm", "reduce_composite", "function method out", habits="no_numpy_aliases", dtypes="float"),
    op("normal", "generator", "function inplace out", habits="requires_grad", dtypes="all"),
    op("not_equal", "math", "function method out", grad="none", alias="ne", elementwise="binary Ne", dtypes="all"),
    op("numel", "creation_helpers", "function method", grad="none", dtypes="all"),
    op("numpy", "numpy", "method", grad="none", dtypes="numpy", devices="cpu"),
    op("ones", "creation", "function out", grad="none", habits="factory requires_grad", sizes="size", dtypes="none"),
    op("ones_like", "creation", "function", grad="none", habits="requires_grad", dtypes="all"),
    op("outer", "products", "function method out", dtypes="all"),
    op("permute", "tensor", "function method", sizes="dims", dtypes="all"),
    op("pin_memory", "convert", "method", grad="none", dtypes="all", devices="cpu"),
    op("poisson", "generator", "function", dtypes="float"),
    op("polygamma", "math_functions", "function method inplace out", dtypes="all"),
    op("pow", "math", "function method inplace out", elementwise="binary Pow", dtypes="numeric"),
    op("prod", "reduce", "function method out", habits="out_needs_dim", dtypes="all"),
    op("promote_types", "dtype", "function", grad="none", dtypes="none"),
    op("put", "index_reduce", "function method inplace", dtypes="all"),
    op("quantile", "sort", "function method out", dtypes="float32_64"),
    op("rand", "random", "function out", grad="none", habits="factory requires_grad", sizes="size", dtypes="none"),
    op("rand_like", "random", "function", grad="none", habits="requires_grad", dtypes="float"),
    op("randint", "random", "function out", grad="none", habits="factory requires_grad", dtypes="none"),
    op("randint_like", "random", "function", grad="none", habits="requires_grad", dtypes="numeric"),
    op("randn", "random", "function out", grad="none", habits="factory requires_grad", sizes="size", dtypes="none"),
    op("randn_like", "random", "function", grad="none", habits="requires_grad", dtypes="float"),
    op("random_", "generator", "method", grad="none", dtypes="all"),
    op("randperm", "generator", "function out", grad="none", habits="factory requires_grad", dtypes="none"),
    op("reciprocal", "math_functions", "function method inplace out", elementwise="unary Reciprocal", dtypes="all"),
    op("record_stream", "convert", "method", grad="none", dtypes="all", devices="cuda"),
    op("register_hook", "autograd", "method", grad="none", dtypes="float"),
    op("register_post_accumulate_grad_hook", "autograd", "method", grad="none", dtypes="float"),
    op("relu", "math", "function method inplace", elementwise="unary Relu", dtypes="numeric"),
    op("remainder", "math", "function method inplace out", elementwise="binary Rem", dtypes="numeric"),
    op("repeat", "shape_ops", "method", sizes="repeats", dtypes="all"),
    op("repeat_interleave", "shape_ops", "function method", dtypes="all"),
    op("requires_grad_", "autograd", "method", grad="none", dtypes="float"),
    op("reshape", "tensor", "function method", sizes="shape", dtypes="all"),
    op("reshape_as", "tensor", "method", dtypes="all"),
    op("resize_", "resize", "method", grad="none", sizes="size", dtypes="all"),
    op("result_type", "math", "function", grad="none", dtypes="all"),
    op("retain_grad", "autograd", "method", grad="none", dtypes="float"),
    op("roll", "shape_ops", "function method", dtypes="all"),
    op("rot90", "shape_ops", "function method", dtypes="all"),
    op("round", "math_functions", "function method inplace out", dtypes="numeric"),
    op("rsqrt", "math", "function method inplace out", elementwise="unary Rsqrt", dtypes="all"),
    op("scatter", "index_ops", "function method inplace out", dtypes="all"),
    op("scatter_add", "index_reduce", "function method inplace out", dtypes="all"),
    op("scatter_reduce", "index_reduce", "function method inplace out", dtypes="all"),
    op("searchsorted", "sort", "function out", grad="none", dtypes="all"),
    op("seed", "random", "function", grad="none", dtypes="none"),
    op("select", "tensor", "function method", dtypes="all"),
    op("set_rng_state", "generator", "function", grad="none", dtypes="uint8", devices="cpu"),
    op("sgn", "math_functions", "function method inplace out", alias="sign", elementwise="unary Sign", dtypes="all"),
    op("share_memory_", "shared_memory", "method", grad="none", dtypes="all"),
    op("short", "convert", "method", grad="none", dtypes="all"),
    op("sigmoid", "math", "function method inplace out", elementwise="unary Sigmoid", dtypes="all"),
    op("sign", "math_functions", "function method inplace out", elementwise="unary Sign", dtypes="all"),
    op("sin", "math", "function method inplace out", elementwise="unary Sin", dtypes="all"),
    op("sinh", "math_functions", "function method inplace out", elementwise="unary Sinh", dtypes="all"),
    op("size", "tensor", "method", grad="none", dtypes="all"),
    op("softmax", "reduce", "function method out", dtypes="float"),
    op("sort", "sort", "function method out", dtypes="all"),
    op("split", "shape_ops", "function method", habits="no_numpy_aliases", dtypes="all"),
    op("sqrt", "math", "function method inplace out", elementwise="unary Sqrt", dtypes="all"),
    op("square", "math_functions", "function method inplace out", elementwise="unary Square", dtypes="all"),
    op("squeeze", "tensor", "function method", dtypes="all"),
    op("stack", "join", "function out", dtypes="all"),
    op("std", "reduce", "function method out", dtypes="float"),
    op("std_mean", "reduce_composite", "function", dtypes="float"),
    op("storage_offset", "tensor", "method", grad="none", dtypes="all"),
    op("stride", "tensor", "method", grad="none", dtypes="all"),
    op("sub", "math", "function method inplace out", elementwise="binary Sub", dtypes="numeric"),
    op("subtract", "math", "function method inplace out", alias="sub", elementwise="binary Sub", dtypes="numeric"),
    op("sum", "reduce", "function method out", habits="out_needs_dim", dtypes="all"),
    op("swapaxes", "shape_ops", "function method", alias="transpose", dtypes="all"),
    op("swapdims", "shape_ops", "function method", alias="transpose", dtypes="all"),
    op("t", "tensor", "function method", dtypes="all"),
    op("take", "index_ops", "function method out", dtypes="all"),
    op("take_along_dim", "index_ops", "function method out", dtypes="all"),
    op("tanh", "math", "function method inplace out", elementwise="unary Tanh", dtypes="all"),
    op("tensor", "creation", "function", grad="none", habits="requires_grad", dtypes="all"),
    op("tensor_split", "shape_ops", "function method", dtypes="all"),
    op("tensordot", "products", "function out", dtypes="numeric", cuda_dtypes="float"),
    op("tile", "shape_ops", "function method", sizes="dims", dtypes="all"),
    op("to", "convert", "method", dtypes="all"),
    op("tolist", "convert", "method", grad="none", dtypes="all"),
    op("topk", "sort", "function method out", dtypes="all"),
    op("transpose", "tensor", "function method", dtypes="all"),
    op("tril", "shape_ops", "function method inplace out", dtypes="all"),
    op("tril_indices", "shape_ops", "function", grad="none", dtypes="none"),
    op("triu", "shape_ops", "function method inplace out", dtypes="all"),
    op("triu_indices", "shape_ops", "function", grad="none", dtypes="none"),
    op("true_divide", "math", "function method inplace out", alias="div", elementwise="binary Div", dtypes="all"),
    op("trunc", "math_functions", "function method inplace out", elementwise="unary Trunc", dtypes="numeric"),
    op("type", "convert", "method", grad="none", dtypes="all"),
    op("type_as", "creation_helpers", "method", dtypes="all"),
    op("unbind", "shape_ops", "function method", dtypes="all"),
    op("unflatten", "shape_ops", "function method", habits="method_no_numpy_aliases", dtypes="all"),
    op("unfold", "shape_ops", "method", dtypes="all"),
    op("uniform_", "generator", "method", grad="none", dtypes="float"),
    op("unique", "sort", "function method", grad="missing", habits="no_numpy_aliases", dtypes="all"),
    op("unique_consecutive", "sort", "function method", grad="missing", habits="no_numpy_aliases", dtypes="all"),
    op("unsqueeze", "tensor", "function method", dtypes="all"),
    op("untyped_storage", "tensor", "method", grad="none", dtypes="all"),
    op("var", "reduce", "function method out", dtypes="float"),
    op("var_mean", "reduce_composite", "function", dtypes="float"),
    op("vdot", "products", "function method out", dtypes="numeric", cuda_dtypes="float"),
    op("view", "tensor", "method", sizes="size", dtypes="all"),
    op("view_as", "tensor", "method", dtypes="all"),
    op("vstack", "shape_ops", "function out", dtypes="all"),
    op("where", "math", "function method out", dtypes="all"),
    op("zero_", "convert", "method", grad="none", dtypes="all"),
    op("zeros", "creation", "function out", grad="none", habits="factory requires_grad", sizes="size", dtypes="none"),
    op("zeros_like", "creation", "function", grad="none", habits="requires_grad", dtypes="all"),
    op("cholesky", "linalg_decomp", "function out", module="linalg", dtypes="float32_64"),
    op("cross", "products", "function out", module="linalg", dtypes="numeric"),
    op("det", "linalg_decomp", "function out", module="linalg", dtypes="float32_64"),
    op("eigh", "linalg_decomp", "function out", module="linalg", dtypes="float32_64"),
    op("eigvalsh", "linalg_decomp", "function out", module="linalg", dtypes="float32_64"),
    op("inv", "linalg_decomp", "function out", module="linalg", dtypes="float32_64"),
    op("matrix_norm", "reduce_composite", "function out", module="linalg", dtypes="float"),
    op("norm", "reduce_composite", "function out", module="linalg", dtypes="float"),
    op("qr", "linalg_decomp", "function out", module="linalg", dtypes="float32_64"),
    op("slogdet", "linalg_decomp", "function out", module="linalg", dtypes="float32_64"),
    op("solve", "linalg_decomp", "function out", module="linalg", dtypes="float32_64"),
    op("svd", "linalg_decomp", "function out", module="linalg", dtypes="float32_64"),
    op("svdvals", "linalg_decomp", "function out", module="linalg", dtypes="float32_64"),
    op("vector_norm", "reduce_composite", "function out", module="linalg", dtypes="float"),
    op("elu", "activation", "function inplace", module="nn.functional", dtypes="float"),
    op("gelu", "activation", "function", module="nn.functional", dtypes="float"),
    op("hardtanh", "activation", "function inplace", module="nn.functional", dtypes="numeric"),
    op("leaky_relu", "activation", "function inplace", module="nn.functional", dtypes="float"),
    op("mish", "activation", "function", module="nn.functional", dtypes="float"),
    op("relu", "activation", "function", module="nn.functional", dtypes="numeric"),
    op("silu", "activation", "function", module="nn.functional", dtypes="float"),
    op("softplus", "activation", "function", module="nn.functional", dtypes="float"),
)
# fmt: on


# ---- The elementwise op codes ------------------------------------------------------------------
# The codes the front end passes to the CPU loops and the CUDA launchers (ops::UnaryOp and
# ops::BinaryOp), in the enums' order: op_codes.h tests ranges of it (is_floating_only from Exp,
# refuses_integers from Frac, is_comparison Eq .. LogicalXor ...), so a code goes beside its kind.
# Each code's functor is math::<name> (vocab/math_functors.h). Generated from these rows:
# csrc/vocab/elementwise_codes.h (the X-macro lists behind the enums and the dispatch switches)
# and csrc/autograd/elementwise_derivatives.inc (each code's backward node name and, for the
# unary codes, its derivative: a C++ expression of g (the incoming gradient), x (the input), z
# (the output) and n (the node), with what it saves; no derivative: backward raises "not
# implemented"). The binary derivatives are written in csrc/autograd/elementwise.cpp.


class Code(NamedTuple):
    name: str
    backward: str = ""
    derivative: str = ""
    saves: frozenset[str] = frozenset()
    note: str = ""


def unary_code(
    name: str, backward: str = "", derivative: str = "", saves: str = "", note: str = ""
) -> Code:
    row = Code(name, backward, derivative, frozenset(saves.split()), note)
    if not row.saves <= {"input", "output"} or (row.derivative and not row.backward):
        raise ValueError(f"op table: code {name!r}: saves input/output, a derivative a name")
    return row


def binary_code(name: str, backward: str = "", note: str = "") -> Code:
    return Code(name, backward, note=note)


# fmt: off
UNARY_CODES: tuple[Code, ...] = (
    unary_code("Neg", backward="NegBackward0", derivative="neg(g)"),
    unary_code("Abs", backward="AbsBackward0", derivative="mul(g, u(UnaryOp::Sign, x))", saves="input"),
    unary_code("Relu", backward="ReluBackward0", derivative="relu_backward(g, z)", saves="output"),
    unary_code("BitNot"),
    unary_code("Floor", backward="FloorBackward0", derivative="zeros_like_info(n.input_info[0])", note="Floor .. Trunc: an integer input is returned as it is"),
    unary_code("Ceil", backward="CeilBackward0", derivative="zeros_like_info(n.input_info[0])"),
    unary_code("Round", backward="RoundBackward0", derivative="zeros_like_info(n.input_info[0])", note="half to even, as PyTorch and NumPy"),
    unary_code("Trunc", backward="TruncBackward0", derivative="zeros_like_info(n.input_info[0])"),
    unary_code("Sign", backward="SignBackward0", derivative="zeros_like_info(n.input_info[0])", note="bool too: sign(True) is True"),
    unary_code("Square", backward="PowBackward0", derivative="mul(g, mul(x, num(2.0)))", saves="input", note="a bool input computes in int64 (PyTorch's pow(x, 2))"),
    unary_code("Exp", backward="ExpBackward0", derivative="mul(g, z)", saves="output", note="from here on: floating dtypes only (integers and bool compute in float32)"),
    unary_code("Log", backward="LogBackward0", derivative="div(g, x)", saves="input"),
    unary_code("Sqrt", backward="SqrtBackward0", derivative="div(g, mul(z, num(2.0)))", saves="output"),
    unary_code("Rsqrt", backward="RsqrtBackward0", derivative="mul(g, mul(mul(z, mul(z, z)), num(-0.5)))", saves="output"),
    unary_code("Sin", backward="SinBackward0", derivative="mul(g, u(UnaryOp::Cos, x))", saves="input"),
    unary_code("Cos", backward="CosBackward0", derivative="neg(mul(g, u(UnaryOp::Sin, x)))", saves="input"),
    unary_code("Tanh", backward="TanhBackward0", derivative="mul(g, sub(num(1.0), mul(z, z)))", saves="output"),
    unary_code("Sigmoid", backward="SigmoidBackward0", derivative="mul(g, mul(z, sub(num(1.0), z)))", saves="output"),
    unary_code("Reciprocal", backward="ReciprocalBackward0", derivative="neg(mul(g, mul(z, z)))", saves="output"),
    unary_code("Log1p", backward="Log1PBackward0", derivative="div(g, add(x, num(1.0)))", saves="input"),
    unary_code("Expm1", backward="Expm1Backward0", derivative="mul(g, add(z, num(1.0)))", saves="output"),
    unary_code("Log2", backward="Log2Backward0", derivative="div(g, mul(x, num(std::log(2.0))))", saves="input"),
    unary_code("Log10", backward="Log10Backward0", derivative="div(g, mul(x, num(std::log(10.0))))", saves="input"),
    unary_code("Exp2", backward="Exp2Backward0", derivative="mul(g, mul(z, num(std::log(2.0))))", saves="output"),
    unary_code("Erf", backward="ErfBackward0", derivative="mul(g, erf_slope(x))", saves="input"),
    unary_code("Erfc", backward="ErfcBackward0", derivative="neg(mul(g, erf_slope(x)))", saves="input"),
    unary_code("Erfinv", backward="ErfinvBackward0", derivative="mul(g, mul(u(UnaryOp::Exp, mul(z, z)), num(std::sqrt(kPi) / 2.0)))", saves="output"),
    unary_code("Lgamma", backward="LgammaBackward0", derivative="mul(g, u(UnaryOp::Digamma, x))", saves="input"),
    unary_code("Digamma", backward="DigammaBackward0", derivative="mul(g, polygamma_of(x, Operand(Scalar(int64_t{0})), 1))", saves="input"),
    unary_code("Sinh", backward="SinhBackward0", derivative="mul(g, u(UnaryOp::Cosh, x))", saves="input"),
    unary_code("Cosh", backward="CoshBackward0", derivative="mul(g, u(UnaryOp::Sinh, x))", saves="input"),
    unary_code("Asin", backward="AsinBackward0", derivative="div(g, u(UnaryOp::Sqrt, sub(num(1.0), mul(x, x))))", saves="input"),
    unary_code("Acos", backward="AcosBackward0", derivative="neg(div(g, u(UnaryOp::Sqrt, sub(num(1.0), mul(x, x)))))", saves="input"),
    unary_code("Atan", backward="AtanBackward0", derivative="div(g, add(mul(x, x), num(1.0)))", saves="input"),
    unary_code("Asinh", backward="AsinhBackward0", derivative="div(g, u(UnaryOp::Sqrt, add(mul(x, x), num(1.0))))", saves="input"),
    unary_code("Acosh", backward="AcoshBackward0", derivative="div(g, u(UnaryOp::Sqrt, sub(mul(x, x), num(1.0))))", saves="input"),
    unary_code("Atanh", backward="AtanhBackward0", derivative="div(g, sub(num(1.0), mul(x, x)))", saves="input"),
    unary_code("Frac", backward="FracBackward0", derivative="g", note="from here on: floating dtypes only, and integers are refused (PyTorch has no kernel)"),
    unary_code("Silu", backward="SiluBackward0", derivative="activation_backward(BinaryOp::SiluBackward, g, x)", saves="input", note="the activations with their default parameters (Note [Activations]):"),
    unary_code("Gelu", backward="GeluBackward0", derivative="activation_backward(BinaryOp::GeluBackward, g, x)", saves="input", note="gelu(approximate='none')"),
    unary_code("GeluTanh", backward="GeluBackward0", derivative="activation_backward(BinaryOp::GeluTanhBackward, g, x)", saves="input", note="gelu(approximate='tanh')"),
    unary_code("Mish", backward="MishBackward0", derivative="mul(g, mish_slope(x))", saves="input"),
    unary_code("Softplus", backward="SoftplusBackward0", derivative="softplus_backward(g, x)", saves="input", note="softplus(beta=1, threshold=20)"),
    unary_code("Elu", backward="EluBackward0", derivative="elu_backward(g, x, z)", saves="input output", note="elu(alpha=1)"),
)
# fmt: on

# fmt: off
BINARY_CODES: tuple[Code, ...] = (
    binary_code("Add", backward="AddBackward0"),
    binary_code("Sub", backward="SubBackward0"),
    binary_code("Mul", backward="MulBackward0"),
    binary_code("Div", backward="DivBackward0", note="true division (floating dtypes only)"),
    binary_code("TruncDiv", backward="DivBackward1", note="rounding_mode='trunc'"),
    binary_code("FloorDiv", backward="FloorDivideBackward0", note="// and rounding_mode='floor'"),
    binary_code("Rem", backward="RemainderBackward0", note="% : the sign of the divisor, as Python and PyTorch"),
    binary_code("Pow", backward="PowBackward0"),
    binary_code("Maximum", backward="MaximumBackward0"),
    binary_code("Minimum", backward="MinimumBackward0"),
    binary_code("Fmod", backward="FmodBackward0", note="the sign of the dividend (C's fmod); x fmod 0 is 0 for integers, as Rem"),
    binary_code("Heaviside", backward="NotImplemented", note="same dtypes only, as PyTorch"),
    binary_code("Atan2", backward="Atan2Backward0", note="Atan2 .. Polygamma: floating results (Atan2, Copysign promote integers to float32)"),
    binary_code("Copysign", backward="CopysignBackward0"),
    binary_code("Hypot", backward="HypotBackward0", note="floating dtypes only"),
    binary_code("Polygamma", backward="PolygammaBackward0", note="polygamma(n, x) as (x, n): n a non-negative integer (Note [Polygamma])"),
    binary_code("Eq"),
    binary_code("Ne"),
    binary_code("Lt"),
    binary_code("Le"),
    binary_code("Gt"),
    binary_code("Ge"),
    binary_code("LogicalAnd", note="LogicalAnd .. LogicalXor: bool results, like the comparisons"),
    binary_code("LogicalOr"),
    binary_code("LogicalXor"),
    binary_code("BitAnd"),
    binary_code("BitOr"),
    binary_code("BitXor"),
    binary_code("ShiftLeft", note="shifts by a negative amount or past the width give 0 (or the sign, right)"),
    binary_code("ShiftRight"),
    binary_code("ReluBackward", note="internal (relu's backward in one pass): 0 where b <= 0, else a; floats only"),
    binary_code("SiluBackward", note="internal, SiluBackward .. GeluTanhBackward: the activation's gradient a * f'(b) in one pass (Note [Fused activation backward]); floats only"),
    binary_code("GeluBackward"),
    binary_code("GeluTanhBackward"),
)
# fmt: on


def rows(module: str | None = None) -> tuple[Op, ...]:
    """The rows, or those of one module."""
    return OPS if module is None else tuple(r for r in OPS if r.module == module)
