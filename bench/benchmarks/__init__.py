"""asv benchmarks.

The fast set (:mod:`.bench_ratios`, :mod:`.bench_times`) is what a commit comparison runs; the
long set (:mod:`.bench_scale`, :mod:`.bench_bin_covering`) is defined only when
``ANONRATIO_ASV_LONG=1`` (:func:`.common.long_benchmarks`). Importing the package ties asv's
benchmark processes to asv's life (:mod:`.lifeline`).
"""

from .lifeline import install

install()
