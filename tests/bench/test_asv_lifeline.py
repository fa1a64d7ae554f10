"""asv's benchmark processes die with asv (``bench/benchmarks/lifeline.py``).

The scene of the test mirrors asv's: a parent (asv) starts a server in a process group of its own,
the server forks a benchmark, the benchmark starts a process of its own (a solver); then the
parent is killed with SIGTERM, which runs none of its cleanup. Nothing may be left running.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from anonratio.bench.benchmarks import lifeline

LIFELINE = Path(lifeline.__file__)

#: the server: asv_runner's ``run_server`` as the command, lifeline installed, one benchmark
#: forked that starts a solver-like child; it writes the pids and waits. Its arguments are
#: asv's (``run_server``, a folder: here the pids file, the socket) then the lifeline module and
#: how it is known as asv's: its argv[0] is asv's script for ``script`` (an ``existing``
#: environment sets no ``ASV`` variable), the variable ``ASV`` for ``env``
SERVER = """
import importlib.util, json, os, subprocess, sys, time
if sys.argv[5] == "script":
    sys.argv[0] = "/site-packages/asv/benchmark.py"
spec = importlib.util.spec_from_file_location("lifeline", sys.argv[4])
lifeline = importlib.util.module_from_spec(spec)
spec.loader.exec_module(lifeline)
assert lifeline.install() == "server"
read, write = os.pipe()
pid = os.fork()
if pid == 0:
    solver = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    os.write(write, json.dumps([os.getpid(), solver.pid]).encode())
    time.sleep(120)
    os._exit(0)
benchmark, solver = json.loads(os.read(read, 1000))
with open(sys.argv[2], "w") as f:
    json.dump({"server": os.getpid(), "benchmark": benchmark, "solver": solver}, f)
time.sleep(120)
"""

#: asv: starts the server in its own process group (``setpgid``, as asv does) and waits
PARENT = """
import os, subprocess, sys, time
env = dict(os.environ, ASV="true") if sys.argv[5] == "env" else dict(os.environ)
env.pop("ASV", None) if sys.argv[5] != "env" else None
subprocess.Popen([sys.executable, "-c", sys.argv[1], "run_server", *sys.argv[2:]], env=env,
                 process_group=0)
time.sleep(120)
"""


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


def test_install_does_nothing_outside_asv():
    assert lifeline.install(["pytest"], {}) == ""
    assert lifeline.install(["benchmark.py", "run_server", "d", "s"], {}) == ""
    assert lifeline.install(["/a/benchmark.py", "run_server", "d", "s"], {"ASV": "false"}) == ""
    assert lifeline.install(["/a/asv/benchmark.py", "discover", "d", "f"], {}) == ""
    assert lifeline.install(["benchmark.py", "discover", "d", "f"], {"ASV": "true"}) == ""


def test_asv_processes_are_known_by_asv_s_script_or_its_variable():
    assert lifeline.asv_process(["/venv/lib/site-packages/asv/benchmark.py", "run"], {})
    assert lifeline.asv_process(["-c", "run"], {"ASV": "true"})
    assert not lifeline.asv_process(["/x/benchmark.py", "run"], {})
    assert not lifeline.asv_process([], {})


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
@pytest.mark.parametrize("known_by", ["env", "script"])
def test_a_killed_asv_leaves_no_server_benchmark_or_solver(tmp_path, known_by):
    pids_file = tmp_path / "pids.json"
    socket = tmp_path / "asv-forkserver-x1" / "socket"  # asv's temporary folder of the socket
    socket.parent.mkdir()
    socket.touch()
    command = [sys.executable, "-c", PARENT, SERVER, pids_file, socket, LIFELINE, known_by]
    parent = subprocess.Popen(command)
    try:
        for _ in range(300):
            if pids_file.exists() and pids_file.read_text():
                break
            time.sleep(0.05)
        pids = json.loads(pids_file.read_text())
        assert all(_alive(pid) for pid in pids.values())
        parent.send_signal(signal.SIGTERM)
        parent.wait(10)
        for _ in range(200):
            if not any(_alive(pid) for pid in pids.values()):
                break
            time.sleep(0.05)
        assert {name: _alive(pid) for name, pid in pids.items()} == dict.fromkeys(pids, False)
        assert not socket.parent.exists()
    finally:
        parent.kill()
        for pid in json.loads(pids_file.read_text() or "{}").values() if pids_file.exists() else []:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
