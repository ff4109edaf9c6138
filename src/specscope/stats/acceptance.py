"""Acceptance views: rate, length, and per-position acceptance in both of its published forms.

Counters (vLLM ``vllm:spec_decode_*``; see vLLM ``docs/design/metrics.md`` and the seed-003 recipe):
``drafts`` verify steps that carried a draft, ``draft_tokens`` drafted tokens, ``accepted_tokens``
accepted drafted tokens, ``accepted_per_position[i]`` steps whose draft was accepted at position i+1.

* acceptance rate   = accepted_tokens / draft_tokens                      (excludes the bonus token)
* acceptance length = 1 + accepted_tokens / drafts                        (tokens emitted per step)
* unconditional u_i = accepted_per_position[i] / drafts                   (vLLM's form)
* conditional   a_i = accepted_per_position[i] / accepted_per_position[i-1], a_1 = u_1
                                                          (the per-position alpha_i of the EAGLE papers)

Drafts are accepted as a prefix, so a consistent server has u_1 >= u_2 >= ... and, because every
accepted token sits at exactly one position, the identity

    acceptance length = 1 + sum_i u_i

A server whose counters break the identity (beyond ``IDENTITY_TOL``), or whose per-position counts
rise with position, is flagged: its acceptance numbers cannot all be right.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from specscope.stats.groups import usable
from specscope.stats.summary import CellSummary

__all__ = [
    "IDENTITY_TOL",
    "acceptance_rate",
    "acceptance_length",
    "per_position_rates",
    "cell_drafts",
    "AcceptanceView",
    "conditional_rates",
    "acceptance_view",
    "pooled_acceptance",
    "reported_lengths",
    "request_steps",
]

# Relative tolerance of the length identity: counters are scraped floats summed over engines.
IDENTITY_TOL = 1e-3


def acceptance_rate(accepted_tokens: float | None, draft_tokens: float | None) -> float | None:
    """accepted / draft tokens (fraction; excludes the bonus token); None without drafted tokens or when either
    count is unknown. The one home of this formula: every acceptance rate specscope prints comes from here."""
    if accepted_tokens is None or draft_tokens is None or draft_tokens <= 0:
        return None
    return accepted_tokens / draft_tokens


def acceptance_length(accepted_tokens: float | None, drafts: float | None) -> float | None:
    """1 + accepted tokens / drafts (tokens per verify step that carried a draft; includes the bonus token); None
    without drafts or when either count is unknown."""
    if accepted_tokens is None or drafts is None or drafts <= 0:
        return None
    return 1.0 + accepted_tokens / drafts


def per_position_rates(accepted_per_position: Sequence[float], drafts: float | None) -> tuple[float, ...]:
    """Unconditional u_i = accepted at position i / drafts (vLLM's form); ``()`` without drafts."""
    if drafts is None or drafts <= 0:
        return ()
    return tuple(a / drafts for a in accepted_per_position)


def request_steps(pooled: Mapping[str, Any] | None) -> tuple[float | None, tuple[float, ...]]:
    """(verify steps, accepted per position) from a cell's pooled per-response records
    (:func:`specscope.stats.spec_pool.pool_requests`), for a server whose counters give no drafts (issue 35).

    Verify steps (steps that carried a draft) count only when they rest on the same responses as the accepted and
    drafted tokens (else a length would mix responses); None otherwise. Per position: ``accepted_per_position[i]``
    = steps that accepted at least i + 1 drafts = the sum of the accepted-count histogram's buckets j > i (the
    same count as vLLM's ``spec_decode_num_accepted_tokens_per_pos`` counter), when the histogram covers exactly
    those verify steps; ``()`` otherwise.
    """
    p = pooled or {}
    steps = p.get("verify_steps")
    n = p.get("verify_steps_requests")
    if not steps or n != p.get("accepted_tokens_requests") or n != p.get("draft_tokens_requests"):
        return None, ()
    hist = {int(j): int(v) for j, v in (p.get("histogram") or {}).items()}
    if not hist or sum(hist.values()) != steps:
        return float(steps), ()
    top = max(hist)
    return float(steps), tuple(float(sum(v for j, v in hist.items() if j > i)) for i in range(top))


def cell_drafts(cell: CellSummary) -> float | None:
    """What the cell's server reported about drafting: its ``drafts`` counter delta (verify steps that carried a
    draft) where the server exposes speculative counters, else the per-response drafted tokens; None when the server
    said nothing (absent is unknown, never 0)."""
    c = cell.counters
    if c is not None and "spec" in c.present and c.drafts is not None:
        return float(c.drafts)
    if cell.per_request_draft_tokens is not None:
        return float(cell.per_request_draft_tokens)
    return None


@dataclass(frozen=True)
class AcceptanceView:
    """Acceptance of one config (x workload) from summed counter deltas.

    Attributes:
        drafts, draft_tokens, accepted_tokens: summed counter deltas (steps, tokens, tokens).
        acceptance_rate: accepted / draft tokens (fraction) or None without drafts.
        acceptance_length: 1 + accepted / drafts (tokens per step) or None without drafts.
        unconditional: u_i per position (fraction), length k.
        conditional: a_i per position (fraction, None where the previous position had no accepts).
        length_from_positions: 1 + sum(unconditional) (tokens per step), None without per-position data.
        flags: problem codes with numbers, e.g. ``LENGTH_IDENTITY: 2.400 != 1 + sum(u) = 2.100``.
        source: where draft and accepted tokens came from: ``per_request`` (the server's per-response fields,
            preferred when present: nothing else the server did in the window leaks in), ``counter_delta``
            (``/metrics`` deltas) or ``mixed``; drafts and per-position rates come from a drafts counter, else
            from the responses' verify steps and histograms (:func:`pooled_acceptance`).
        drafts_known: False when some pooled cell gave no drafts figure (counter or per-response verify steps):
            ``drafts`` is then a partial sum, not a count to print, and length and per-position rates are absent.
    """

    drafts: float
    draft_tokens: float
    accepted_tokens: float
    acceptance_rate: float | None
    acceptance_length: float | None
    unconditional: tuple[float, ...]
    conditional: tuple[float | None, ...]
    length_from_positions: float | None
    flags: tuple[str, ...] = field(default=())
    source: str = "counter_delta"
    drafts_known: bool = True

    @property
    def consistent(self) -> bool:
        return not self.flags

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["unconditional"] = list(self.unconditional)
        d["conditional"] = list(self.conditional)
        d["flags"] = list(self.flags)
        return d


def conditional_rates(unconditional: Sequence[float]) -> tuple[float | None, ...]:
    """a_i = u_i / u_{i-1} (a_1 = u_1); None where u_{i-1} is 0. Input and output have length k."""
    out: list[float | None] = []
    prev = 1.0
    for u in unconditional:
        out.append(None if prev <= 0 else u / prev)
        prev = u
    return tuple(out)


def acceptance_view(
    drafts: float,
    draft_tokens: float,
    accepted_tokens: float,
    accepted_per_position: Sequence[float],
    *,
    drafts_counted: bool = True,
) -> AcceptanceView:
    """Build the view from counter values (see the module docstring for the formulas and flags).

    ``drafts_counted``: a drafts counter stood behind ``drafts`` (False: no server counter, ``drafts`` is a
    placeholder 0); 0 counted drafts beside drafted tokens is ``DRAFT_TOKENS_WITHOUT_DRAFTS`` (a draft holds at
    least one token)."""
    flags: list[str] = []
    if drafts_counted and drafts <= 0 < draft_tokens:
        flags.append(f"DRAFT_TOKENS_WITHOUT_DRAFTS: {draft_tokens:g} drafted tokens over 0 drafts")
    rate = acceptance_rate(accepted_tokens, draft_tokens)
    length = acceptance_length(accepted_tokens, drafts)
    uncond = per_position_rates(accepted_per_position, drafts)
    cond = conditional_rates(uncond)
    from_pos = 1.0 + sum(uncond) if uncond else None
    if length is not None and from_pos is not None and abs(length - from_pos) > IDENTITY_TOL * length:
        flags.append(f"LENGTH_IDENTITY: acceptance length {length:.3f} != 1 + sum of per-position rates {from_pos:.3f}")
    for i in range(1, len(accepted_per_position)):
        if accepted_per_position[i] > accepted_per_position[i - 1] * (1 + IDENTITY_TOL):
            flags.append(
                f"POSITION_RISES: accepted at position {i + 1} ({accepted_per_position[i]:g}) > "
                f"at position {i} ({accepted_per_position[i - 1]:g})"
            )
    if uncond and uncond[0] > 1.0 + IDENTITY_TOL:
        flags.append(f"RATE_ABOVE_ONE: position-1 acceptance {uncond[0]:.3f} > 1")
    if rate is not None and rate > 1.0 + IDENTITY_TOL:
        flags.append(f"RATE_ABOVE_ONE: acceptance rate {rate:.3f} > 1")
    return AcceptanceView(
        drafts=float(drafts),
        draft_tokens=float(draft_tokens),
        accepted_tokens=float(accepted_tokens),
        acceptance_rate=rate,
        acceptance_length=length,
        unconditional=uncond,
        conditional=cond,
        length_from_positions=from_pos,
        flags=tuple(flags),
    )


def _cell_steps(cell: CellSummary) -> tuple[float | None, tuple[float, ...] | None]:
    """(drafts, accepted per position) of one cell: its counters' when a drafts counter counted drafts, else its
    responses' verify steps and histogram (:func:`request_steps`); None for what neither gives."""
    c = cell.counters
    if c is not None and c.drafts:
        per = c.accepted_per_position
        return float(c.drafts), (tuple(float(v) for v in per) if per else None)
    steps, positions = request_steps(cell.spec_requests) if cell.per_request_draft_tokens else (None, ())
    return steps, (positions or None)


def pooled_acceptance(
    summaries: Iterable[CellSummary],
    *,
    by_workload: bool = True,
    include_degraded: bool = False,
) -> dict[tuple[str, str | None], AcceptanceView]:
    """Sum the counter deltas of all usable cells per config (x workload) and view them; a cell's draft and
    accepted tokens come from its per-response fields when it has them (``AcceptanceView.source``).

    Pooling counters (not averaging per-cell rates) weights every verify step equally. Drafts (verify steps) and
    per-position counts come from a drafts counter, else from the responses' own verify steps and accepted-count
    histograms (issue 35: per-response data stands on its own); when a cell gives neither, the pool's drafts are
    unknown (``drafts_known`` False: no length, no per-position rates, never 0 rounds), and per-position rates
    need every cell's positions. Cells without counters or per-response data, or whose counters show no drafts,
    contribute nothing; a config with no drafts at all (the baseline) is absent from the result.

    Returns:
        ``{(config, workload or None): AcceptanceView}``.
    """
    acc: dict[tuple[str, str | None], list[float]] = {}
    pos: dict[tuple[str, str | None], list[float]] = defaultdict(list)
    sources: dict[tuple[str, str | None], set[str]] = defaultdict(set)
    counted: dict[tuple[str, str | None], bool] = defaultdict(bool)  # a drafts counter stood behind the drafts
    steps_known: dict[tuple[str, str | None], bool] = defaultdict(lambda: True)
    pos_known: dict[tuple[str, str | None], bool] = defaultdict(lambda: True)
    for cell in summaries:
        c = cell.counters
        has_counters = c is not None and bool(c.drafts)
        if not usable(cell, include_degraded) or not (has_counters or cell.per_request_draft_tokens):
            continue
        key = (cell.config, cell.workload if by_workload else None)
        s = acc.setdefault(key, [0.0, 0.0, 0.0])
        drafts, per = _cell_steps(cell)
        s[0] += drafts or 0.0
        steps_known[key] &= drafts is not None
        counted[key] |= c is not None and c.drafts is not None
        if cell.per_request_draft_tokens:  # the server's per-response fields: this cell's requests only
            s[1] += float(cell.per_request_draft_tokens)
            s[2] += float(cell.per_request_accepted_tokens or 0)
            sources[key].add("per_request")
        else:
            s[1] += float((c.draft_tokens if c is not None else None) or 0.0)
            s[2] += float((c.accepted_tokens if c is not None else None) or 0.0)
            sources[key].add("counter_delta")
        pos_known[key] &= per is not None
        p = pos[key]
        p.extend([0.0] * (len(per or ()) - len(p)))
        for i, x in enumerate(per or ()):
            p[i] += x
    out = {}
    for k, v in acc.items():
        known = steps_known[k]
        positions = pos[k] if known and pos_known[k] else []
        view = acceptance_view(v[0], v[1], v[2], positions, drafts_counted=counted[k] and known)
        src = sources[k].pop() if len(sources[k]) == 1 else "mixed"
        out[k] = replace(
            view, source=src, drafts_known=known, acceptance_length=view.acceptance_length if known else None
        )
    return out


def reported_lengths(summaries: Iterable[CellSummary]) -> dict[tuple[str, str], tuple[float, int]]:
    """The acceptance length a tool reported for cells that carry no counts (SGLang's ``bench_serving`` writes
    ``accept_length``, the server's mean accepted tokens per verify step, bonus included, and no drafted or accepted
    count): ``{(config, workload): (mean of the cells' lengths, cells)}`` over usable cells that
    :func:`pooled_acceptance` cannot pool. An unweighted mean of per-cell lengths (the cells' verify steps are
    unknown), so no rate and no per-position figure is derived from it."""
    found: dict[tuple[str, str], list[float]] = defaultdict(list)
    for cell in summaries:
        counted = bool(cell.counters is not None and cell.counters.drafts) or bool(cell.per_request_draft_tokens)
        if usable(cell) and not counted and cell.acceptance_length is not None:
            found[(cell.config, cell.workload)].append(cell.acceptance_length)
    return {k: (sum(v) / len(v), len(v)) for k, v in found.items()}
