"""OptimizedModule: what ``genesis.compile(module)`` returns (torch.compile's class of the name)."""

from __future__ import annotations

from typing import Any, Callable

from .module import Module

__all__ = ["OptimizedModule"]


class OptimizedModule(Module):
    """A module compiled by ``genesis.compile``: calls run ``_orig_mod`` in a compiled region.

    As torch's: the original module is the submodule ``_orig_mod`` (so ``state_dict`` keys start
    with ``_orig_mod.``), and attributes it lacks are looked up on the original module.
    """

    def __init__(self, mod: Module, compiled_call: Callable[..., Any]) -> None:
        super().__init__()
        self._orig_mod = mod
        object.__setattr__(self, "_compiled_forward", compiled_call)

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        return self._compiled_forward(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        try:
            return super().__getattr__(name)
        except AttributeError:
            return getattr(self.__dict__["_modules"]["_orig_mod"], name)
