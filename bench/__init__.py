"""anonratio.bench: run algorithms, store verified result rows, report and plot them.

Modules
-------
registry
    Every algorithm with its kind, proven guarantee, source and complexity.
runner
    One verified result row per run (:func:`~anonratio.bench.runner.run_instance`), sweeps in
    local processes or on Dask, and :func:`~anonratio.bench.runner.finalize` (optima, lower
    bounds, ratios).
store
    Results as Parquet plus a CSV export.
suites
    Named benchmark suites (``quick`` is the default of ``anonratio run``).
report
    Summary tables and plots.
cli
    The ``anonratio`` command.
benchmarks
    asv benchmarks.

Submodules are imported on demand, so ``import anonratio.bench`` stays cheap.
"""
