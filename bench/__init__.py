"""anonratio.bench: run algorithms, store verified result rows, report, track and publish.

Grouped by concern; imports point one way, from the bottom up (``tests/test_architecture.py``):

core: ``declarations``, ``problems``, ``registry``, ``library``, ``errors``
    What a problem declares (algorithms, families, hunts), the registry collecting it, the
    library of hard instances the worst-found families read, and the shared errors.
``engine``
    One verified result row per run (``runner``, worker processes, finalize), sweeps of suites
    and studies, the run record, the durable journal and the results store.
``publish`` and ``report``
    The anonymize pipeline (request, release, checked table); summary tables, plots and pages,
    with a hook (``report.findings``) that experiments add their findings through.
``api``
    The Python door: ``anonymize``, ``solve``, ``sweep``.
``tracking`` and ``experiments``
    Reference optima, the quality gate, the worst-case hunter, the asv history; the paper
    reproductions and the comparison with other tools.
``cli`` and ``benchmarks``
    The ``anonratio`` command (every parser); the asv benchmarks.

Submodules are imported on demand, so ``import anonratio.bench`` stays cheap.
"""
