"""Regression tracking: the reference optima (reference), the quality gate (gate,
gate_baseline), the worst-case hunter (hunt) and the asv history (asv_history).
"""

__all__ = ["DEFAULT_TOLERANCE"]

#: relative increase of a ratio over its baseline that still passes the quality gate (here, so
#: that the command line shows it without importing the gate)
DEFAULT_TOLERANCE = 1e-9
