"""FOREST runtime and peak-memory curve (issue 2's benchmark, outside asv).

Run ``python -m anonratio.bench.scaling 1000 5000 20000 50000``: each size runs in a fresh
process on ``random_table(n, 8, seed=0)`` (Adult-like, 3–5 level hierarchies, generalization),
``k = 10``, and prints one JSON line with wall and CPU time, the peak resident memory of that
process (imports included), the cost, the nearest-neighbour lower bound and the largest group.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time
from collections.abc import Sequence
from typing import Any

from anonratio.instances.io import jsonable

__all__ = ["measure_forest", "main"]


def measure_forest(n: int, *, m: int = 8, k: int = 10, seed: int = 0) -> dict[str, Any]:
    """Run FOREST once on a generated table in this process; return the measurements."""
    from anonratio.instances import KAnonymityInstance, random_table
    from anonratio.solvers import k_anonymize

    inst = KAnonymityInstance(random_table(n, m, seed=seed), k, model="generalization")
    t0, c0 = time.perf_counter(), time.process_time()
    sol = k_anonymize(inst, method="forest")
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    return {
        "n": n,
        "m": m,
        "k": k,
        "seed": seed,
        "wall_s": round(wall, 2),
        "cpu_s": round(cpu, 2),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "cost": sol.objective,
        "lower_bound": sol.lower_bound,
        "certified_ratio": round(sol.objective / sol.lower_bound, 3),
        "max_group": sol.info["max_component"],
    }


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m anonratio.bench.scaling [N ...]``: one JSON line per size."""
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) == 1 and argv[0].startswith("--one="):
        print(json.dumps(measure_forest(int(argv[0][6:])), default=jsonable))
        return 0
    sizes = [int(a) for a in argv] or [1000, 5000, 20000]
    for n in sizes:  # a fresh process per size, so peak memory is that size's own
        subprocess.run([sys.executable, "-m", "anonratio.bench.scaling", f"--one={n}"], check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
