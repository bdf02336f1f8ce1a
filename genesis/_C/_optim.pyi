"""Type stubs for genesis._C._optim, generated from the built module by
`python tools/generate_stubs.py`: do not edit by hand."""

import typing

def _adagrad_step(
    params: list,
    grads: list,
    sums: list,
    steps: list,
    lr: typing.SupportsFloat | typing.SupportsIndex,
    lr_decay: typing.SupportsFloat | typing.SupportsIndex,
    eps: typing.SupportsFloat | typing.SupportsIndex,
    weight_decay: typing.SupportsFloat | typing.SupportsIndex,
    maximize: bool,
) -> None: ...
def _adam_step(
    params: list,
    grads: list,
    exp_avgs: list,
    exp_avg_sqs: list,
    max_exp_avg_sqs: list,
    steps: list,
    lr: typing.SupportsFloat | typing.SupportsIndex,
    beta1: typing.SupportsFloat | typing.SupportsIndex,
    beta2: typing.SupportsFloat | typing.SupportsIndex,
    eps: typing.SupportsFloat | typing.SupportsIndex,
    weight_decay: typing.SupportsFloat | typing.SupportsIndex,
    decoupled: bool,
    amsgrad: bool,
    maximize: bool,
) -> None: ...
def _adamax_step(
    params: list,
    grads: list,
    exp_avgs: list,
    exp_infs: list,
    steps: list,
    lr: typing.SupportsFloat | typing.SupportsIndex,
    beta1: typing.SupportsFloat | typing.SupportsIndex,
    beta2: typing.SupportsFloat | typing.SupportsIndex,
    eps: typing.SupportsFloat | typing.SupportsIndex,
    weight_decay: typing.SupportsFloat | typing.SupportsIndex,
    maximize: bool,
) -> None: ...
def _rmsprop_step(
    params: list,
    grads: list,
    square_avgs: list,
    grad_avgs: list,
    momentum_buffers: list,
    steps: list,
    lr: typing.SupportsFloat | typing.SupportsIndex,
    alpha: typing.SupportsFloat | typing.SupportsIndex,
    eps: typing.SupportsFloat | typing.SupportsIndex,
    weight_decay: typing.SupportsFloat | typing.SupportsIndex,
    momentum: typing.SupportsFloat | typing.SupportsIndex,
    centered: bool,
    maximize: bool,
) -> None: ...
def _sgd_step(
    params: list,
    grads: list,
    momentum_buffers: list,
    lr: typing.SupportsFloat | typing.SupportsIndex,
    momentum: typing.SupportsFloat | typing.SupportsIndex,
    dampening: typing.SupportsFloat | typing.SupportsIndex,
    weight_decay: typing.SupportsFloat | typing.SupportsIndex,
    nesterov: bool,
    maximize: bool,
) -> list: ...
