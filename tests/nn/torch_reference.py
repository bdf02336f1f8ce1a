"""The PyTorch version genesis.nn follows (2.13: its reprs, signatures and defaults), and a skip
for tests comparing with a torch older than that (the GPU machine has torch 2.11, whose norm
layers have no ``bias=`` argument and print no ``bias=`` in their repr)."""

import pytest

REFERENCE = (2, 13)


def torch_version(torch):
    return tuple(int(part) for part in torch.__version__.split("+")[0].split(".")[:2])


def skip_unless_reference_torch(torch, what):
    if torch_version(torch) < REFERENCE:
        pytest.skip(
            f"{what} follow torch {REFERENCE[0]}.{REFERENCE[1]}; this is {torch.__version__}"
        )
