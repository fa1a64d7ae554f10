"""The run engine: run one algorithm on one instance in a worker process (runner, _pool,
_signals), finalize the rows (_finalize), sweep suites and studies (_sweep, _batch, suites,
studies, study_lines), and keep the results (record, journal, store).
"""
