"""``genesis.futures``: a value that will be ready later, as torch.futures.Future.

What collectives hand out (``Work.get_future()``) and what DistributedDataParallel's
communication hooks return. A Future is set once (``set_result`` or ``set_exception``);
``wait()`` blocks until then (running the work it stands for, for a collective's), and
``then(callback)`` chains a computation on the value.

Example::

    >>> fut = genesis.futures.Future()
    >>> doubled = fut.then(lambda f: f.value() * 2)
    >>> fut.set_result(21)
    >>> doubled.wait()
    42
"""

from __future__ import annotations

import threading
from typing import Any, Callable

__all__ = ["Future", "collect_all"]


class Future:
    """A value set once, later: by ``set_result``, or by the work ``wait()`` finishes.

    Args:
        devices (list, optional): unused, for torch's signature. Default: None.

    Example::

        >>> fut = genesis.futures.Future()
        >>> fut.done()
        False
        >>> fut.set_result(3)
        >>> fut.done(), fut.value()
        (True, 3)
    """

    def __init__(self, *, devices: Any = None) -> None:
        self._lock = threading.Condition()
        self._done = False
        self._value: Any = None
        self._error: BaseException | None = None
        self._callbacks: list[Callable[[Future], None]] = []
        self._waiter: Callable[[], Any] | None = None  # computes the value on wait()

    def done(self) -> bool:
        """Whether the value (or an error) is set.

        Returns:
            bool: True once set.

        Example::

            >>> genesis.futures.Future().done()
            False
        """
        return self._done

    def set_result(self, result: Any) -> None:
        """Sets the value and runs the callbacks; RuntimeError if it was set already.

        Args:
            result: the value.

        Returns:
            None

        Example::

            >>> fut = genesis.futures.Future()
            >>> fut.set_result("x")
            >>> fut.value()
            'x'
        """
        self._finish(result, None)

    def set_exception(self, result: BaseException) -> None:
        """Sets an error that ``wait()`` and ``value()`` raise.

        Args:
            result (BaseException): the error.

        Returns:
            None

        Example::

            >>> fut = genesis.futures.Future()
            >>> fut.set_exception(ValueError("no"))
            >>> fut.done()
            True
        """
        self._finish(None, result)

    def _finish(self, value: Any, error: BaseException | None) -> None:
        with self._lock:
            if self._done:
                raise RuntimeError("[Future] the result was already set")
            self._value, self._error, self._done = value, error, True
            callbacks, self._callbacks = self._callbacks, []
            self._lock.notify_all()
        for cb in callbacks:
            cb(self)

    def wait(self) -> Any:
        """Blocks until the value is set (finishing the work it stands for) and returns it.

        Returns:
            the value; raises the error set with ``set_exception``.

        Example::

            >>> fut = genesis.futures.Future()
            >>> fut.set_result(1)
            >>> fut.wait()
            1
        """
        waiter, self._waiter = self._waiter, None
        if waiter is not None and not self._done:
            try:
                value = waiter()
            except BaseException as e:  # noqa: BLE001 - handed to whoever waits
                if not self._done:
                    self._finish(None, e)
            else:
                if not self._done:  # (a chained future is set by its callback meanwhile)
                    self._finish(value, None)
        with self._lock:
            while not self._done:
                self._lock.wait()
        return self.value()

    def value(self) -> Any:
        """The value, once set (RuntimeError before).

        Returns:
            the value; raises the error set with ``set_exception``.

        Example::

            >>> fut = genesis.futures.Future()
            >>> fut.set_result([1])
            >>> fut.value()
            [1]
        """
        if not self._done:
            raise RuntimeError("[Future.value] the result is not set yet; call wait()")
        if self._error is not None:
            raise self._error
        return self._value

    def then(self, callback: Callable[[Future], Any]) -> Future:
        """A Future of ``callback(self)``, run when this one is set.

        Args:
            callback: takes this Future, returns the new value.

        Returns:
            Future: set to the callback's result (or its error).

        Example::

            >>> fut = genesis.futures.Future()
            >>> plus = fut.then(lambda f: f.value() + 1)
            >>> fut.set_result(1)
            >>> plus.value()
            2
        """
        chained = Future()

        def run(f: Future) -> None:
            try:
                chained.set_result(callback(f))
            except BaseException as e:  # noqa: BLE001 - handed to the chained future
                chained.set_exception(e)

        chained._waiter = self.wait  # waiting on it finishes this one's work first
        self.add_done_callback(run)
        return chained

    def add_done_callback(self, callback: Callable[[Future], None]) -> None:
        """Runs ``callback(self)`` once the value is set (now, if it is).

        Args:
            callback: takes this Future.

        Returns:
            None

        Example::

            >>> fut = genesis.futures.Future()
            >>> fut.add_done_callback(lambda f: print(f.value()))
            >>> fut.set_result(5)
            5
        """
        with self._lock:
            if not self._done:
                self._callbacks.append(callback)
                return
        callback(self)


def collect_all(futures: list[Future]) -> Future:
    """A Future set to the list of ``futures`` once all of them are set.

    Args:
        futures (list of Future): the futures.

    Returns:
        Future: its value is the list of futures.

    Example::

        >>> a, b = genesis.futures.Future(), genesis.futures.Future()
        >>> both = genesis.futures.collect_all([a, b])
        >>> a.set_result(1); b.set_result(2)
        >>> [f.value() for f in both.wait()]
        [1, 2]
    """
    futures = list(futures)
    result = Future()
    left = [len(futures)]

    def one_done(_: Future) -> None:
        left[0] -= 1
        if left[0] == 0 and not result.done():
            result.set_result(futures)

    def wait_all() -> list[Future]:
        for f in futures:
            f.wait()
        return futures

    result._waiter = wait_all
    for f in futures:
        f.add_done_callback(one_done)
    if not futures:
        result.set_result(futures)
    return result
