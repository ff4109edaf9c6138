"""Two configs pointed at one server (``--server base=URL --server mtp=URL``, a port left unchanged): ``gate`` said
so in a note, ``bench`` and its report did not, and judged the server against itself as if it were a speculative
config (fresh-user finding, user59). The rule lives once (``specscope.config.same_server_notes``); the report
derives it from the servers the run stored, so the note is there for every run; the A/A control shares the
baseline's server by design and is not named."""

from __future__ import annotations

import json

from clirun import cli
from specscope.config import same_server_notes
from specscope.truth import MetricsPlan, TruthScript, TruthServer

NOTE = (
    "base and mtp are the same server ({url}): the comparison shows only whether it repeats itself, not what "
    "speculation changes"
)


def test_the_rule_names_each_config_that_shares_an_earlier_ones_url():
    urls = {"base": "http://h:1", "base-again": "http://h:1", "mtp": "http://h:1/", "eagle": "http://h:2"}
    assert same_server_notes(urls) == [NOTE.format(url="http://h:1")]
    assert same_server_notes({"base": "http://h:1", "mtp": "http://h:2"}) == []


def test_bench_and_its_report_say_two_configs_are_one_server(tmp_path, capsys, monkeypatch):
    with TruthServer(TruthScript(metrics=MetricsPlan())) as ts:
        url = ts.base_url.rstrip("/")
        args = ["bench", "--server", f"base={url}", "--server", f"mtp={url}", "--workloads", "prose"]
        args += ["--max-concurrency", "1", "--repeats", "2", "--max-tokens", "8", "--out", tmp_path / "runs"]
        code, out, _ = cli(args, capsys, monkeypatch, tmp_path)
    assert code in (0, 1)
    note = NOTE.format(url=url)
    assert note in " ".join(out.split()), out
    (run,) = (tmp_path / "runs").iterdir()
    code, out, _ = cli(["report", run, "-f", "json"], capsys, monkeypatch, tmp_path)
    notes = [n for s in json.loads(out)["sections"] for n in s.get("notes", [])]
    assert note in notes
    assert not any("base-again" in n and "same server" in n for n in notes)
