"""SIGINT and SIGTERM for sweeps: stop promptly, keep what finished, reap the workers.

:func:`stop_signals` installs handlers for SIGINT and SIGTERM (main thread only; nested uses
share one guard). Outside a worker pool a signal raises :class:`StopRequested` at once. Inside
:func:`~anonratio.bench.engine._pool.run_local`, which enters :meth:`SignalGuard.deferred`, the
handler only records the signal and writes a byte to a pipe the pool waits on, so the pool wakes at
once, keeps the rows its workers already finished, kills and reaps the workers and then raises
:class:`StopRequested` itself. Workers ignore SIGINT (a terminal's Ctrl-C reaches the whole
process group; the parent decides) and die on SIGTERM (:func:`worker_signals`).

Output never holds a stop up: the progress bar and the stop message go through
:class:`NonBlockingStderr`, which drops text rather than wait on a pipe nobody reads.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Any, TextIO

__all__ = ["StopRequested", "SignalGuard", "stop_signals", "worker_signals", "NonBlockingStderr"]

_SIGNALS = (signal.SIGINT, signal.SIGTERM)

#: what :func:`signal.signal` returns: a handler, ``SIG_DFL`` / ``SIG_IGN``, or None (a handler not
#: installed from Python)
_Handler = Callable[[int, FrameType | None], Any] | int | signal.Handlers | None


class StopRequested(KeyboardInterrupt):
    """A sweep stopped by SIGINT or SIGTERM; ``signum`` is the signal, ``exit_status`` 128 + it."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = int(signum)

    @property
    def exit_status(self) -> int:
        return 128 + self.signum

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name


class SignalGuard:
    """The installed handlers: ``signum`` (the first signal received, or None) and a wake-up pipe
    (:meth:`fileno`, readable once a signal arrived)."""

    def __init__(self) -> None:
        self.signum: int | None = None
        self._defer = 0
        self._read, self._write = os.pipe()
        os.set_blocking(self._read, False)
        os.set_blocking(self._write, False)
        self._previous: dict[int, _Handler] = {}

    def fileno(self) -> int:
        return self._read

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self.signum is None:
            self.signum = signum
        with contextlib.suppress(OSError):
            os.write(self._write, b"\0")
        if not self._defer:
            raise StopRequested(self.signum)

    @contextlib.contextmanager
    def deferred(self) -> Iterator[SignalGuard]:
        """Within the block a signal is only recorded (the pool polls :attr:`signum`)."""
        self._defer += 1
        try:
            yield self
        finally:
            self._defer -= 1

    def check(self) -> None:
        """Raise :class:`StopRequested` if a signal arrived."""
        if self.signum is not None:
            raise StopRequested(self.signum)

    def _install(self) -> None:
        for sig in _SIGNALS:
            self._previous[sig] = signal.signal(sig, self._handle)

    def _restore(self) -> None:
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)
        for fd in (self._read, self._write):
            with contextlib.suppress(OSError):
                os.close(fd)


_ACTIVE: list[SignalGuard] = []


@contextlib.contextmanager
def stop_signals() -> Iterator[SignalGuard | None]:
    """Handle SIGINT and SIGTERM in the block (None outside the main thread: nothing installed).

    Nested blocks share the outermost guard, so a signal received before a sweep starts is still
    seen by it.
    """
    if _ACTIVE:
        yield _ACTIVE[-1]
        return
    if threading.current_thread() is not threading.main_thread():
        yield None
        return
    guard = SignalGuard()
    guard._install()
    _ACTIVE.append(guard)
    try:
        yield guard
    finally:
        _ACTIVE.remove(guard)
        guard._restore()


def worker_signals(parent: int) -> None:
    """In a worker forked by process ``parent``: ignore SIGINT, die on SIGTERM, and die with the
    parent (Linux ``PR_SET_PDEATHSIG``), so a sweep killed with SIGKILL leaks no workers."""
    _ACTIVE.clear()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux: a killed parent leaves its workers running
        return
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)


class NonBlockingStderr:
    """A text stream for progress output that never blocks: text the pipe (or terminal) cannot
    take at once is dropped. Streams without a descriptor (captured output) are written to."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr

    def write(self, text: str) -> int:
        try:
            fd = self.stream.fileno()
        except (AttributeError, OSError, ValueError):
            return self.stream.write(text)
        with contextlib.suppress(OSError, ValueError):
            if select.select([], [fd], [], 0)[1]:
                os.write(fd, text.encode(errors="replace")[: select.PIPE_BUF])
        return len(text)

    def flush(self) -> None:
        pass
