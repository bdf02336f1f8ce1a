"""A differential fuzz of genesis against PyTorch (issue 43): seeded random calls of the
elementwise ops (unary, binary, ternary) and the reductions, run on both libraries from the same
NumPy data, and their outcomes compared.

Each call draws an op, its operands (tensors of every dtype; 0-d, empty, size-1 and broadcasting
shapes; contiguous, transposed, strided and expanded layouts; values with inf, nan, -0.0 and
integer extremes; Python scalars), its keywords and its calling style (function, method,
operator). genesis runs it on `device`, PyTorch on the CPU, and the outcomes must be:

- both raise: genesis's exception class is PyTorch's or a documented equivalent
  (`EXCEPTION_EQUIVALENTS`; the user guide's "Errors": genesis's ValueError for bad shapes and
  TypeError for bad dtypes are PyTorch's RuntimeError), and genesis's message starts "[op]";
- both succeed: the same result dtype, shape and values: exact for bool and integers; for
  floats the same NaN positions, equal infinities and values within a tolerance by dtype and op
  family (a few ulp; reductions may differ by the accumulation error of float32 / float64
  relative to the sum of |x|). Where torch's own kernel is the less accurate one, the reference
  is torch computing in a wider type and rounding once: float32 for 16-bit unary ops and
  reductions (genesis computes 16-bit floats in float32), float64 for float unary ops;
- anything else (one raises, or the results differ): an entry of `DELIBERATE_DIFFERENCES`
  (genesis's documented choices, each a rule of the user guide's "Deliberate differences from
  PyTorch"; where genesis gives a result that PyTorch refuses, the entry's `rewrite` says which
  PyTorch call must give the same values, so the choice is checked, not just allowed) or of
  `KNOWN_BUGS` (genesis bugs still to fix, each with a minimal reproducer that
  `test_known_bug_still_present` requires to still differ from PyTorch: a fix fails that test,
  as a strict xfail, until its entry is removed).

A call is Python text over `L` (genesis or torch) and `T(values, dtype, shape)` (a tensor of the
values on the library's device); failure messages show it as the reproducer. Calls that crash
torch 2.13 (integer minimum div -1 with rounding_mode='trunc', SIGFPE) are skipped, and so are
ops an older torch (on a GPU machine) lacks.
"""

import dataclasses
import math
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from conftest import round_to_bfloat16, to_numpy

import genesis

torch = pytest.importorskip("torch")

SEEDS = [0, 1, 2]
CALLS_PER_SEED = 700
# The torch whose behaviour the tables record (seeds 0-199 x 700 calls pass with it); with
# another, an example whose torch side differs is skipped, not failed.
TORCH_CHECKED = "2.13."

DTYPE_NAMES = [
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
]
INT_NAMES = ["uint8", "int8", "int16", "int32", "int64"]
FLOAT_NAMES = ["float16", "bfloat16", "float32", "float64"]
HALF_NAMES = ["float16", "bfloat16"]
NP_OF = {n: np.dtype("float32" if n == "bfloat16" else n) for n in DTYPE_NAMES}
F32_MAX = float(np.finfo(np.float32).max)

INT_DIVISIONS = ("div", "floor_divide", "remainder", "fmod")
CLAMPS = ("clamp", "clip", "clamp_min", "clamp_max")
REDUCTIONS = (
    "sum nansum mean nanmean prod amax amin argmax argmin max min aminmax var std var_mean "
    "std_mean all any count_nonzero norm median nanmedian cumsum cumprod logcumsumexp cummax "
    "cummin softmax log_softmax logsumexp"
).split()
# The binary ops whose torch function (or method) takes a tensor for every operand: torch
# refuses a Python scalar where genesis takes one.
SCALAR_OPERAND_OPS = (
    "add sub mul div true_divide floor_divide remainder fmod pow maximum minimum atan2 hypot "
    "copysign heaviside eq ne lt le gt ge bitwise_and bitwise_or bitwise_xor bitwise_left_shift "
    "bitwise_right_shift logical_and logical_or logical_xor isclose allclose where lerp "
    + " ".join(CLAMPS)
).split()


# --------------------------------------------------------------------------------------------
# The tables. Predicates (`when`) see the Call (below): its op, style, args, kwargs and their
# values; `rewrite` turns a call PyTorch refuses (or answers differently) into the PyTorch call
# whose result genesis's must equal.


@dataclasses.dataclass(frozen=True)
class Difference:
    """A deliberate difference: on calls of `ops` where `when(call)` holds, the `outcome`
    ('torch raises', 'genesis raises', 'values', or 'exception class': both raise, with classes
    that are not equivalent) is expected, where the raising side's message (for 'exception
    class': genesis's) matches `message`. `example` (text over L and T) shows it; `rule` is the
    user guide's bullet."""

    rule: str
    ops: tuple
    outcome: str
    when: object
    example: str
    message: str = ""
    rewrite: object = None  # call -> Call: what genesis must give, as a PyTorch call
    # The torch side depends on the processor (torch picks its CPU kernels by instruction set):
    # where the example shows no difference, the example test skips instead of failing.
    machine_dependent: bool = False


@dataclasses.dataclass(frozen=True)
class Bug:
    """A genesis bug: the fuzz tolerates `outcome` ('torch raises', 'genesis raises', 'values',
    or 'crash': such calls are not run, and the reproducer runs in a child process) on calls of
    `ops` where `when(call)` holds. `reproducer` (text over L and T) must differ from PyTorch's
    `want` (default: the reproducer itself) until the bug is fixed; then
    `test_known_bug_still_present` fails (a strict xfail) until the entry is removed."""

    title: str
    ops: tuple
    outcome: str
    when: object
    reproducer: str
    want: str = ""
    message: str = ""


DELIBERATE_DIFFERENCES = [
    Difference(
        "A Python int beyond int64's range (2**63 and up) is its float value: beside a float "
        "tensor both libraries give that value; beside an integer tensor genesis gives a float "
        "result, where torch wraps it as uint64 (`int64_t * 2**63` is INT64_MIN) or raises.",
        tuple(SCALAR_OPERAND_OPS) + ("nan_to_num", "addcmul", "addcdiv"),
        "values",
        lambda c: any(_is_uint64_int(a) for a in c.args + list(c.kwargs.values())),
        "T([1], 'int64', (1,)) * 2**63",
        rewrite=lambda c: big_ints_as_floats(c),
    ),
    Difference(
        "A Python int beyond int64's range (2**63 and up) is its float value: beside a float "
        "tensor both libraries give that value; beside an integer tensor genesis gives a float "
        "result, where torch wraps it as uint64 (`int64_t * 2**63` is INT64_MIN) or raises.",
        tuple(SCALAR_OPERAND_OPS) + ("nan_to_num", "addcmul", "addcdiv"),
        "torch raises",
        lambda c: any(_is_uint64_int(a) for a in c.args + list(c.kwargs.values())),
        "L.where(T([True], 'bool', (1,)), T([1], 'int8', (1,)), 2**63)",
        message=r"cannot be converted to type \S+ without overflow|Overflow|must be Tensor, not"
        r"|invalid combination of arguments",
        rewrite=lambda c: big_ints_as_floats(c),
    ),
    Difference(
        "A Python int beyond int64's range (2**63 and up) is its float value: beside a float "
        "tensor both libraries give that value; beside an integer tensor genesis gives a float "
        "result, where torch wraps it as uint64 (`int64_t * 2**63` is INT64_MIN) or raises.",
        tuple(SCALAR_OPERAND_OPS),
        "genesis raises",
        lambda c: any(_is_uint64_int(a) for a in c.args + list(c.kwargs.values())),
        "L.bitwise_and(T([1], 'int64', (1,)), 2**63)",
        message=r"not supported for float32 tensors",
    ),
    Difference(
        "A negative number beside an unsigned (uint8) result is refused where a number must fit "
        "the result's dtype (`where`, `**`, `alpha`, `value`, `fill_`: RuntimeError); torch "
        "wraps one down to -255 (-7 becomes 249).",
        ("where", "pow", "add", "sub", "addcmul", "addcdiv"),
        "genesis raises",
        lambda c: negative_number_beside_uint8(c),
        "L.where(T([True, False], 'bool', (2,)), T([3, 17], 'uint8', (2,)), -7)",
        message=r"cannot be converted to uint8 without overflow",
    ),
    Difference(
        "A Python number is accepted for any operand of the binary ops, `where`, `lerp`'s weight "
        "and the clamp bounds (also mixed with a tensor bound), in function and method form, "
        "where torch wants a tensor (`torch.maximum(t, 2)`, `torch.atan2(2, t)`, "
        "`t.clamp(min=t2, max=1)` raise TypeError); the result is torch's for the number as a "
        "0-d tensor.",
        SCALAR_OPERAND_OPS,
        "torch raises",
        lambda c: bool(scalar_operands(c)),
        "L.maximum(T([1.0, 5.0], 'float32', (2,)), 2)",
        message=r"must be Tensor, not|invalid combination of arguments",
        rewrite=lambda c: wrap_scalars(c),
    ),
    Difference(
        "Integer division by zero (`//`, `%`, `fmod`, `div` with a rounding mode) gives 0, on the "
        "CPU and CUDA alike; torch's CPU raises ZeroDivisionError.",
        INT_DIVISIONS,
        "torch raises",
        lambda c: divisor_has_zero(c),
        "T([5, -5], 'int64', (2,)) // 0",
        message=r"ZeroDivisionError",
        rewrite=lambda c: zero_division(c),
    ),
    Difference(
        "`add`/`sub` take a bool `alpha` (0 or 1) also for a result that is not bool; torch "
        "refuses it.",
        ("add", "sub"),
        "torch raises",
        lambda c: isinstance(c.kwargs.get("alpha"), bool),
        "L.add(T([1, 2], 'int64', (2,)), T([3, 4], 'int64', (2,)), alpha=True)",
        message=r"Boolean alpha only supported",
        rewrite=lambda c: c.replace(kwargs={**c.kwargs, "alpha": int(c.kwargs["alpha"])}),
    ),
    Difference(
        "`-` with a bool operand (a Python bool or a bool tensor) and a result that is not bool "
        "(`t - True`, `1.5 - mask`): bools are 0 and 1; torch refuses any bool operand of `-` "
        "(genesis refuses bool - bool, as torch).",
        ("sub",),
        "torch raises",
        lambda c: _promoted(c) != torch.bool,
        "T([1.0, 2.0], 'float32', (2,)) - True",
        message=r"Subtraction, the `-` operator, with a bool tensor",
        rewrite=lambda c: bools_as_numbers(c),
    ),
    Difference(
        "A Python number in a float computation takes part at float32 precision also where it "
        "is beyond a 16-bit dtype's range (1e10 stays finite in a float16 computation; 1e300 is "
        "inf), as every number in the arithmetic operators of both libraries; torch's `where`, "
        "`lerp`, `pow`, `addcmul`/`addcdiv` (`value`) and `add`/`sub` (`alpha`) raise ('value "
        "cannot be converted to type ... without overflow'). (A clamp bound must fit the dtype "
        "in both.)",
        ("where", "lerp", "pow", "addcmul", "addcdiv", "add", "sub"),
        "torch raises",
        lambda c: bool(big_numbers(c)),
        "L.where(T([True, False], 'bool', (2,)), 1e300, 0.5)",
        message=r"cannot be converted to type \S+ without overflow",
        rewrite=lambda c: numbers_in_float32(c),
    ),
    Difference(
        "`addcdiv` with integer `tensor1` and `tensor2` and a float `input` divides truly (as "
        "torch announces for its future versions); torch refuses integer tensor1 and tensor2 "
        "whatever the input.",
        ("addcdiv",),
        "torch raises",
        lambda c: (
            _is_t(c.args[0])
            and c.args[0].dtype in FLOAT_NAMES
            and all(_is_t(a) and a.dtype not in FLOAT_NAMES for a in c.args[1:3])
        ),
        "L.addcdiv(T([0.5], 'float32', (1,)), T([1], 'int32', (1,)), T([2], 'int32', (1,)))",
        message=r"Integer division with addcdiv is no longer supported",
        rewrite=lambda c: c.replace(
            args=[c.args[0], Code(f"({c.args[1].code()}).to(L.{c.args[0].dtype})"), c.args[2]]
        ),
    ),
    Difference(
        "`nanmean` of an integer tensor with a floating `dtype=` is the mean in that dtype "
        "(integers have no NaN to skip); torch refuses integer input whatever the dtype.",
        ("nanmean",),
        "torch raises",
        lambda c: c.args[0].dtype not in FLOAT_NAMES and "dtype" in c.kwargs,
        "L.nanmean(T([1, 2], 'int32', (2,)), dtype=L.float32)",
        message=r"expected input to have floating point",
        rewrite=lambda c: c.replace(
            args=[Code(f"{c.args[0].code()}.to(L.{c.kwargs['dtype'].name})")],
            kwargs={k: v for k, v in c.kwargs.items() if k != "dtype"},
        ),
    ),
    Difference(
        "`heaviside` with a Python number of another kind than the tensor "
        "(`heaviside(int_t, 0.5)`) promotes as the other binary ops (float32 here); torch "
        "requires a tensor, of the other operand's dtype.",
        ("heaviside",),
        "torch raises",
        lambda c: True,  # after the number became a 0-d tensor of its own dtype
        "L.heaviside(T([-1, 0, 2], 'int64', (3,)), 0.5)",
        message=r"heaviside is not yet implemented for tensors with different dtypes|must be "
        r"Tensor",
        rewrite=lambda c: c.replace(
            text=f"(lambda _a, _b: L.heaviside(_a.to(L.result_type(_a, _b)), "
            f"_b.to(L.result_type(_a, _b))))({_code(c.args[0])}, {_code(c.args[1])})"
        ),
    ),
    Difference(
        "`argmax` and `argmin` take bool tensors (False < True); torch refuses them.",
        ("argmax", "argmin"),
        "torch raises",
        lambda c: c.args[0].dtype == "bool",
        "L.argmax(T([False, True], 'bool', (2,)))",
        message=r"does not support bool input",
        rewrite=lambda c: c.replace(args=[Code(f"({c.args[0].code()}).to(L.uint8)")]),
    ),
    Difference(
        "The clamps, `addcmul`, `median` and `nanmedian` work on bool tensors (as on 0 and 1, "
        "the result bool); torch has no bool kernel for them (NotImplementedError).",
        CLAMPS + ("addcmul", "median", "nanmedian"),
        "torch raises",
        lambda c: c.dtypes == {"bool"} and all(isinstance(a, bool) for a in scalar_operands(c)),
        "L.clamp(T([False, True], 'bool', (2,)), False, True)",
        message=r"not implemented for 'Bool'",
        rewrite=lambda c: c.replace(
            text="as_bool("
            + call_text(
                c.replace(
                    kwargs={k: int(bool(v)) if k == "value" else v for k, v in c.kwargs.items()}
                ),
                {i: f"({_code(a)}).to(L.uint8)" for i, a in enumerate(c.args) if _is_t(a)},
            )
            + ")"
        ),
    ),
    Difference(
        "`norm(p='fro')` over any number of dims is the 2-norm of their elements; torch takes "
        "'fro' over at most two dims.",
        ("norm",),
        "torch raises",
        lambda c: c.kwargs.get("p") == "fro",
        "L.norm(T([3.0, 4.0], 'float32', (1, 1, 2)), p='fro', dim=(0, 1, 2))",
        message=r"dim must be a 2-tuple",
        rewrite=lambda c: c.replace(kwargs={**c.kwargs, "p": 2}),
    ),
    Difference(
        "`norm(p=inf)` of an empty tensor (or over an empty dim) is 0, the largest |x| of none "
        "(|x| >= 0); torch raises (p=-inf raises in both).",
        ("norm",),
        "torch raises",
        lambda c: c.args[0].numel == 0 and c.kwargs.get("p") == math.inf,
        "L.norm(T([], 'float32', (0,)), p=inf)",
        message=r"cannot compute the inf norm",
        rewrite=lambda c: c.replace(kwargs={**c.kwargs, "p": 2}),
    ),
    Difference(
        "`median` and `nanmedian` of an empty integer tensor raise RuntimeError (the median of "
        "nothing is NaN, which integers cannot hold); torch returns the dtype's minimum or 0.",
        ("median", "nanmedian"),
        "genesis raises",
        lambda c: c.args[0].numel == 0 and c.args[0].dtype not in FLOAT_NAMES,
        "L.median(T([], 'int64', (0,)))",
        message=r"the median of an empty tensor is only defined",
    ),
    Difference(
        "An empty tensor's dim and dtype are checked as any other's: `cummax`/`cummin` with a "
        "dim out of range raise IndexError, `softmax`/`log_softmax` of integers TypeError; torch "
        "skips these checks on empty tensors.",
        ("cummax", "cummin", "softmax", "log_softmax"),
        "genesis raises",
        lambda c: c.args[0].numel == 0,
        "L.cummax(T([], 'float32', (0, 3)), dim=2)",
        message=r"dimension out of range|expects a floating point dtype",
    ),
    Difference(
        "A binary op of two Python numbers raises TypeError ('expects at least one tensor'); "
        "torch's `add`, `sub`, `mul`, `div`, `true_divide` ... return a 0-d tensor.",
        tuple(SCALAR_OPERAND_OPS),
        "genesis raises",
        lambda c: not c.tensors and len(scalar_operands(c)) >= 2,
        "L.add(3.0, -2.5)",
        message=r"expects at least one tensor",
    ),
    Difference(
        "The clamps (`clamp`, `clip`, `clamp_min`, `clamp_max`) refuse a number bound outside "
        "the range of the dtype they compute in (RuntimeError, as `fill_`), also beside a "
        "tensor bound; torch refuses a float bound beyond the range too, but wraps an integer "
        "one (`clamp(uint8_t, -1, 10)`: -1 becomes 255) and returns garbage, and takes any "
        "number beside a tensor bound.",
        CLAMPS,
        "genesis raises",
        lambda c: (
            (
                clamp_bound_out_of_range(c)
                and not (c.args[0].dtype in INT_NAMES and clamp_float_bound(c))
            )
            or clamp_bound_beyond_result(c)
        ),
        "L.clamp(T([0, 5, 200], 'uint8', (3,)), -1, 10)",
        message=r"cannot be converted to \w+ without overflow",
    ),
    Difference(
        "`addcmul` of integer tensors refuses a float `value` (TypeError, as `add` with a float "
        "`alpha` in both libraries); torch truncates it (0.5 becomes 0).",
        ("addcmul",),
        "genesis raises",
        lambda c: isinstance(c.kwargs.get("value"), float) and c.int_only(ignore_kwargs=True),
        "L.addcmul(T([1, 2], 'int32', (2,)), T([3, 4], 'int32', (2,)), T([5, 6], 'int32', (2,)), "
        "value=0.5)",
        message=r"value must be an integer",
    ),
    Difference(
        "`where` needs a bool condition (TypeError); torch still takes uint8 (deprecated).",
        ("where",),
        "genesis raises",
        lambda c: _is_t(c.args[0]) and c.args[0].dtype == "uint8",
        "L.where(T([1, 0], 'uint8', (2,)), 1.0, 0.0)",
        message=r"expected condition to be a bool tensor",
    ),
    Difference(
        "`all` and `any` give bool for every input dtype; torch gives uint8 for uint8 input.",
        ("all", "any"),
        "values",
        lambda c: c.args[0].dtype == "uint8",
        "L.any(T([1, 0], 'uint8', (2,)))",
        rewrite=lambda c: c.replace(text=f"({c.text}).bool()"),
    ),
    Difference(
        "A 0-d tensor bound beside a number bound of a clamp is a tensor in promotion (the "
        "result dtype of a 0-d input may widen to it; a bound beyond an integer dtype wraps, as "
        "any tensor cast); torch takes it as a number there (and refuses one out of range).",
        CLAMPS,
        ("values", "torch raises"),
        lambda c: bool(scalar_operands(c)) and any(b.ndim == 0 for b in c.tensors[1:]),
        "L.clamp(T([127], 'int8', ()), 3, T([-10], 'int16', ()))",
        rewrite=lambda c: wrap_scalars(c),
    ),
    Difference(
        "`gelu(inf)` (exact form) is inf in every float dtype, as torch's float64 and float16; "
        "torch's float32 and bfloat16 CPU kernels give nan on some processors (torch picks its "
        "kernels by instruction set).",
        ("gelu",),
        "values",
        lambda c: c.args[0].dtype in FLOAT_NAMES and bool(np.isposinf(_values(c.args[0])).any()),
        "L.nn.functional.gelu(T([inf] * 20, 'float32', (20,)))",
        rewrite=lambda c: in_float64(c),
        machine_dependent=True,
    ),
    Difference(
        "`median` and `nanmedian` along a dim of an expanded tensor (stride 0) give the median; "
        "torch 2.13's CPU kernel returns garbage there (`T([3.0]).expand(5).median(0)` is "
        "3e-41).",
        ("median", "nanmedian"),
        "values",
        lambda c: c.args[0].layout == "expanded" and "dim" in c.kwargs,
        "L.median(T([3.0], 'float32', (1,)).expand(5), 0)",
        rewrite=lambda c: c.replace(args=[Code(f"({c.args[0].code()}).contiguous()")]),
    ),
    Difference(
        "A product (`prod`, `cumprod`) with a zero factor whose partial products overflow is 0 "
        "or nan (`inf * 0`) by the order of the multiplications, which differs between the "
        "libraries; genesis's is the product in float64 rounded to the dtype here.",
        ("prod", "cumprod"),
        "values",
        lambda c: bool((_values(c.args[0]) == 0).any()),
        "L.prod(T([1e30, 1e30, 0.0], 'float32', (3,)))",
        rewrite=lambda c: in_float64(c),
    ),
    Difference(
        "16-bit float `div` with a rounding mode and `//` truncate or floor the float32 "
        "quotient (computed in float32, rounded once); torch rounds the quotient to the 16-bit "
        "dtype first (158.75 / 0.561 is 282.96: genesis 282, torch 283 by trunc).",
        ("div", "floor_divide"),
        "values",
        lambda c: (
            bool(set(HALF_NAMES) & c.dtypes)
            and (c.op == "floor_divide" or c.kwargs.get("rounding_mode") is not None)
        ),
        "L.div(T([158.75] * 20, 'float16', (20,)), T([0.56103515625] * 20, 'float16', (20,)), "
        "rounding_mode='trunc')",
        rewrite=lambda c: in_float64(c),
    ),
    Difference(
        "`fmod` and `remainder` are exact (C's fmod) also where x / y overflows float32; torch's "
        "vectorized float32 kernels give nan there (`fmod(T([1e10] * 16), 1e-30)`; its scalar "
        "loop, for the last elements, does not).",
        ("fmod", "remainder"),
        "values",
        lambda c: quotient_overflows(c),
        "L.fmod(T([1e10] * 16, 'float32', (16,)), 1e-30)",
        rewrite=lambda c: c.replace(text=f"exact_{c.op}({_code(c.args[0])}, {_code(c.args[1])})"),
    ),
    Difference(
        "16-bit `nansum` and `nanmean` accumulate in float32, as `sum` and `mean` in both "
        "libraries: the nanmean of 70000 float16 ones is 1; torch's float16 nanmean overflows "
        "to inf.",
        ("nanmean", "nansum"),
        "values",
        lambda c: c.args[0].numel > 65504,
        "L.nanmean(L.ones(70000, dtype=L.float16))",
        rewrite=lambda c: in_float64(c),
    ),
    Difference(
        "An integer tensor operand of a float16 binary op is its float16 value (type "
        "promotion), inf beyond 65504, in every element; torch's vectorized loop agrees, its "
        "scalar loop (short tensors, the last elements) computes with the integer in float32 "
        "(`T([0.], f16) * T([100000], int32)`: genesis nan, torch 0).",
        tuple(op for op in SCALAR_OPERAND_OPS if op not in ("where",) + CLAMPS),
        "values",
        lambda c: f16_with_big_int_tensor(c),
        "T([0.0], 'float16', (1,)) * T([100000], 'int32', (1,))",
        rewrite=lambda c: c.replace(
            text=call_text(
                c,
                {
                    i: f"({a.code()}).to(L.float16)"
                    for i, a in enumerate(c.args)
                    if _is_t(a) and a.dtype in INT_NAMES
                },
            )
        ),
    ),
    Difference(
        "`polygamma(1, x)` (trigamma) at its poles x = 0, -1, -2, ... is +inf, the limit from "
        "both sides (as the other odd orders in both libraries), also at -inf; torch gives "
        "large finite values or nan there.",
        ("polygamma",),
        "values",
        lambda c: c.args[0] == 1 and has_pole(c.args[1]),
        "L.polygamma(1, T([-2.0], 'float32', (1,)))",
        rewrite=lambda c: c.replace(
            text=f"L.where(pole({c.args[1].code()}), inf, {in_float64(c).text})"
        ),
    ),
    Difference(
        "The mean of `var_mean` and `std_mean` is `mean()`'s: +-inf where the input's "
        "infinities have one sign; torch's one-pass (Welford) mean is nan there.",
        ("var_mean", "std_mean"),
        "values",
        lambda c: has_inf(c.args[0]),
        "L.var_mean(T([1.0, -inf, 2.0], 'float32', (3,)))",
        rewrite=lambda c: c.replace(
            text=f"(lambda r: (r[0], L.mean({c.args[0].code()}, "
            + ", ".join(f"{k}={_code(v)}" for k, v in c.kwargs.items() if k in ("dim", "keepdim"))
            + f")))({c.text})"
        ),
    ),
    Difference(
        "A call with several faults reports one of them, and the two libraries check in "
        "different orders (genesis: a dtype the op does not take, or a repeated dim, before a "
        "dim out of range or of size 0), so the exception classes may differ.",
        REDUCTIONS,
        "exception class",
        lambda c: dim_fault(c),
        "L.softmax(T([1, 2], 'int32', (2,)), dim=3)",
    ),
    Difference(
        "A reduction with no identity (`amax`, `amin`, `aminmax`, `norm` with p=+-inf) of an "
        "empty tensor raises IndexError also without a dim (torch: RuntimeError), and "
        "`argmax`/`argmin`/`max`/`min` without a dim raise RuntimeError (torch: IndexError for "
        "argmax/argmin).",
        ("amax", "amin", "aminmax", "argmax", "argmin", "max", "min", "norm"),
        "exception class",
        lambda c: c.args[0].numel == 0,
        "L.amax(T([], 'float32', (0,)))",
        message=r"expected a non-zero size along the reduced dims|the input has no elements",
    ),
]

# Exception classes genesis may raise where PyTorch raises another: the user guide's "Errors"
# (ValueError for bad shapes and sizes, TypeError for dtypes an op does not take, where PyTorch
# raises RuntimeError), and ValueError for a Python int beyond int64 (torch: OverflowError).
EXCEPTION_EQUIVALENTS = {
    RuntimeError: (RuntimeError, TypeError, ValueError),
    TypeError: (TypeError,),
    IndexError: (IndexError,),
    ValueError: (ValueError,),
    OverflowError: (ValueError, OverflowError),
}

KNOWN_BUGS = []


# --------------------------------------------------------------------------------------------
# Calls.


@dataclasses.dataclass
class TensorArg:
    """A tensor operand: base values (bfloat16 held in float32) and a view of them."""

    dtype: str
    base: np.ndarray
    view: str  # Python text applied to the base tensor: "", ".permute(1, 0)", "[1::2]", ...
    shape: tuple
    layout: str  # contiguous | transposed | strided | expanded
    perm: tuple = ()  # the permutation of a transposed layout

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def numel(self):
        return math.prod(self.shape)

    def values(self):
        """The view's values as a NumPy array (bfloat16 in float32)."""
        a = self.base
        if self.layout == "transposed":
            return a.transpose(self.perm)
        if self.layout == "strided":
            return a[tuple(slice(1, None, 2) for _ in self.shape)]
        return np.broadcast_to(a, self.shape)

    def code(self):
        flat = ", ".join(_literal(v) for v in self.base.reshape(-1).tolist())
        return f"T([{flat}], {self.dtype!r}, {tuple(self.base.shape)}){self.view}"


@dataclasses.dataclass(frozen=True)
class Code:
    """An operand given as Python text (in rewritten calls)."""

    text: str

    def code(self):
        return self.text


@dataclasses.dataclass(frozen=True)
class DType:
    """A dtype keyword: L.<name> in the call's text."""

    name: str


@dataclasses.dataclass
class Call:
    op: str
    style: str  # func | method | op | F (torch.nn.functional)
    args: list  # TensorArg, Python scalars, None
    kwargs: dict
    family: str  # unary | binary | ternary | reduction
    text: str = ""

    def __post_init__(self):
        if not self.text:
            self.text = call_text(self)

    def replace(self, **changes):
        """A copy with some fields changed (its text rebuilt unless given)."""
        changes.setdefault("text", "")
        return dataclasses.replace(self, **changes)

    @property
    def tensors(self):
        return [a for a in list(self.args) + list(self.kwargs.values()) if _is_t(a)]

    @property
    def dtypes(self):
        return {a.dtype for a in self.tensors}

    def int_only(self, ignore_kwargs=False):
        """Every tensor operand is bool or integer, and every scalar operand an int or bool."""
        scalars = list(self.args) + ([] if ignore_kwargs else list(self.kwargs.values()))
        return all(a.dtype not in FLOAT_NAMES for a in self.tensors) and not any(
            isinstance(a, float) for a in scalars
        )

    def __str__(self):
        return self.text


def _is_t(a):
    return isinstance(a, TensorArg)


def _is_scalar(a):
    return isinstance(a, (bool, int, float))


def _literal(v):
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
    return repr(v)


def _code(a):
    if isinstance(a, (TensorArg, Code)):
        return a.code()
    if isinstance(a, tuple):
        return "(" + "".join(_code(x) + ", " for x in a) + ")"
    if isinstance(a, list):
        return "[" + ", ".join(_code(x) for x in a) + "]"
    if isinstance(a, float):
        return _literal(a)
    if isinstance(a, DType):
        return f"L.{a.name}"
    return repr(a)


def call_text(c, subst=None):
    """The call as Python text; subst maps positional indices to text replacing them."""
    subst = subst or {}
    args = [subst.get(i, _code(a)) for i, a in enumerate(c.args)]
    kw = [f"{k}={_code(v)}" for k, v in c.kwargs.items()]
    if c.style == "op":
        if c.family == "unary":
            return UNARY_SYMBOLS[c.op].format(f"({args[0]})")
        return f"({args[0]}) {SYMBOLS[c.op]} ({args[1]})"
    if c.style == "method":
        return f"({args[0]}).{c.op}({', '.join(args[1:] + kw)})"
    prefix = "L.nn.functional" if c.style == "F" else "L"
    return f"{prefix}.{c.op}({', '.join(args + kw)})"


# Predicates and rewrites of the tables.


def scalar_operands(c):
    """The Python numbers among the operands (positional, and clamp's min/max keywords)."""
    kw = [c.kwargs[k] for k in ("min", "max") if k in c.kwargs]
    return [a for a in list(c.args) + kw if _is_scalar(a)]


def _scalar_as_tensor(a, c):
    """A Python number as a 0-d tensor of the dtype torch gives the number among c's tensors
    (a 0-d tensor of a wider dtype would widen the result, a number does not)."""
    if isinstance(a, int) and not isinstance(a, bool) and not -(2**63) <= a < 2**63:
        return Code(f"L.tensor({a})")  # raises in torch, as in genesis
    cur = None
    for t in c.tensors:
        d = torch.empty((1,) * min(t.ndim, 1), dtype=getattr(torch, t.dtype))
        if cur is not None:
            d = torch.empty((1,) * max(cur.ndim, d.ndim), dtype=torch.result_type(cur, d))
        cur = d
    dtype = _dtype_name(torch.result_type(cur, a)) if cur is not None else None
    float_op = c.op in ("atan2", "hypot", "copysign") or (
        c.op in ("div", "true_divide") and c.kwargs.get("rounding_mode") is None
    )
    if float_op and dtype not in FLOAT_NAMES:  # computed in float: the number is not wrapped
        dtype = None
    if dtype is None:
        dtype = {bool: "bool", int: "int64", float: "float32"}[type(a)]
        if float_op:
            dtype = "float32"
    with np.errstate(all="ignore"):
        base = np.array(a).astype(NP_OF[dtype])
    return TensorArg(dtype, base, "", (), "contiguous")


def wrap_scalars(c):
    wrap = lambda a: _scalar_as_tensor(a, c) if _is_scalar(a) else a  # noqa: E731
    kwargs = {k: (wrap(v) if k in ("min", "max") else v) for k, v in c.kwargs.items()}
    return c.replace(args=[wrap(a) for a in c.args], kwargs=kwargs)


def _values(a):
    return np.asarray(a.values()) if _is_t(a) else np.asarray(a)


def divisor_has_zero(c):
    """An integer division whose divisor (a scalar: as cast to the result dtype) has a 0."""
    if len(c.args) < 2 or not c.int_only(ignore_kwargs=True):
        return False
    if c.op == "div" and c.kwargs.get("rounding_mode") is None:
        return False
    b = c.args[1]
    if _is_t(b):
        return bool((_values(b) == 0).any())
    dtypes = [a.dtype for a in c.tensors]
    if not dtypes:
        return False
    result = np.result_type(*[np.dtype(d) for d in dtypes])
    bits = 64 if result == np.bool_ else np.iinfo(result).bits
    return int(b) % 2**bits == 0


def zero_division(c):
    """torch's result with the zero divisors replaced by 1, and 0 where they were."""
    inner = call_text(c, {0: "_a", 1: "_b"})
    a, b = _code(c.args[0]), _code(c.args[1])
    return c.replace(text=f"zero_division(lambda _a, _b: {inner}, {a}, {b})")


def _zero_division(fn, a, b):
    if isinstance(b, torch.Tensor):
        zero = b == 0
        r = fn(a, torch.where(zero, torch.ones_like(b), b))
    else:  # a scalar divisor of the tensor a, as cast to a's dtype
        zero = torch.tensor(b).to(a.dtype) == 0
        r = fn(a, type(b)(1) if zero else b)
    return torch.where(zero, torch.zeros_like(r), r)


def _is_big_float(a):
    return isinstance(a, float) and math.isinf(a) is False and abs(a) > F32_MAX


def _is_uint64_int(a):
    return isinstance(a, int) and not isinstance(a, bool) and 2**63 <= a < 2**64


def big_ints_as_floats(c):
    """The call with each Python int beyond int64 as a float."""

    def conv(a):
        return float(a) if _is_uint64_int(a) else a

    return c.replace(
        args=[conv(a) for a in c.args], kwargs={k: conv(v) for k, v in c.kwargs.items()}
    )


def _int_range(dtype):
    info = np.iinfo(dtype)
    return int(info.min), int(info.max)


def _clamp_bounds(c):
    if c.op in ("clamp_min", "clamp_max"):
        return c.args[1:2]
    return list(c.args[1:3]) + [c.kwargs[k] for k in ("min", "max") if k in c.kwargs]


def clamp_bound_out_of_range(c):
    """A number bound outside the range of the tensor's dtype (an integer one for an integer
    tensor, any finite one for a float tensor)."""
    x = c.args[0]
    if not _is_t(x) or x.dtype == "bool":
        return False
    numbers = [b for b in _clamp_bounds(c) if _is_scalar(b) and not isinstance(b, bool)]
    if x.dtype in FLOAT_NAMES:
        big = float(torch.finfo(getattr(torch, x.dtype)).max)
        return any(math.isfinite(b) and abs(b) > big for b in numbers)
    lo, hi = _int_range(x.dtype)
    return any(isinstance(b, int) and not lo <= b <= hi for b in numbers)


def clamp_float_bound(c):
    return any(
        isinstance(b, float) or (_is_t(b) and b.dtype in FLOAT_NAMES) for b in _clamp_bounds(c)
    )


def clamp_bound_beyond_result(c):
    """A finite number bound beyond the range of the float dtype the clamp computes in."""
    d = _promoted(c)
    if d is None or not d.is_floating_point:
        return False
    big = float(torch.finfo(d).max)
    return any(
        _is_scalar(b) and not isinstance(b, bool) and math.isfinite(b) and abs(b) > big
        for b in _clamp_bounds(c)
    )


def negative_number_beside_uint8(c):
    """A uint8 result and a negative Python int operand (or value=/alpha=) within -255."""
    if not c.tensors or _promoted(c) != torch.uint8:
        return False
    values = list(c.args) + [c.kwargs.get(k) for k in ("value", "alpha")]
    return any(isinstance(a, int) and not isinstance(a, bool) and -255 <= a < 0 for a in values)


def has_inf(a):
    return _is_t(a) and a.dtype in FLOAT_NAMES and bool(np.isinf(_values(a)).any())


def has_pole(a):
    v = _values(a).astype(np.float64)
    with np.errstate(all="ignore"):
        return bool(((v <= 0) & (v == np.floor(v))).any())


def float_to_int_out_of_range(c):
    """A float input, an integer dtype=, and values that do not fit it (or are not finite)."""
    x, d = c.args[0], c.kwargs.get("dtype")
    if not _is_t(x) or x.dtype not in FLOAT_NAMES or d is None or d.name not in INT_NAMES:
        return False
    lo, hi = _int_range(d.name)
    v = _values(x).astype(np.float64)
    with np.errstate(all="ignore"):
        return bool((~np.isfinite(v) | (v < lo) | (v >= hi + 1.0)).any())


def dim_fault(c):
    """The call's dim is out of range or repeats a dim."""
    x, d = c.args[0], c.kwargs.get("dim")
    if not _is_t(x) or d is None:
        return False
    dims = list(d) if isinstance(d, (tuple, list)) else [d]
    n = max(x.ndim, 1)
    if any(not -n <= k < n for k in dims):
        return True
    return len({k % n for k in dims}) != len(dims)


def _as_bool(r):
    if isinstance(r, tuple):
        return (r[0].bool(),) + tuple(r[1:])
    return r.bool()


def _pole(x):
    return (x <= 0) & (x == x.floor())


def _promoted(c):
    """The result dtype (a torch dtype) of c's tensor and number operands, by torch's rules
    (applied pairwise, with 0-d tensors and numbers below dimensioned tensors)."""
    cur = None
    for t in c.tensors:
        d = torch.empty((1,) * min(t.ndim, 1), dtype=getattr(torch, t.dtype))
        if cur is not None:
            d = torch.empty((1,) * max(cur.ndim, d.ndim), dtype=torch.result_type(cur, d))
        cur = d
    for a in scalar_operands(c):
        if cur is not None and not (isinstance(a, int) and not -(2**63) <= a < 2**63):
            cur = torch.empty(cur.shape, dtype=torch.result_type(cur, a))
    return cur.dtype if cur is not None else None


def _result_float(c):
    """The float dtype name a call computes in: its dtype= or its operands' float dtype."""
    if "dtype" in c.kwargs:
        return c.kwargs["dtype"].name
    d = _promoted(c)
    return _dtype_name(d) if d is not None and d.is_floating_point else "float32"


def big_numbers(c):
    """Finite Python numbers (operands, alpha=, value=) beyond the range of the float dtype a
    call computes in."""
    d = _promoted(c)
    if d is None or not d.is_floating_point:
        return []
    big = float(torch.finfo(d).max)
    values = list(c.args) + list(c.kwargs.values())
    return [
        a
        for a in values
        if isinstance(a, (int, float))
        and not isinstance(a, bool)
        and math.isfinite(a)
        and abs(a) > big
    ]


def numbers_in_float32(c):
    """c computed in float32 (16-bit tensors upcast, numbers beyond float32 as +-inf) and
    rounded to its dtype once: how genesis computes 16-bit floats with numbers."""
    d = _dtype_name(_promoted(c))

    def number(a):
        if isinstance(a, float) and math.isfinite(a) and abs(a) > F32_MAX:
            return math.copysign(math.inf, a)
        return a

    new = c.replace(
        args=[number(a) for a in c.args], kwargs={k: number(a) for k, a in c.kwargs.items()}
    )
    subst = {
        i: f"({a.code()}).float()"
        for i, a in enumerate(new.args)
        if _is_t(a) and a.dtype in HALF_NAMES
    }
    return new.replace(text=f"({call_text(new, subst)}).to(L.{d})")


def in_float64(c):
    """c computed in float64 and rounded to its float dtype once."""
    dtype = _result_float(c)
    kwargs = {**c.kwargs, "dtype": DType("float64")} if "dtype" in c.kwargs else c.kwargs
    inner = call_text(
        c.replace(kwargs=kwargs),
        {i: f"({_code(a)}).double()" for i, a in enumerate(c.args) if _is_t(a)},
    )
    return c.replace(text=f"({inner}).to(L.{dtype})")


def bools_as_numbers(c):
    """c with its Python bools as ints and its bool tensors cast to the result dtype."""
    d = _dtype_name(_promoted(c))
    subst = {
        i: f"({a.code()}).to(L.{d})" if _is_t(a) else repr(int(a))
        for i, a in enumerate(c.args)
        if isinstance(a, bool) or (_is_t(a) and a.dtype == "bool")
    }
    return c.replace(text=call_text(c, subst))


def quotient_overflows(c):
    if _promoted(c) != torch.float32:
        return False
    a, b = (np.asarray(_values(x), dtype=np.float64) for x in c.args[:2])
    with np.errstate(all="ignore"):
        q = np.abs(a / b)
    return bool((np.isfinite(q) & (q > F32_MAX)).any())


def _exact(op, a, b):
    a, b = torch.as_tensor(a), torch.as_tensor(b)
    d = torch.result_type(a, b)
    x, y = np.broadcast_arrays(a.double().numpy(), b.double().numpy())
    with np.errstate(all="ignore"):
        r = np.fmod(x, y)
        if op == "remainder":
            r = np.where((r != 0) & ((r < 0) != (y < 0)), r + y, r)
    return torch.from_numpy(np.ascontiguousarray(r)).to(d)


def has_nan(a):
    return _is_t(a) and a.dtype in FLOAT_NAMES and bool(np.isnan(_values(a)).any())


def clamp_promotes_0d(c):
    """A clamp with a 0-d float tensor bound wider than the dimensioned float operands."""
    ts = c.tensors
    floats = {t.dtype for t in ts if t.ndim > 0 and t.dtype in FLOAT_NAMES}
    wide = [t for t in ts[1:] if t.ndim == 0 and t.dtype in ("float32", "float64")]
    wide += [b for b in _clamp_bounds(c) if isinstance(b, float)]
    return bool(wide) and bool(floats) and floats <= set(HALF_NAMES)


def int_scalar_out_of_range(c):
    """An integer result dtype and a Python int operand (or value=/alpha=) outside its range."""
    if not c.tensors or not c.int_only():
        return False
    d = _promoted(c)
    if d is None or d.is_floating_point or d == torch.bool:
        return False
    lo, hi = _int_range(_dtype_name(d))
    values = list(c.args) + [c.kwargs.get(k) for k in ("value", "alpha")]
    return any(isinstance(a, int) and not isinstance(a, bool) and not lo <= a <= hi for a in values)


def float_clamp_int_bound_too_big(c):
    x = c.args[0]
    if not _is_t(x) or x.dtype not in FLOAT_NAMES:
        return False
    big = float(torch.finfo(getattr(torch, x.dtype)).max)
    return any(
        isinstance(b, int) and not isinstance(b, bool) and abs(b) > big for b in _clamp_bounds(c)
    )


def f16_with_big_int_tensor(c):
    """A float16 computation with an integer tensor operand beyond the float16 range."""
    if _promoted(c) != torch.float16:
        return False
    return any(
        t.dtype in INT_NAMES and bool((np.abs(_values(t).astype(np.float64)) > 65504).any())
        for t in c.tensors
    )


# --------------------------------------------------------------------------------------------
# The ops.


@dataclasses.dataclass(frozen=True)
class Op:
    name: str
    family: str
    gen: object  # gen(g) -> (args, kwargs)
    styles: tuple = ("func", "method")
    tol: str = "arith"  # exact | arith | trans | loose | reduce
    symbol: str = None  # the Python operator, for style "op"
    domain: str = None  # a hint for float values: unit | positive | poles


class Gen:
    """Random operands for one call."""

    def __init__(self, rng, op):
        self.rng = rng
        self.op = op

    def chance(self, p):
        return self.rng.random() < p

    def pick(self, seq, p=None):
        return seq[self.rng.choice(len(seq), p=p)]

    def dtype(self, prefer=None):
        if prefer and self.chance(0.8):
            return self.pick(prefer)
        return self.pick(DTYPE_NAMES)

    def shape(self):
        """0 to 4 dims of 0 to 7 (rarely 0, often 1)."""
        ndim = self.pick([0, 1, 1, 2, 2, 2, 3, 3, 4])
        sizes = [0, 1, 2, 3, 4, 5, 7]
        p = [0.04, 0.22, 0.22, 0.2, 0.14, 0.1, 0.08]
        return tuple(int(self.pick(sizes, p)) for _ in range(ndim))

    def broadcast_shape(self, shape):
        """A shape that broadcasts with `shape` (rarely one that does not)."""
        r = self.rng.random()
        s = list(shape)
        if r < 0.4:
            return tuple(s)
        if r < 0.55 and s:
            return tuple(s[self.rng.integers(1, len(s) + 1) :])
        if r < 0.8:
            return tuple(1 if self.chance(0.5) else d for d in s)
        if r < 0.92 and len(s) < 4:
            return (self.pick([1, 2]),) + tuple(1 if self.chance(0.3) else d for d in s)
        if s:  # does not broadcast
            i = int(self.rng.integers(len(s)))
            s[i] = s[i] + 2 if s[i] > 1 else 3
        return tuple(s)

    def values(self, dtype, shape):
        rng = self.rng
        if dtype == "bool":
            return rng.random(shape) < 0.5
        if dtype in INT_NAMES:
            info = np.iinfo(dtype)
            if self.chance(0.15):
                lo, hi = int(info.min), int(info.max)
                if dtype == "int64":
                    lo, hi = -(2**62), 2**62
            else:
                lo, hi = (0, 20) if dtype == "uint8" else (-20, 20)
            a = rng.integers(lo, hi, size=shape, endpoint=True, dtype=np.dtype(dtype))
            extremes = np.array([info.min, info.max, 0, 1, info.max // 2], dtype=np.dtype(dtype))
            if info.min < 0:
                extremes = np.append(extremes, np.array([-1], dtype=np.dtype(dtype)))
            hit = rng.random(shape) < 0.1
            a[hit] = rng.choice(extremes, size=shape)[hit]
            return a
        dom = self.op.domain
        if dom == "unit" and self.chance(0.8):
            a = rng.uniform(-1.2, 1.2, shape)
        elif dom == "positive" and self.chance(0.7):
            a = np.abs(rng.standard_normal(shape)) * self.pick([0.5, 5.0, 50.0])
        elif dom == "poles" and self.chance(0.7):
            a = -rng.integers(0, 6, shape) + rng.choice([1e-3, 1e-5, -1e-3, -1e-5, 0.3], shape)
        else:
            a = rng.standard_normal(shape) * self.pick([1.0, 3.0, 100.0, 1e4])
            if self.chance(0.3):
                a = np.round(a * 2) / 2  # halves: ties of round(), exact integers
        specials = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 0.5, -2.0, 7e4, 1e-30]
        hit = rng.random(shape) < self.pick([0.0, 0.1, 0.3])
        a = np.where(hit, rng.choice(specials, size=shape), a)
        with np.errstate(all="ignore"):
            if dtype == "bfloat16":
                return round_to_bfloat16(a.astype(np.float32))
            return np.asarray(a.astype(np.dtype(dtype)))

    def tensor(self, dtype=None, shape=None, prefer=None):
        """A tensor operand of `shape` in a random layout: contiguous, transposed (a permuted
        base), strided (every other element of a base twice as large) or expanded."""
        dtype = dtype or self.dtype(prefer)
        shape = self.shape() if shape is None else tuple(shape)
        nd = len(shape)
        r = self.rng.random()
        perm = ()
        if nd >= 2 and r < 0.15:
            perm = list(range(nd))
            while perm == list(range(nd)):
                perm = list(self.rng.permutation(nd))
            # base.permute(perm) has shape[i] = base_shape[perm[i]]
            base_shape = [0] * nd
            for i, p in enumerate(perm):
                base_shape[p] = shape[i]
            perm = tuple(int(p) for p in perm)
            view = ".permute(" + ", ".join(str(p) for p in perm) + ")"
            layout, base_shape = "transposed", tuple(base_shape)
        elif nd >= 1 and r < 0.35:
            base_shape = tuple(2 * s + 1 for s in shape)
            view = "[" + ", ".join("1::2" for _ in shape) + "]"
            layout = "strided"
        elif nd >= 1 and r < 0.5:
            base_shape = tuple(1 if (s == 1 or self.chance(0.5)) else s for s in shape)
            if base_shape == shape:
                base_shape, view, layout = shape, "", "contiguous"
            else:
                view = ".expand(" + ", ".join(str(s) for s in shape) + ")"
                layout = "expanded"
        else:
            base_shape, view, layout = shape, "", "contiguous"
        return TensorArg(dtype, self.values(dtype, base_shape), view, shape, layout, perm)

    def scalar(self, kind=None):
        kind = kind or self.pick(["int", "float", "bool"], p=[0.45, 0.45, 0.1])
        if kind == "bool":
            return bool(self.chance(0.5))
        if kind == "int":
            return int(
                self.pick(
                    [0, 1, -1, 2, 3, -7, 100, 255, 256, -129, 2**31, 2**62, 2**63, 10**20],
                    p=[
                        0.1,
                        0.15,
                        0.1,
                        0.15,
                        0.1,
                        0.1,
                        0.06,
                        0.05,
                        0.04,
                        0.04,
                        0.04,
                        0.04,
                        0.01,
                        0.02,
                    ],
                )
            )
        return float(
            self.pick(
                [0.0, -0.0, 0.5, -2.5, 1e-3, 3.0, 1e10, np.inf, -np.inf, np.nan, 1e300],
                p=[0.08, 0.05, 0.15, 0.15, 0.1, 0.15, 0.06, 0.06, 0.06, 0.08, 0.06],
            )
        )

    def operand(self, shape=None, prefer=None, p_scalar=0.2):
        if self.chance(p_scalar):
            return self.scalar()
        return self.tensor(shape=shape, prefer=prefer)

    def dim(self, ndim):
        """A dim in range (rarely out of it)."""
        n = max(ndim, 1)
        if self.chance(0.04):
            return int(self.pick([n, -n - 1]))
        return int(self.rng.integers(-n, n))

    def dims(self, ndim, allow_none=True, allow_tuple=True):
        r = self.rng.random()
        if allow_none and r < 0.3:
            return None
        if allow_tuple and r < 0.55 and ndim >= 1:
            k = int(self.rng.integers(1, ndim + 1))
            ds = [int(d) for d in self.rng.choice(ndim, size=k, replace=False)]
            ds = [d - ndim if self.chance(0.3) else d for d in ds]
            if self.chance(0.05):
                ds.append(ds[0])  # a repeated dim
            return tuple(ds) if self.chance(0.7) else list(ds)
        return self.dim(ndim)


def _unary(name, prefer=None, tol="arith", domain=None, styles=("func", "method"), kw=None):
    def gen(g):
        return [g.tensor(prefer=prefer)], (kw(g) if kw else {})

    return Op(name, "unary", gen, styles, tol, domain=domain)


FL = FLOAT_NAMES
NUM = INT_NAMES + FLOAT_NAMES
INTB = ["bool"] + INT_NAMES

UNARY_OPS = [
    _unary("abs", NUM, styles=("func", "method", "op")),
    _unary("neg", NUM, styles=("func", "method", "op")),
    _unary("exp", FL, "trans"),
    _unary("exp2", FL, "trans"),
    _unary("expm1", FL, "trans"),
    _unary("log", FL, "trans", "positive"),
    _unary("log2", FL, "trans", "positive"),
    _unary("log10", FL, "trans", "positive"),
    _unary("log1p", FL, "trans", "positive"),
    _unary("sqrt", FL, "trans", "positive"),
    _unary("rsqrt", FL, "trans", "positive"),
    _unary("sin", FL, "trans"),
    _unary("cos", FL, "trans"),
    _unary("sinh", FL, "trans"),
    _unary("cosh", FL, "trans"),
    _unary("tanh", FL, "trans"),
    _unary("asin", FL, "trans", "unit"),
    _unary("acos", FL, "trans", "unit"),
    _unary("atan", FL, "trans"),
    _unary("asinh", FL, "trans"),
    _unary("acosh", FL, "trans", "positive"),
    _unary("atanh", FL, "trans", "unit"),
    _unary("sigmoid", FL, "trans"),
    _unary("floor", NUM),
    _unary("ceil", NUM),
    _unary("trunc", NUM),
    _unary("frac", FL),
    _unary("round", NUM),
    _unary("round", FL, kw=lambda g: {"decimals": int(g.pick([-2, -1, 1, 2, 3]))}),
    _unary("sign", NUM),
    _unary("sgn", NUM),
    _unary("square", NUM),
    _unary("reciprocal", FL, "trans"),
    _unary("erf", FL, "trans"),
    _unary("erfc", FL, "trans"),
    _unary("erfinv", FL, "loose", "unit"),
    _unary("lgamma", FL, "loose", "poles"),
    _unary("digamma", FL, "loose", "poles"),
    _unary("bitwise_not", INTB, "exact", styles=("func", "method", "op")),
    _unary("logical_not", None, "exact"),
    _unary("isnan", FL, "exact"),
    _unary("isinf", FL, "exact"),
    _unary("isfinite", FL, "exact"),
    _unary("isposinf", FL, "exact"),
    _unary("isneginf", FL, "exact"),
    _unary("relu", NUM),
    _unary(
        "nan_to_num",
        FL,
        kw=lambda g: {
            k: g.scalar("float") if g.chance(0.7) else g.scalar("int")
            for k in ("nan", "posinf", "neginf")
            if g.chance(0.5)
        },
    ),
]


def _polygamma(g):
    return [int(g.pick([0, 1, 2, 3])), g.tensor(prefer=FL)], {}


UNARY_OPS.append(Op("polygamma", "unary", _polygamma, ("func",), "loose", domain="poles"))


def _activation(name, kw=None):
    def gen(g):
        return [g.tensor(prefer=FL)], (kw(g) if kw else {})

    return Op(name, "unary", gen, ("F",), "trans")


UNARY_OPS += [
    _activation("gelu", lambda g: {"approximate": g.pick(["none", "tanh"])}),
    _activation("silu"),
    _activation("mish"),
    _activation("softplus", lambda g: {"beta": g.pick([1.0, 2.0, 0.5]), "threshold": 20.0}),
    _activation("elu", lambda g: {"alpha": g.pick([1.0, 0.5, 2.0])}),
    _activation("leaky_relu", lambda g: {"negative_slope": g.pick([0.01, 0.2, -0.5])}),
    _activation("hardtanh", lambda g: {"min_val": -1.0, "max_val": g.pick([1.0, 2.0])}),
]


def _binary(name, prefer=NUM, tol="arith", symbol=None, kw=None, styles=("func", "method")):
    def gen(g):
        dt = g.dtype(prefer)
        if g.chance(0.15):
            a, b = g.scalar(), g.tensor(prefer=prefer)
            return [a, b], (kw(g) if kw else {})
        a = g.tensor(dtype=dt)
        other_dt = dt if g.chance(0.6) else g.dtype(prefer)
        if g.chance(0.25):
            b = g.scalar()
        else:
            b = g.tensor(dtype=other_dt, shape=g.broadcast_shape(a.shape))
        if g.chance(0.2) and _is_t(b):
            a, b = b, a
        if g.chance(0.03):
            a = g.scalar()
        return [a, b], (kw(g) if kw else {})

    return Op(name, "binary", gen, styles + (("op",) if symbol else ()), tol, symbol)


def _alpha(g):
    return {"alpha": g.scalar()} if g.chance(0.3) else {}


def _isclose_kw(g):
    kw = {}
    if g.chance(0.4):
        kw["rtol"] = g.pick([0.0, 1e-5, 0.1])
    if g.chance(0.4):
        kw["atol"] = g.pick([0.0, 1e-8, 0.5])
    if g.chance(0.5):
        kw["equal_nan"] = bool(g.chance(0.5))
    return kw


BINARY_OPS = [
    _binary("add", symbol="+", kw=_alpha),
    _binary("sub", symbol="-", kw=_alpha),
    _binary("mul", symbol="*"),
    _binary("div", symbol="/"),
    _binary("div", kw=lambda g: {"rounding_mode": g.pick(["trunc", "floor", None])}),
    _binary("true_divide"),
    _binary("floor_divide", symbol="//"),
    _binary("remainder", symbol="%"),
    _binary("fmod"),
    _binary("pow", symbol="**", tol="trans"),
    _binary("maximum"),
    _binary("minimum"),
    _binary("atan2", FL, "trans"),
    _binary("hypot", FL, "trans"),
    _binary("copysign", FL),
    _binary("heaviside", NUM, "exact"),
    _binary("eq", symbol="==", tol="exact"),
    _binary("ne", symbol="!=", tol="exact"),
    _binary("lt", symbol="<", tol="exact"),
    _binary("le", symbol="<=", tol="exact"),
    _binary("gt", symbol=">", tol="exact"),
    _binary("ge", symbol=">=", tol="exact"),
    _binary("bitwise_and", INTB, "exact", "&"),
    _binary("bitwise_or", INTB, "exact", "|"),
    _binary("bitwise_xor", INTB, "exact", "^"),
    _binary("bitwise_left_shift", INT_NAMES, "exact", "<<"),
    _binary("bitwise_right_shift", INT_NAMES, "exact", ">>"),
    _binary("logical_and", None, "exact"),
    _binary("logical_or", None, "exact"),
    _binary("logical_xor", None, "exact"),
    _binary("isclose", NUM, "exact", kw=_isclose_kw),
    _binary("allclose", NUM, "exact", kw=_isclose_kw),
]


def _where(g):
    shape = g.shape()
    cond = g.tensor(dtype="bool" if g.chance(0.9) else None, shape=shape)
    dt = g.dtype(NUM)
    a = g.operand(shape=g.broadcast_shape(shape), prefer=[dt], p_scalar=0.25)
    b = g.operand(shape=g.broadcast_shape(shape), prefer=[dt], p_scalar=0.25)
    return [cond, a, b], {}


def _clamp(g):
    x = g.tensor(prefer=NUM)

    def bound():
        r = g.rng.random()
        if r < 0.25:
            return None
        if r < 0.7:
            return g.scalar(g.pick(["int", "float"]))
        return g.tensor(dtype=x.dtype if g.chance(0.7) else None, shape=g.broadcast_shape(x.shape))

    lo, hi = bound(), bound()
    if g.chance(0.4):
        return [x], {k: v for k, v in (("min", lo), ("max", hi)) if v is not None or g.chance(0.3)}
    return [x, lo, hi], {}


def _clamp_one(g):
    x = g.tensor(prefer=NUM)
    if g.chance(0.6):
        return [x, g.scalar(g.pick(["int", "float"]))], {}
    return [x, g.tensor(dtype=x.dtype, shape=g.broadcast_shape(x.shape))], {}


def _lerp(g):
    dt = g.dtype(FL)
    a = g.tensor(dtype=dt)
    b = g.tensor(dtype=dt if g.chance(0.9) else None, shape=g.broadcast_shape(a.shape))
    if g.chance(0.6):
        w = g.scalar(g.pick(["float", "float", "int"]))
    else:
        w = g.tensor(dtype=dt if g.chance(0.9) else None, shape=g.broadcast_shape(a.shape))
    return [a, b, w], {}


def _addc(g):
    dt = g.dtype(FL + ["int32", "int64"])
    x = g.tensor(dtype=dt)
    t1 = g.tensor(dtype=dt if g.chance(0.85) else None, shape=g.broadcast_shape(x.shape))
    t2 = g.tensor(dtype=dt if g.chance(0.85) else None, shape=g.broadcast_shape(x.shape))
    kw = {"value": g.scalar(g.pick(["int", "float"]))} if g.chance(0.5) else {}
    return [x, t1, t2], kw


TERNARY_OPS = [
    Op("where", "ternary", _where, ("func",)),
    Op("clamp", "ternary", _clamp),
    Op("clip", "ternary", _clamp),
    Op("clamp_min", "ternary", _clamp_one),
    Op("clamp_max", "ternary", _clamp_one),
    Op("lerp", "ternary", _lerp, tol="trans"),
    Op("addcmul", "ternary", _addc),
    Op("addcdiv", "ternary", _addc, tol="trans"),
]


def _reduce(
    name,
    prefer=NUM,
    dims="any",
    keepdim=True,
    dtype_kw=False,
    extra=None,
    tol="reduce",
    styles=("func", "method"),
):
    """A reduction over `dims` (any: None/int/tuple; one: an int; opt: None or an int)."""

    def gen(g):
        x = g.tensor(prefer=prefer)
        kw = {}
        if dims == "any":
            d = g.dims(x.ndim)
        elif dims == "one":
            d = g.dim(x.ndim)
        elif dims == "opt":
            d = None if g.chance(0.4) else g.dim(x.ndim)
        else:
            d = None
        if d is not None:
            kw["dim"] = d
        if keepdim and d is not None and g.chance(0.5):
            kw["keepdim"] = bool(g.chance(0.5))
        if dtype_kw and g.chance(0.2):
            kw["dtype"] = DType(g.pick(["float32", "float64", "int64", "float16", "int32"]))
        if extra:
            kw.update(extra(g))
        return [x], kw

    return Op(name, "reduction", gen, styles, tol)


def _correction(g):
    r = g.rng.random()
    if r < 0.3:
        return {}
    if r < 0.8:
        return {"correction": int(g.pick([0, 1, 2]))}
    return {"unbiased": bool(g.chance(0.5))}


def _norm_p(g):
    return {"p": g.pick([None, "fro", 1, 2, 3, 0.5, 0, math.inf, -math.inf])}


def _logsumexp(g):
    x = g.tensor(prefer=FL)
    kw = {"dim": g.dims(x.ndim, allow_none=False)}
    if g.chance(0.4):
        kw["keepdim"] = bool(g.chance(0.5))
    return [x], kw


REDUCTION_OPS = [
    _reduce("sum", dtype_kw=True),
    _reduce("nansum", FL, dtype_kw=True),
    _reduce("mean", FL, dtype_kw=True),
    _reduce("nanmean", FL, dtype_kw=True),
    _reduce("prod", dims="opt", dtype_kw=True),
    _reduce("amax"),
    _reduce("amin"),
    _reduce("argmax", dims="opt"),
    _reduce("argmin", dims="opt"),
    _reduce("max", dims="opt"),
    _reduce("min", dims="opt"),
    _reduce("aminmax", dims="opt"),
    _reduce("var", FL, extra=_correction),
    _reduce("std", FL, extra=_correction),
    _reduce("var_mean", FL, extra=_correction, styles=("func",)),
    _reduce("std_mean", FL, extra=_correction, styles=("func",)),
    _reduce("all", None, tol="exact"),
    _reduce("any", None, tol="exact"),
    _reduce("count_nonzero", None, keepdim=False, tol="exact"),
    _reduce("norm", FL, extra=_norm_p),
    _reduce("median", dims="opt"),
    _reduce("nanmedian", FL, dims="opt"),
    _reduce("cumsum", dims="one", keepdim=False, dtype_kw=True),
    _reduce("cumprod", dims="one", keepdim=False, dtype_kw=True),
    _reduce("logcumsumexp", FL, dims="one", keepdim=False),
    _reduce("cummax", dims="one", keepdim=False),
    _reduce("cummin", dims="one", keepdim=False),
    _reduce("softmax", FL, dims="one", keepdim=False, dtype_kw=True),
    _reduce("log_softmax", FL, dims="one", keepdim=False, dtype_kw=True),
    Op("logsumexp", "reduction", _logsumexp, tol="reduce"),
]

ALL_OPS = UNARY_OPS + BINARY_OPS + TERNARY_OPS + REDUCTION_OPS
# Families weighted as the ad-hoc fuzz: elementwise, reductions, broadcasting.
FAMILY_WEIGHT = {"unary": 0.3, "binary": 0.35, "ternary": 0.15, "reduction": 0.2}

# Ops whose integer result is checked exactly (their float values with the op's tolerance).
SYMBOLS = {op.name: op.symbol for op in BINARY_OPS if op.symbol}
UNARY_SYMBOLS = {"abs": "abs({})", "neg": "-{}", "bitwise_not": "~{}"}


def generate_calls(seed, n):
    rng = np.random.default_rng(seed)
    by_family = {f: [op for op in ALL_OPS if op.family == f] for f in FAMILY_WEIGHT}
    families, weights = list(FAMILY_WEIGHT), list(FAMILY_WEIGHT.values())
    for _ in range(n):
        family = families[rng.choice(len(families), p=weights)]
        ops = by_family[family]
        op = ops[rng.integers(len(ops))]
        g = Gen(rng, op)
        args, kwargs = op.gen(g)
        styles = [
            s
            for s in op.styles
            if not (s in ("method", "op") and not _is_t(args[0]))
            and not (s == "op" and op.family == "binary" and not any(_is_t(a) for a in args))
        ]
        style = styles[rng.integers(len(styles))] if styles else "func"
        yield op, Call(op.name, style, args, kwargs, family)


# --------------------------------------------------------------------------------------------
# Comparing results.

EPS = {"float16": 2.0**-10, "bfloat16": 2.0**-7, "float32": 2.0**-23, "float64": 2.0**-52}
RTOL = {"float16": 2e-3, "bfloat16": 1.6e-2, "float32": 4e-7, "float64": 1e-15}
RTOL_TRANS = {"float16": 2e-3, "bfloat16": 1.6e-2, "float32": 4e-6, "float64": 1e-12}
RTOL_LOOSE = {"float16": 4e-3, "bfloat16": 1.6e-2, "float32": 1e-4, "float64": 1e-9}
TINY = {"float16": 6.2e-5, "bfloat16": 1.2e-38, "float32": 1.2e-38, "float64": 2.3e-308}


def _torch_numpy(t):
    t = t.detach()
    if t.dtype == torch.bfloat16:
        t = t.float()
    return t.numpy()


def _dtype_name(d):
    return str(d).split(".")[-1]


def flatten_result(r, lib):
    """A list of (dtype name, NumPy array) or plain Python values of a result."""
    if lib is torch and isinstance(r, torch.Tensor):
        return [(_dtype_name(r.dtype), _torch_numpy(r))]
    if lib is genesis and isinstance(r, genesis.Tensor):
        return [(_dtype_name(r.dtype), to_numpy(r))]
    if isinstance(r, (tuple, list)):
        out = []
        for x in r:
            out += flatten_result(x, lib)
        return out
    return [r]


def _reduced_axes(call, ndim):
    dim = call.kwargs.get("dim")
    if dim is None or ndim == 0:
        return tuple(range(ndim))
    dims = dim if isinstance(dim, (tuple, list)) else (dim,)
    return tuple(sorted({d % ndim for d in dims}))


def reduction_scale(call, out_shape):
    """(sum, max) of |x| over the reduced elements (the finite ones; squares for var/std),
    broadcast to the output, and the number of reduced elements: the scales of a reduction's
    accumulation error."""
    v = np.asarray(call.args[0].values(), dtype=np.float64)
    with np.errstate(all="ignore"):
        a = np.where(np.isfinite(v), np.abs(v), 0.0)
        if call.op in ("var", "std", "var_mean", "std_mean"):
            a = a * a
    axes = _reduced_axes(call, a.ndim)
    n = max(math.prod(a.shape[i] for i in axes), 1)
    out = []
    for f in (np.sum, np.max):
        r = f(a, axis=axes, keepdims=True) if a.size else np.zeros([1] * a.ndim)
        try:
            out.append(np.broadcast_to(r, out_shape))
        except ValueError:  # keepdim=False: the reduced dims are gone
            out.append(np.broadcast_to(np.squeeze(r, axis=axes), out_shape))
    return out[0], out[1], n


def term_scale(call, out_shape):
    """The magnitude of the terms an add/sub/addcmul/addcdiv/lerp result is the sum of: the
    scale of its rounding error (a fused or unfused multiply-add rounds differently)."""
    v = []
    for a in call.args:
        if _is_t(a):
            v.append(np.abs(np.asarray(a.values(), dtype=np.float64)))
        else:
            v.append(abs(float(a)) if _is_scalar(a) else 0.0)
    k = abs(float(call.kwargs.get("alpha", call.kwargs.get("value", 1))))
    with np.errstate(all="ignore"):
        if call.op in ("add", "sub"):
            s = v[0] + k * v[1]
        elif call.op == "addcmul":
            s = v[0] + k * v[1] * v[2]
        elif call.op == "addcdiv":
            s = v[0] + k * v[1] / v[2]
        else:  # lerp
            s = (v[0] + v[1]) * (1 + v[2])
        s = np.where(np.isfinite(s), s, 0.0)
    return np.broadcast_to(s, out_shape)


PICKING = ("amax", "amin", "max", "min", "aminmax", "cummax", "cummin", "median", "nanmedian")
SUM_LIKE = "sum nansum mean nanmean cumsum var std var_mean std_mean".split()
LOG_SUM_EXP = ("logsumexp", "logcumsumexp", "log_softmax", "softmax")


def compare_arrays(call, op, dt, g, t, index=0):
    """None where genesis's array g matches PyTorch's t (both of dtype dt), else a message."""
    if g.shape != t.shape:
        return f"shape {g.shape} != torch {t.shape}"
    if dt not in FLOAT_NAMES:
        if not np.array_equal(g, t):
            bad = np.argwhere(g != t)[:4].tolist()
            return f"values differ at {bad}: genesis {g[g != t][:4]} torch {t[g != t][:4]}"
        return None
    g64, t64 = g.astype(np.float64), t.astype(np.float64)
    gn, tn = np.isnan(g64), np.isnan(t64)
    if (gn != tn).any():
        bad = np.argwhere(gn != tn)[:4].tolist()
        return (
            f"NaN at different places {bad}: genesis {g64[gn != tn][:4]} torch {t64[gn != tn][:4]}"
        )
    tol = op.tol if op is not None else "arith"
    if call is not None and call.op in PICKING:
        tol = "arith"  # the result is one of the input's values
    rtol = {"exact": RTOL, "arith": RTOL, "trans": RTOL_TRANS, "loose": RTOL_LOOSE, "reduce": RTOL}
    rtol = rtol[tol][dt]
    atol = np.full(t64.shape, TINY[dt] * 4)
    if tol == "trans":
        atol = np.maximum(atol, {"float16": 1e-5, "bfloat16": 1e-5}.get(dt, 0.0))
    if tol == "loose":
        atol = np.maximum(atol, {"float32": 1e-5, "float64": 1e-10}.get(dt, 1e-4))
    if call is not None and call.style == "F":  # x * f(x): f's error (gelu: 1 + erf) times |x|
        x = np.abs(np.asarray(call.args[0].values(), dtype=np.float64))
        with np.errstate(all="ignore"):
            atol = np.maximum(atol, np.where(np.isfinite(x), 4 * EPS[dt] * x, 0.0))
    if call is not None and call.op in ("add", "sub", "addcmul", "addcdiv", "lerp"):
        atol = np.maximum(atol, 4 * EPS[dt] * term_scale(call, t64.shape))
    if tol == "reduce":
        eps = 2.0**-52 if dt == "float64" else 2.0**-23  # 16-bit floats accumulate in float32
        total, biggest, n = reduction_scale(call, t64.shape)
        if call.op in SUM_LIKE:
            extra = 4 * n * eps * total
            atol = np.maximum(
                atol, np.sqrt(extra) if call.op.startswith("std") and index == 0 else extra
            )
        elif call.op in LOG_SUM_EXP:
            extra = 4 * eps * (2 * biggest + n)
            if call.op == "softmax":
                rtol = rtol + extra
            else:
                atol = np.maximum(atol, extra)
        else:  # prod, cumprod, norm: products and sums of positive terms
            rtol = rtol + 4 * n * eps
            p = call.kwargs.get("p")
            if call.op == "norm" and p not in (None, "fro", 0, 1, 2, math.inf, -math.inf):
                with np.errstate(all="ignore"):  # x ** (1 / p): 1 / p is rounded
                    rtol = rtol + 4 * eps * np.nan_to_num(np.abs(np.log(np.abs(t64))))
            if call.op == "norm" and p not in (0, math.inf, -math.inf):
                p = 2 if p in (None, "fro") else p
                with np.errstate(all="ignore"):  # |x|**p underflows: the norm is 0 or not
                    tiny = 1e-300 if dt == "float64" else 1e-37
                    atol = np.maximum(atol, np.where(biggest**p < tiny, biggest, 0.0))
    with np.errstate(all="ignore"):
        finite = np.isfinite(g64) & np.isfinite(t64)
        ok = (gn & tn) | (g64 == t64) | (finite & (np.abs(g64 - t64) <= atol + rtol * np.abs(t64)))
        if dt == "float16":  # a result at the edge of the range: one rounds to inf, one to max
            big = float(np.finfo(np.float16).max)
            same_sign = np.sign(g64) == np.sign(t64)
            ok |= np.isinf(g64) & (np.abs(t64) >= big) & same_sign
            ok |= np.isinf(t64) & (np.abs(g64) >= big) & same_sign
    if not ok.all():
        bad = np.argwhere(~ok)[:4].tolist()
        return f"values differ at {bad}: genesis {g64[~ok][:4]} torch {t64[~ok][:4]}"
    return None


def compare_results(call, op, gr, tr):
    gl, tl = flatten_result(gr, genesis), flatten_result(tr, torch)
    if len(gl) != len(tl):
        return f"result structure: genesis {gr!r} torch {tr!r}"
    if call is not None and call.op in ("median", "nanmedian") and len(gl) == 2:
        gl, tl = gl[:1], tl[:1]  # which of equal values' indices is returned is unspecified
    for i, (g, t) in enumerate(zip(gl, tl)):
        if isinstance(t, tuple):
            if not isinstance(g, tuple):
                return f"result {i}: genesis {type(g).__name__}, torch a tensor"
            if g[0] != t[0]:
                return f"result {i}: dtype genesis {g[0]} torch {t[0]}"
            msg = compare_arrays(call, op, t[0], g[1], t[1], i)
            if msg:
                return f"result {i}: {msg}" if len(gl) > 1 else msg
        elif type(g) is not type(t) or g != t:
            return f"result {i}: genesis {g!r} torch {t!r}"
    return None


# --------------------------------------------------------------------------------------------
# Running a call on both libraries, and the verdict.


def namespace(lib, device, upcast=False):
    """The names a call's text uses; upcast: torch's 16-bit float tensors as float32."""

    def T(values, dtype, shape):
        a = np.array(values, dtype=NP_OF[dtype]).reshape(shape)
        if lib is genesis:
            return genesis.tensor(a, dtype=getattr(genesis, dtype), device=device)
        if upcast and dtype in HALF_NAMES:
            dtype = "float32"
        if dtype == "bfloat16":  # by its bits: torch's float32 -> bfloat16 makes NaN negative
            bits = (round_to_bfloat16(a).view(np.uint32) >> 16).astype(np.uint16)
            bits = np.asarray(bits, dtype=np.uint16).reshape(a.shape)
            return torch.from_numpy(bits.view(np.int16)).view(torch.bfloat16)
        return torch.from_numpy(a).to(getattr(torch, dtype))

    ns = {"L": _Upcast() if upcast else lib, "T": T, "nan": math.nan, "inf": math.inf}
    if lib is torch:
        ns.update(zero_division=_zero_division, pole=_pole, as_bool=_as_bool)
        ns.update(exact_fmod=lambda a, b: _exact("fmod", a, b))
        ns.update(exact_remainder=lambda a, b: _exact("remainder", a, b))
    return ns


class _Upcast:
    """torch, with float16 and bfloat16 meaning float32 (in dtype= arguments)."""

    def __getattr__(self, name):
        return torch.float32 if name in HALF_NAMES else getattr(torch, name)


def evaluate(text, ns):
    """(result, None) or (None, the exception)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return eval(text, dict(ns)), None
        except Exception as e:  # noqa: BLE001 - every exception is an outcome to compare
            return None, e


def _matches(entry, call, kind, message):
    outcomes = entry.outcome if isinstance(entry.outcome, tuple) else (entry.outcome,)
    return (
        kind in outcomes
        and call.op in entry.ops
        and entry.when(call)
        and re.search(entry.message, message) is not None
    )


@dataclasses.dataclass
class Verdict:
    kind: str  # ok | skipped | torch raises | genesis raises | values | exception class
    detail: str = ""
    entry: object = None  # the Difference or Bug that covers it

    @property
    def fails(self):
        return self.kind not in ("ok", "skipped") and self.entry is None


def _err(e):
    return f"{type(e).__name__}: {e}"


def verdict(call, op, g, t, origin=None, depth=0):
    """Judges genesis's outcome g against torch's t ((result, exception) pairs) for call.
    A deliberate difference's rewrite judges g again against torch's rewritten call (origin is
    the call the fuzz made: the known bugs' predicates look at it)."""
    origin = origin or call
    (g_res, g_err), (t_res, t_err) = g, t
    if isinstance(t_err, AttributeError) and "torch" in str(t_err):
        return Verdict("skipped", f"this torch lacks it: {t_err}")  # an older torch
    if g_err is not None and not str(g_err).startswith("["):
        return Verdict("genesis message", f"no [op] prefix: {_err(g_err)}")
    if g_err is not None and t_err is not None:
        allowed = next((v for k, v in EXCEPTION_EQUIVALENTS.items() if isinstance(t_err, k)), ())
        if isinstance(g_err, allowed):
            return Verdict("ok")
    if t_err is not None and depth < 4:
        for d in DELIBERATE_DIFFERENCES:
            if _matches(d, call, "torch raises", str(t_err)):
                if d.rewrite is None:
                    if g_err is None:
                        return Verdict("torch raises", _err(t_err), d)
                    continue
                new = d.rewrite(call)
                v = verdict(new, op, g, evaluate(new.text, NS_TORCH), origin, depth + 1)
                if v.fails:
                    v.detail = f"{v.detail}\n    (as {new.text[:300]}: {d.rule[:80]}...)"
                return v
    if g_err is not None and t_err is not None:
        detail = f"genesis {_err(g_err)} / torch {_err(t_err)}"
        return Verdict("exception class", detail, _cover(call, "exception class", str(g_err)))
    if isinstance(t_err, NotImplementedError) and g_err is None:
        # A kernel this torch lacks for a dtype, with no rule for it (torch 2.11 has no nansum
        # of int64; 2.13 has it).
        return Verdict("skipped", f"this torch lacks it: {t_err}")
    if t_err is not None:
        detail = f"torch {_err(t_err)}; genesis gives {g_res!r}"
        return Verdict("torch raises", detail, _cover(origin, "torch raises", str(t_err)))
    if g_err is not None:
        detail = f"genesis {_err(g_err)}; torch gives {t_res!r}"
        return Verdict("genesis raises", detail, _cover(origin, "genesis raises", str(g_err)))
    msg = compare_results(origin, op, g_res, t_res)
    if msg is None:
        return Verdict("ok")
    halves = set(HALF_NAMES) & (origin.dtypes | {getattr(origin.kwargs.get("dtype"), "name", "")})
    if op.family in ("unary", "reduction") and halves:
        # 16-bit floats compute in float32, rounded once: torch's CPU kernels of some ops
        # (log_softmax, ...) round more often.
        res, err = evaluate(call.text, NS_TORCH_FLOAT32)
        if err is None and compare_results(origin, op, g_res, _cast_like(res, t_res)) is None:
            return Verdict("ok")
    if op.family == "unary" and call is origin and origin.dtypes & set(FLOAT_NAMES):
        # Where torch's float32 kernel is less accurate (cosh near the float32 range, trigamma
        # of large negative x), the value computed in float64 and rounded is the reference.
        res, err = evaluate(in_float64(origin).text, NS_TORCH)
        if err is None and compare_results(origin, op, g_res, res) is None:
            return Verdict("ok")
    for d in DELIBERATE_DIFFERENCES:
        if _matches(d, call, "values", ""):
            new = d.rewrite(call)
            res, err = evaluate(new.text, NS_TORCH)
            if err is None and compare_results(origin, op, g_res, res) is None:
                return Verdict("values", msg, d)
    return Verdict("values", msg, _cover(origin, "values", ""))


def _cover(call, kind, message):
    """The entry that allows this outcome as it is: a known bug, or a difference without a
    rewrite (one with a rewrite allows only the values its rewrite gives, checked above)."""
    for entry in DELIBERATE_DIFFERENCES + KNOWN_BUGS:
        if getattr(entry, "rewrite", None) is None and _matches(entry, call, kind, message):
            return entry
    return None


NS_TORCH = namespace(torch, "cpu")
NS_TORCH_FLOAT32 = namespace(torch, "cpu", upcast=True)


def _cast_like(r, like):
    """r's tensors in the dtypes of like's."""
    if isinstance(r, torch.Tensor) and isinstance(like, torch.Tensor):
        return r.to(like.dtype)
    if isinstance(r, tuple) and isinstance(like, tuple) and len(r) == len(like):
        return tuple(_cast_like(x, y) for x, y in zip(r, like))
    return r


def torch_crashes(call):
    """torch 2.13's CPU div(rounding_mode='trunc') of the integer minimum by -1 kills the
    process (SIGFPE); genesis wraps, as torch's '//' and the floor mode do."""
    if call.op != "div" or call.kwargs.get("rounding_mode") != "trunc" or len(call.args) < 2:
        return False
    a, b = call.args[0], call.args[1]
    dtypes = [x.dtype for x in (a, b) if _is_t(x)]
    if not dtypes or any(d in FLOAT_NAMES or d == "bool" for d in dtypes):
        return False
    lo = _int_range(str(np.result_type(*dtypes)))[0]
    return bool((_values(a) == lo).any() and (_values(b) == -1).any())


def run_call(call, op, device):
    if torch_crashes(call):
        return Verdict("skipped", "torch crashes on it")
    crash = _cover(call, "crash", "")
    if crash is not None:  # not run: it would kill the test process
        return Verdict("crash", "genesis crashes on it", crash)
    g = evaluate(call.text, namespace(genesis, device))
    t = evaluate(call.text, NS_TORCH)
    return verdict(call, op, g, t)


# --------------------------------------------------------------------------------------------
# The tests.


@pytest.mark.parametrize("seed", SEEDS)
def test_differential_fuzz(seed, device):
    failures = []
    for op, call in generate_calls(seed, CALLS_PER_SEED):
        v = run_call(call, op, device)
        if v.fails:
            failures.append(f"[{v.kind}] {call.text}\n    {v.detail}")
    assert not failures, f"{len(failures)} calls differ from torch:\n" + "\n".join(failures[:20])


def _outcome(text, device):
    """The (result, exception) pairs of a text on genesis (on device) and torch."""
    g = evaluate(text, namespace(genesis, device))
    t = evaluate(text, NS_TORCH)
    return g, t


def test_user_guide_lists_the_differences():
    """docs/user_guide.md's "Deliberate differences from PyTorch" has each rule of the table."""
    guide = Path(__file__).resolve().parents[2] / "docs" / "user_guide.md"
    if not guide.is_file():
        pytest.skip("no docs/ beside tests/")
    text = " ".join(guide.read_text(encoding="utf-8").split())
    missing = [d.rule for d in DELIBERATE_DIFFERENCES if " ".join(d.rule.split()) not in text]
    assert not missing, "rules missing from the user guide:\n" + "\n".join(missing)


@pytest.mark.parametrize("entry", DELIBERATE_DIFFERENCES, ids=lambda d: d.example[:50])
def test_deliberate_difference_example(entry, device):
    """Each documented difference still shows in its example (else the user guide is stale)."""
    (g_res, g_err), (t_res, t_err) = _outcome(entry.example, device)
    if entry.machine_dependent:
        try:
            _check_example(entry, g_res, g_err, t_res, t_err)
        except AssertionError:
            capability = torch.backends.cpu.get_cpu_capability()
            pytest.skip(f"torch's {capability} kernels agree with genesis here")
        return
    if not torch.__version__.startswith(TORCH_CHECKED):
        try:
            _check_example(entry, g_res, g_err, t_res, t_err)
        except AssertionError:
            pytest.skip(f"torch {torch.__version__} differs from {TORCH_CHECKED}x here")
        return
    _check_example(entry, g_res, g_err, t_res, t_err)


def _check_example(entry, g_res, g_err, t_res, t_err):
    if entry.outcome == "torch raises":
        assert t_err is not None and g_err is None, (g_err, t_res)
        assert re.search(entry.message, str(t_err)), t_err
    elif entry.outcome == "genesis raises":
        assert g_err is not None and t_err is None, (g_res, t_err)
        assert re.search(entry.message, str(g_err)), g_err
    elif entry.outcome == "exception class":
        assert g_err is not None and t_err is not None
        assert not isinstance(g_err, type(t_err)), (g_err, t_err)
    else:
        assert g_err is None and t_err is None, (g_err, t_err)
        assert compare_results(None, None, g_res, t_res) is not None, (g_res, t_res)


@pytest.mark.parametrize("bug", KNOWN_BUGS, ids=lambda b: b.reproducer[:50])
def test_known_bug_still_present(bug, device, request):
    """A known bug's reproducer still differs from PyTorch. Strict xfail: once the bug is fixed
    this test fails (XPASS) until the entry is removed from KNOWN_BUGS."""
    request.applymarker(pytest.mark.xfail(strict=True, raises=AssertionError, reason=bug.title))
    if bug.outcome == "crash":  # in a process of its own
        code = (
            "import math, numpy as np, genesis\n"
            "def T(values, dtype, shape):\n"
            "    a = np.array(values, dtype='float32' if dtype == 'bfloat16' else dtype)\n"
            f"    return genesis.tensor(a.reshape(shape), dtype=getattr(genesis, dtype), "
            f"device={device!r})\n"
            "L, nan, inf = genesis, math.nan, math.inf\n"
            f"{bug.reproducer}\n"
        )
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=120)
        assert done.returncode >= 0, f"killed by signal {-done.returncode}"
        return
    g_res, g_err = evaluate(bug.reproducer, namespace(genesis, device))
    t_res, t_err = evaluate(bug.want or bug.reproducer, NS_TORCH)
    assert (g_err is None) == (t_err is None), (g_err, t_err)
    if g_err is None:
        assert compare_results(None, None, g_res, t_res) is None
