"""A stored server log's alarms are part of the run's one judgement (issue 50 item 4).

``bench --server-log NAME=FILE`` stores the log's pools (``log_pools``: a ``LOW_ACCEPTANCE`` alarm, counts that
contradict each other); the report printed them in ``alarms`` but the judgement's ``judged_alarms`` lacked them, so
a screen reading the judgement (``advise``, the JSON's ``judged_alarms``) missed what ``report`` said. They are now
judged alarms of the config, and ``alarms`` renders them from there."""

from __future__ import annotations

import json
from pathlib import Path

from clirun import cli
from quickrun import make_quick_run
from specscope.store import open_run

POOL = {
    "engine": "llamacpp",
    "forms": ["draft acceptance", "statistics"],
    "method": "draft_model",
    "alarm": "LOW_ACCEPTANCE(draft_model accepts 0.0% of drafted tokens over 130 drafts, < 5%)",
    "inconsistencies": ["ACCEPTED_OVER_DRAFTED(line 2: accepted 30 > draft tokens 20)"],
}


def _run(tmp_path: Path) -> Path:
    run = make_quick_run(tmp_path / "run", only=("base", "draft"))
    with open_run(run, writable=True) as r:
        stored = dict(r.server_facts.of("draft").stored)
        r.save_server_facts("draft", {**stored, "log_pools": [POOL]})
    return run


def test_the_logs_alarms_are_judged_alarms_and_rendered_from_there(tmp_path, capsys, monkeypatch):
    run = _run(tmp_path)
    code, out, err = cli(["report", run, "-f", "json"], capsys, monkeypatch, tmp_path)
    doc = json.loads(out)
    judged = [(a["code"], a["config"], a["source"], a["details"]) for a in doc["judged_alarms"]]
    where = "server log (llamacpp: draft acceptance, statistics)"
    assert judged[-2:] == [
        ("LOW_ACCEPTANCE", "draft", where, [POOL["alarm"]]),
        ("INCONSISTENT", "draft", where, POOL["inconsistencies"]),
    ]
    words = [(a["code"], a["config"]) for a in doc["alarms"] if a["code"] in ("LOW_ACCEPTANCE", "INCONSISTENT")]
    assert words == [("LOW_ACCEPTANCE", "draft"), ("INCONSISTENT", "draft")] and code == 1
    # advise reads the same judgement: the same judged alarms
    code, out, err = cli(["advise", run, "-f", "json"], capsys, monkeypatch, tmp_path)
    assert json.loads(out)["judged_alarms"] == doc["judged_alarms"]
