"""``specscope counters BEFORE AFTER`` on saved scrapes (tests/data/counters, see SOURCES.md there)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from specscope.cli import app

DATA = Path(__file__).parent.parent / "data" / "counters"


def run(*args: str):
    return CliRunner().invoke(app, ["counters", *args])


def test_two_engines_one_restarted_text():
    res = run(str(DATA / "vllm_dp2_before.prom"), str(DATA / "vllm_dp2_after_engine1_restarted.prom"))
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert lines[0].startswith("engine 0: reset: false  drafts 1000  draft tokens 4000  accepted 2500")
    assert lines[1].startswith("engine 1: reset: true") and lines[1].endswith(
        "(partial window: restarted between the scrapes, counts since the restart; left out of the pool)"
    )
    assert lines[2] == "acceptance (engines 0): rate 62.5%  length 3.50  k 4"
    assert lines[3] == "per position: 90.0% 70.0% 50.0% 40.0%"
    assert lines[4] == "reasons: ENGINE_RESET(1)"


def test_two_engines_one_restarted_json():
    res = run(str(DATA / "vllm_dp2_before.prom"), str(DATA / "vllm_dp2_after_engine1_restarted.prom"), "-f", "json")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    assert doc["acceptance_rate"] == 0.625 and doc["acceptance_length"] == 3.5
    assert doc["acceptance_per_position"] == [0.9, 0.7, 0.5, 0.4]
    assert {e: v["reset"] for e, v in doc["engines"].items()} == {"0": False, "1": True}
    assert {e: v["window"] for e, v in doc["engines"].items()} == {"0": "full", "1": "partial"}
    assert (doc["window"], doc["pooled_engines"]) == ("full", ["0"])  # the pool holds engine 0's full window
    assert doc["deltas"]["generation_tokens"] == 5000 and doc["reasons"] == ["ENGINE_RESET(1)"]


def test_llamacpp_before_without_per_position_series():
    res = run(str(DATA / "llamacpp_before_no_per_pos.prom"), str(DATA / "llamacpp_after.prom"), "--format", "json")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    assert doc["acceptance_rate"] == 0.625 and doc["acceptance_length"] == 3.5 and doc["k"] == 4
    assert doc["acceptance_per_position"] == [0.9, 0.75, 0.55, 0.3]
    assert doc["engines"] == {
        "": {
            "reset": False,
            "window": "full",
            "vanished": False,
            "unknown_start": False,
            "deltas": {
                "drafts": 60,
                "draft_tokens": 240,
                "accepted_tokens": 150,
                "accepted_per_position": [54, 45, 33, 18],
                "generation_tokens": 480,
                "prompt_tokens": 240,
            },
        }
    }
    text = run(str(DATA / "llamacpp_before_no_per_pos.prom"), str(DATA / "llamacpp_after.prom")).output
    assert "acceptance: rate 62.5%  length 3.50  k 4\nper position: 90.0% 75.0% 55.0% 30.0%\n" in text


def test_missing_file_and_bad_format_are_one_line_errors(tmp_path, capsys):
    import pytest

    from specscope.cli import main

    with pytest.raises(SystemExit) as ei:
        main(["counters", str(tmp_path / "nope.prom"), str(DATA / "llamacpp_after.prom")])
    assert ei.value.code == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("error: cannot read the scrape file") and "fix:" in err[0]
    (tmp_path / "page.prom").write_text("<html>not metrics</html>\n")
    with pytest.raises(SystemExit) as ei:
        main(["counters", str(tmp_path / "page.prom"), str(DATA / "llamacpp_after.prom")])
    assert ei.value.code == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [
        f"error: {tmp_path / 'page.prom'} is not Prometheus text; found: line 1: '<html>not metrics</html>' "
        "(invalid metric name:<html>not metrics</html>); expected: a /metrics scrape saved as Prometheus text with an "
        "engine's counters (docs/engines.md), or a JSON metrics body; fix: save each scrape with: "
        "curl -s http://HOST:PORT/metrics > before.prom (and after.prom after the load)"
    ]
    # the line the parser refuses is named, not the parser's exception (attack48: a mangled value)
    (tmp_path / "bad.prom").write_text(
        '# TYPE a counter\na_total 1\nvllm:spec_decode_num_drafts_total{engine="0"} +Inf0\n'
    )
    with pytest.raises(SystemExit) as ei:
        main(["counters", str(tmp_path / "bad.prom"), str(DATA / "llamacpp_after.prom")])
    assert ei.value.code == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith(
        f"error: {tmp_path / 'bad.prom'} is not Prometheus text; found: line 3: "
        """'vllm:spec_decode_num_drafts_total{engine="0"} +Inf0' (could not convert string to float: '+Inf0'); """
    ), line


def _one_error(argv: list[str], capsys) -> str:
    import pytest

    from specscope.cli import main

    with pytest.raises(SystemExit) as ei:
        main(["counters", *argv])
    err = capsys.readouterr().err.splitlines()
    assert ei.value.code == 2 and len(err) == 1, err
    return err[0]


def test_a_file_without_counters_is_named(tmp_path, capsys):
    empty = tmp_path / "empty.prom"
    empty.write_text("")
    after = str(DATA / "llamacpp_after.prom")
    assert _one_error([str(empty), after], capsys).startswith(
        f"error: {empty} holds no speculative or generation counters; found: empty file; expected: a /metrics scrape"
    )
    assert _one_error([str(empty), str(empty)], capsys).startswith(f"error: {empty} holds no speculative")
    other = tmp_path / "node.prom"
    other.write_text("# TYPE node_load1 gauge\nnode_load1 0.5\nvllm:num_requests_running 0\n")
    err = _one_error([after, str(other)], capsys)
    assert err.startswith(f"error: {other} holds no speculative or generation counters; found: no counter sample")
    assert "curl -s http://HOST:PORT/metrics > before.prom" in err and "--server" not in err


def test_swapped_files_are_named(capsys):
    before, after = str(DATA / "llamacpp_before_no_per_pos.prom"), str(DATA / "llamacpp_after.prom")
    err = _one_error([after, before], capsys)
    assert err.startswith("error: the counters went down in every engine between BEFORE and AFTER; ")
    assert f"fix: the files may be swapped: run specscope counters {before} {after};" in err
    dp_before, dp_after = str(DATA / "vllm_dp2_before.prom"), str(DATA / "vllm_dp2_after_engine1_restarted.prom")
    assert f"run specscope counters {dp_before} {dp_after};" in _one_error([dp_after, dp_before], capsys)


def test_a_restart_seen_in_created_times_stays_a_reason(tmp_path):
    """Every counter lower and ``*_created`` moved: a restart, not swapped files (the reverse is not clean)."""
    before = (DATA / "llamacpp_after.prom").read_text()
    after = "\n".join(
        line if line.startswith("#") else f"{line.split()[0]} 1" for line in before.splitlines() if line.strip()
    )
    stamp = "llamacpp:spec_decode_num_drafts_created"
    (tmp_path / "b.prom").write_text(before + f"\n{stamp} 100\n")
    (tmp_path / "a.prom").write_text(after + f"\n{stamp} 200\n")
    res = run(str(tmp_path / "b.prom"), str(tmp_path / "a.prom"))
    # not refused as swapped: the counts since the restart are a partial window (issue 35), and these made-up ones
    # contradict each other (4 accepted by position, 1 in all): exit 1 for that, named
    assert res.exit_code == 1, res.output
    lines = res.output.splitlines()
    assert "reasons: COUNTER_RESET, PER_POSITION_SUM(sum 4 != accepted 1)" in lines
    assert lines[4] == "inside each figure: every request of the server: its metrics carry no labels"  # llama.cpp's
    assert lines[5] == (
        "speculation: restarted: every engine left restarted between the scrapes (every _created moved forward): "
        "the counts since each restart are a partial window (what ran before the restart is lost)"
    )


def test_more_tokens_accepted_than_drafted_or_generated_is_a_named_problem_exit_1(tmp_path, capsys):
    """Counters that contradict each other (an exporter summing two servers, a router, a bug) are no measurement:
    each contradiction is named and the command exits 1, as an alarm does; the files themselves were readable."""
    from specscope.cli import main

    after = (DATA / "llamacpp_after.prom").read_text()
    lines = after.splitlines()
    # 600 accepted of 240 drafted (the per-position counts still sum to 150), and 100 generated: even if every
    # request were one token long and its last step accepted all 4 positions past its stop, at most 100 x (1 + 4)
    accepted, generated = "llamacpp:spec_decode_num_accepted_tokens_total ", "llamacpp:tokens_predicted_total "
    bad = "\n".join(
        accepted + "600" if line.startswith(accepted) else generated + "500" if line.startswith(generated) else line
        for line in lines
    )
    (tmp_path / "after.prom").write_text(bad + "\n")
    with pytest.raises(SystemExit) as ended:
        main(["counters", str(DATA / "llamacpp_before_no_per_pos.prom"), str(tmp_path / "after.prom")])
    out, err = capsys.readouterr()
    assert ended.value.code == 1, err
    problems = [
        "PER_POSITION_SUM(sum 150 != accepted 600)",
        "ACCEPTED_OVER_DRAFTED(accepted 600 > draft tokens 240)",
        "ACCEPTED_OVER_GENERATED(accepted 600 > generation tokens 100 x (1 + k 4))",
    ]
    assert out.splitlines()[-4:] == [f"INCONSISTENT {p}" for p in problems] + [
        "fix: check that both scrapes are of one server and one engine kind (an exporter that sums several servers, "
        "or a router, mixes their counters)"
    ]
    assert err == ""  # the document says it; exit 1 as for an alarm
    assert "acceptance: withheld: the counters contradict each other (INCONSISTENT below)  k 4" in out.splitlines()
    with pytest.raises(SystemExit) as ended:
        main(["counters", str(DATA / "llamacpp_before_no_per_pos.prom"), str(tmp_path / "after.prom"), "-f", "json"])
    doc = json.loads(capsys.readouterr().out)
    assert ended.value.code == 1 and doc["inconsistencies"] == problems and doc["alarms"] == []
    # a rate of 600 / 240 = 2.5 is impossible: no acceptance figure from contradicting counters
    assert (doc["acceptance_rate"], doc["acceptance_length"], doc["acceptance_per_position"]) == (None, None, [])


def test_a_few_more_accepted_than_generated_tokens_is_no_problem(tmp_path):
    """vLLM counts a request's last-step accepted tokens before the stop check cuts what follows EOS or max_tokens:
    150 accepted against 140 generated is a window that ended requests, not a contradiction (exit 0)."""
    generated = "llamacpp:tokens_predicted_total "
    after = (DATA / "llamacpp_after.prom").read_text().splitlines()
    (tmp_path / "after.prom").write_text(
        "\n".join(generated + "540" if line.startswith(generated) else line for line in after) + "\n"
    )
    res = run(str(DATA / "llamacpp_before_no_per_pos.prom"), str(tmp_path / "after.prom"))
    assert res.exit_code == 0, res.output
    assert "reasons: none" in res.output.splitlines() and "INCONSISTENT" not in res.output
