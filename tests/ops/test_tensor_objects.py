"""Tensor results made by the operator fast path (Note [Unregistered results]) are ordinary
genesis.Tensor objects: attributes, weak references, garbage collection, no leaks."""

import gc
import sys
import weakref

import numpy as np

import genesis


def test_operator_results_take_attributes_and_weak_references(device):
    a = genesis.tensor([1.0, 2.0], device=device)
    c = a + a
    c.note = "sum"
    assert c.note == "sum"
    ref = weakref.ref(c)
    assert ref() is c
    del c
    gc.collect()
    assert ref() is None


def test_operator_results_keep_no_reference_to_the_type_or_memory(device):
    a = genesis.arange(8, dtype=genesis.float32, device=device)

    def churn(n):
        for _ in range(n):
            c = a * 2.0
            c = -c
            c = c < 3
        del c
        gc.collect()
        return sys.getrefcount(genesis.Tensor)

    # The first rounds may leave the interpreter holding the type once (its caches); after
    # that, a thousand more results must not move the count.
    settled = churn(100)
    assert churn(1000) == settled
    if device == "cuda":
        before = genesis.cuda.memory_allocated()
        for _ in range(100):
            a + a
        assert genesis.cuda.memory_allocated() == before


def test_operator_results_survive_their_operands_and_cycles(device):
    a = genesis.tensor([1.0, 2.0, 3.0], device=device)
    c = a + 1
    del a
    gc.collect()
    np.testing.assert_array_equal(c.cpu().numpy(), [2.0, 3.0, 4.0])
    c.self_ref = c  # a cycle through the instance dict
    ref = weakref.ref(c)
    del c
    gc.collect()
    assert ref() is None
