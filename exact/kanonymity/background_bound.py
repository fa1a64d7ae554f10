"""The k-anonymity lower bound computed in a second process while the first searches.

:func:`~anonratio.exact.kanonymity.certified.certify` with ``threads >= 2`` runs
:func:`~anonratio.exact.kanonymity.lp_bound.lp_bound` here for its whole time limit, instead of
giving it most of the time before the region search starts. The child reports every better
dual-feasible price vector as it proves it (each ascent round, each ``box-lp`` round that gains),
so the search can order its regions by the newest reduced costs; at the end it sends the whole
:class:`~anonratio.exact.kanonymity.lp_bound.LPBound`.

The child is a fresh interpreter running this module (``python -m``), fed its arguments and
answering through pipes, as pickles. Not a fork: the parent may hold solver threads (HiGHS,
CP-SAT) whose locks a fork would copy in whatever state they are in. Not ``multiprocessing``'s
spawn either: that re-imports the caller's main script, which a script without a
``__main__`` guard does not survive.
"""

from __future__ import annotations

import os
import pickle
import queue
import subprocess
import sys
import threading
from time import perf_counter

import numpy as np

from anonratio.exact.kanonymity.lp_bound import LPBound, lp_bound
from anonratio.instances import KAnonymityInstance

__all__ = ["BackgroundBound"]

#: what the child runs (by name: under a test runner ``__name__`` may be another)
_MODULE = "anonratio.exact.kanonymity.background_bound"

#: seconds the parent waits past the deadline for the child's final message (a lattice sweep in
#: progress finishes before the child looks at its clock)
GRACE = 30.0


def _child() -> None:
    """The child's whole life: read the arguments, run the bound, report on the way and at the
    end. Its stdout carries the reports only: anything else written there goes to the null
    device."""
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)

    def send(message):
        pickle.dump(message, out)
        out.flush()

    try:
        instance, time_limit, starts, seed = pickle.load(sys.stdin.buffer)
        found = lp_bound(
            instance,
            time_limit=time_limit,
            starts=starts,
            seed=seed,
            progress=lambda *report: send(("progress", *report)),
        )
        found.master = None  # a HiGHS object: it does not cross processes
        send(("done", found))
    except BaseException as exc:  # the parent reports it; it must not wait for nothing
        send(("error", f"{type(exc).__name__}: {exc}"))


def _read(stream, into: queue.Queue) -> None:
    """The parent's reader thread: every message of the child, then ``None`` at its end."""
    try:
        while True:
            into.put(pickle.load(stream))
    except (EOFError, OSError, pickle.UnpicklingError):
        into.put(None)


class BackgroundBound:
    """:func:`lp_bound` in a child process (use as a context manager).

    Parameters
    ----------
    instance : KAnonymityInstance
    time_limit : float
        The child's ``lp_bound`` time limit, counted from its start.
    starts : list of ndarray, optional
        Labellings whose groups seed the master (as in ``lp_bound``).
    seed : int
        HiGHS's random seed.

    Examples
    --------
    >>> import numpy as np
    >>> from anonratio.instances import KAnonymityInstance, Table
    >>> codes = np.random.default_rng(0).integers(0, 2, size=(12, 4))
    >>> instance = KAnonymityInstance(Table(codes, ("a", "b", "c", "d"), (("0", "1"),) * 4), 3)
    >>> with BackgroundBound(instance, time_limit=5) as bg:
    ...     bound, note = bg.result()
    >>> note is None and bound.value > 0
    True
    """

    def __init__(
        self,
        instance: KAnonymityInstance,
        *,
        time_limit: float,
        starts: list[np.ndarray] | None = None,
        seed: int = 0,
    ) -> None:
        self._args = (instance, time_limit, starts, seed)
        self._queue: queue.Queue = queue.Queue()
        self._process: subprocess.Popen | None = None
        self.best: tuple | None = None  # the best progress report: (bound, prices, source)
        self.final: LPBound | None = None
        self.error: str | None = None
        self._new = False  # a better report since the last poll
        self._ended = False  # the child's output is closed

    def __enter__(self) -> BackgroundBound:
        process = subprocess.Popen(
            [sys.executable, "-m", _MODULE], stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )
        self._process = process
        reader = threading.Thread(target=_read, args=(process.stdout, self._queue))
        reader.daemon = True
        reader.start()
        assert process.stdin is not None  # stdin=PIPE
        with process.stdin as feed:
            pickle.dump(self._args, feed)
        return self

    @property
    def _child(self) -> subprocess.Popen:
        """The child process (started by ``__enter__``)."""
        assert self._process is not None, "BackgroundBound is used as a context manager"
        return self._process

    def __exit__(self, *exc) -> None:
        if self._child.poll() is None:
            self._child.terminate()
        try:
            self._child.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self._child.kill()
            self._child.wait()

    def _take(self, message) -> None:
        if message is None:
            self._ended = True
            if self.final is None and self.error is None:
                code = self._child.wait()
                self.error = f"the bound process ended without a result (exit code {code})"
            return
        kind = message[0]
        if kind == "progress":
            _, value, prices, source = message
            if self.best is None or value > self.best[0]:
                self.best, self._new = (value, prices, source), True
        elif kind == "done":
            self.final = message[1]
        else:
            self.error = message[1]

    def running(self) -> bool:
        """Whether the child may still report (no result, no error, output open)."""
        self.poll_messages()
        return self.final is None and self.error is None and not self._ended

    def poll_messages(self) -> None:
        """Take every message the child has sent so far (never blocks)."""
        while not self._ended:
            try:
                self._take(self._queue.get_nowait())
            except queue.Empty:
                break

    def poll(self) -> np.ndarray | None:
        """The newest better prices reported since the last call, or None (never blocks)."""
        self.poll_messages()
        if not self._new:
            return None
        self._new = False
        assert self.best is not None  # a new report is the best one
        return self.best[1]

    def result(
        self, deadline: float | None = None, grace: float = GRACE
    ) -> tuple[LPBound | None, str | None]:
        """The child's :class:`LPBound`, waiting for it until ``grace`` seconds past ``deadline``
        (a ``perf_counter`` reading; default now).

        Returns ``(bound, note)``. When the child failed or did not finish in time, ``bound`` is
        built from its best progress report (its prices are dual feasible, so the bound holds;
        its stage's time is then None) or is None when it reported nothing, and ``note`` says
        why.
        """
        stop = max(perf_counter(), deadline if deadline is not None else 0.0) + grace
        while self.final is None and self.error is None and not self._ended:
            left = stop - perf_counter()
            if left <= 0:
                break
            try:
                self._take(self._queue.get(timeout=left))
            except queue.Empty:
                break
        if self.final is not None:
            return self.final, None
        note = self.error or f"the bound process did not finish within {grace:g} s of its limit"
        if self.best is None:
            return None, note
        value, prices, source = self.best
        return LPBound(value, source, prices, {source: (value, None)}), note


if __name__ == "__main__":
    _child()
