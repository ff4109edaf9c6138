"""Best k: per speculative method, workload and level, the draft length whose comparison has the highest speedup.

Configs named ``NAME-kK`` (:mod:`specscope.kaxis`) sweep the draft length of one method (``bench --k``). Among a
method's k configs at one workload x level, the best k is the one whose speedup over the baseline (the judgement's
comparison: geometric mean of the paired per-round ratios) is highest, the smaller k on a tie; a k without a paired
round (no speedup) is never best. A point estimate: the k table prints each k's interval and verdict beside it.
"""

from __future__ import annotations

from collections.abc import Sequence

from specscope.kaxis import split_k_name
from specscope.stats.verdict import Comparison

__all__ = ["best_k"]


def best_k(comparisons: Sequence[Comparison]) -> dict[tuple[str, str, int], int]:
    """(method, workload, level) -> the best k (module docstring), over the comparisons of ``NAME-kK`` configs."""
    best: dict[tuple[str, str, int], tuple[float, int]] = {}
    for s in comparisons:
        method, k = split_k_name(s.config)
        if k is None or s.speedup is None:
            continue
        key = (method, s.workload, s.level)
        if key not in best or (s.speedup, -k) > (best[key][0], -best[key][1]):
            best[key] = (s.speedup, k)
    return {key: k for key, (_, k) in best.items()}
