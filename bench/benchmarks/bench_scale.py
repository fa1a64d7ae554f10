"""asv benchmarks of k-anonymity at the scale of real data, in CPU seconds.

- ``ForestScale``: FOREST at k = 10 (its exact 9-nearest-neighbour search included) on
  generated tables of 8 attributes (:func:`~anonratio.instances.kanonymity.random_table`, seed 0)
  of 20k, 100k and 1M records, each timed on a cold copy of its instance, and its peak memory.
- ``AdultAnonymize``: :func:`anonratio.anonymize` of UCI Adult (8 QIs, its ARX hierarchies) at
  k = 5 and 10, end to end (reading excluded). Skipped when ``ANONRATIO_DATASETS`` is unset.

Targets: FOREST under 2 s, 20 s and 5 min at the three sizes, under 2 GB; anonymize under 2 s.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from anonratio.instances.base import cold_copy
from anonratio.instances.kanonymity import KAnonymityInstance, random_table
from anonratio.instances.loaders import ADULT_QI
from anonratio.solvers.kanonymity.forest import forest


class ForestScale:
    """FOREST (k = 10) on generated 8-attribute tables."""

    params = [20_000, 100_000, 1_000_000]
    param_names = ["records"]
    timer = time.process_time
    timeout = 1800
    number = 1
    repeat = (1, 3, 600.0)

    def setup(self, records: int) -> None:
        self.instance = KAnonymityInstance(random_table(records, 8, seed=0), 10, "generalization")

    def time_forest(self, records: int) -> None:
        forest(cold_copy(self.instance))

    def peakmem_forest(self, records: int) -> None:
        forest(cold_copy(self.instance))


class AdultAnonymize:
    """``anonratio.anonymize`` of Adult with FOREST."""

    params = [5, 10]
    param_names = ["k"]
    timer = time.process_time
    timeout = 600

    def setup(self, k: int) -> None:
        import pandas as pd

        root = os.environ.get("ANONRATIO_DATASETS")
        if not root or not (Path(root) / "adult" / "adult.csv").is_file():
            raise NotImplementedError("ANONRATIO_DATASETS unset: Adult is not available")
        self.folder = Path(root) / "adult"
        self.data = pd.read_csv(self.folder / "adult.csv", sep=";", dtype=str)

    def time_anonymize(self, k: int) -> None:
        import anonratio

        anonratio.anonymize(self.data, list(ADULT_QI), k, hierarchies=self.folder)
