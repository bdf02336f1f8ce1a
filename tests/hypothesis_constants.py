"""Keeps the checkout's source out of Hypothesis's draws, so derandomized tests stay fixed.

Recent Hypothesis versions now and then draw a constant that they found in the source of any
imported module of the checkout that is not a test (genesis/*.py, tools/...), whenever the
constant fits the draw's range. A derandomized test therefore drew other examples whenever such
a module gained or lost a constant, or another one was imported: adding `PAGE = 123456` to any
of them changed the sizes that the memory-pool machine allocates and the index fuzzer's 400
examples (which then included a key that genesis still gets wrong), so a change to unrelated
code could turn the suite red. With no such constants, a test's examples depend only on the
test itself and on the pinned Hypothesis version.
"""


def use_no_local_constants():
    """Make Hypothesis see no constants in the checkout's modules (a private hook; the guard
    test in test_hypothesis_determinism.py fails when a Hypothesis upgrade moves it)."""
    try:
        from hypothesis.internal.conjecture import providers
        from hypothesis.internal.constants_ast import Constants
    except ImportError:
        return
    if hasattr(providers, "_get_local_constants"):
        providers._get_local_constants = Constants  # a new, empty pool each time
