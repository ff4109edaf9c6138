"""Which prompts a cell sends: N distinct prompts, deterministic, different across repeats.

The schedule depends on the pack, ``n_streams``, ``repeat`` and ``seed`` only, not on the server config,
so every config sees the same prompts in the same cell position (a paired comparison).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from specscope.errors import ConfigError
from specscope.workload.prompt import Prompt, require_int_in

__all__ = ["schedule"]


def schedule(prompts: Sequence[Prompt], n_streams: int, *, repeat: int, seed: int) -> list[Prompt]:
    """``n_streams`` distinct prompts for one cell.

    Method: the pack is put in one order by ``random.Random(f"schedule:{seed}")``; repeat ``r`` takes
    the ``n_streams`` consecutive prompts starting at ``(r * n_streams) % len(prompts)`` (wrapping), so
    repeats ``0 .. len(prompts) // n_streams - 1`` use disjoint prompt sets; the window's send order is
    then shuffled by ``random.Random(f"schedule:{seed}:{n_streams}:{repeat}")`` so that even at
    ``n_streams == len(prompts)`` (the same set every repeat) the order differs across repeats.

    Raises:
        ConfigError: ``n_streams`` outside ``1..len(prompts)``, a negative ``repeat``, or prompts whose
            ``prompt_id`` repeats (streams would share a prefix).
    """
    n_total = len(prompts)
    ids = [p.prompt_id for p in prompts]
    if len(set(ids)) != n_total:
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        raise ConfigError(
            "prompts repeat",
            found=dupes,
            expected="distinct prompt ids",
            fix="pass a pack from load_pack() without duplicates",
        )
    message = "concurrency level needs more distinct prompts than the pack has"
    fix = f"use concurrency levels of at most {n_total}"
    require_int_in(n_streams, message, low=1, high=n_total, expected=f"1..{n_total} streams", fix=fix)
    require_int_in(repeat, "repeat index must be an integer >= 0", low=0, expected=">= 0", fix="count repeats from 0")
    order = list(range(n_total))
    random.Random(f"schedule:{seed}").shuffle(order)
    start = (repeat * n_streams) % n_total
    window = [order[(start + i) % n_total] for i in range(n_streams)]
    random.Random(f"schedule:{seed}:{n_streams}:{repeat}").shuffle(window)
    return [prompts[i] for i in window]
