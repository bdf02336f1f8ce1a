"""genesis.cpu.amp: PyTorch's deprecated spelling of genesis.amp.autocast for the CPU (warns)."""

from ..amp._deprecated import cpu_autocast as autocast

__all__ = ["autocast"]
