"""One judgement of a run, checked where a fresh tester found it wrong (/tmp/nubench, issue 24's follow-up).

The tester's servers, as ground-truth servers (their ``--script`` files ``base.json`` and ``fast.json``): ``base``
streams one token every 5 ms after a 20 ms TTFT; ``mtp`` one every 4 ms (25 % more tokens per second per stream,
20 % less time per token) and adds 8 drafts of 3 tokens (6 / 4 / 2 accepted per position) to its spec-decode
counters per response; ``twin`` is ``base`` again under another name (a second plain server: no speculation).

* **Open loop** (``--request-rate 4,8``, a 1 s window, 3 rounds): requests arrive on a schedule, so every config
  delivers the offered tokens per second, and a speedup on output tok/s read ``mtp`` "equivalent" (the tester:
  ``equivalent: mtp prose N=1 1.00x``). The comparisons are judged on decode tok/s (1 / TPOT p50): ``mtp`` 1.25x
  ``faster``, ``twin`` not faster or slower; cold starts and drift are read on the same figure (a Poisson schedule's
  next round offers another load: the tester's run named three cold starts and a "confirmed" -17.7 % drift). Levels
  are named as rates (``4 req/s``), never ``N=1``; ``--level-mix`` on it is refused (exit 2).
* **Closed loop** (N=1,2, 3 rounds): the picks' k is — for a config whose k nothing states (the tester saw 0 in
  ``report``'s picks, — in ``advise``, 3 in ``predict``); ``twin`` has no acceptance row (the tester saw
  "0 drafts (not engaged)"); ``advise --mix`` and ``--level-mix`` pick the same config for the same traffic; no
  crossover where nothing flips (the tester saw "twin on the mix: slower->faster near 1.2 streams" between two
  ``equivalent`` levels); every renderer shows the same verdict figures; HTML goes to stdout or ``-o``, never into
  the run folder.
* **One config**: ``advise`` refuses with a fix that is a command which adds a second config.

The two runs take about 25 s on a quiet 2-core machine.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from clirun import cli
from specscope.bench import run_bench
from specscope.config import BenchOptions
from specscope.stats.cells import summarize_run
from specscope.stats.judgement import judge
from specscope.store import open_run
from specscope.truth import ResponsePlan, TruthScript, TruthServer

# wall-clock: the speedups are ratios of the servers' 4 and 5 ms sleeps, which a loaded machine stretches
pytestmark = [pytest.mark.integration, pytest.mark.timing]

BASE = ResponsePlan(output_tokens=None, ttft_ms=20, inter_chunk_ms=5.0)  # /tmp/nubench/base.json
MTP = ResponsePlan(  # /tmp/nubench/fast.json
    output_tokens=None, ttft_ms=20, inter_chunk_ms=4.0, drafts=8, draft_tokens=24, accepted_per_position=(6, 4, 2)
)


def _bench(tmp: Path, **options: object) -> Path:
    opts = BenchOptions(configs=("base", "mtp", "twin"), workloads=("prose",), max_tokens=16, aa=False, **options)
    with TruthServer(TruthScript(default=BASE)) as b, TruthServer(TruthScript(default=MTP)) as m:
        with TruthServer(TruthScript(default=BASE)) as t:
            servers = {"base": b.base_url, "mtp": m.base_url, "twin": t.base_url}
            return run_bench(opts, servers=servers, out=tmp)


# The servers' own time per token (ms): what every round's TPOT p50 must show for the run to test the judgement.
SLEEP_MS = {"base": 5.0, "mtp": 4.0, "twin": 5.0}
ATTEMPTS = 3


def _quiet(run_dir: Path) -> list[str]:
    """What in a run says the machine stretched the servers' sleeps: a cell not ``ok`` (the client's self-check
    marks CLIENT_LIMITED when its loop lagged) or a round whose TPOT p50 is more than 12 % off its server's sleep.
    Empty when the run is fit to judge. Independent of the judgement under test: it reads each round's own TPOT."""
    with open_run(run_dir) as run:
        cells = summarize_run(run)
    off = []
    for c in cells:
        want_ms = SLEEP_MS[c.config]
        tpot_ms = None if c.tpot_p50_s is None else c.tpot_p50_s * 1e3
        if c.status != "ok" or tpot_ms is None or abs(tpot_ms / want_ms - 1) > 0.12:
            off.append(f"{c.config} level {c.concurrency} round {c.repeat}: {c.status} {c.reasons}, TPOT p50 {tpot_ms}")
    return off


def _quiet_bench(tmp_path_factory, name: str, **options: object) -> Path:
    """A run on a machine quiet enough to judge: up to three benches (a CI VM on shared cores stalls processes for
    tens of ms now and then: CI 2026-12-06 measured client TTFT errors of 20-45 ms in the same step, and three rounds
    of 4 ms vs 5 ms sleeps read "undetermined"). The module fixture is benched again here, since a rerun of a failed
    test reuses it; a machine loaded on every attempt fails with what each attempt saw."""
    seen = []
    for _ in range(ATTEMPTS):
        run_dir = _bench(tmp_path_factory.mktemp(name), **options)
        off = _quiet(run_dir)
        if not off:
            return run_dir
        seen.append(off)
    pytest.fail(f"the machine stretched the truth servers' sleeps on {ATTEMPTS} benches: {seen}")


@pytest.fixture(scope="module")
def open_run_dir(tmp_path_factory) -> Path:
    return _quiet_bench(tmp_path_factory, "open-loop", rates=(4.0, 8.0), rate_window_s=1.0, repeats=3)


@pytest.fixture(scope="module")
def closed_run_dir(tmp_path_factory) -> Path:
    return _quiet_bench(tmp_path_factory, "closed-loop", levels=(1, 2), repeats=3)


def _listing(run: Path) -> list[tuple[str, int]]:
    return sorted((str(p.relative_to(run)), p.stat().st_mtime_ns) for p in run.rglob("*"))


def _json(argv: list[str], capsys, monkeypatch, tmp_path) -> dict:
    code, out, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code == 0, err
    return json.loads(out)


# --- open loop ----------------------------------------------------------------------------------------------------


def test_an_open_loop_is_judged_on_tpot_not_on_the_offered_tok_s(open_run_dir, capsys, monkeypatch, tmp_path):
    doc = _json(["report", open_run_dir, "-f", "json"], capsys, monkeypatch, tmp_path)
    assert doc["axis"] == {
        "kind": "rate",
        "rates": [{"level": 1, "rate_per_s": 4.0}, {"level": 2, "rate_per_s": 8.0}],
    }
    got = {(c["config"], c["level"]): c for c in doc["comparisons"]}
    assert sorted(got) == [("mtp", 1), ("mtp", 2), ("twin", 1), ("twin", 2)]
    assert {c["metric"] for c in got.values()} == {"decode_tok_s"}  # never output tok/s on an open loop
    for level in (1, 2):
        mtp, twin = got[("mtp", level)], got[("twin", level)]
        # 5 ms / 4 ms per token: 1.25x; a loaded machine stretches each sleep by a few ms at most
        assert mtp["verdict"] == "faster" and mtp["speedup"] == pytest.approx(1.25, abs=0.1), mtp
        assert mtp["rounds"] == 3 and mtp["low"] > 1.02
        assert twin["verdict"] in ("equivalent", "undetermined") and abs(twin["speedup"] - 1.0) < 0.05, twin
    # what the old figure would have judged: the same offered tokens per second from both servers
    with open_run(open_run_dir) as run:
        cells = summarize_run(run)
    offered = judge(cells, "base", metric="output_tok_s", picks=False)
    assert all(abs((c.speedup or 0.0) - 1.0) < 0.06 for c in offered.comparisons if c.config == "mtp")


def test_cold_starts_and_drift_are_read_on_the_speed_figure(open_run_dir):
    """The tester's rate run named three cold starts ("147.1 tok/s against 190.7 in the same cells later") and a
    -17.7 % drift, all from Poisson schedules that offered a different load in each round."""
    with open_run(open_run_dir) as run:
        cells = summarize_run(run)
    j = judge(cells, "base")
    assert j.cold_starts == ()
    assert j.drift.by_group and all(abs(g.drift) < 0.05 for g in j.drift.by_group), j.drift
    assert not any(c.has("DRIFT") or c.has("COLD_START") for c in j.comparisons)


def test_rates_are_named_as_rates(open_run_dir, capsys, monkeypatch, tmp_path):
    code, text, err = cli(["report", open_run_dir, "--width", "200"], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    verdicts = [line for line in text.splitlines() if line.startswith("verdict:")]
    assert any("mtp on prose at 4 req/s:" in v and "faster" in v for v in verdicts), verdicts
    assert any("mtp on prose at 8 req/s:" in v for v in verdicts), verdicts
    assert "rate (req/s)" in text and "decode tok/s = 1 / median TPOT" in text
    assert not re.search(r"\bN=\d", text) and "N (streams)" not in text
    code, adv, err = cli(["advise", open_run_dir, "--mix", "prose=1", "--width", "200"], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert "rate (req/s)" in adv and not re.search(r"\bN=\d", adv) and "N (streams)" not in adv


def test_a_level_mix_on_an_open_loop_is_refused_with_a_fix_that_runs(open_run_dir, capsys, monkeypatch, tmp_path):
    argv = ["advise", open_run_dir, "--level-mix", "1=0.5,2=0.5"]
    code, out, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code == 2 and out == ""
    assert err.startswith("error: --level-mix is shares of wall time per concurrency level") and "open loop" in err
    assert "found: --level-mix 1=0.5, 2=0.5 on a run measured at 4 req/s, 8 req/s" in err
    fix = err.rsplit("fix: ", 1)[1].strip()
    assert fix == f"specscope advise {open_run_dir} --mix prose=1"
    code, _, err = cli(fix.split()[1:], capsys, monkeypatch, tmp_path)
    assert code == 0, err


TRACE = [(0.25 * i, 64, 16) for i in range(8)]  # /tmp/nubench/tr_spec.jsonl: 8 arrivals 250 ms apart


def test_a_trace_replay_is_judged_on_tpot(tmp_path, capsys, monkeypatch):
    """The tester's ``--trace tr_spec.jsonl --repeats 2``: ``equivalent: mtp trace N=1 1.02x`` (the replay's output
    tok/s is the trace's own load)."""
    trace = tmp_path / "trace.jsonl"
    rows = [{"arrival_s": t, "input_tokens": i, "output_tokens": o} for t, i, o in TRACE]
    trace.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with TruthServer(TruthScript(default=BASE)) as b, TruthServer(TruthScript(default=MTP)) as m:
        argv = ["bench", "--server", f"base={b.base_url}", "--server", f"mtp={m.base_url}", "--trace", trace]
        argv += ["--repeats", "2", "--no-aa", "--out", tmp_path / "runs", "-f", "json"]
        code, out, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code == 0, err
    doc = json.loads(out[out.index("{") :])
    assert doc["axis"] == {"kind": "trace", "rates": []}
    (c,) = doc["comparisons"]
    assert c["metric"] == "decode_tok_s" and c["verdict"] == "faster" and c["speedup"] == pytest.approx(1.25, abs=0.1)
    (section,) = [s for s in doc["sections"] if s["key"].startswith("run:")]
    assert any(v.startswith("mtp on trace at the replay: 1.2") for v in section["verdicts"]), section["verdicts"]


# --- closed loop --------------------------------------------------------------------------------------------------


def test_an_unknown_k_is_a_dash_in_report_advise_and_predict(closed_run_dir, capsys, monkeypatch, tmp_path):
    doc = _json(["report", closed_run_dir, "-f", "json"], capsys, monkeypatch, tmp_path)
    (section,) = [s for s in doc["sections"] if s["key"].startswith("run:")]
    picks = next(t for t in section["tables"] if t["key"] == "choices")
    k = picks["columns"].index(next(c for c in picks["columns"] if c["name"] == "k"))
    assert [row[1] for row in picks["rows"]] == ["mtp", "mtp", "mtp"]
    assert [row[k] for row in picks["rows"]] == ["—", "—", "—"]  # the tester's report printed 0
    assert [v[k] for v in picks["values"]] == [None, None, None]
    adv = _json(["advise", closed_run_dir, "--mix", "prose=1", "-f", "json"], capsys, monkeypatch, tmp_path)
    assert adv["k"] == {"mtp": None, "twin": None}
    pred = _json(["predict", closed_run_dir, "--bytes-per-step", "1GB", "-f", "json"], capsys, monkeypatch, tmp_path)
    assert {c["config"]: c["k"] for c in pred["cells"]} == {"base": 0, "mtp": None, "twin": None}
    assert any("mtp: k unknown" in n for n in pred["notes"])  # the tester's predict said 3


def test_a_plain_second_server_has_no_acceptance_row(closed_run_dir, capsys, monkeypatch, tmp_path):
    doc = _json(["report", closed_run_dir, "-f", "json"], capsys, monkeypatch, tmp_path)
    (section,) = [s for s in doc["sections"] if s["key"].startswith("run:")]
    acceptance = next(t for t in section["tables"] if t["key"] == "acceptance")
    assert [row[0] for row in acceptance["rows"]] == ["mtp"]  # the tester saw "twin: 0 drafts (not engaged)"
    cells = [str(x) for t in section["tables"] for row in t["rows"] for x in row]
    assert not [x for x in cells if "not engaged" in x] and "not engaged" not in " ".join(section["verdicts"])
    assert {c["verdict"] for c in doc["comparisons"] if c["config"] == "twin"} <= {"equivalent", "undetermined"}
    assert not [a for a in doc["alarms"] if a["code"] == "NOT_ENGAGED"]


def test_mix_and_level_mix_pick_the_same_config_and_nothing_flips(closed_run_dir, capsys, monkeypatch, tmp_path):
    mix = _json(["advise", closed_run_dir, "--mix", "prose=1", "-f", "json"], capsys, monkeypatch, tmp_path)
    levels = _json(
        ["advise", closed_run_dir, "--mix", "prose=1", "--level-mix", "1=0.5,2=0.5", "-f", "json"],
        capsys,
        monkeypatch,
        tmp_path,
    )
    assert mix["choices"]["overall"]["config"] == "mtp" == levels["choices"]["level_mix"]["choice"]
    assert [lv["config"] for lv in mix["choices"]["levels"]] == ["mtp", "mtp"]
    assert levels["choices"]["overall"]["config"] == "mtp"
    # twin reads 1.00x +- noise at both levels: equivalent or undetermined, never a crossover
    assert mix["crossovers"] == [] and levels["crossovers"] == []


def test_every_renderer_shows_the_same_verdict_figures(closed_run_dir, capsys, monkeypatch, tmp_path):
    doc = _json(["report", closed_run_dir, "-f", "json"], capsys, monkeypatch, tmp_path)
    shown = {}
    for fmt in ("text", "markdown", "html"):
        code, out, err = cli(["report", closed_run_dir, "-f", fmt, "--width", "300"], capsys, monkeypatch, tmp_path)
        assert code == 0, err
        shown[fmt] = out
    for c in doc["comparisons"]:
        figure = f"{c['speedup']:.2f}x [{c['low']:.2f}x, {c['high']:.2f}x]"
        verdict = c["verdict"].replace("_", " ")
        for fmt, out in shown.items():
            assert f"{figure} {verdict}" in out, (fmt, c["config"], c["level"], figure)
        assert f"{c['low']:.3f}x" in shown["text"] and f"{c['high']:.3f}x" in shown["markdown"]


def test_html_never_goes_into_the_run_folder(closed_run_dir, capsys, monkeypatch, tmp_path):
    before = _listing(closed_run_dir)
    for argv in (
        ["report", closed_run_dir, "-f", "html"],
        ["advise", closed_run_dir, "--mix", "prose=1", "-f", "html"],
    ):
        code, out, err = cli(argv, capsys, monkeypatch, tmp_path)
        assert code == 0, err
        assert out.startswith("<!DOCTYPE html>") and "</html>" in out  # stdout, like every other format
    page = tmp_path / "pages" / "advice.html"
    code, out, err = cli(["advise", closed_run_dir, "--mix", "prose=1", "-o", page], capsys, monkeypatch, tmp_path)
    assert code == 0 and out == f"{page}\n" and page.read_text().startswith("<!DOCTYPE html>")
    assert _listing(closed_run_dir) == before  # a run is read-only after bench


# --- one config ---------------------------------------------------------------------------------------------------


def test_advise_on_one_server_gives_a_command_that_adds_a_second(tmp_path, capsys, monkeypatch):
    opts = BenchOptions(configs=("server",), workloads=("prose",), levels=(1,), repeats=2, max_tokens=8, aa=False)
    with TruthServer(TruthScript(default=BASE)) as s:
        run_dir = run_bench(opts, servers={"server": s.base_url}, out=tmp_path / "runs")
        code, out, err = cli(["advise", run_dir, "--mix", "prose=1"], capsys, monkeypatch, tmp_path)
        assert code == 2 and out == ""
        fix = err.rsplit("fix: ", 1)[1].strip()
        command = fix.split(" (", 1)[0]
        assert command == (
            f"specscope bench --like {run_dir} --server server={s.base_url} --server base=URL --baseline base"
        )  # the tester's fix was "pass --baseline with the run's no-draft config": nothing to pass
    # (tests/cli/test_fix_commands.py parses this fix's f-string against the CLI with every other printed command)
