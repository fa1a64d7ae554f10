"""Regression tracking: the reference optima (reference), the quality gate (gate,
gate_baseline), the worst-case hunter (hunt) and the asv history (asv_history).
"""
