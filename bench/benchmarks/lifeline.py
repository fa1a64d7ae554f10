"""The asv benchmark processes die with asv: no orphan keeps a core busy after asv is stopped.

asv starts its benchmark server (``launch_method`` ``forkserver`` in ``asv.conf.json``), or with
``spawn`` each benchmark, in a process group of its own (``setpgid``), so that a timeout kills the
benchmark and what it started. A ``kill`` of asv itself runs none of asv's cleanup, and the
terminal's Ctrl-C reaches asv's group only, so the server, the benchmark it forked and that
benchmark's children went on running.

On Linux, :func:`install` (called when asv imports the benchmark package) asks the kernel to
signal each asv benchmark process when its parent dies (``prctl(PR_SET_PDEATHSIG)``):

* the server gets SIGTERM when asv dies, removes asv's folder of its socket
  (``asv-forkserver-*``) and kills its whole process group (itself, the benchmark in flight and
  any process that benchmark started) with SIGKILL;
* a benchmark the server forks (the setting does not survive ``fork``, so it is set again in the
  child) gets SIGKILL when the server dies, and restores the default SIGTERM, which asv sends it
  on a timeout;
* a benchmark asv spawns gets SIGKILL when asv dies.

An asv benchmark process is known by its command line (asv's ``asv/benchmark.py`` and one of
the commands above) or, in the environments asv builds, by ``ASV=true`` (``existing``
environments do not set it). Outside asv (tests, ``import``), and off Linux, it does nothing.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import signal
import sys
from collections.abc import Mapping, Sequence
from pathlib import PurePath

#: ``prctl`` option: the signal the calling process gets when its parent dies
PR_SET_PDEATHSIG = 1

#: asv_runner commands whose process runs benchmark code (``asv/benchmark.py COMMAND ...``)
SERVER_COMMAND = "run_server"
BENCHMARK_COMMANDS = ("run", "setup_cache")


def parent_death_signal(signum: int) -> bool:
    """Ask the kernel for ``signum`` when this process's parent dies; False where unsupported."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_PDEATHSIG, int(signum), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _kill_group(signum: int, frame: object) -> None:
    """The server's SIGTERM handler: the whole process group (server, benchmark, its children),
    after the folder of its socket (``run_server BENCHMARK_DIR SOCKET``), which asv would remove."""
    if len(sys.argv) > 3 and PurePath(sys.argv[3]).parent.name.startswith("asv-forkserver-"):
        shutil.rmtree(PurePath(sys.argv[3]).parent, ignore_errors=True)
    os.killpg(os.getpgrp(), signal.SIGKILL)


def _forked_benchmark() -> None:
    """In a benchmark the server forks: die with the server; asv's timeout SIGTERM kills it."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    parent_death_signal(signal.SIGKILL)


def _orphaned() -> bool:
    """The parent is already gone (reparented to init or a subreaper before the request)."""
    return os.getppid() == 1


def asv_process(argv: Sequence[str], environ: Mapping[str, str]) -> bool:
    """Whether ``argv`` and ``environ`` are those of a process asv started to run benchmarks."""
    script = PurePath(argv[0]) if argv else PurePath()
    by_script = (script.parent.name, script.name) == ("asv", "benchmark.py")
    return by_script or environ.get("ASV") == "true"


def install(argv: Sequence[str] | None = None, environ: Mapping[str, str] | None = None) -> str:
    """Tie this process's life to asv's, when it is an asv benchmark process on Linux.

    Parameters
    ----------
    argv, environ : optional
        The command line and environment to judge by (default: this process's).

    Returns
    -------
    str
        ``"server"``, ``"benchmark"`` or ``""`` (nothing installed: not an asv benchmark process,
        or not Linux).
    """
    argv = sys.argv if argv is None else argv
    environ = os.environ if environ is None else environ
    command = argv[1] if len(argv) > 1 else ""
    if not asv_process(argv, environ) or not sys.platform.startswith("linux"):
        return ""
    if command == SERVER_COMMAND:
        signal.signal(signal.SIGTERM, _kill_group)
        if not parent_death_signal(signal.SIGTERM):
            return ""
        os.register_at_fork(after_in_child=_forked_benchmark)
        if _orphaned():
            _kill_group(signal.SIGTERM, None)
        return "server"
    if command in BENCHMARK_COMMANDS:
        if not parent_death_signal(signal.SIGKILL):
            return ""
        if _orphaned():
            os._exit(1)
        return "benchmark"
    return ""
