"""genesis.optim: PyTorch's optimizers, each group's step one fused C++ call (one kernel launch
on CUDA); Note [Optimizer objects] in genesis/optim/optimizer.py."""

from . import lr_scheduler, optimizer
from .adam import Adam, AdamW
from .optimizer import Optimizer
from .sgd import SGD

__all__ = ["SGD", "Adam", "AdamW", "Optimizer", "lr_scheduler", "optimizer"]
