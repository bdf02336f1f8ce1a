"""The op table (genesis/_op_table.py, Note [The op table] in csrc/python/math.cpp) against the
built core, the generated files, and the tests: every public function and method of the core
is a row's form and every form a row names exists; the files tools/generate_ops.py writes are
current; every op has forward tests, and every op with a derivative has gradient tests."""

import importlib.util
import inspect
import pathlib
import re
import sys

import pytest

import genesis
from genesis._op_table import BINARY_CODES, BOUND_FAMILIES, FORMS, OPS, UNARY_CODES, op

ROOT = pathlib.Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"
# Functions of the core that genesis re-exports from Python, not ops: genesis.is_grad_enabled is
# genesis.autograd.grad_mode's (the thread's grad mode, with the Python-side modes).
CORE_HELPERS = {"is_grad_enabled"}
MODULE_OF = {"genesis": genesis._C, "linalg": genesis._C._linalg, "nn.functional": genesis._C._nn}


def _generator():
    path = ROOT / "tools" / "generate_ops.py"
    spec = importlib.util.spec_from_file_location("generate_ops", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _public(namespace, kind):
    return {
        n for n, v in vars(namespace).items() if type(v).__name__ == kind and not n.startswith("_")
    }


def _forms_in_core():
    """(module, name) -> the forms the built core has for it."""
    found = {}
    for module, core in MODULE_OF.items():
        for name in _public(core, "builtin_function_or_method") - CORE_HELPERS:
            if module != "genesis" and name.endswith("_") and name[:-1] in vars(core):
                found.setdefault((module, name[:-1]), set()).add("inplace")
            else:
                found.setdefault((module, name), set()).add("function")
    methods = _public(genesis.Tensor, "instancemethod")
    for name in methods:
        base = name[:-1]
        if name.endswith("_") and (base in methods or base in vars(genesis._C)):
            found.setdefault(("genesis", base), set()).add("inplace")
        else:
            found.setdefault(("genesis", name), set()).add("method")
    return found


def test_there_are_rows_and_names_are_unique():
    keys = [(r.module, r.name) for r in OPS]
    assert len(keys) == len(set(keys)) and len(keys) > 300


def test_every_core_function_and_method_is_a_row_form_and_back():
    in_core = _forms_in_core()
    in_table = {(r.module, r.name): set(r.forms) - {"out"} for r in OPS}
    assert set(in_core) - set(in_table) == set(), "ops the core binds that the table lacks"
    assert set(in_table) - set(in_core) == set(), "rows the core does not bind"
    wrong = {
        k: (sorted(in_table[k]), sorted(in_core[k])) for k in in_core if in_core[k] != in_table[k]
    }
    assert wrong == {}, "rows whose forms are not the core's (table, core)"


def test_an_explicit_out_parameter_is_in_the_table():
    for r in OPS:
        if "function" not in r.forms:
            continue
        fn = getattr(MODULE_OF[r.module], r.name)
        if "out" in inspect.signature(fn).parameters:
            assert "out" in r.forms, f"{r.qualified_name} takes out= but its row has no out"


def test_rows_refer_to_what_exists():
    names = {(r.module, r.name) for r in OPS}
    for r in OPS:
        assert (ROOT / "csrc" / "python" / f"{r.family}.cpp").exists()
        assert (ROOT / "genesis" / "_docs" / f"{r.family}.py").exists(), r.family
        if r.alias:
            assert (r.module, r.alias) in names, f"{r.name}: alias of an unknown op"
        if r.elementwise:
            kind, code, *_ = r.elementwise.split()
            codes = {c.name: c for c in (UNARY_CODES if kind == "unary" else BINARY_CODES)}
            assert code in codes, f"{r.name}: no {kind} code {code}"
            if kind == "unary":  # the row's gradient is its code's derivative
                assert (r.grad == "formula") == bool(codes[code].derivative), r.name


def test_every_family_is_bound_once():
    # A family of BOUND_FAMILIES is bound by the generated op_families.h; any other row's
    # family by module.cpp itself, before the operator slots.
    module_cpp = (ROOT / "csrc" / "python" / "module.cpp").read_text(encoding="utf-8")
    by_hand = set(re.findall(r"gp::init_(\w+)\(", module_cpp))
    for family in {r.family for r in OPS}:
        assert (family in BOUND_FAMILIES) != (family in by_hand), family
    for family in BOUND_FAMILIES:
        binding = (ROOT / "csrc" / "python" / f"{family}.cpp").read_text(encoding="utf-8")
        assert f"void init_{family}(py::module_& " in binding, family


def test_a_bad_row_is_refused():
    with pytest.raises(ValueError, match="unknown word"):
        op("x", "math", "function methods")
    with pytest.raises(ValueError, match="unknown word"):
        op("x", "math", "function", habits="factory sizes")
    assert set(FORMS) == {"function", "method", "inplace", "out"}


def test_generated_files_are_current():
    generator = _generator()
    try:
        stale = generator.stale(generator.load_table())
    finally:
        sys.modules.pop("_op_table", None)
    assert stale == [], "run python tools/generate_ops.py"


def test_exports_are_the_tables():
    functions = {r.name for r in OPS if r.module == "genesis" and "function" in r.forms}
    assert functions <= set(genesis.__all__)
    for name in functions:
        assert getattr(genesis, name) is getattr(genesis._C, name), name


def _test_sources(*folders):
    return "\n".join(
        p.read_text(encoding="utf-8") for f in folders for p in sorted((TESTS / f).glob("*.py"))
    )


def _called(name, text):
    """A call or a quoted mention of the op in test code: `.name(`, `m.name(`, `"name"`."""
    return re.search(r"(\.|\")" + re.escape(name) + r"(\(|\"|_\()", text) is not None


def _fuzzed():
    sys.path.insert(0, str(TESTS / "ops"))
    try:
        import test_differential_fuzz as fuzz
    finally:
        sys.path.remove(str(TESTS / "ops"))
    return {spec.name for spec in fuzz.ALL_OPS}


def test_every_op_has_forward_tests():
    text = _test_sources("ops", "io", "cuda", "memory", "autograd")
    fuzzed = _fuzzed()
    untested = [
        r.qualified_name
        for r in OPS
        if r.name not in fuzzed and not _called(r.name, text) and not _called(r.name + "_", text)
    ]
    assert untested == [], "ops no test calls"


def test_every_op_with_a_derivative_has_gradient_tests():
    text = _test_sources("autograd")
    rows = {(r.module, r.name): r for r in OPS}

    def tested(r):
        if _called(r.name, text):
            return True
        target = rows.get((r.module, r.alias))
        return target is not None and _called(target.name, text)

    missing = [r.qualified_name for r in OPS if r.grad == "formula" and not tested(r)]
    assert missing == [], "ops with a derivative and no gradient test in tests/autograd"


def test_missing_derivatives_raise_at_backward():
    x = genesis.tensor([0.5, 1.5, 2.5], dtype=genesis.float64, requires_grad=True)
    calls = {
        "histogram": lambda: genesis.histogram(x, bins=2)[0],
        "heaviside": lambda: genesis.heaviside(x, genesis.tensor(0.5, dtype=genesis.float64)),
        "meshgrid": lambda: genesis.meshgrid(x, x, indexing="ij")[0],
    }
    assert {r.name for r in OPS if r.grad == "missing"} >= set(calls)
    for name, call in calls.items():
        with pytest.raises(RuntimeError, match=f"derivative for '{name}' is not implemented"):
            call().sum().backward()


def test_codes_are_unique_and_named_for_backward():
    for codes in (UNARY_CODES, BINARY_CODES):
        names = [c.name for c in codes]
        assert len(names) == len(set(names))
    for c in UNARY_CODES:
        if c.derivative:
            assert c.backward.endswith(("Backward0", "Backward1")), c.name
    # A code's functor has its name (vocab/op_dispatch.h visits math::<name>).
    functors = (ROOT / "csrc" / "vocab" / "math_functors.h").read_text(encoding="utf-8")
    for c in UNARY_CODES + BINARY_CODES:
        assert re.search(r"\b" + c.name + r"\b", functors), f"no functor math::{c.name}"


@pytest.mark.parametrize("row", [r for r in OPS if r.elementwise], ids=lambda r: r.name)
def test_stated_dtypes_are_the_ones_taken(row):
    from genesis._op_table import DTYPE_CLASSES

    taken = []
    for name in DTYPE_CLASSES["all"]:
        x = genesis.tensor([True, False, True]) if name == "bool" else genesis.ones(3)
        x = x.to(getattr(genesis, name))
        fn = getattr(genesis, row.name)
        try:
            fn(x) if row.elementwise.startswith("unary") else fn(x, x)
        except (TypeError, RuntimeError):
            continue
        taken.append(name)
    assert tuple(taken) == DTYPE_CLASSES[row.dtypes]
