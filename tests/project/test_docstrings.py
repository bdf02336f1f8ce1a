"""Every public name has a real docstring, its examples run, and help(genesis) reads well.

The public names are found, not listed: the functions and classes that ``genesis`` and
``genesis.cuda`` export, and the members of the classes among them. A docstring needs prose
beyond pybind11's signature lines; functions, methods, properties and classes also need an
``Example::`` section, and functions and methods an ``Args:`` section naming every parameter
(with its default) and a ``Returns:`` (or ``Yields:``) section. Operator methods (``__add__``
...) need one line. Every ``>>>`` example is run with doctest; lines that need a GPU carry
``# doctest: +SKIP``.
"""

import doctest
import inspect
import pydoc
import re

import numpy as np
import pytest

import genesis

MODULES = [
    genesis,
    genesis.backends.cuda,
    genesis.cpu,
    genesis.cuda,
    genesis.amp,
    genesis.distributed,
    genesis.linalg,
    genesis.memory_manager,
    genesis.nn.functional,
    genesis.optim,
    genesis.optim.lr_scheduler,
    genesis.safetensors,
    genesis.special,
    genesis.utils.checkpoint,
    genesis.utils.data,
]


def _exported(module):
    """(qualified name, object) of the functions and classes a module exports."""
    for name in dir(module):
        obj = getattr(module, name)
        if name.startswith("_") or not (inspect.isroutine(obj) or inspect.isclass(obj)):
            continue  # private, a submodule, or data such as the dtype objects
        if not getattr(obj, "__module__", "").startswith("genesis"):
            continue  # imported from elsewhere (pkgutil.extend_path)
        yield f"{module.__name__}.{name}", obj


def _is_enum(cls):
    return hasattr(cls, "__members__")  # pybind11 enums: their members are pybind11's


def _members(qualname, cls):
    """(qualified name, object) of the methods and properties a class defines itself."""
    if _is_enum(cls) or issubclass(cls, BaseException):
        return
    bound_in_cpp = cls.__module__ == "genesis._C"
    for name in vars(cls):
        is_dunder = name.startswith("__") and name.endswith("__")
        if name.startswith("_") and not (is_dunder and bound_in_cpp):
            continue  # private; the dunders of Python classes are Python's protocol
        attr = getattr(cls, name)
        if isinstance(attr, property) or inspect.isroutine(attr):
            yield f"{qualname}.{name}", attr


def _public():
    found = {}  # an object exported under two names (an alias) is checked once
    for module in MODULES:
        for qualname, obj in _exported(module):
            found.setdefault(id(obj), (qualname, obj))
    members = [m for q, obj in found.values() if inspect.isclass(obj) for m in _members(q, obj)]
    return sorted([*found.values(), *members], key=lambda item: item[0])


PUBLIC = _public()
DOCUMENTED = PUBLIC + [(m.__name__, m) for m in MODULES]


def _short(qualname):
    return qualname.rsplit(".", 1)[-1]


def _is_dunder(qualname):
    name = _short(qualname)
    return name.startswith("__") and name.endswith("__")


def _signatures(obj, name):
    """The parameter lists of pybind11's signature lines ("1. add(self, other) -> Tensor")."""
    pattern = re.compile(rf"^(?:\d+\. )?{re.escape(name)}\((.*)\)(?: -> .+)?$")
    return [m.group(1) for line in (obj.__doc__ or "").splitlines() if (m := pattern.match(line))]


def _prose(obj, name):
    """The docstring without pybind11's signature lines, dedented."""
    doc = obj.__doc__ or ""
    if inspect.isclass(obj) and doc == type.__doc__:
        return ""
    sig = re.compile(rf"^(?:\d+\. )?{re.escape(name)}\(.*\)(?: -> .+)?$")
    lines = [ln for ln in doc.splitlines() if not sig.match(ln) and ln != "Overloaded function."]
    return inspect.cleandoc("\n".join(lines))


def _split_params(params):
    """Top-level comma split of a pybind11 parameter list."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(params):
        depth += ch in "([{"
        depth -= ch in ")]}"
        if ch == "," and depth == 0:
            parts.append(params[start:i])
            start = i + 1
    parts.append(params[start:])
    return [p.strip() for p in parts if p.strip()]


def _overloads(obj, qualname):
    """Per overload, {name: has_default} of what callers pass (self, *args and **kwargs left
    out); None when there is no signature to read."""
    name = _short(qualname)
    if inspect.isclass(obj):
        init = vars(obj).get("__init__")
        if init is None or _is_enum(obj) or hasattr(obj, "__dataclass_fields__"):
            return []  # no constructor, pybind11's enum one, or a dataclass users never build
        return _overloads(obj.__init__, f"{qualname}.__init__")
    lists = _signatures(obj, name)
    if lists:  # a pybind11 function, one signature line per overload
        overloads = []
        for plist in lists:
            params = {}
            for i, p in enumerate(_split_params(plist)):
                pname = re.split(r"[:=]", p)[0].strip()
                if (i == 0 and pname == "self") or pname in ("*", "/") or pname.startswith("*"):
                    continue
                params[pname] = " = " in p
            overloads.append(params)
        return overloads
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return None
    kinds = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    return [
        {
            p.name: p.default is not inspect.Parameter.empty
            for p in sig.parameters.values()
            if p.name != "self" and p.kind not in kinds
        }
    ]


def _section(prose, title):
    """The lines of section ``title`` ("Args"), or None when there is none."""
    lines = prose.splitlines()
    for i, line in enumerate(lines):
        if line.strip() == f"{title}:":
            body = []
            for rest in lines[i + 1 :]:
                if rest and not rest.startswith(" "):
                    break  # the next section
                body.append(rest)
            return body
    return None


def _arg_entries(args_lines):
    """{name: text} of an Args section's entries ("    dim (int): ..." and its continuation)."""
    entries, current = {}, None
    for line in args_lines:
        m = re.match(r"^    \*{0,2}(\w+)\b", line)
        if m and not line.startswith("     "):
            current = m.group(1)
            entries[current] = line
        elif current:
            entries[current] += " " + line.strip()
    return entries


def _kind(qualname, obj):
    if _is_dunder(qualname):
        return "dunder"
    if inspect.ismodule(obj):
        return "module"
    if inspect.isclass(obj):
        return "exception" if issubclass(obj, BaseException) else "class"
    if isinstance(obj, property):
        return "property"
    return "routine"


def _ids(items):
    return [q for q, _ in items]


@pytest.mark.parametrize("qualname, obj", PUBLIC, ids=_ids(PUBLIC))
def test_docstring(qualname, obj):
    kind = _kind(qualname, obj)
    prose = _prose(obj, _short(qualname))
    summary = prose.split("\n\n")[0].replace("\n", " ")
    assert len(re.findall(r"[A-Za-z]+", summary)) >= (2 if kind == "dunder" else 4), (
        f"{qualname} has no docstring with prose beyond its signature: {obj.__doc__!r}"
    )
    if kind in ("dunder", "exception"):
        return
    assert summary.endswith((".", ".)")), f"{qualname}: the summary is not a sentence"
    assert re.search(r"^Example::\n\n    >>> ", prose, re.M), f"{qualname} has no Example::"
    if kind == "property":
        return
    overloads = _overloads(obj, qualname)
    assert overloads is not None, f"{qualname}: no signature to check the docstring against"
    if any(overloads):
        args = _section(prose, "Args")
        assert args is not None, f"{qualname} takes parameters but has no Args: section"
        entries = _arg_entries(args)
        for params in overloads:
            for name, has_default in params.items():
                if re.fullmatch(r"arg\d+", name):
                    continue  # bound without py::arg: described under its own name
                assert name in entries, f"{qualname}: Args: does not describe {name!r}"
                if has_default:
                    assert "Default" in entries[name], f"{qualname}: Args: no default for {name}"
            assert len(entries) >= len(params), f"{qualname}: Args: misses unnamed parameters"
    if kind == "routine":
        has_returns = _section(prose, "Returns") is not None or _section(prose, "Yields")
        assert has_returns, f"{qualname} has no Returns: section"


def _examples(obj, qualname):
    doc = obj.__doc__ or ""
    return doctest.DocTestParser().get_doctest(doc, {}, qualname, None, 0)


@pytest.mark.parametrize("qualname, obj", DOCUMENTED, ids=_ids(DOCUMENTED))
def test_examples_run(qualname, obj):
    test = _examples(obj, qualname)
    if not test.examples:
        return
    test.globs = {"genesis": genesis, "np": np}
    runner = doctest.DocTestRunner()  # exact output: reprs must match to the space
    report = []
    try:
        runner.run(test, out=report.append)
    finally:
        genesis.set_printoptions(profile="default")  # examples may change global state
    assert not runner.failures, "".join(report)


def _help_text(module=genesis):
    return pydoc.render_doc(module, renderer=pydoc.plaintext)


def _help_sections(text):
    """{title: body} of the top-level sections of pydoc's text (NAME, CLASSES, FUNCTIONS ...)."""
    sections, title = {}, None
    for line in text.splitlines():
        if line and not line.startswith(" "):
            title = line.strip()
            sections[title] = []
        elif title:
            sections[title].append(line)
    return sections


def test_all_lists_the_public_names():
    exported = {qualname.split(".")[-1] for qualname, _ in _exported(genesis)}
    dtypes = {n for n in dir(genesis) if isinstance(getattr(genesis, n), genesis.dtype)}
    formats = {n for n in dir(genesis) if isinstance(getattr(genesis, n), genesis.memory_format)}
    # The dtypes named like Python's types stay out of `from genesis import *`, which would
    # otherwise replace bool, int and float (genesis.bool ... remain attributes).
    builtin_types = {"bool", "int", "float"}
    assert set(genesis.__all__) == exported | (dtypes - builtin_types) | formats | {
        "backends",
        "cuda",
        "linalg",
        "nn",
        "special",
    }
    assert len(genesis.__all__) == len(set(genesis.__all__))


def test_help_lists_classes_and_functions():
    sections = _help_sections(_help_text())
    classes = "\n".join(sections["CLASSES"])
    for cls in ("Tensor", "UntypedStorage", "device", "dtype", "IndexPlan", "IndexKind"):
        assert re.search(rf"^    class {cls}\b", classes, re.M), f"help(genesis) lacks {cls}"
    functions = "\n".join(sections["FUNCTIONS"])
    for name in genesis.__all__:
        obj = getattr(genesis, name)
        if inspect.isroutine(obj):
            assert re.search(rf"^    {name}\(", functions, re.M), f"help(genesis) lacks {name}"


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_help_hides_internal_names(module):
    sections = _help_sections(_help_text(module))
    for title in ("CLASSES", "FUNCTIONS", "DATA"):
        entries = re.findall(r"^    (\w+)", "\n".join(sections.get(title, [])), re.M)
        private = [e for e in entries if e.startswith("_") and not e.endswith("__")]
        assert not private, f"internal names in {title}: {private}"  # __all__ is pydoc's own
    assert "extend_path" not in "\n".join(sections.get("FUNCTIONS", []))


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_help_has_no_method_of_label(module):
    text = _help_text(module)  # Note [pydoc label] in csrc/python/pydoc_label.cpp
    assert "pybind11_detail_function_record" not in text
    # Functions are plain functions. (Class sections may name methods inherited from
    # pybind11's base object, as "__new__ ... class method of ...pybind11_object" on 3.12.)
    functions = "\n".join(_help_sections(text).get("FUNCTIONS", []))
    has_functions = any(inspect.isroutine(obj) for _, obj in _exported(module))
    assert bool(functions) == has_functions and " method of " not in functions
    assert "genesis - genesis" not in text and "cuda - genesis.cuda:" not in text  # NAME line


def test_help_of_one_function_has_no_method_of_label():
    for fn in (genesis.add, genesis.Tensor.add, genesis.tensor):
        assert " method of " not in pydoc.render_doc(fn, renderer=pydoc.plaintext)
