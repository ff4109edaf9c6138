"""Property (issue 33): for any run and the same judging options, ``report`` (its JSON and its text) and ``advise``
give identical verdicts, picks and alarms.

Runs are generated in memory (no server, no store): interleaved or counterbalanced-blocks order, a baseline that
drifts or not, sentinel and A/A cells that confirm the drift or not, server restarts, client-limited and
capacity-limited cells, one-round cells, an open loop on request rates, a head whose acceptance is near zero and a
drafter that never drafts. Both screens are built by the library calls the commands make
(:func:`specscope.report.build.build_document`, :func:`specscope.report.advice.advise`), and their text through the
text renderer the commands print with.
"""

from __future__ import annotations

import io
import os
import re
from dataclasses import dataclass, replace
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.console import Console

from cellsummary import make_cell
from serverfacts import manifest
from specscope.report.advice import advice_section, advise
from specscope.report.build import Judging, RunData, build_document
from specscope.report.document import Document
from specscope.report.headline import headline
from specscope.report.render import print_document
from specscope.stats.choices import Traffic
from specscope.stats.summary import CellSummary

T0_S = 1_700_000_000.0
CELL_S = 10.0


@dataclass(frozen=True)
class Shape:
    """What one generated run is made of."""

    order: str  # "interleaved" or "blocks"
    workloads: tuple[str, ...]
    levels: tuple[int, ...]
    rounds: int
    candidates: tuple[tuple[str, float], ...]  # (config, true speedup)
    drift_per_s: float
    controls: str  # "", "aa", "sentinel"
    control_drifts: bool
    open_loop: bool
    broken: tuple[tuple[str, int], ...]  # (kind, index of the cell it strikes)
    acceptance: tuple[tuple[str, float], ...]  # (config, acceptance rate) for configs whose server counts drafts
    noise: tuple[float, ...]
    min_effect: float


def _plan(s: Shape) -> list[tuple[str, str, int, int]]:
    """(config, workload, level, round) in the order the run measured them."""
    configs = ["base", *(c for c, _ in s.candidates)] + (["base-again"] if s.controls == "aa" else [])
    keys = [(w, n) for w in s.workloads for n in s.levels]
    if s.order == "interleaved":
        out = [(c, w, n, r) for r in range(s.rounds) for w, n in keys for c in configs]
    else:
        out = [(c, w, n, r) for c in configs for r in range(s.rounds) for w, n in keys]
    if s.controls == "sentinel":  # a baseline cell every few cells, across the whole run
        step = max(2, len(out) // 4)
        w, n = keys[0]
        for i, at in enumerate(range(len(out), -1, -step)):
            out.insert(at, ("base~sentinel", w, n, i))
    return out


def _cell(s: Shape, i: int, key: tuple[str, str, int, int]) -> CellSummary:
    cfg, w, n, r = key
    at_s = i * CELL_S
    machine = 1.0 + s.drift_per_s * at_s * (1.0 if cfg != "base~sentinel" or s.control_drifts else -1.0)
    if cfg == "base-again" and not s.control_drifts:
        machine = 1.0 - s.drift_per_s * at_s
    speed = dict(s.candidates).get(cfg, 1.0)
    tok_s = 20.0 * n * speed * machine * (1.0 + s.noise[i % len(s.noise)])
    fields: dict[str, Any] = dict(
        started_at_s=T0_S + at_s,
        ended_at_s=T0_S + at_s + CELL_S / 2,
        output_tokens=64 * n,
        duration_s=64 * n / tok_s,
        stream_tok_s=tuple(tok_s / n for _ in range(n)),
        ttft_p50_s=0.05 * n,
        ttft_p95_s=0.08 * n,
        tpot_p50_s=n / tok_s,
    )
    if s.open_loop:
        fields["client"] = {"open_loop": {"rate_per_s": float(n), "arrival": "poisson"}}
    rate = dict(s.acceptance).get(cfg)
    if rate is not None:
        fields["counters"] = {"drafts": 100.0, "draft_tokens": 300.0, "accepted_tokens": 300.0 * rate}
    for kind, at in s.broken:
        if at == i and cfg != "base~sentinel":
            if kind == "restart":
                fields.update(status="server_crash", reasons=("SERVER_CRASH",))
            elif kind == "client":
                fields.update(status="degraded", reasons=("CLIENT_LIMITED(send_lag_p99_ms=80)",))
            else:
                fields.update(capacity_limited=f"CAPACITY_LIMITED(ceiling=1, requested={n + 1})")
    return make_cell(cfg, w, n, r, tok_s, **fields)


def run_of(s: Shape) -> list[CellSummary]:
    return [_cell(s, i, key) for i, key in enumerate(_plan(s))]


names = st.sampled_from(["mtp", "ngram", "eagle3", "fast"])


@st.composite
def shapes(draw: st.DrawFn) -> Shape:
    cands = draw(st.lists(names, min_size=1, max_size=2, unique=True))
    speeds = [draw(st.sampled_from([0.7, 0.97, 1.0, 1.03, 1.1, 1.5])) for _ in cands]
    rounds = draw(st.sampled_from([1, 2, 3, 4]))
    wls = draw(st.sampled_from([("prose",), ("prose", "code")]))
    levels = draw(st.sampled_from([(1,), (1, 2), (1, 4)]))
    n_cells = rounds * len(wls) * len(levels) * (len(cands) + 2)
    broken = draw(
        st.lists(st.tuples(st.sampled_from(["restart", "client", "capacity"]), st.integers(0, n_cells)), max_size=2)
    )
    acc = [(c, draw(st.sampled_from([0.0, 0.01, 0.6]))) for c in cands if draw(st.booleans())]
    return Shape(
        order=draw(st.sampled_from(["interleaved", "blocks"])),
        workloads=wls,
        levels=levels,
        rounds=rounds,
        candidates=tuple(zip(cands, speeds, strict=True)),
        drift_per_s=draw(st.sampled_from([0.0, 0.0005, -0.001])),
        controls=draw(st.sampled_from(["", "aa", "sentinel"])),
        control_drifts=draw(st.booleans()),
        open_loop=draw(st.booleans()) if levels != (1,) else False,
        broken=tuple(broken),
        acceptance=tuple(acc),
        noise=tuple(draw(st.lists(st.sampled_from([-0.01, -0.002, 0.0, 0.003, 0.01]), min_size=1, max_size=5))),
        min_effect=draw(st.sampled_from([0.02, 0.05])),
    )


#: the tables whose text the property reads (the rest of the report is rendered by the same code from other facts;
#: printing all of it 500 times would take minutes)
JUDGED_TABLES = ("comparisons", "choices", "candidates", "level_mix", "unjudged")


def _text(doc: Document) -> str:
    """The document as ``report`` / ``advise`` print it as text (headline, alarms, verdict lines and the judged
    tables), whitespace collapsed."""
    out = io.StringIO()
    sections = [replace(s, tables=[t for t in s.tables if t.key in JUDGED_TABLES]) for s in doc.sections]
    print_document(replace(doc, sections=sections), Console(file=out, width=400, color_system=None))
    return " ".join(out.getvalue().split())


ALARM = re.compile(r"ALARM ([A-Z_]+) \(([^)]*)\)")


def _picks(choices: dict[str, Any]) -> list[tuple[Any, ...]]:
    levels = [*choices["levels"], *([choices["overall"]] if choices["overall"] else [])]
    return [
        (lv["level"], lv["config"], lv["verdict"], [(m["config"], m["verdict"]) for m in lv["candidates"]])
        for lv in levels
    ]


@settings(
    max_examples=int(os.environ.get("SAME_ANSWER_EXAMPLES", "500")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    database=None,
)
@given(shapes())
def test_report_json_report_text_and_advise_say_the_same(s: Shape) -> None:
    cells = run_of(s)
    traffic = Traffic(mix={w: 1.0 / len(s.workloads) for w in s.workloads})
    stored = manifest(baseline="base", options={"min_effect": s.min_effect})
    report = build_document([RunData("run", stored, cells)], judging=Judging(traffic=traffic))
    rep = report.to_dict()
    adv = advise(cells, traffic, baseline="base", min_effect=s.min_effect)
    advice = Document("advice", [advice_section(adv)], adv.to_dict(), headline(adv.judgement))
    got = advice.to_dict()
    # one judgement: the same comparisons and verdicts, picks and alarms as decided
    assert [c.to_dict() for c in adv.judgement.comparisons] == rep["comparisons"]
    assert _picks(got["choices"]) == _picks(rep["choices"])
    for key in ("levels", "overall"):
        assert got["choices"][key] == rep["choices"][key]
    assert got["crossovers"] == rep["crossovers"]
    assert got["choices"]["unjudged"] == rep["choices"]["unjudged"]
    assert got["judged_alarms"] == rep["judged_alarms"]
    # the same alarms in words, in both JSON documents and in both texts (report's own server-setting warnings aside)
    judged = {a["code"] for a in rep["judged_alarms"]}
    rep_words = [(a["code"], a["config"], a["workload"]) for a in rep["alarms"] if a["code"] in judged]
    assert rep_words == [(a["code"], a["config"], a["workload"]) for a in got["alarms"]]
    rep_text, adv_text = _text(report), _text(advice)
    assert [m for m in ALARM.findall(rep_text) if m[0] in judged] == ALARM.findall(adv_text)
    # the texts print the same picks: every pick row of advise's picks table is in report's text as well
    (picks,) = [t for t in advice.tables if t.key == "choices"]
    for row in picks.rows:
        assert " ".join(" ".join(row[:6]).split()) in " ".join(" ".join(rep_text.split("│")).split())
    for c in rep["comparisons"]:
        assert c["verdict"].replace("_", " ") in rep_text
    # the headline: the same lines on both screens, first in the text
    assert report.headline == headline(adv.judgement) and rep_text.startswith(f"headline: {report.headline[0]}")
