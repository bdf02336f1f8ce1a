"""The docstrings of the compiled core, kept in Python (Note [Docstrings in Python]).

Each module here holds one area's texts in ``DOCS``: a key names the objects that share a text
(``"Tensor.add add"``: the method and the function), relative to ``genesis._C``; the value is the
text, or a tuple with one text per overload. Argument entries and Returns blocks that many ops
share are written once, in ``_fragments``. ``install`` (run by ``import genesis``) puts them on
the objects and gives every compiled function a text signature, so ``inspect.signature`` works.
Editing a text here needs no rebuild.
"""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType
from typing import Any

from ._signatures import class_signature, text_signature

# Every module of this package not named with an underscore is an area (a new family's module
# needs no line here).
AREAS = tuple(
    importlib.import_module(f"{__name__}.{module.name}")
    for module in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name)
    if not module.name.startswith("_")
)


def all_docs() -> dict[str, Any]:
    """Every documented object's path (relative to genesis._C) and its text."""
    found: dict[str, Any] = {}
    for area in AREAS:
        for keys, text in area.DOCS.items():
            for path in keys.split():
                if path in found:
                    raise RuntimeError(f"genesis._docs: {path} is documented twice")
                found[path] = text
    return found


def _resolve(core: ModuleType, path: str) -> tuple[Any, str, Any]:
    owner: Any = core
    *parents, name = path.split(".")
    try:
        for part in parents:
            owner = getattr(owner, part)
        raw = owner.__dict__[name] if name in owner.__dict__ else getattr(owner, name)
    except AttributeError:
        raise RuntimeError(f"genesis._docs: no object for {path}") from None
    return owner, name, raw


def _function_of(raw: Any) -> Any:
    """The builtin function behind a method, static method or function; None for others."""
    if type(raw).__name__ == "instancemethod" or isinstance(raw, staticmethod):
        raw = raw.__func__
    kind = type(raw).__name__
    return raw if kind in ("builtin_function_or_method", "method_descriptor") else None


def _compose(pybind_doc: str, text: Any) -> str:
    """pybind11's signature lines with the docstring after them, as pybind11 lays them out when
    the docstring is given at definition: after the signature, or after each overload's."""
    if text is None:
        return pybind_doc
    if isinstance(text, str):
        return pybind_doc + "\n" + text + "\n"
    head, sep, rest = pybind_doc.partition("Overloaded function.\n\n")
    entries = rest.rstrip("\n").split("\n\n")
    if not sep or len(entries) != len(text):
        raise RuntimeError("genesis._docs: the overloads and their texts do not match")
    parts = [entry + "\n" + ("\n" + t + "\n" if t else "") for entry, t in zip(entries, text)]
    return head + sep + "\n".join(parts)


def _set_function(core: ModuleType, fn: Any, name: str, is_method: bool, text: Any) -> None:
    pybind_doc = core._original_doc(fn)
    signature = text_signature(pybind_doc, name, is_method)
    if signature and type(fn).__name__ == "method_descriptor":
        # A plain C method: "$self" tells inspect to drop self once the method is bound.
        signature = signature.replace("(self", "($self", 1)
    doc = _compose(pybind_doc, text)
    core._set_function_doc(fn, f"{name}{signature}\n--\n\n{doc}" if signature else doc)


# pybind11's enums compute __doc__ from the class text (tp_doc) and their members; the first
# install keeps that computation here, as it replaces it with the text it computed.
_ENUM_DOC_GETTERS: dict[type, Any] = {}


def _set_class(core: ModuleType, cls: type, text: str | None) -> None:
    computed = cls.__dict__.get("__doc__")
    if hasattr(cls, "__members__") and not isinstance(computed, str):
        _ENUM_DOC_GETTERS.setdefault(cls, computed.fget)  # type: ignore[union-attr]
    if cls in _ENUM_DOC_GETTERS:
        if text is not None:
            core._set_type_doc(cls, text, None)
        shown = _ENUM_DOC_GETTERS[cls](cls)
    else:
        shown = text if text is not None else computed
    signature = class_signature(cls)
    internal = f"{cls.__name__}{signature}\n--\n\n{shown or ''}" if signature else shown
    core._set_type_doc(cls, internal or "", shown)


def _walk(core: ModuleType):
    """(owner, name, raw) for each function and class the core defines, submodules included."""
    modules = [core]
    seen: set[int] = set()
    while modules:
        module = modules.pop()
        for name, value in list(vars(module).items()):
            if isinstance(value, ModuleType):
                if value.__name__.startswith(core.__name__) and id(value) not in seen:
                    seen.add(id(value))
                    modules.append(value)
            elif isinstance(value, type):
                if value.__module__.startswith(core.__name__) and id(value) not in seen:
                    seen.add(id(value))
                    yield module, name, value
                    for attr, raw in list(vars(value).items()):
                        yield value, attr, raw
            else:
                yield module, name, value


def install(core: ModuleType) -> None:
    """Puts the texts on the core's objects and a text signature on every compiled function."""
    docs = all_docs()
    enum_members: dict[str, Any] = {}
    for path, text in docs.items():
        owner, name, raw = _resolve(core, path)
        if isinstance(owner, type) and name in getattr(owner, "__members__", {}):
            enum_members[path] = (owner, name, text)
    # Enum member texts first: an enum's __doc__ lists them.
    for owner, name, text in enum_members.values():
        entries = getattr(owner, "__entries")
        value, _ = entries[name]
        entries[name] = (value, text)
    done: set[str] = set(enum_members)
    classes: list[tuple[type, str | None]] = []
    for owner, name, raw in _walk(core):
        prefix = "" if owner is core else _path_of(core, owner)
        path = f"{prefix}.{name}" if prefix else name
        text = docs.get(path)
        if isinstance(raw, type):
            classes.append((raw, text))
            done.add(path)
            continue
        fn = _function_of(raw)
        if fn is not None:
            is_method = isinstance(owner, type) and not isinstance(raw, staticmethod)
            _set_function(core, fn, name, is_method, text)
            done.add(path)
        elif isinstance(raw, property) and text is not None:
            raw.__doc__ = text
            done.add(path)
    for cls, text in classes:
        _set_class(core, cls, text)
    missing = sorted(set(docs) - done)
    if missing:
        raise RuntimeError(f"genesis._docs: no object for {', '.join(missing)}")


def _path_of(core: ModuleType, owner: Any) -> str:
    """owner's dotted path below the core: "Tensor", "_linalg", "_cuda._CUDAGraph"."""
    name = owner.__qualname__ if isinstance(owner, type) else owner.__name__
    module = owner.__module__ if isinstance(owner, type) else owner.__name__
    below = module[len(core.__name__) + 1 :] if module != core.__name__ else ""
    if isinstance(owner, type):
        return f"{below}.{name}" if below else name
    return below
