"""The durable journal of a sweep: every finished run, appended as it finishes.

A sweep with an output folder writes ``journal.jsonl`` there: one JSON line per finished run,
``{"key": ..., "task": {...}, "row": {...}}``, appended with a single ``write`` on an
``O_APPEND`` descriptor followed by ``fsync`` (about 0.2 ms per run). A sweep killed by SIGKILL
or a power cut thus loses only its runs in flight. JSON lines rather than one Parquet part per
batch: a row is durable the moment it is known (a batch of a dozen runs is not lost with its
last run), there are no part files to compact, and a line cut short by a kill is easy to spot
and drop (:meth:`Journal.load` skips it; :meth:`Journal.open` truncates it away before
appending).

A run is known by :func:`task_key`: the task's identity (family, family parameters, instance
seed, algorithm, time limit), the sweep's memory limit and the code that runs it: the source
hash of the imported package (:func:`~anonratio.bench.engine.record.code_identity`, its ``.py``
files and the shipped data that changes results). Running the same sweep again skips every run the
journal holds under the same key; changed code (an edit, a revert, another install) or other
limits run everything anew, so a resumed sweep never mixes rows of two versions of the code.

The folder is locked while a sweep writes to it (``fcntl.flock`` on ``.lock``; the kernel drops
the lock when the process dies, so a killed sweep leaves no stale lock), and
:func:`check_out_dir` checks it is a writable folder before any work starts.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from anonratio.bench.engine.record import code_identity, json_text
from anonratio.instances.io import jsonable

__all__ = [
    "Journal",
    "JournalLocked",
    "task_key",
    "task_identity",
    "check_out_dir",
    "sweep_holder",
    "JOURNAL",
]

#: the journal's file name in the output folder
JOURNAL = "journal.jsonl"
_LOCK = ".lock"

#: descriptors a forked worker must not keep (the lock would outlive a killed sweep)
_OPEN_FDS: set[int] = set()


def _close_inherited() -> None:
    for fd in list(_OPEN_FDS):
        with contextlib.suppress(OSError):
            os.close(fd)
    _OPEN_FDS.clear()


os.register_at_fork(after_in_child=_close_inherited)


class JournalLocked(RuntimeError):
    """Another sweep holds the output folder's lock."""


def task_identity(task: Any, memory_limit_mb: float | None = None) -> dict[str, Any]:
    """What identifies a run of ``task`` (a :class:`~anonratio.bench.engine.runner.Task`), the
    source hash of the code that runs it included (``code``)."""
    identity = {
        "family": task.family,
        "family_params": json_text(task.family_params),
        "seed": int(task.seed),
        "algorithm": task.algorithm,
        "time_limit": float(task.time_limit),
        "memory_limit_mb": None if memory_limit_mb is None else float(memory_limit_mb),
        "code": code_identity().source,
    }
    if getattr(task, "utility", ()):  # a run asked for utility metrics has more columns
        identity["utility"] = list(task.utility)
    return identity


def task_key(task: Any, memory_limit_mb: float | None = None) -> str:
    """The journal key of a run of ``task``: a SHA-256 of :func:`task_identity`."""
    text = json.dumps(task_identity(task, memory_limit_mb), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def check_out_dir(path: str | Path) -> Path:
    """``path`` as an existing, writable folder (created if missing).

    Raises
    ------
    ValueError
        One line: a file where the folder should be, or a folder that cannot be created or
        written to.
    """
    path = Path(path)
    for part in (path, *path.parents):
        if part.exists() and not part.is_dir():
            raise ValueError(f"`--out` must be a folder, but {str(part)!r} is a file")
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path, prefix=".write-test-"):
            pass
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise ValueError(f"`--out` folder {str(path)!r} is not writable: {reason}") from None
    return path


def sweep_holder(folder: str | Path) -> int | None:
    """The process id of the sweep writing to ``folder`` now (0 if unknown), or None if no sweep
    holds its lock. Reads only: the lock is tested and released at once."""
    try:
        fd = os.open(Path(folder) / _LOCK, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                raise
            with contextlib.suppress(ValueError, IndexError):
                return int(os.pread(fd, 32, 0).split()[0])
            return 0
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


class Journal:
    """The journal of the sweep writing to ``folder``: :meth:`open` locks it, :meth:`load` reads
    the recorded rows, :meth:`append` adds one. A context manager (open, then close)."""

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)
        self.path = self.folder / JOURNAL
        self._lock_fd: int | None = None
        self._fd: int | None = None

    def __enter__(self) -> Journal:
        return self.open()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def open(self) -> Journal:
        """Take the folder's lock and open the journal for appending (a cut last line is
        dropped). ``JournalLocked`` if another sweep holds the lock."""
        if self._fd is not None:
            return self
        self.folder.mkdir(parents=True, exist_ok=True)
        lock = os.open(self.folder / _LOCK, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            os.close(lock)
            if exc.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                raise
            raise JournalLocked(
                f"another sweep is writing to {str(self.folder)!r}{self._holder()}; "
                "wait for it to finish or use another --out"
            ) from None
        os.ftruncate(lock, 0)
        os.write(lock, f"{os.getpid()}\n".encode())
        self._lock_fd = lock
        _OPEN_FDS.add(lock)
        fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o644)
        self._fd = fd
        _OPEN_FDS.add(fd)
        self._drop_cut_line(fd)
        return self

    def _holder(self) -> str:
        with contextlib.suppress(OSError, ValueError):
            pid = int((self.folder / _LOCK).read_text().split()[0])
            return f" (process {pid})"
        return ""

    @staticmethod
    def _drop_cut_line(fd: int) -> None:
        """Truncate the journal's (open as ``fd``) last line if it has no newline (a write cut
        short by a kill)."""
        size = os.fstat(fd).st_size
        if size == 0 or os.pread(fd, 1, size - 1) == b"\n":
            return
        block, end = 1 << 16, size
        while end > 0:
            start = max(0, end - block)
            chunk = os.pread(fd, end - start, start)
            cut = chunk.rfind(b"\n")
            if cut >= 0:
                os.ftruncate(fd, start + cut + 1)
                return
            end = start
        os.ftruncate(fd, 0)

    def close(self) -> None:
        """Close the journal and release the lock."""
        for fd in (self._fd, self._lock_fd):
            if fd is not None:
                _OPEN_FDS.discard(fd)
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._fd = self._lock_fd = None

    def append(self, key: str, row: dict[str, Any], task: dict | None = None) -> None:
        """Add one finished run: one ``write`` of one line, then ``fsync``."""
        if self._fd is None:
            raise RuntimeError("the journal is not open")
        entry = {"key": key, "task": task, "row": row}
        line = json.dumps(entry, default=jsonable, allow_nan=True) + "\n"
        data = line.encode()
        written = os.write(self._fd, data)
        while written < len(data):  # a regular file takes it in one write; just in case
            written += os.write(self._fd, data[written:])
        os.fsync(self._fd)

    def load(self) -> dict[str, dict[str, Any]]:
        """``{key: row}`` of every complete line (the last line of a key wins)."""
        rows: dict[str, dict[str, Any]] = {}
        if not self.path.exists():
            return rows
        with open(self.path, "rb") as fh:
            for line in fh:
                if not line.endswith(b"\n"):
                    break  # cut short by a kill
                try:
                    entry = json.loads(line)
                    rows[str(entry["key"])] = dict(entry["row"])
                except (ValueError, KeyError, TypeError):
                    continue
        return rows
