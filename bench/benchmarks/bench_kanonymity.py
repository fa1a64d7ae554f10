"""asv benchmarks of the k-anonymity algorithms (Aggarwal et al. 2005).

* ``track_ratio_*``: cost ÷ committed reference optimum (``results/reference_optima.json``) of
  each approximation algorithm on the fixed instances of :mod:`anonratio.bench.reference`; bigger
  is worse. An instance whose content hash is not in the committed file (its generator changed)
  is skipped rather than compared against a stale optimum.
* ``time_*`` / ``peakmem_forest``: running time and peak memory; instance generation happens in
  ``setup`` and is not timed.

Run from the repository root: ``asv run --python=same --quick`` (or ``asv dev``).
"""

from __future__ import annotations

from typing import Any

from anonratio.bench.reference import (
    REFERENCE,
    ReferenceInstance,
    load_reference,
    reference_instance,
)
from anonratio.bench.registry import generate
from anonratio.exact import solve_k_anonymity
from anonratio.instances import instance_id, verify
from anonratio.solvers import k_anonymize


def _k(ref: ReferenceInstance) -> int:
    return ref.params.get("k", 3)  # the triangle gadget is a 3-anonymity instance


def _names(k: int | None = None) -> list[str]:
    return [r.name for r in REFERENCE if k is None or _k(r) == k]


def _ratio_setup(bench: Any, name: str) -> None:
    bench.instance, _ = reference_instance(name)
    entry = load_reference().get(instance_id(bench.instance))
    if entry is None:
        raise NotImplementedError(f"{name}: no committed reference optimum for this instance")
    bench.optimum = float(entry["optimum"])


def _ratio(instance: Any, optimum: float, method: str) -> float:
    cost = verify(instance, k_anonymize(instance, method=method, seed=0)).cost
    if optimum == 0:
        return 1.0 if cost == 0 else float("inf")
    return cost / optimum


class TrackRatioForest:
    """FOREST + DECOMPOSE-COMPONENT; proven ratio max(2k−1, 3k−5) (§4)."""

    params = _names()
    param_names = ["instance"]
    unit = "ratio"

    def setup(self, name: str) -> None:
        _ratio_setup(self, name)

    def track_ratio_forest(self, name: str) -> float:
        return _ratio(self.instance, self.optimum, "forest")


class TrackRatioFactor2:
    """Minimum-weight [1,2]-factor, k = 2; proven ratio 1.5 binary, 2 suppression (§5)."""

    params = _names(2)
    param_names = ["instance"]
    unit = "ratio"

    def setup(self, name: str) -> None:
        _ratio_setup(self, name)

    def track_ratio_factor_2(self, name: str) -> float:
        return _ratio(self.instance, self.optimum, "factor-2")


class TrackRatioFactor3:
    """Minimum-weight 2-factor + cycle decomposition, k = 3; proven ratio 2 binary (§6)."""

    params = _names(3)
    param_names = ["instance"]
    unit = "ratio"

    def setup(self, name: str) -> None:
        _ratio_setup(self, name)

    def track_ratio_factor_3(self, name: str) -> float:
        return _ratio(self.instance, self.optimum, "factor-3")


class Forest:
    """FOREST on Adult-like generalization tables: n records × 8 attributes, k = 10."""

    params = [2_000, 20_000]
    param_names = ["n"]
    timeout = 600

    def setup(self, n: int) -> None:
        self.instance, _ = generate("kanon-random", seed=0, n=n, m=8, k=10)

    def time_forest(self, n: int) -> None:
        k_anonymize(self.instance, method="forest", seed=0)

    def peakmem_forest(self, n: int) -> None:
        k_anonymize(self.instance, method="forest", seed=0)


class Factors:
    """The factor algorithms on a fixed random binary table of 60 records × 8 attributes."""

    timeout = 300

    def setup(self) -> None:
        self.two, _ = generate("kanon-binary", seed=0, n=60, m=8, k=2)
        self.three, _ = generate("kanon-binary", seed=0, n=60, m=8, k=3)

    def time_factor_2(self) -> None:
        k_anonymize(self.two, method="factor-2", seed=0)

    def time_factor_3(self) -> None:
        k_anonymize(self.three, method="factor-3", seed=0)


class Exact:
    """CP-SAT and HiGHS (one thread) to a proven optimum on small reference instances."""

    params = ["binary-20x6-k3", "ternary-10x5-k4", "planted-24x6-k5"]
    param_names = ["instance"]
    timeout = 300

    def setup(self, name: str) -> None:
        self.instance, _ = reference_instance(name)

    def time_cpsat(self, name: str) -> None:
        solve_k_anonymity(self.instance, method="cpsat", time_limit=120, seed=0, threads=1)

    def time_highs(self, name: str) -> None:
        solve_k_anonymity(self.instance, method="highs", time_limit=120, seed=0, threads=1)
