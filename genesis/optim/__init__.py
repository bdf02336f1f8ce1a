"""genesis.optim: PyTorch's optimizers, each group's step one fused C++ call (one kernel launch
on CUDA; Adafactor's and Muon's are composed of ops, Note [Adafactor steps], Note [Muon steps]);
Note [Optimizer objects] in genesis/optim/optimizer.py."""

from . import lr_scheduler, optimizer
from .adadelta import Adadelta
from .adafactor import Adafactor
from .adagrad import Adagrad
from .adam import Adam, AdamW
from .adamax import Adamax
from .asgd import ASGD
from .lbfgs import LBFGS
from .lion import Lion
from .muon import Muon
from .nadam import NAdam, RAdam
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .rprop import Rprop
from .sgd import SGD

__all__ = [
    "ASGD",
    "SGD",
    "Adadelta",
    "Adafactor",
    "Adagrad",
    "Adam",
    "AdamW",
    "Adamax",
    "LBFGS",
    "Lion",
    "Muon",
    "NAdam",
    "Optimizer",
    "RAdam",
    "RMSprop",
    "Rprop",
    "lr_scheduler",
    "optimizer",
]
