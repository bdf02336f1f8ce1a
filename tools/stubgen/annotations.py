"""Type expressions from pybind11 signatures, rewritten to resolve inside a stub file.

pybind11 names bound classes by their full path (``genesis._C.Tensor``) and Python types by
their plain name (``int``). In the stub of module M, M's own classes lose the ``M.`` prefix,
other modules' names keep theirs and add an import, and a builtin that the module or the
enclosing class redefines (``genesis.bool`` is a dtype, ``Tensor.float()`` a method) is spelled
``builtins.float``.
"""

from __future__ import annotations

import ast
import builtins
import re

# A string literal (left alone: Literal['cpu'], Annotated[..., "[m, 1]"]) or a dotted name.
_TOKEN = re.compile(r"'[^']*'|\"[^\"]*\"|[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
_KEYWORDS = {"None", "True", "False"}


class Namespace:
    """How names resolve in one module's stub: its own names, and the imports it needs."""

    def __init__(self, module_name, names, cpp_names, aliases=None):
        self.module_name = module_name
        self.names = set(names)  # defined at the stub's top level
        self.cpp_names = cpp_names  # {C++ name pybind11 printed: Python name}
        # {own name: a top-level alias of it}, for where a class member hides the name
        # (Tensor.dtype, a property, hides the class dtype inside Tensor's body).
        self.aliases = dict(aliases or {})
        self.imports = set()

    def annotation(self, text, shadowed=()):
        """text rewritten for this stub; `shadowed` are names the enclosing class defines."""
        hidden = self.names | set(shadowed)
        for cpp, python in self.cpp_names.items():
            text = text.replace(cpp, python)
        out = _TOKEN.sub(lambda m: self._name(m.group(0), hidden, set(shadowed)), text)
        try:
            ast.parse(out, mode="eval")
        except SyntaxError:
            # A C++ name: a binding that returns a class bound only later in the module's init.
            raise ValueError(f"not a Python type expression: {text!r}; see CPP_NAMES") from None
        return out

    def _name(self, name, hidden, class_names):
        if name[0] in "'\"" or name in _KEYWORDS:
            return name
        own = self.module_name + "."
        if name.startswith(own):
            local = name[len(own) :]
            if local.split(".")[0] in class_names:
                if local in self.aliases:
                    return self.aliases[local]
                raise ValueError(f"{name} is hidden by a class member of the same name")
            return local
        if "." in name:
            self.imports.add(name.rsplit(".", 1)[0])
            return name
        if hasattr(builtins, name):
            if name in hidden:
                self.imports.add("builtins")
                return f"builtins.{name}"
            return name
        raise ValueError(f"unknown name {name!r} in a signature (a C++ type with no caster?)")

    def import_lines(self):
        """`import x` for every module used; a submodule import also binds its parents."""
        needed = {m for m in self.imports if m != self.module_name}
        return [f"import {m}" for m in sorted(needed)]
