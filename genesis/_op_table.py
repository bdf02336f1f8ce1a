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
    dtypes: the input dtypes the op takes (a class of DTYPE_CLASSES: all, numeric, integral,
        integer, float); stated for the elementwise rows. An integer input of a float op
        computes in float32 and gives a float32 result (docs/user_guide.md, Math).
"""

from __future__ import annotations

from typing import NamedTuple

FORMS = ("function", "method", "inplace", "out")
GRADS = ("formula", "none", "missing")
MODULES = ("genesis", "linalg", "nn.functional")
# The input dtypes an op takes, for the rows that state them (the elementwise rows):
# "" (not stated), or one of these classes.
DTYPE_CLASSES = {
    "": (),
    "all": ("bool", "uint8", "int8", "int16", "int32", "int64")
    + ("float16", "bfloat16", "float32", "float64"),
    "numeric": ("uint8", "int8", "int16", "int32", "int64")
    + ("float16", "bfloat16", "float32", "float64"),
    "integral": ("bool", "uint8", "int8", "int16", "int32", "int64"),
    "integer": ("uint8", "int8", "int16", "int32", "int64"),
    "float": ("float16", "bfloat16", "float32", "float64"),
}
HABITS = (
    "factory",
    "requires_grad",
    "method_requires_grad",
    "out_needs_dim",
    "no_numpy_aliases",
    "method_no_numpy_aliases",
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
) -> Op:
    """A row; ``forms`` and ``habits`` are space-separated words."""
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
    )
    unknown = (row.forms - set(FORMS)) | (row.habits - set(HABITS))
    if unknown or grad not in GRADS or module not in MODULES or dtypes not in DTYPE_CLASSES:
        raise ValueError(f"op table: row {name!r} has an unknown word: {sorted(unknown)}")
    return row


# fmt: off
OPS: tuple[Op, ...] = (
    op("abs", "math", "function method inplace out", elementwise="unary Abs", dtypes="numeric"),
    op("absolute", "math", "function method inplace out", alias="abs", elementwise="unary Abs", dtypes="numeric"),
    op("acos", "math_functions", "function method inplace out", elementwise="unary Acos", dtypes="all"),
    op("acosh", "math_functions", "function method inplace out", elementwise="unary Acosh", dtypes="all"),
    op("add", "math", "function method inplace out", elementwise="binary Add", dtypes="all"),
    op("addbmm", "products", "function method inplace out"),
    op("addcdiv", "activation", "function method inplace out"),
    op("addcmul", "activation", "function method inplace out"),
    op("addmm", "products", "function method inplace out"),
    op("addmv", "products", "function method inplace out"),
    op("all", "reduce", "function method out"),
    op("allclose", "activation", "function method", grad="none"),
    op("amax", "reduce_composite", "function method out"),
    op("amin", "reduce_composite", "function method out"),
    op("aminmax", "reduce_composite", "function method out"),
    op("any", "reduce", "function method out"),
    op("arange", "creation", "function out", grad="none", habits="factory requires_grad"),
    op("arccos", "math_functions", "function method inplace out", alias="acos", elementwise="unary Acos", dtypes="all"),
    op("arccosh", "math_functions", "function method inplace out", alias="acosh", elementwise="unary Acosh", dtypes="all"),
    op("arcsin", "math_functions", "function method inplace out", alias="asin", elementwise="unary Asin", dtypes="all"),
    op("arcsinh", "math_functions", "function method inplace out", alias="asinh", elementwise="unary Asinh", dtypes="all"),
    op("arctan", "math_functions", "function method inplace out", alias="atan", elementwise="unary Atan", dtypes="all"),
    op("arctan2", "math_functions", "function method inplace out", alias="atan2", elementwise="binary Atan2", dtypes="all"),
    op("arctanh", "math_functions", "function method inplace out", alias="atanh", elementwise="unary Atanh", dtypes="all"),
    op("argmax", "reduce", "function method out", grad="none"),
    op("argmin", "reduce", "function method out", grad="none"),
    op("argsort", "sort", "function method", grad="none"),
    op("argwhere", "index_ops", "function method", grad="none"),
    op("as_tensor", "creation_helpers", "function", grad="none"),
    op("asarray", "creation_helpers", "function", grad="none"),
    op("asin", "math_functions", "function method inplace out", elementwise="unary Asin", dtypes="all"),
    op("asinh", "math_functions", "function method inplace out", elementwise="unary Asinh", dtypes="all"),
    op("atan", "math_functions", "function method inplace out", elementwise="unary Atan", dtypes="all"),
    op("atan2", "math_functions", "function method inplace out", elementwise="binary Atan2", dtypes="all"),
    op("atanh", "math_functions", "function method inplace out", elementwise="unary Atanh", dtypes="all"),
    op("atleast_1d", "shape_ops", "function"),
    op("atleast_2d", "shape_ops", "function"),
    op("atleast_3d", "shape_ops", "function"),
    op("backward", "autograd", "method", grad="none"),
    op("baddbmm", "products", "function method inplace out"),
    op("bernoulli", "generator", "function method inplace", grad="none"),
    op("bfloat16", "convert", "method"),
    op("bincount", "counting", "function method", grad="none"),
    op("bitwise_and", "math", "function method inplace out", grad="none", elementwise="binary BitAnd", dtypes="integral"),
    op("bitwise_left_shift", "math_functions", "function method inplace out", grad="none", elementwise="binary ShiftLeft", dtypes="integer"),
    op("bitwise_not", "math", "function method inplace out", grad="none", elementwise="unary BitNot", dtypes="integral"),
    op("bitwise_or", "math", "function method inplace out", grad="none", elementwise="binary BitOr", dtypes="integral"),
    op("bitwise_right_shift", "math_functions", "function method inplace out", grad="none", elementwise="binary ShiftRight", dtypes="integer"),
    op("bitwise_xor", "math", "function method inplace out", grad="none", elementwise="binary BitXor", dtypes="integral"),
    op("bmm", "linalg", "function method out"),
    op("bool", "convert", "method", grad="none"),
    op("broadcast_tensors", "shape_ops", "function"),
    op("broadcast_to", "shape_ops", "function method"),
    op("bucketize", "sort", "function out", grad="none"),
    op("byte", "convert", "method", grad="none"),
    op("can_cast", "creation_helpers", "function", grad="none"),
    op("cat", "join", "function out"),
    op("cauchy_", "generator", "method", grad="none"),
    op("cdist", "products", "function"),
    op("ceil", "math_functions", "function method inplace out", elementwise="unary Ceil", dtypes="numeric"),
    op("char", "convert", "method", grad="none"),
    op("chunk", "shape_ops", "function method"),
    op("clamp", "math", "function method inplace out"),
    op("clamp_max", "activation", "function method inplace out"),
    op("clamp_min", "activation", "function method inplace out"),
    op("clip", "math", "function method inplace out", alias="clamp"),
    op("clone", "convert", "method"),
    op("column_stack", "shape_ops", "function out"),
    op("concat", "join", "function out", alias="cat"),
    op("concatenate", "join", "function out", alias="cat"),
    op("contiguous", "convert", "method"),
    op("copy_", "convert", "method"),
    op("copysign", "math_functions", "function method inplace out", elementwise="binary Copysign", dtypes="all"),
    op("cos", "math", "function method inplace out", elementwise="unary Cos", dtypes="all"),
    op("cosh", "math_functions", "function method inplace out", elementwise="unary Cosh", dtypes="all"),
    op("count_nonzero", "reduce_composite", "function method", grad="none"),
    op("cpu", "convert", "method"),
    op("cross", "products", "function method out"),
    op("cuda", "convert", "method"),
    op("cummax", "scan", "function method out"),
    op("cummin", "scan", "function method out"),
    op("cumprod", "scan", "function method inplace out"),
    op("cumsum", "scan", "function method inplace out"),
    op("data_ptr", "tensor", "method", grad="none"),
    op("detach", "autograd", "method inplace", grad="none"),
    op("diag", "shape_ops", "function method out"),
    op("diag_embed", "shape_ops", "function method"),
    op("diagonal", "shape_ops", "function method"),
    op("diff", "reduce_composite", "function method out"),
    op("digamma", "math_functions", "function method inplace out", elementwise="unary Digamma", dtypes="all"),
    op("dim", "tensor", "method", grad="none"),
    op("div", "math", "function method inplace out"),
    op("divide", "math", "function method inplace out", alias="div"),
    op("dot", "products", "function method out"),
    op("double", "convert", "method"),
    op("dstack", "shape_ops", "function out"),
    op("einsum", "products", "function"),
    op("element_size", "tensor", "method", grad="none"),
    op("empty", "creation", "function out", grad="none", habits="factory requires_grad", sizes="size"),
    op("empty_like", "creation", "function", grad="none", habits="requires_grad"),
    op("eq", "math", "function method out", grad="none", elementwise="binary Eq", dtypes="all"),
    op("equal", "activation", "function method", grad="none"),
    op("erf", "math_functions", "function method inplace out", elementwise="unary Erf", dtypes="all"),
    op("erfc", "math_functions", "function method inplace out", elementwise="unary Erfc", dtypes="all"),
    op("erfinv", "math_functions", "function method inplace out", elementwise="unary Erfinv", dtypes="all"),
    op("exp", "math", "function method inplace out", elementwise="unary Exp", dtypes="all"),
    op("exp2", "math_functions", "function method inplace out", elementwise="unary Exp2", dtypes="all"),
    op("expand", "tensor", "method", sizes="size"),
    op("expand_as", "tensor", "method"),
    op("expand_copy", "shape_ops", "function"),
    op("expm1", "math_functions", "function method inplace out", elementwise="unary Expm1", dtypes="all"),
    op("exponential_", "generator", "method", grad="none"),
    op("eye", "creation", "function out", grad="none", habits="factory requires_grad"),
    op("fill_", "convert", "method", grad="none"),
    op("fix", "math_functions", "function method inplace out", alias="trunc", elementwise="unary Trunc", dtypes="numeric"),
    op("flatten", "tensor", "function method"),
    op("flip", "shape_ops", "function method", sizes="dims"),
    op("fliplr", "shape_ops", "function method"),
    op("flipud", "shape_ops", "function method"),
    op("float", "convert", "method"),
    op("floor", "math_functions", "function method inplace out", elementwise="unary Floor", dtypes="numeric"),
    op("floor_divide", "math", "function method inplace out", elementwise="binary FloorDiv", dtypes="numeric"),
    op("fmod", "math_functions", "function method inplace out", elementwise="binary Fmod", dtypes="numeric"),
    op("frac", "math_functions", "function method inplace out", elementwise="unary Frac", dtypes="float"),
    op("from_dlpack", "dlpack", "function"),
    op("from_numpy", "numpy", "function"),
    op("full", "creation", "function out", grad="none", habits="factory requires_grad"),
    op("full_like", "creation", "function", grad="none", habits="requires_grad"),
    op("gather", "index_ops", "function method out"),
    op("ge", "math", "function method out", grad="none", elementwise="binary Ge", dtypes="all"),
    op("geometric_", "generator", "method", grad="none"),
    op("get_rng_state", "generator", "function", grad="none"),
    op("greater", "math", "function method out", grad="none", alias="gt", elementwise="binary Gt", dtypes="all"),
    op("greater_equal", "math", "function method out", grad="none", alias="ge", elementwise="binary Ge", dtypes="all"),
    op("gt", "math", "function method out", grad="none", elementwise="binary Gt", dtypes="all"),
    op("half", "convert", "method"),
    op("heaviside", "math_functions", "function method inplace out", grad="missing", elementwise="binary Heaviside values", dtypes="all"),
    op("histc", "counting", "function method out", grad="none"),
    op("histogram", "counting", "function method", grad="missing"),
    op("hstack", "shape_ops", "function out"),
    op("hypot", "math_functions", "function method inplace out", elementwise="binary Hypot", dtypes="float"),
    op("index_add", "index_reduce", "function method inplace out"),
    op("index_copy", "index_ops", "function method inplace"),
    op("index_fill", "index_ops", "function method inplace"),
    op("index_put", "index_reduce", "function method inplace"),
    op("index_reduce", "index_reduce", "function method inplace out"),
    op("index_select", "index_ops", "function method out"),
    op("initial_seed", "random", "function", grad="none"),
    op("inner", "products", "function method out"),
    op("int", "convert", "method", grad="none"),
    op("is_contiguous", "tensor", "method", grad="none"),
    op("is_floating_point", "creation_helpers", "function method", grad="none"),
    op("is_nonzero", "creation_helpers", "function method", grad="none"),
    op("is_pinned", "convert", "method", grad="none"),
    op("is_shared", "shared_memory", "method", grad="none"),
    op("isclose", "activation", "function method", grad="none"),
    op("isfinite", "math_functions", "function method", grad="none"),
    op("isinf", "math_functions", "function method", grad="none"),
    op("isnan", "math_functions", "function method", grad="none"),
    op("isneginf", "math_functions", "function method out", grad="none"),
    op("isposinf", "math_functions", "function method out", grad="none"),
    op("item", "convert", "method", grad="none"),
    op("kron", "products", "function method out"),
    op("kthvalue", "sort", "function method out"),
    op("le", "math", "function method out", grad="none", elementwise="binary Le", dtypes="all"),
    op("lerp", "activation", "function method inplace out"),
    op("less", "math", "function method out", grad="none", alias="lt", elementwise="binary Lt", dtypes="all"),
    op("less_equal", "math", "function method out", grad="none", alias="le", elementwise="binary Le", dtypes="all"),
    op("lgamma", "math_functions", "function method inplace out", elementwise="unary Lgamma", dtypes="all"),
    op("linspace", "creation", "function out", grad="none", habits="factory requires_grad"),
    op("log", "math", "function method inplace out", elementwise="unary Log", dtypes="all"),
    op("log10", "math_functions", "function method inplace out", elementwise="unary Log10", dtypes="all"),
    op("log1p", "math_functions", "function method inplace out", elementwise="unary Log1p", dtypes="all"),
    op("log2", "math_functions", "function method inplace out", elementwise="unary Log2", dtypes="all"),
    op("log_normal_", "generator", "method", grad="none"),
    op("log_softmax", "reduce", "function method out"),
    op("logcumsumexp", "scan", "function method out"),
    op("logical_and", "math_functions", "function method inplace out", grad="none", elementwise="binary LogicalAnd", dtypes="all"),
    op("logical_not", "math", "function method inplace out", grad="none"),
    op("logical_or", "math_functions", "function method inplace out", grad="none", elementwise="binary LogicalOr", dtypes="all"),
    op("logical_xor", "math_functions", "function method inplace out", grad="none", elementwise="binary LogicalXor", dtypes="all"),
    op("logsumexp", "reduce_composite", "function method out"),
    op("long", "convert", "method", grad="none"),
    op("lt", "math", "function method out", grad="none", elementwise="binary Lt", dtypes="all"),
    op("manual_seed", "random", "function", grad="none"),
    op("masked_fill", "index_ops", "function method inplace"),
    op("masked_scatter", "index_ops", "function method inplace"),
    op("masked_select", "index_ops", "function method out"),
    op("matmul", "linalg", "function method out"),
    op("max", "reduce", "function method out"),
    op("maximum", "math", "function method out", elementwise="binary Maximum", dtypes="all"),
    op("mean", "reduce", "function method out"),
    op("median", "sort", "function method out", habits="out_needs_dim"),
    op("meshgrid", "shape_ops", "function", grad="missing"),
    op("min", "reduce", "function method out"),
    op("minimum", "math", "function method out", elementwise="binary Minimum", dtypes="all"),
    op("mm", "linalg", "function method out"),
    op("mode", "sort", "function method out"),
    op("moveaxis", "shape_ops", "function method", alias="movedim"),
    op("movedim", "shape_ops", "function method"),
    op("msort", "sort", "function method out"),
    op("mul", "math", "function method inplace out", elementwise="binary Mul", dtypes="all"),
    op("multinomial", "generator", "function method out", grad="none"),
    op("multiply", "math", "function method inplace out", alias="mul", elementwise="binary Mul", dtypes="all"),
    op("mv", "products", "function method out"),
    op("nan_to_num", "activation", "function method inplace out"),
    op("nanmean", "reduce_composite", "function method out"),
    op("nanmedian", "sort", "function method out", habits="out_needs_dim"),
    op("nanquantile", "sort", "function method out"),
    op("nansum", "reduce_composite", "function method out"),
    op("narrow", "tensor", "function method"),
    op("ne", "math", "function method out", grad="none", elementwise="binary Ne", dtypes="all"),
    op("neg", "math", "function method inplace out", elementwise="unary Neg", dtypes="numeric"),
    op("negative", "math", "function method inplace out", alias="neg", elementwise="unary Neg", dtypes="numeric"),
    op("new_empty", "creation_helpers", "method", grad="none", habits="method_requires_grad", sizes="size"),
    op("new_full", "creation_helpers", "method", grad="none", habits="method_requires_grad"),
    op("new_ones", "creation_helpers", "method", grad="none", habits="method_requires_grad", sizes="size"),
    op("new_tensor", "creation_helpers", "method", grad="none", habits="method_requires_grad"),
    op("new_zeros", "creation_helpers", "method", grad="none", habits="method_requires_grad", sizes="size"),
    op("nonzero", "index_ops", "function method out", grad="none"),
    op("norm", "reduce_composite", "function method out", habits="no_numpy_aliases"),
    op("normal", "generator", "function inplace out", habits="requires_grad"),
    op("not_equal", "math", "function method out", grad="none", alias="ne", elementwise="binary Ne", dtypes="all"),
    op("numel", "creation_helpers", "function method", grad="none"),
    op("numpy", "numpy", "method", grad="none"),
    op("ones", "creation", "function out", grad="none", habits="factory requires_grad", sizes="size"),
    op("ones_like", "creation", "function", grad="none", habits="requires_grad"),
    op("outer", "products", "function method out"),
    op("permute", "tensor", "function method", sizes="dims"),
    op("pin_memory", "convert", "method", grad="none"),
    op("poisson", "generator", "function"),
    op("polygamma", "math_functions", "function method inplace out"),
    op("pow", "math", "function method inplace out", elementwise="binary Pow", dtypes="numeric"),
    op("prod", "reduce", "function method out", habits="out_needs_dim"),
    op("promote_types", "dtype", "function", grad="none"),
    op("put", "index_reduce", "function method inplace"),
    op("quantile", "sort", "function method out"),
    op("rand", "random", "function out", grad="none", habits="factory requires_grad", sizes="size"),
    op("rand_like", "random", "function", grad="none", habits="requires_grad"),
    op("randint", "random", "function out", grad="none", habits="factory requires_grad"),
    op("randint_like", "random", "function", grad="none", habits="requires_grad"),
    op("randn", "random", "function out", grad="none", habits="factory requires_grad", sizes="size"),
    op("randn_like", "random", "function", grad="none", habits="requires_grad"),
    op("random_", "generator", "method", grad="none"),
    op("randperm", "generator", "function out", grad="none", habits="factory requires_grad"),
    op("reciprocal", "math_functions", "function method inplace out", elementwise="unary Reciprocal", dtypes="all"),
    op("record_stream", "convert", "method", grad="none"),
    op("register_hook", "autograd", "method", grad="none"),
    op("relu", "math", "function method inplace", elementwise="unary Relu", dtypes="numeric"),
    op("remainder", "math", "function method inplace out", elementwise="binary Rem", dtypes="numeric"),
    op("repeat", "shape_ops", "method", sizes="repeats"),
    op("repeat_interleave", "shape_ops", "function method"),
    op("requires_grad_", "autograd", "method", grad="none"),
    op("reshape", "tensor", "function method", sizes="shape"),
    op("reshape_as", "tensor", "method"),
    op("resize_", "resize", "method", grad="none", sizes="size"),
    op("result_type", "math", "function", grad="none"),
    op("retain_grad", "autograd", "method", grad="none"),
    op("roll", "shape_ops", "function method"),
    op("rot90", "shape_ops", "function method"),
    op("round", "math_functions", "function method inplace out"),
    op("rsqrt", "math", "function method inplace out", elementwise="unary Rsqrt", dtypes="all"),
    op("scatter", "index_ops", "function method inplace out"),
    op("scatter_add", "index_reduce", "function method inplace out"),
    op("scatter_reduce", "index_reduce", "function method inplace out"),
    op("searchsorted", "sort", "function out", grad="none"),
    op("seed", "random", "function", grad="none"),
    op("select", "tensor", "function method"),
    op("set_rng_state", "generator", "function", grad="none"),
    op("sgn", "math_functions", "function method inplace out", alias="sign", elementwise="unary Sign", dtypes="all"),
    op("share_memory_", "shared_memory", "method", grad="none"),
    op("short", "convert", "method", grad="none"),
    op("sigmoid", "math", "function method inplace out", elementwise="unary Sigmoid", dtypes="all"),
    op("sign", "math_functions", "function method inplace out", elementwise="unary Sign", dtypes="all"),
    op("sin", "math", "function method inplace out", elementwise="unary Sin", dtypes="all"),
    op("sinh", "math_functions", "function method inplace out", elementwise="unary Sinh", dtypes="all"),
    op("size", "tensor", "method", grad="none"),
    op("softmax", "reduce", "function method out"),
    op("sort", "sort", "function method out"),
    op("split", "shape_ops", "function method", habits="no_numpy_aliases"),
    op("sqrt", "math", "function method inplace out", elementwise="unary Sqrt", dtypes="all"),
    op("square", "math_functions", "function method inplace out", elementwise="unary Square", dtypes="all"),
    op("squeeze", "tensor", "function method"),
    op("stack", "join", "function out"),
    op("std", "reduce", "function method out"),
    op("std_mean", "reduce_composite", "function"),
    op("storage_offset", "tensor", "method", grad="none"),
    op("stride", "tensor", "method", grad="none"),
    op("sub", "math", "function method inplace out", elementwise="binary Sub", dtypes="numeric"),
    op("subtract", "math", "function method inplace out", alias="sub", elementwise="binary Sub", dtypes="numeric"),
    op("sum", "reduce", "function method out", habits="out_needs_dim"),
    op("swapaxes", "shape_ops", "function method", alias="transpose"),
    op("swapdims", "shape_ops", "function method", alias="transpose"),
    op("t", "tensor", "function method"),
    op("take", "index_ops", "function method out"),
    op("take_along_dim", "index_ops", "function method out"),
    op("tanh", "math", "function method inplace out", elementwise="unary Tanh", dtypes="all"),
    op("tensor", "creation", "function", grad="none", habits="requires_grad"),
    op("tensor_split", "shape_ops", "function method"),
    op("tensordot", "products", "function out"),
    op("tile", "shape_ops", "function method", sizes="dims"),
    op("to", "convert", "method"),
    op("tolist", "convert", "method", grad="none"),
    op("topk", "sort", "function method out"),
    op("transpose", "tensor", "function method"),
    op("tril", "shape_ops", "function method inplace out"),
    op("tril_indices", "shape_ops", "function", grad="none"),
    op("triu", "shape_ops", "function method inplace out"),
    op("triu_indices", "shape_ops", "function", grad="none"),
    op("true_divide", "math", "function method inplace out", alias="div", elementwise="binary Div", dtypes="all"),
    op("trunc", "math_functions", "function method inplace out", elementwise="unary Trunc", dtypes="numeric"),
    op("type", "convert", "method", grad="none"),
    op("type_as", "creation_helpers", "method"),
    op("unbind", "shape_ops", "function method"),
    op("unflatten", "shape_ops", "function method", habits="method_no_numpy_aliases"),
    op("unfold", "shape_ops", "method"),
    op("uniform_", "generator", "method", grad="none"),
    op("unique", "sort", "function method", grad="missing", habits="no_numpy_aliases"),
    op("unique_consecutive", "sort", "function method", grad="missing", habits="no_numpy_aliases"),
    op("unsqueeze", "tensor", "function method"),
    op("untyped_storage", "tensor", "method", grad="none"),
    op("var", "reduce", "function method out"),
    op("var_mean", "reduce_composite", "function"),
    op("vdot", "products", "function method out"),
    op("view", "tensor", "method", sizes="size"),
    op("view_as", "tensor", "method"),
    op("vstack", "shape_ops", "function out"),
    op("where", "math", "function method out"),
    op("zero_", "convert", "method", grad="none"),
    op("zeros", "creation", "function out", grad="none", habits="factory requires_grad", sizes="size"),
    op("zeros_like", "creation", "function", grad="none", habits="requires_grad"),
    op("cholesky", "linalg_decomp", "function out", module="linalg"),
    op("cross", "products", "function out", module="linalg"),
    op("det", "linalg_decomp", "function out", module="linalg"),
    op("eigh", "linalg_decomp", "function out", module="linalg"),
    op("eigvalsh", "linalg_decomp", "function out", module="linalg"),
    op("inv", "linalg_decomp", "function out", module="linalg"),
    op("matrix_norm", "reduce_composite", "function out", module="linalg"),
    op("norm", "reduce_composite", "function out", module="linalg"),
    op("qr", "linalg_decomp", "function out", module="linalg"),
    op("slogdet", "linalg_decomp", "function out", module="linalg"),
    op("solve", "linalg_decomp", "function out", module="linalg"),
    op("svd", "linalg_decomp", "function out", module="linalg"),
    op("svdvals", "linalg_decomp", "function out", module="linalg"),
    op("vector_norm", "reduce_composite", "function out", module="linalg"),
    op("elu", "activation", "function inplace", module="nn.functional"),
    op("gelu", "activation", "function", module="nn.functional"),
    op("hardtanh", "activation", "function inplace", module="nn.functional"),
    op("leaky_relu", "activation", "function inplace", module="nn.functional"),
    op("mish", "activation", "function", module="nn.functional"),
    op("relu", "activation", "function", module="nn.functional"),
    op("silu", "activation", "function", module="nn.functional"),
    op("softplus", "activation", "function", module="nn.functional"),
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
    unary_code("Silu", backward="SiluBackward0", derivative="mul(g, silu_slope(x))", saves="input", note="the activations with their default parameters (Note [Activations]):"),
    unary_code("Gelu", backward="GeluBackward0", derivative="mul(g, gelu_slope(x))", saves="input", note="gelu(approximate='none')"),
    unary_code("GeluTanh", backward="GeluBackward0", derivative="mul(g, gelu_tanh_slope(x))", saves="input", note="gelu(approximate='tanh')"),
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
)
# fmt: on


def rows(module: str | None = None) -> tuple[Op, ...]:
    """The rows, or those of one module."""
    return OPS if module is None else tuple(r for r in OPS if r.module == module)
