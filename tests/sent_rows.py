"""Issue 35's "Done when": in every dataset and workload-file test, the run's rows sent equal the truth server's
log of what it received, cell by cell (so per repeat), by count and by row id.

``assert_rows_sent(run_dir, ts.served(), texts)`` reads each stored cell's ``rows_sent`` (the row ids it sent, in
send order: :mod:`specscope.workload.rows`) and the truth log's requests that arrived inside that cell's window
(``arrival_ns`` between the cell's ``start_ns`` and ``end_ns``: both are ``perf_counter_ns``, CLOCK_MONOTONIC, so
they compare across the client's and the server's processes), and checks:

* every measured request (not a warm-up) lies in some cell's window: nothing was sent that the run does not report;
* a cell's first turns (a request whose messages do not continue an earlier request's messages) are its rows:
  ``Counter(texts[id] for id in rows_sent) == Counter(first-turn text)``, the text being the request's last
  message (``prompt`` in the truth log); a later turn continues a first turn of the same cell;
* ``len(rows_sent)`` equals the manifest's ``packs[workload]["rows_sent_per_repeat"]`` where the manifest has it.

``texts`` maps a row id (or ``"<workload>/<row id>"``, where two files share ids) to the text its first request
ends with (or the one text of ``texts`` it contains, where a dataset's template wraps the row's text). Without
it (a file whose ids the test does not name), the cells must be closed loop at concurrency 1: ids and texts are
then paired in send order, and the same id must carry the same text in every cell and two ids never the same text.

Returns ``{cell label: rows sent}`` so each test states the right numbers itself.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from specscope.store import open_run

WARMUP_MARKS = ("Warm-up request, not measured.", "Warm-up, not measured:")


def measured(log: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The truth log's requests that are not warm-ups."""

    def warm(r: dict[str, Any]) -> bool:
        msgs = r.get("messages") or [{"content": r.get("prompt")}]
        return any(str(m.get("content")).startswith(WARMUP_MARKS) for m in msgs)

    return [r for r in log if not warm(r)]


def only_run(out: Path) -> Path:
    """The one run folder ``bench --out OUT`` wrote."""
    (run_dir,) = [p for p in out.iterdir() if (p / "manifest.json").is_file()]
    return run_dir


def _first_turns(reqs: Sequence[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(first turns, later turns) of one cell's requests, in arrival order; a later turn's messages begin with an
    earlier request's messages and add the answer and the next turn."""
    firsts: list[dict[str, Any]] = []
    later: list[dict[str, Any]] = []
    for r in sorted(reqs, key=lambda r: r["arrival_ns"]):
        msgs = r.get("messages")
        seen = [f for f in firsts + later if msgs and f.get("messages") and len(f["messages"]) < len(msgs)]
        if msgs and any(msgs[: len(f["messages"])] == f["messages"] for f in seen):
            later.append(r)
        else:
            firsts.append(r)
    return firsts, later


def _named(got: str, texts: Mapping[str, str]) -> str:
    """``got`` itself when it is one of ``texts``, else the one text it contains (a dataset's template around a
    row's text), else ``got``."""
    if got in texts.values():
        return got
    inside = {t for t in texts.values() if t in got}
    return inside.pop() if len(inside) == 1 else got


def assert_rows_sent(
    run_dir: Path, log: Sequence[dict[str, Any]], texts: Mapping[str, str] | None = None, *, config: str | None = None
) -> dict[str, int]:
    """Check the run's rows sent against the truth log (see the module doc); ``{cell label: rows sent}``.
    ``config``: only that config's cells (the log is of the one server it ran against)."""
    manifest = json.loads((run_dir / "manifest.json").read_text("utf-8"))
    packs = manifest.get("packs") or {}
    with open_run(run_dir) as run:
        cells = [c for c in run.cells() if config is None or c.key.config == config]
    reqs = measured(log)
    placed: set[int] = set()
    paired: dict[str, str] = {}
    out: dict[str, int] = {}
    for cell in cells:
        sent = list(cell.client.rows_sent or ())
        label = cell.key.label()
        mine = [r for r in reqs if cell.start_ns <= r["arrival_ns"] <= cell.end_ns]
        placed.update(id(r) for r in mine)
        firsts, later = _first_turns(mine)
        got = [str(r["prompt"]) for r in firsts]
        if texts is None:
            assert cell.key.concurrency == 1, f"{label}: at concurrency above 1 the test names the rows' texts"
            assert len(sent) == len(got), f"{label}: rows_sent {sent} but the server got {got}"
            for row, text in zip(sent, got, strict=True):
                assert paired.setdefault(row, text) == text, f"{label}: row {row} sent as {text!r}"
            assert len(set(paired.values())) == len(paired), f"{label}: two rows sent as one text: {paired}"
        else:
            want = Counter(texts.get(f"{cell.key.workload}/{r}", texts.get(r)) for r in sent)
            assert want == Counter(_named(g, texts) for g in got), f"{label}: rows_sent {sent}, server got {got}"
        for r in later:  # a later turn continues one of this cell's conversations
            assert any(r["messages"][: len(f["messages"])] == f["messages"] for f in firsts if f.get("messages"))
        per_repeat = (packs.get(cell.key.workload) or {}).get("rows_sent_per_repeat")
        assert per_repeat is None or per_repeat == len(sent), f"{label}: manifest {per_repeat}, sent {len(sent)}"
        out[label] = len(sent)
    stray = [r.get("prompt") for r in reqs if id(r) not in placed]
    assert not stray, f"requests outside every cell: {stray}"
    return out
