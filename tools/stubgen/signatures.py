"""pybind11's signature lines, read out of a bound function's ``__doc__``.

pybind11 writes the signatures at the top of the docstring, before any prose:

    name(arg: T, *, key: U = None) -> R            one signature, then a blank line and prose

    name(*args, **kwargs)                          several: numbered, each maybe with prose
    Overloaded function.

    1. name(arg: T) -> R

Only the signature lines are read, so adding or editing the prose changes nothing here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

OVERLOADED = "Overloaded function."


@dataclass(frozen=True)
class Param:
    name: str  # with its stars ("*args"), or the markers "/" and "*"
    annotation: str | None = None
    default: str | None = None


@dataclass(frozen=True)
class Signature:
    params: tuple[Param, ...]
    returns: str


def signatures(name, doc):
    """The signatures of function `name` from its docstring; a ValueError when there is none."""
    lines = (doc or "").splitlines()
    if len(lines) > 1 and lines[1].strip() == OVERLOADED:
        numbered = re.compile(rf"^\d+\. {re.escape(name)}(\(.*)$")
        found = [m.group(1) for m in map(numbered.match, lines[2:]) if m]
    elif lines and lines[0].startswith(f"{name}("):
        found = [lines[0][len(name) :]]
    elif lines and lines[0].startswith("("):  # a property's getter or setter is unnamed
        found = [lines[0]]
    else:
        found = []
    if not found:
        raise ValueError(f"no pybind11 signature in the docstring {doc!r}")
    return [parse(text) for text in found]


def parse(text):
    """A Signature from "(params) -> returns"."""
    close = next((i for i, depth in _depths(text) if depth == 0), None)
    rest = text[close + 1 :].strip() if close is not None else ""
    if not text.startswith("(") or not rest.startswith("->"):
        raise ValueError(f"not a signature: {text!r}")
    params = tuple(_param(p) for p in split_top_level(text[1:close], ",") if p)
    return Signature(params, rest[2:].strip())


def split_top_level(text, sep):
    """text split at each `sep` outside brackets and quotes, each part stripped."""
    cuts = [i for i, depth in _depths(text) if depth == 0 and text[i] == sep]
    bounds = zip([-1, *cuts], [*cuts, len(text)])
    return [text[a + 1 : b].strip() for a, b in bounds]


def _depths(text):
    """(index, bracket depth after it) for each character outside string literals."""
    depth, quote = 0, None
    for i, c in enumerate(text):
        if quote:
            if c == quote and text[i - 1] != "\\":
                quote = None
            continue
        if c in "'\"":
            quote = c
            continue
        depth += (c in "([{") - (c in ")]}")
        yield i, depth


def _param(text):
    if text in ("/", "*"):
        return Param(text)
    head, *default = split_top_level(text, "=")
    name, colon, annotation = head.partition(":")
    return Param(
        name.strip(),
        annotation.strip() if colon else None,
        "=".join(default).strip() if default else None,
    )
