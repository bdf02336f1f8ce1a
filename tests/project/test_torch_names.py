"""How much of PyTorch's public API genesis has, name by name; a name it lacks needs a reason.

Eleven namespaces of torch are compared with their genesis counterparts:

    torch                     genesis
    torch.Tensor              genesis.Tensor
    torch.linalg              genesis.linalg
    torch.special             genesis.special
    torch.nn                  genesis.nn
    torch.nn.functional       genesis.nn.functional
    torch.nn.init             genesis.nn.init
    torch.nn.utils            genesis.nn.utils
    torch.optim               genesis.optim
    torch.optim.lr_scheduler  genesis.optim.lr_scheduler
    torch.utils.data          genesis.utils.data

Which of torch's names count is decided below (torch_names and friends). A name torch has and
genesis lacks must be in torch_names_allowlist.py under a reason; a name listed there that
genesis has (or, on torch 2.13, that torch does not have) fails too, so the list only shrinks.
The figures "present / total" per namespace are in docs/user_guide.md, "Coverage of PyTorch's
names"; test_coverage_figure_in_docs keeps them true. Name sets differ between torch versions:
the allow-list and the figures are for torch 2.13 (OLDER_TORCH adds what torch 2.11 has beyond
it), and the checks that only hold for one version skip on others.

Only names are compared, not signatures or behaviour: the differential tests do that.
"""

import functools
import importlib
import types
from pathlib import Path

import pytest
from torch_names_allowlist import ALLOWED, OLDER_TORCH

import genesis

torch = pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parents[2]
ALLOW_LIST = "tests/project/torch_names_allowlist.py"
NAMESPACES = (
    "torch",
    "torch.Tensor",
    "torch.linalg",
    "torch.special",
    "torch.nn",
    "torch.nn.functional",
    "torch.nn.init",
    "torch.nn.utils",
    "torch.optim",
    "torch.optim.lr_scheduler",
    "torch.utils.data",
)
# The torch version the allow-list and the figures of the docs are written for.
REFERENCE_TORCH = "2.13"

# Public names of the torch module that are no API: build flags and helpers of torch's own import
# machinery, which PyTorch documents nowhere.
TORCH_NOT_API = frozenset(
    {
        "TYPE_CHECKING",  # typing.TYPE_CHECKING, imported
        "USE_GLOBAL_DEPS",  # build flags of how libtorch is loaded
        "USE_RTLD_GLOBAL_WITH_LIBTORCH",
        "PRIVATE_OPS",  # a tuple of private operator names
        "LoggerBase",  # base class of torch._C's internal loggers
        "classproperty",  # a decorator of torch._utils
        "get_file_path",  # helpers of torch._utils_internal
        "prepare_multiprocessing_environment",
        "profiler_allow_cudagraph_cupti_lazy_reinit_cuda12",
    }
)

# Public names of torch.nn and torch.nn.functional that are no API: imports of typing and of
# torch's own machinery, TorchScript's annotation helpers, the __torch_function__ protocol's
# helpers, and a helper of torch.nn's constructors.
NN_NOT_API = frozenset(
    {
        "factory_kwargs",  # a helper that merges device/dtype keywords for torch.nn's classes
        "Callable",  # typing imports
        "Optional",
        "TYPE_CHECKING",
        "DType",  # a type alias
        "Tensor",  # the torch.Tensor class, imported
        "BroadcastingList1",  # TorchScript annotations of int-or-tuple arguments
        "BroadcastingList2",
        "BroadcastingList3",
        "boolean_dispatch",  # TorchScript's dispatch on a bool argument (max_pool's indices)
        "assert_int_or_pair",  # an argument check of fold/unfold
        "handle_torch_function",  # the __torch_function__ protocol
        "has_torch_function",
        "has_torch_function_unary",
        "has_torch_function_variadic",
    }
)

# The dunder methods of torch.Tensor that count: Python's operator and protocol methods (what
# `a + b`, `t[i]`, `len(t)`, `x in t`, `int(t)`, `copy.deepcopy`, pickle, NumPy and DLPack call).
# A dunder counts only where torch.Tensor defines it itself, not where it inherits object's.
# Left out: class machinery (__class__, __dict__, __init_subclass__, __new__, __module__ ...),
# PyTorch's subclass hooks (__torch_function__, __torch_dispatch__), Python 2 spellings that
# Python 3 never calls (__div__, __idiv__, __rdiv__, __long__, __nonzero__) and
# __dlpack_c_exchange_api__, an internal of PyTorch's DLPack exchange.
_BINARY = "add sub mul matmul truediv floordiv mod pow lshift rshift and or xor".split()
TENSOR_DUNDERS = frozenset(
    [f"__{op}__" for op in _BINARY]
    + [f"__r{op}__" for op in _BINARY]
    + [f"__i{op}__" for op in _BINARY]
    + [
        f"__{name}__"
        for name in (
            "eq ne lt le gt ge neg pos abs invert bool int float complex index "
            "getitem setitem delitem len iter reversed contains hash repr format "
            "copy deepcopy reduce_ex getstate setstate "
            "array array_wrap array_priority dlpack dlpack_device cuda_array_interface"
        ).split()
    ]
)


def _public(names):
    return {n for n in names if not n.startswith("_")}


@functools.cache
def torch_names(namespace):
    """The public names of a torch namespace, by these rules:

    - torch: the names of dir(torch) that do not start with "_", less modules (submodules such as
      torch.nn or torch.testing, which are namespaces of their own, and the standard-library
      modules torch imports) and TORCH_NOT_API. Not torch.__all__: it leaves out documented names
      (torch.unique, torch.from_dlpack, torch.set_grad_enabled, torch.set_default_dtype,
      torch.strided, torch.broadcast_shapes ...).
    - torch.Tensor: the names of dir(torch.Tensor) that do not start with "_" (methods, in-place
      foo_ methods included, and properties), and the dunders of TENSOR_DUNDERS that
      torch.Tensor defines itself.
    - torch.linalg: it has no __all__: the names of dir(torch.linalg) that do not start with "_"
      and are callable (functions and LinAlgError; this leaves out a docstring fragment).
    - torch.special: torch.special.__all__ (dir() also shows the module torch, the class Tensor
      and docstring fragments).
    - torch.nn and torch.nn.functional: they have no __all__: the names of dir() that do not
      start with "_" and are callable (classes and functions; this leaves out modules, the
      docstring fragments and constants of torch.nn.functional), less NN_NOT_API.
    - torch.nn.init, torch.nn.utils, torch.optim, torch.optim.lr_scheduler and torch.utils.data:
      their __all__, less submodules (torch.nn.utils.rnn, parametrize, parametrizations and
      stateless, torch.optim.lr_scheduler and swa_utils are namespaces of their own).
    """
    if namespace == "torch":
        return frozenset(
            n
            for n in _public(dir(torch))
            if not isinstance(getattr(torch, n), types.ModuleType) and n not in TORCH_NOT_API
        )
    if namespace == "torch.Tensor":
        tensor = torch.Tensor
        dunders = {
            n
            for n in TENSOR_DUNDERS
            if getattr(tensor, n, None) not in (None, getattr(object, n, None))
        }
        return frozenset(_public(dir(tensor)) | dunders)
    if namespace == "torch.linalg":
        return frozenset(
            n for n in _public(dir(torch.linalg)) if callable(getattr(torch.linalg, n))
        )
    if namespace == "torch.special":
        return frozenset(torch.special.__all__)
    if namespace in ("torch.nn", "torch.nn.functional"):
        module = importlib.import_module(namespace)
        return frozenset(
            n
            for n in _public(dir(module))
            if callable(getattr(module, n))
            and not isinstance(getattr(module, n), types.ModuleType)
            and n not in NN_NOT_API
        )
    if namespace in (
        "torch.nn.init",
        "torch.nn.utils",
        "torch.optim",
        "torch.optim.lr_scheduler",
        "torch.utils.data",
    ):
        module = importlib.import_module(namespace)
        return frozenset(
            n for n in module.__all__ if not isinstance(getattr(module, n), types.ModuleType)
        )
    raise ValueError(namespace)


def genesis_namespace(namespace):
    """genesis's counterpart of a torch namespace, or None where genesis has none."""
    if namespace == "torch":
        return genesis
    if namespace == "torch.Tensor":
        return genesis.Tensor
    name = "genesis." + namespace.removeprefix("torch.")
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as e:
        if e.name != name:
            raise
        return None


def genesis_has(namespace, name):
    """Whether genesis's counterpart has the name. A dunder counts where genesis.Tensor defines
    it, not where it inherits object's (whose __lt__ only returns NotImplemented)."""
    obj = genesis_namespace(namespace)
    if obj is None:
        return False
    if name == "__hash__":  # genesis.Tensor takes object's identity hash, as torch's hashes
        return getattr(obj, name, None) is not None
    if name.startswith("__"):
        return getattr(obj, name, None) not in (None, getattr(object, name, None))
    return hasattr(obj, name)


@functools.cache
def present(namespace):
    return frozenset(n for n in torch_names(namespace) if genesis_has(namespace, n))


def missing(namespace):
    return torch_names(namespace) - present(namespace)


def allowed(namespace, table=None):
    """name -> reason, from the allow-list (ALLOWED and OLDER_TORCH, unless `table` is given)."""
    tables = (ALLOWED, OLDER_TORCH) if table is None else (table,)
    return {
        name: reason
        for t in tables
        for reason, names in t.get(namespace, {}).items()
        for name in names
    }


def on_reference_torch():
    return torch.__version__.startswith(REFERENCE_TORCH)


def coverage_row(namespace):
    """The row of the docs' coverage table: namespace, names genesis has, names torch has, %."""
    have, total = len(present(namespace)), len(torch_names(namespace))
    return f"| `{namespace}` | {have} | {total} | {100 * have / total:.0f}% |"


def test_allow_list_is_well_formed():
    assert set(ALLOWED) == set(NAMESPACES)
    assert set(OLDER_TORCH) <= set(NAMESPACES)
    vague = {"not needed", "not yet", "todo", "later", "other", "misc", "unsupported", "n/a"}
    for namespace in NAMESPACES:
        seen = {}
        for table in (ALLOWED, OLDER_TORCH):
            for reason, names in table.get(namespace, {}).items():
                assert isinstance(reason, str) and len(reason) >= 20, (namespace, reason)
                assert reason.strip().rstrip(".:").lower() not in vague, (namespace, reason)
                assert names, f"{namespace}: no names under {reason!r}"
                for name in names:
                    assert name not in seen, (
                        f"{namespace}.{name} is listed twice: under {seen[name]!r} and {reason!r}"
                    )
                    seen[name] = reason


@pytest.mark.parametrize("namespace", NAMESPACES)
def test_every_missing_name_is_allowed(namespace):
    unexplained = sorted(missing(namespace) - allowed(namespace).keys())
    assert not unexplained, (
        f"{len(unexplained)} names of {namespace} that genesis lacks are not in {ALLOW_LIST}: "
        f"add them there under a reason (or to genesis): {', '.join(unexplained)}"
    )


@pytest.mark.parametrize("namespace", NAMESPACES)
def test_allow_list_is_not_stale(namespace):
    problems = []
    landed = sorted(n for n in allowed(namespace) if genesis_has(namespace, n))
    if landed:
        problems.append(f"genesis has these now, remove them: {', '.join(landed)}")
    if on_reference_torch():
        # Names of other torch versions differ: this half holds on the reference version only.
        gone = sorted(allowed(namespace, ALLOWED).keys() - torch_names(namespace))
        if gone:
            problems.append(
                f"torch {torch.__version__} has no such names, remove them: {', '.join(gone)}"
            )
        older = sorted(allowed(namespace, OLDER_TORCH).keys() & torch_names(namespace))
        if older:
            problems.append(
                f"torch {torch.__version__} has these, move them from OLDER_TORCH to ALLOWED: "
                f"{', '.join(older)}"
            )
    assert not problems, f"{ALLOW_LIST}, {namespace}: " + "; ".join(problems)


def test_coverage_figure_in_docs():
    if not on_reference_torch():
        pytest.skip(f"the figures are for torch {REFERENCE_TORCH}, this is {torch.__version__}")
    guide = ROOT / "docs" / "user_guide.md"
    if not guide.is_file():
        pytest.skip("docs/ is not next to this tests/ directory")
    lines = {line.strip() for line in guide.read_text(encoding="utf-8").splitlines()}
    rows = [coverage_row(namespace) for namespace in NAMESPACES]
    stale = [row for row in rows if row not in lines]
    assert not stale, (
        "docs/user_guide.md, \"Coverage of PyTorch's names\": the table's rows should be\n"
        + "\n".join(rows)
    )
