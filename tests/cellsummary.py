"""One builder of hand-made ``CellSummary`` values for the report and statistics tests (pure data; no server)."""

from __future__ import annotations

from typing import Any

from specscope.records import ClientFacts, SpecCounters
from specscope.stats.summary import CellSummary

# an ok cell with nothing measured beyond its throughput; each helper fills in its own shape
_EMPTY: dict[str, Any] = dict(
    status="ok",
    reasons=(),
    token_source="usage",
    stream_tok_s=(),
    tpot_p50_s=None,
    acceptance_rate=None,
    acceptance_length=None,
    acceptance_per_position=(),
    acceptance_source=None,
    counters=None,
    server_generation_tokens=None,
)


def make_cell(cfg: str, wl: str, conc: int, rep: int, tok_s: float | None, **fields: Any) -> CellSummary:
    """An ok cell of ``cfg`` x ``wl`` x ``conc`` streams, round ``rep``, at ``tok_s`` aggregate tok/s; ``fields``
    give (or override) the rest of :class:`CellSummary`'s fields (``counters`` and ``client`` may be given as the
    dicts they are stored as: they are read into their records, :func:`counters_of`, ``ClientFacts.from_dict``)."""
    d: dict[str, Any] = dict(
        _EMPTY,
        config=cfg,
        workload=wl,
        concurrency=conc,
        repeat=rep,
        streams=conc,
        streams_ok=conc,
        output_tok_s=tok_s,
        achieved_concurrency=float(conc),
    )
    d.update(fields)
    if isinstance(d.get("counters"), dict):
        d["counters"] = counters_of(d["counters"])
    if isinstance(d.get("client"), dict):
        d["client"] = ClientFacts.from_dict(d["client"])
    return CellSummary(**d)


def counters_of(d: dict[str, Any]) -> SpecCounters:
    """A hand-written counter delta as its record; without ``present``, the families its keys hold (``spec`` with a
    drafts key, ``per_pos`` with a per-position list, ``generation`` with generated tokens), as the tests meant."""
    d = dict(d)
    if "present" not in d:
        present = {"spec"} if "drafts" in d else set()
        present |= {"per_pos"} if d.get("accepted_per_position") else set()
        present |= {"generation"} if "generation_tokens" in d else set()
        d["present"] = sorted(present)
    return SpecCounters.from_dict(d)
