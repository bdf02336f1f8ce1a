"""torch.optim.lr_scheduler for genesis: the learning-rate schedulers, in Python over an
optimizer's ``param_groups``, with PyTorch's names, signatures, defaults, warnings and numbers.

A file per family: ``base.py`` (LRScheduler, its warnings and state_dict; Note [Chainable and
closed forms], Note [Counting optimizer steps], Note [What a state_dict holds]),
``multiplicative.py`` (LambdaLR, MultiplicativeLR, StepLR, MultiStepLR, ConstantLR, LinearLR,
ExponentialLR, PolynomialLR), ``cosine.py`` (CosineAnnealingLR, CosineAnnealingWarmRestarts),
``cyclic.py`` (CyclicLR, OneCycleLR), ``composite.py`` (SequentialLR, ChainedScheduler) and
``plateau.py`` (ReduceLROnPlateau).
"""

from .base import EPOCH_DEPRECATION_WARNING as EPOCH_DEPRECATION_WARNING
from .base import LRScheduler
from .base import _LRScheduler as _LRScheduler
from .composite import ChainedScheduler, SequentialLR
from .cosine import CosineAnnealingLR, CosineAnnealingWarmRestarts
from .cyclic import CyclicLR, OneCycleLR
from .multiplicative import (
    ConstantLR,
    ExponentialLR,
    LambdaLR,
    LinearLR,
    MultiplicativeLR,
    MultiStepLR,
    PolynomialLR,
    StepLR,
)
from .plateau import ReduceLROnPlateau

__all__ = [
    "LambdaLR",
    "MultiplicativeLR",
    "StepLR",
    "MultiStepLR",
    "ConstantLR",
    "LinearLR",
    "ExponentialLR",
    "SequentialLR",
    "CosineAnnealingLR",
    "ChainedScheduler",
    "ReduceLROnPlateau",
    "CyclicLR",
    "CosineAnnealingWarmRestarts",
    "OneCycleLR",
    "PolynomialLR",
    "LRScheduler",
]
