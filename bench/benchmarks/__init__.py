"""asv benchmarks."""
