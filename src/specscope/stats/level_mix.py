"""Advice for traffic that spends known shares of its time at each concurrency level (``advise --level-mix``).

Throughput view: a day of traffic that spends a share ``w_n`` of its wall time with ``n`` requests in flight
serves ``sum_n w_n * T(config, n)`` tokens per second of wall time on average, where ``T`` is the cell's
aggregate output rate (``output_tok_s``, tokens/s; mean over repeats and over workloads weighted by the
``--mix`` token shares, equal shares without one). The **static** choice is the one config that maximises
this; the **dynamic** policy picks the best config at each level (as vLLM's batch-size-dependent disabling
of speculation or llama.cpp's per-slot choice would), and its gain over the best static choice is reported.

Per-user view: what one user sees, the median per-stream rate (``stream_tok_s``: output tokens / the
stream's own latency, tokens/s), weighted the same way. It can disagree with the throughput view (more
speculation can speed up each stream at low load yet cost aggregate tokens/s at high load), so both are given.

Only ``ok`` cells count. With one repeat per cell there is no interval: figures are point estimates and say so.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from statistics import median
from typing import Any

from specscope.config import is_control
from specscope.errors import ConfigError
from specscope.stats.summary import CellSummary

__all__ = ["LevelMixAdvice", "parse_level_mix", "level_mix_advice", "level_mix_text", "level_mix_input"]


def parse_level_mix(text: str) -> dict[int, float]:
    """``"1=0.6,4=0.4"`` -> {level: share of wall time}, shares normalised to sum 1.

    Raises:
        ConfigError: malformed entry, level not a positive integer, negative share, repeated level, or all zero.
    """
    out: dict[int, float] = {}
    for part in (p.strip() for p in text.split(",") if p.strip()):
        lev, sep, val = part.partition("=")
        try:
            n, share = int(lev), float(val)
        except ValueError:
            n, share = 0, -1.0
        if not sep or n < 1 or share < 0 or n in out:
            raise ConfigError(
                "bad --level-mix entry",
                found=part,
                expected="LEVEL=SHARE with LEVEL a measured concurrency and SHARE >= 0, each level once",
                fix="e.g. --level-mix 1=0.6,4=0.4 (60 % of the time at 1 request in flight, 40 % at 4)",
            )
        out[n] = share
    total = sum(out.values())
    if total <= 0:
        raise ConfigError("a --level-mix needs a positive share", found=text, expected="shares summing to more than 0")
    return {k: v / total for k, v in out.items() if v > 0}


@dataclass(frozen=True)
class LevelMixAdvice:
    """The static and dynamic choices for a level mix (rates in tokens/s; shares sum to 1).

    Attributes:
        level_mix: share of wall time per concurrency level.
        static: per config, the time-weighted aggregate rate (tokens served per second of wall time).
        static_choice: the config with the highest ``static`` rate.
        dynamic: per level, the config with the highest aggregate rate there.
        dynamic_tok_s: the time-weighted rate of the dynamic policy; ``dynamic_gain`` = it / best static - 1.
        per_user: per config, the time-weighted median per-stream rate; ``per_user_choice`` its best.
        repeats: the fewest repeats behind any figure (1: point estimates, no interval).
        notes: what the reader must know (excluded configs, 1 repeat, disagreeing views).
    """

    level_mix: dict[int, float]
    static: dict[str, float]
    static_choice: str
    dynamic: dict[int, str]
    dynamic_tok_s: float
    dynamic_gain: float
    per_user: dict[str, float]
    per_user_choice: str | None
    repeats: int
    notes: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["notes"] = list(self.notes)
        return d


def _rates(
    cells: Sequence[CellSummary], mix: Mapping[str, float] | None
) -> tuple[dict[tuple[str, int], float], dict[tuple[str, int], float], int]:
    """Per (config, level): the workload-weighted mean aggregate rate and median per-stream rate; fewest repeats."""
    by: dict[tuple[str, int, str], list[CellSummary]] = {}
    for c in cells:
        if c.status == "ok" and c.output_tok_s is not None and (mix is None or c.workload in mix):
            by.setdefault((c.config, c.concurrency, c.workload), []).append(c)
    agg: dict[tuple[str, int], float] = {}
    user: dict[tuple[str, int], float] = {}
    weights: dict[tuple[str, int], float] = {}
    for (cfg, lev, wl), group in by.items():
        w = 1.0 if mix is None else mix[wl]
        rate = sum(c.output_tok_s or 0.0 for c in group) / len(group)
        streams = [r for c in group for r in c.stream_tok_s]
        agg[(cfg, lev)] = agg.get((cfg, lev), 0.0) + w * rate
        if streams:
            user[(cfg, lev)] = user.get((cfg, lev), 0.0) + w * median(streams)
        weights[(cfg, lev)] = weights.get((cfg, lev), 0.0) + w
    repeats = min((len(g) for g in by.values()), default=0)
    return {k: v / weights[k] for k, v in agg.items()}, {k: v / weights[k] for k, v in user.items()}, repeats


def level_mix_advice(
    cells: Sequence[CellSummary], level_mix: Mapping[int, float], mix: Mapping[str, float] | None = None
) -> LevelMixAdvice:
    """The static choice, the dynamic policy and the per-user view for a level mix (see the module doc).

    Raises:
        ConfigError: a level of the mix was not measured, or no config has ok cells at every level of the mix.
    """
    cells = [c for c in cells if not is_control(c.config)]  # the A/A control and sentinels are not candidates
    levels = sorted({c.concurrency for c in cells})
    unmeasured = [lev for lev in level_mix if lev not in levels]
    if unmeasured:  # all of them at once, so one correction fixes the option
        raise ConfigError(
            f"concurrency {', '.join(map(str, unmeasured))} of the --level-mix was not measured",
            found=", ".join(f"{k}={v:g}" for k, v in level_mix.items()),
            expected="levels among " + ", ".join(map(str, levels)),
            fix="name measured levels in --level-mix",
        )
    agg, user, repeats = _rates(cells, mix)
    configs = list(dict.fromkeys(c.config for c in cells))
    notes: list[str] = []
    full = [cfg for cfg in configs if all((cfg, lev) in agg for lev in level_mix)]
    for cfg in configs:
        if cfg not in full:
            notes.append(f"{cfg}: left out (no ok cell at some level of the mix)")
    if not full:
        raise ConfigError(
            "no config has ok cells at every level of the --level-mix",
            found=", ".join(f"{k}={v:g}" for k, v in level_mix.items()),
            expected="levels where the configs ran without failures",
            fix="drop the levels that failed from --level-mix, or rerun them",
        )
    static = {cfg: sum(w * agg[(cfg, lev)] for lev, w in level_mix.items()) for cfg in full}
    choice = max(full, key=lambda cfg: static[cfg])
    dynamic = {lev: max(full, key=lambda cfg: agg[(cfg, lev)]) for lev in sorted(level_mix)}
    dyn = sum(w * agg[(dynamic[lev], lev)] for lev, w in level_mix.items())
    user_full = [cfg for cfg in full if all((cfg, lev) in user for lev in level_mix)]
    per_user = {cfg: sum(w * user[(cfg, lev)] for lev, w in level_mix.items()) for cfg in user_full}
    user_choice = max(per_user, key=lambda cfg: per_user[cfg]) if per_user else None
    if repeats == 1:
        notes.append("no interval (1 repeat): point estimates")
    if user_choice is not None and user_choice != choice:
        notes.append(
            f"the per-user view prefers {user_choice} (each stream faster) while the throughput view prefers "
            f"{choice} (more tokens served per second): choose by which one your users feel"
        )
    return LevelMixAdvice(
        dict(level_mix),
        static,
        choice,
        dynamic,
        dyn,
        dyn / static[choice] - 1.0,
        per_user,
        user_choice,
        repeats,
        tuple(notes),
    )


def level_mix_text(adv: LevelMixAdvice) -> str:
    """Terminal lines for :class:`LevelMixAdvice` (rates in tok/s)."""
    mix = ", ".join(f"{lev} streams {100 * w:.0f}%" for lev, w in adv.level_mix.items())
    lines = [f"level mix (share of wall time): {mix}"]
    lines.append(f"static choice: {adv.static_choice} at {adv.static[adv.static_choice]:.1f} tok/s (time-weighted)")
    for cfg, v in sorted(adv.static.items(), key=lambda kv: -kv[1]):
        lines.append(f"  {cfg}: {v:.1f} tok/s")
    policy = ", ".join(f"{lev} streams -> {cfg}" for lev, cfg in adv.dynamic.items())
    lines.append(f"dynamic policy: {policy}: {adv.dynamic_tok_s:.1f} tok/s ({100 * adv.dynamic_gain:+.1f}% vs static)")
    if adv.per_user_choice is not None:
        lines.append(
            f"per-user view: {adv.per_user_choice} at {adv.per_user[adv.per_user_choice]:.1f} tok/s per stream"
            " (time-weighted median stream rate)"
        )
    lines += [f"note: {n}" for n in adv.notes]
    return "\n".join(lines)


def level_mix_input(run: Path | None, from_csv: Path | None, open_run: Callable[[Path], Any]) -> tuple[list, Any]:
    """The cells and server facts ``advise`` works on: a run folder (opened with ``open_run``) or a CSV.

    Raises:
        ConfigError: neither or both given.
    """
    if from_csv is not None and run is None:
        from specscope.stats.csv_cells import read_cells_csv

        return read_cells_csv(from_csv), {}
    if run is not None and from_csv is None:
        from specscope.stats.cells import summarize_run

        with open_run(run) as r:
            return summarize_run(r), r.server_facts
    raise ConfigError(
        "advise needs one source of cells",
        found="both a RUN and --from-csv" if run is not None else "no RUN and no --from-csv",
        expected="a run folder, or --from-csv FILE",
        fix="e.g. specscope advise runs/run-1 --level-mix 1=0.6,4=0.4, or advise --from-csv results.csv",
    )
