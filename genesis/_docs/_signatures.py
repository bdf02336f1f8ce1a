"""Text signatures for compiled functions, from pybind11's signature line.

CPython gives ``inspect.signature`` a builtin's parameters through ``__text_signature__``: the
docstring starts ``name(params)`` and a ``--`` line. Those params carry no annotations and only
literal defaults, so pybind11's line (``add(input: object, other: object, *, alpha: object =
None) -> genesis._C.Tensor``) is cut down to ``(input, other, *, alpha=None)``. A default that is
not a literal becomes ``None`` (inspect could not evaluate it); an overloaded function takes
``(*args, **kwargs)``, which pybind11's first line also says.
"""

from __future__ import annotations

import ast
from typing import Any


def _split_top_level(params: str) -> list[str]:
    """Splits at the commas outside brackets and quotes."""
    if not any(ch in params for ch in "([{'\""):  # most lines: no nesting to track
        return [p.strip() for p in params.split(",") if p.strip()]
    parts, depth, quote, start = [], 0, "", 0
    for i, ch in enumerate(params):
        if quote:
            if ch == quote and params[i - 1] != "\\":
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(params[start:i].strip())
            start = i + 1
    tail = params[start:].strip()
    if tail:
        parts.append(tail)
    return parts


def _closing_paren(text: str, open_at: int) -> int:
    depth, quote = 0, ""
    for i in range(open_at, len(text)):
        ch = text[i]
        if quote:
            if ch == quote and text[i - 1] != "\\":
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                return i
    return -1


_PLAIN_DEFAULTS = {"None", "True", "False", "0", "1", "-1", "0.0", "1.0", "2", "()", "[]"}


def _parameter(param: str) -> str:
    if param in ("*", "/") or param.startswith("*"):
        return param.split(":", 1)[0].strip()
    name, _, rest = param.partition(":")
    name = name.strip()
    annotation_and_default = rest if rest else ""
    # pybind11 writes "name: annotation = default"; the default's repr follows " = ".
    _, eq, default = annotation_and_default.partition(" = ")
    if not eq and "=" in name:  # "name=default" without an annotation
        name, _, default = name.partition("=")
        name, eq = name.strip(), "="
    if not eq:
        return name
    default = default.strip()
    if default not in _PLAIN_DEFAULTS:
        try:
            ast.literal_eval(default)
        except (ValueError, SyntaxError):
            default = "None"
    return f"{name}={default}"


def parameters_of(signature_line: str, name: str) -> list[str] | None:
    """The parameter list of pybind11's ``name(...) -> ...`` line, or None if it is not one."""
    if not signature_line.startswith(name + "("):
        return None
    # pybind11's line ends "...) -> <type>", and no type it writes holds ") -> ".
    close = signature_line.rfind(") -> ")
    if close < 0:
        close = _closing_paren(signature_line, len(name))
    if close < 0:
        return None
    return [_parameter(p) for p in _split_top_level(signature_line[len(name) + 1 : close])]


def text_signature(pybind_doc: str, name: str, is_method: bool) -> str | None:
    """``(params)`` for a function whose pybind11 docstring is ``pybind_doc``, or None."""
    first = pybind_doc.split("\n", 1)[0]
    if "\nOverloaded function.\n" in pybind_doc:
        params = ["self", "*args", "**kwargs"] if is_method else ["*args", "**kwargs"]
    else:
        found = parameters_of(first, name)
        if found is None:
            return None
        params = found
    return "(" + ", ".join(params) + ")"


def class_signature(cls: type) -> str | None:
    """``(params)`` of calling the class: its __init__'s (or __new__'s) less the first; None if
    neither is a compiled function."""
    for name in ("__init__", "__new__"):
        raw: Any = cls.__dict__.get(name)
        if raw is not None and (
            type(raw).__name__ == "instancemethod" or isinstance(raw, staticmethod)
        ):
            fn = raw.__func__
            # fn.__doc__ starts with pybind11's signature line, before and after install.
            signature = text_signature(fn.__doc__ or "", name, True)
            if signature is None:
                return None
            params = _split_top_level(signature[1:-1])
            return "(" + ", ".join(params[1:]) + ")"
    return None
