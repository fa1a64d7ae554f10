"""Reports of result frames: the summary tables (summary), the plots (plots, intervals),
the pages (html), and the hook through which experiments add their findings (findings).
"""
