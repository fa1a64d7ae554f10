"""asv benchmarks.

The fast set (the modules ``bench_*``: the ratios and the timings) is what a commit comparison
runs; the long set (the modules ``long_*``: slow timings, peak memory, real-data scale, LAST-1990)
is defined only when ``ANONRATIO_ASV_LONG=1`` (:func:`.common.long_benchmarks`). Importing the
package ties asv's benchmark processes to asv's life (:mod:`.lifeline`).
"""

from .lifeline import install

install()
