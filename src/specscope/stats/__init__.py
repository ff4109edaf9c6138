"""specscope.stats: every figure derived from stored facts (cells, acceptance, speedups, predictions)."""

from specscope.stats.counters import counters_delta

__all__ = ["counters_delta"]
