"""The stub of a pybind11 module, read from the live module object.

Everything comes from what the module binds: its functions' signature lines (not their prose),
its classes' methods, properties and enum values, its submodules and the types of its plain
attributes (never their values), corrected where pybind11's types are not the truth by
stubgen/overrides.py (`truthful` below). Members are sorted by name, so the text depends only on
what is bound, not on the order it was bound in.
"""

from __future__ import annotations

import ast
import re
import sys
import types
from dataclasses import replace

from stubgen import overrides
from stubgen.annotations import Namespace
from stubgen.signatures import Param, Signature, parse, signatures

LINE_LENGTH = 100
INDENT = "    "
# Module attributes that every module has; not part of the API.
_MODULE_DUNDERS = {"__builtins__", "__doc__", "__file__", "__loader__", "__name__"}
_MODULE_DUNDERS |= {"__package__", "__path__", "__spec__", "__cached__"}
# Class attributes that every class has, or that pybind11 keeps for itself.
_CLASS_DUNDERS = {"__dict__", "__doc__", "__module__", "__qualname__", "__weakref__"}
_PYBIND11_PRIVATE = "_pybind11_"
_STDLIB = getattr(sys, "stdlib_module_names", {"builtins", "collections", "os", "types", "typing"})


def module_stubs(module, cpp_names):
    """{module name: stub text} for `module` and each of its submodules.

    cpp_names maps the C++ type names that pybind11 printed in place of a Python class to the
    class's full Python name.
    """
    stubs = {module.__name__: _ModuleStub(module, cpp_names).text()}
    for _, sub in _members(module):
        if _is_submodule(module, sub):
            stubs.update(module_stubs(sub, cpp_names))
    return stubs


def _members(obj):
    return sorted(vars(obj).items())


def _is_submodule(module, value):
    return isinstance(value, types.ModuleType) and value.__name__.startswith(module.__name__ + ".")


def _own(table, module_name):
    """{local name: value} of the entries of an overrides table that belong to the module."""
    prefix = module_name + "."
    return {
        k[len(prefix) :]: v for k, v in sorted(table.items()) if k.rpartition(".")[0] == module_name
    }


class _ModuleStub:
    def __init__(self, module, cpp_names):
        self.module = module
        self.members = [(n, v) for n, v in _members(module) if n not in _MODULE_DUNDERS]
        # Names only the stub has (overrides.py): aliases and typing-only named tuples.
        self.aliases = _own(overrides.ALIASES, module.__name__)
        self.named_tuples = _own(overrides.NAMED_TUPLES, module.__name__)
        hiding = {  # _dtype = dtype: an alias of an own name, for where a member hides it
            v.rpartition(".")[2]: k
            for k, v in self.aliases.items()
            if v.rpartition(".")[0] == module.__name__
        }
        names = [n for n, _ in self.members] + list(self.aliases) + list(self.named_tuples)
        self.ns = Namespace(module.__name__, names, cpp_names, hiding)

    def text(self):
        attributes, classes, functions, submodules = [], [], [], []
        for name, value in self.members:
            if _is_submodule(self.module, value):
                submodules.append(f"from . import {name} as {name}")
            elif isinstance(value, type):
                classes.append((name, self.cls(name, value, "")))
            elif isinstance(value, types.BuiltinFunctionType):
                key = f"{self.module.__name__}.{name}"
                functions.extend(_named(name, self.function, name, value, "", (), key=key))
            else:
                attributes.append(f"{name}: {self.type_of(value)}")
        aliases = []
        if self.aliases:
            self.ns.imports.add("typing")
        for name, target in self.aliases.items():
            line = f"{name}: typing.TypeAlias = {self.ns.annotation(target)}"
            if len(line) > LINE_LENGTH:  # as ruff format splits it
                head, _, value = line.partition(" = ")
                line = f"{head} = (\n{INDENT}{value}\n)"
            aliases.append(line)
        for name, fields in self.named_tuples.items():
            self.ns.imports.add("typing")
            lines = [f"class {name}(typing.NamedTuple):"]
            lines += [f"{INDENT}{f}: {self.ns.annotation(t)}" for f, t in fields]
            classes.append((name, lines))
        classes = [lines for _, lines in sorted(classes)]
        doc = (
            f'"""Type stubs for {self.module.__name__}, generated from the built module by\n'
            '`python tools/generate_stubs.py`: do not edit by hand."""'
        )
        blocks = [[doc], *self.import_blocks(), submodules, attributes, aliases]
        # One blank line between blocks and around classes; none between top-level functions,
        # nor between one-line classes (`class E(RuntimeError): ...`), as ruff formats stubs.
        for c in classes:
            previous = blocks[-1]
            if len(c) == 1 and previous and all(x.startswith("class ") for x in previous):
                blocks[-1] = [*blocks[-1], *c]
            else:
                blocks.append(c)
        blocks.append(functions)
        return "\n\n".join("\n".join(b) for b in blocks if b) + "\n"

    def import_blocks(self):
        """isort's sections: the standard library, third-party modules, then first-party."""
        lines = self.ns.import_lines()
        stdlib = [x for x in lines if x.split()[1].split(".")[0] in _STDLIB]
        first = [x for x in lines if x.split()[1].split(".")[0] == self.root()]
        third = [x for x in lines if x not in stdlib and x not in first]
        return [stdlib, third, first]

    def root(self):
        return self.module.__name__.split(".")[0]

    def type_of(self, value):
        """The annotation for a plain attribute: its type, never its value."""
        cls = type(value)
        if cls.__module__ == "builtins":
            return self.ns.annotation(cls.__name__)
        return self.ns.annotation(f"{cls.__module__}.{cls.__qualname__}")

    def cls(self, name, cls, indent):
        """The lines of class `cls`'s stub."""
        members = [(n, v) for n, v in _members(cls) if n not in _CLASS_DUNDERS]
        # Names the class body defines hide module names and builtins inside it.
        shadowed = {n for n, _ in members}
        bases = [self.base(b) for b in cls.__bases__]
        head = f"{indent}class {name}({', '.join(b for b in bases if b)})".replace("()", "")
        inner = indent + INDENT
        stubs = [
            _named(f"{name}.{n}", self.class_member, cls, n, v, inner, shadowed) for n, v in members
        ]
        # Attributes (one line each) first, then methods and properties; each sorted by name.
        body = [line for lines in stubs if _is_attribute(lines) for line in lines]
        body += [line for lines in stubs if not _is_attribute(lines) for line in lines]
        if not body:
            return [f"{head}: ..."]
        return [f"{head}:", *body]

    def base(self, base):
        if base is object or base.__name__ == "pybind11_object":
            return None
        if base.__module__ == "builtins":
            return self.ns.annotation(base.__name__)
        return self.ns.annotation(f"{base.__module__}.{base.__qualname__}")

    def class_member(self, cls, name, value, indent, shadowed):
        key = f"{self.module.__name__}.{cls.__qualname__}.{name}"
        if name.startswith(_PYBIND11_PRIVATE) or name.startswith("__") and not name.endswith("__"):
            return []  # pybind11's own (the ABI conduit, an enum's __entries)
        kind = type(value).__name__
        if isinstance(value, types.FunctionType):
            # Set from Python (genesis/__init__.py's Tensor.__repr__), not bound in C++: stubbed
            # only where overrides.SIGNATURES says what it takes (Tensor.__contains__).
            if key not in overrides.SIGNATURES:
                return []
            return self.function(name, value, indent, shadowed, key=key)
        if kind == "wrapper_descriptor":
            if name == "__hash__":  # object's own, set on Tensor (python/math.cpp)
                return [f"{indent}def __hash__(self) -> builtins.int: ..."]
            return []  # a C slot: pybind11's __init__ that raises when no constructor is bound
        if value is None:
            # __hash__ = None: unhashable (pybind11 clears it for classes that define __eq__).
            self.ns.imports.add("typing")
            ignore = "  # type: ignore[assignment]" if name == "__hash__" else ""
            return [f"{indent}{name}: typing.ClassVar[None]{ignore}"]
        if isinstance(value, cls):  # an enum value
            self.ns.imports.add("typing")
            return [f"{indent}{name}: typing.ClassVar[{cls.__name__}]"]
        if kind == "pybind11_static_property":
            (sig,) = signatures(name, value.fget.__doc__)
            returns = self.returns(sig.returns, shadowed)
            self.ns.imports.add("typing")
            return [f"{indent}{name}: typing.ClassVar[{returns}]"]
        if isinstance(value, property):
            return self.prop(name, value, indent, shadowed, key)
        if isinstance(value, staticmethod):
            return self.function(name, value.__func__, indent, shadowed, static=True, key=key)
        if kind == "instancemethod":
            return self.function(name, value.__func__, indent, shadowed, key=key)
        if kind == "method_descriptor":  # a plain CPython method, its doc in pybind11's form
            return self.function(name, value, indent, shadowed, key=key)
        if isinstance(value, type):
            return self.cls(name, value, indent)
        raise ValueError(f"{cls.__qualname__}.{name}: cannot stub a {kind}")

    def prop(self, name, value, indent, shadowed, key):
        (getter,) = truthful(key, signatures(name, value.fget.__doc__), function=False)
        lines = [f"{indent}@property"]
        lines += self.def_lines(name, getter, indent, shadowed, method=True)
        if value.fset is not None:
            (setter,) = truthful(key, signatures(name, value.fset.__doc__), function=False)
            lines.append(f"{indent}@{name}.setter")
            lines += self.def_lines(name, setter, indent, shadowed, method=True)
        return lines

    def function(self, name, func, indent, shadowed, static=False, key=None):
        """A function's stub, a method's when indented (in a class) and not static."""
        pybind11 = [] if key in overrides.SIGNATURES else signatures(name, func.__doc__)
        sigs = truthful(key, pybind11, function=not indent)
        method = bool(indent) and not static
        ignore = overrides.IGNORES.get(key)
        lines = []
        for sig in sigs:
            if static:
                lines.append(f"{indent}@staticmethod")
            if len(sigs) > 1:
                self.ns.imports.add("typing")
                lines.append(f"{indent}@typing.overload")
            defined = self.def_lines(name, sig, indent, shadowed, method)
            if ignore:  # on the def line, where type checkers report an override
                defined[0] += f"  # type: ignore[{ignore}]"
            lines += defined
        return lines

    def def_lines(self, name, sig, indent, shadowed, method):
        params = list(sig.params)
        # A method's first parameter is the instance ("self", or "arg0" in a property's getter),
        # typed as the class; the stub calls it self and leaves it bare.
        rendered = ["self"] if method else []
        params = params[1:] if method else params
        rendered += [self.param(p, shadowed) for p in params]
        unnamed = [i for i, p in enumerate(params) if _is_unnamed(p)]
        if unnamed and "/" not in rendered:
            # pybind11 calls arguments without py::arg "arg0", "arg1"...; they take no keyword.
            rendered.insert(unnamed[-1] + 1 + method, "/")
        returns = self.returns(sig.returns, shadowed)
        one_line = f"{indent}def {name}({', '.join(rendered)}) -> {returns}: ..."
        if len(one_line) <= LINE_LENGTH:
            return [one_line]
        inner = indent + INDENT
        joined = f"{inner}{', '.join(rendered)}"
        # As ruff format splits: one line of parameters if it fits, else (or for a lone
        # parameter) one a line with a trailing comma.
        if len(rendered) > 1 and len(joined) <= LINE_LENGTH:
            return [f"{indent}def {name}(", joined, f"{indent}) -> {returns}: ..."]
        return [
            f"{indent}def {name}(",
            *(f"{inner}{p}," for p in rendered),
            f"{indent}) -> {returns}: ...",
        ]

    def param(self, p, shadowed):
        if p.name in ("/", "*"):
            return p.name
        if p.annotation is None:
            # pybind11 writes py::args and py::kwargs as a bare "*args" and "**kwargs".
            if not p.name.startswith("*"):
                return p.name
            self.ns.imports.add("typing")
            text = f"{p.name}: typing.Any"
        else:
            text = f"{p.name}: {self.ns.annotation(p.annotation, shadowed)}"
        if p.default is not None:
            text += f" = {_default(p.default)}"
        return text

    def returns(self, text, shadowed):
        # py::object results are typed `object`, which allows nothing; they are any value.
        if text == "object":
            self.ns.imports.add("typing")
            return "typing.Any"
        return self.ns.annotation(text, shadowed)


def _named(where, make, *args, **kwargs):
    """make(*args, **kwargs), with `where` (the member being stubbed) in front of its errors."""
    try:
        return make(*args, **kwargs)
    except ValueError as e:
        raise ValueError(f"{where}: {e}") from None


def _is_attribute(lines):
    return len(lines) == 1 and not lines[0].lstrip().startswith(("def ", "class "))


def _is_unnamed(p):
    return p.name.startswith("arg") and p.name[3:].isdigit()


def _default(text):
    """A default value as written by pybind11 when it is a plain literal, else `...`."""
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return "..."
    if isinstance(value, str) and len(text) <= 40 and '"' not in value and "\\" not in value:
        return f'"{value}"'  # the quotes ruff's formatter writes
    if isinstance(value, (bool, int, float, str, type(None))) and len(text) <= 40:
        return text
    return "..."


# ---- The overrides (stubgen/overrides.py) -------------------------------------------------------

_IN_PLACE = re.compile(r"[a-z]\w*[a-z0-9]_")  # add_, zero_, requires_grad_; not __add__, _x_


def truthful(key, sigs, function):
    """The signatures to stub for member `key` ("module.name" or "module.Class.name"), given
    pybind11's: overrides.SIGNATURES's when it has them, else pybind11's with the types, results
    and keywords that overrides.py gives. `function`: a module-level function, not a method."""
    if key in overrides.SIGNATURES:
        return [_typed(parse(text)) for text in overrides.SIGNATURES[key]]
    return [_corrected(key, sig, function) for sig in sigs]


def _corrected(key, sig, function):
    owner, _, name = key.rpartition(".")
    operator = owner == overrides.TENSOR and name in overrides.OPERATORS
    params = list(sig.params)
    given = overrides.PARAMETER_TYPES.get(key, {})
    for i, p in enumerate(params):
        if p.name in given:
            params[i] = replace(p, annotation=given[p.name])
        elif operator and i > 0 and p.annotation == "object":
            params[i] = replace(p, annotation="genesis._C._Operand")
    returns = _result(key, sig, owner, name, operator)
    return _with_keywords(key, name, _typed(Signature(tuple(params), returns)), function)


def _result(key, sig, owner, name, operator):
    if sig.returns == "None":
        return sig.returns  # a property's setter, or a procedure
    given = overrides.RETURNS.get(key)
    if isinstance(given, dict):
        given = given.get(sig.returns)
    if given:
        return given
    if sig.returns != "object" or key in overrides.ANY:
        return sig.returns
    if owner == overrides.TENSOR and (operator or _IN_PLACE.fullmatch(name)):
        return overrides.TENSOR  # self, or an operator's new tensor
    if any(p.name == "out" for p in sig.params):
        return overrides.TENSOR  # an object only because out= returns `out`
    return sig.returns


def _out_type(returns):
    if returns == overrides.TENSOR:
        return overrides.TENSOR
    return f"collections.abc.Sequence[{overrides.TENSOR}]"


def _typed(sig):
    """sig with overrides.PARAMETERS's types for its untyped (`object` or bare) parameters."""
    params = []
    for p in sig.params:
        kind = _out_type(sig.returns) if p.name == "out" else overrides.PARAMETERS.get(p.name)
        if kind and p.annotation in (None, "object"):
            p = replace(p, annotation=f"{kind} | None" if p.default == "None" else kind)
        params.append(p)
    return Signature(tuple(params), sig.returns)


def _with_keywords(key, name, sig, function):
    """sig with the keywords that the call habits add (overrides.REQUIRES_GRAD and OUT)."""
    have = {p.name for p in sig.params}
    extra = []
    if key in overrides.REQUIRES_GRAD and "requires_grad" not in have:
        extra.append(Param("requires_grad", "bool", "False"))
    takes_out = name in overrides.OUT and name not in overrides.OUT_NEEDS_DIM
    function = function and key.rpartition(".")[0] in overrides.HABIT_MODULES
    if function and takes_out and "out" not in have:
        extra.append(Param("out", f"{_out_type(sig.returns)} | None", "None"))
    if not extra:
        return sig
    params = list(sig.params)
    # Keyword-only: after `*` or *args (a `*` added when there is neither), before **kwargs.
    if not any(p.name.startswith("*") and not p.name.startswith("**") for p in params):
        extra.insert(0, Param("*"))
    at = len(params) - (bool(params) and params[-1].name.startswith("**"))
    return Signature(tuple(params[:at] + extra + params[at:]), sig.returns)
