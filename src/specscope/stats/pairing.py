"""Which baseline cell a config's cell is compared with: the one measured nearest in time.

A bench run interleaves configs (:mod:`specscope.bench.order`), so the baseline cell of the same workload and N
that ran closest to a config's cell shared the machine's state with it. Cells are matched greedily on the
distance between their mid-points (``(started_at_s + ended_at_s) / 2``, seconds): the closest pair first, each
cell used once. Runs stored before cells carried their instants (or cells without them) are paired by repeat
index, as before.
"""

from __future__ import annotations

from collections.abc import Mapping

from specscope.stats.summary import CellSummary

__all__ = ["midpoint_s", "pair_by_time"]


def midpoint_s(cell: CellSummary) -> float | None:
    """The cell's mid instant (s since the epoch), or None when the run did not record it."""
    if cell.started_at_s is None or cell.ended_at_s is None:
        return None
    return (cell.started_at_s + cell.ended_at_s) / 2.0


def pair_by_time(
    config_cells: Mapping[int, CellSummary], base_cells: Mapping[int, CellSummary]
) -> list[tuple[CellSummary, CellSummary]]:
    """Pairs (config cell, baseline cell), in the config cells' time order (repeat order without instants).

    Args:
        config_cells, base_cells: repeat index -> usable cell of one workload x N.
    """
    xs, bs = list(config_cells.values()), list(base_cells.values())
    if any(midpoint_s(c) is None for c in xs + bs):
        common = sorted(set(config_cells) & set(base_cells))
        return [(config_cells[r], base_cells[r]) for r in common]
    tx = [midpoint_s(c) or 0.0 for c in xs]
    tb = [midpoint_s(c) or 0.0 for c in bs]
    dist = sorted((abs(tx[i] - tb[j]), i, j) for i in range(len(xs)) for j in range(len(bs)))
    used_x: set[int] = set()
    used_b: set[int] = set()
    pairs: list[tuple[int, int]] = []
    for _, i, j in dist:
        if i not in used_x and j not in used_b:
            used_x.add(i)
            used_b.add(j)
            pairs.append((i, j))
    pairs.sort(key=lambda p: tx[p[0]])
    return [(xs[i], bs[j]) for i, j in pairs]
