"""``anonratio hunt`` on the command line (bench/cli/hunt.py): a Ctrl-C after the hunt's in-process
exact solves still ends it with the command line's own status and message."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest


def _journal_lines(out):
    try:
        return (out / "journal.jsonl").read_bytes().count(b"\n")
    except OSError:
        return 0


@pytest.mark.slow  # a hunt in a subprocess, then SIGINT
def test_sigint_after_cpsat_solves_exits_130_with_the_message(tmp_path):
    # r-gather's candidates are proven by the in-process CP-SAT model (r-gather-cpsat) before a
    # journal line is written; CP-SAT used to leave the default SIGINT action behind (rc -2)
    out = tmp_path / "hunt"
    cmd = [sys.executable, "-m", "anonratio.bench.cli.parser", "hunt", "r-gather", "--budget", "60"]
    proc = subprocess.Popen(
        [*cmd, "--time-limit", "5", "--size", "6", "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        # SIGINT at its default, as in a foreground process: a shell starts background jobs
        # with SIGINT ignored, and a Python started so keeps it ignored
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        end = time.monotonic() + 60
        while _journal_lines(out) < 1:
            assert proc.poll() is None, proc.communicate()[1]
            assert time.monotonic() < end, "no candidate evaluated in 60 s"
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130, (proc.returncode, stderr)
    assert stderr.endswith("anonratio: interrupted\n") and stdout == ""
