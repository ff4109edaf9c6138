"""`serve --parse-log` on SGLang's per-request ``Finish: obj=..., out={... 'meta_info': {...}}`` lines (issue 34):
each finished request's exact speculative counts are pooled (Σaccepted / Σdrafted), not only the decode-batch
windows' bound. Inputs: tests/data/engines/logs (SOURCES.md there): lines built exactly as SGLang's
``dataclass_to_string_truncated`` / ``log_json`` print them, carrying the meta_info of sglang PR #13754's measured
response and of a public EAGLE response quoted in a test's comment. Before this reader the Finish lines were skipped:
the NGRAM log below gave no pool at all, and the EAGLE log only the windows' bound."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clirun import cli

LOGS = Path(__file__).parent.parent / "data" / "engines" / "logs"


def _parse(path: Path, capsys, monkeypatch, tmp_path) -> tuple[int, dict]:
    code, out, _err = cli(["serve", "--parse-log", path, "--format", "json"], capsys, monkeypatch, tmp_path)
    return code, json.loads(out)


def _sglang_pool(doc: dict) -> dict:
    pools = [p for p in doc["log_pools"] if p["engine"] == "sglang"]
    assert len(pools) == 1, doc["log_pools"]
    return pools[0]


def test_a_finish_line_with_0_5_names_pools_its_exact_counts(capsys, monkeypatch, tmp_path) -> None:
    # PR #13754's response: 200 tokens over 188 verify steps, 11 of 940 drafted tokens accepted (NGRAM, k = 5)
    code, doc = _parse(LOGS / "sglang_finish_pr13754_ngram_0_5_names.log", capsys, monkeypatch, tmp_path)
    assert code == 0  # an n-gram drafter accepting little is no alarm
    pool = _sglang_pool(doc)
    assert pool["scopes"] == ["request"] and pool["forms"] == ["Finish request"]
    assert (pool["draft_tokens"], pool["accepted_tokens"], pool["verify_steps"]) == (940, 11, 188)
    assert pool["acceptance_rate"] == 11 / 940 and pool["acceptance_length"] == 1 + 11 / 188
    assert pool["method"] == "ngram" and pool["alarm"] is None and pool["warnings"] == []
    text_code, text, _ = cli(
        ["serve", "--parse-log", LOGS / "sglang_finish_pr13754_ngram_0_5_names.log"], capsys, monkeypatch, tmp_path
    )
    assert text_code == 0 and "940 drafted, 11 accepted over 188 steps" in text


def test_the_json_request_log_is_read_with_its_histogram(capsys, monkeypatch, tmp_path) -> None:
    # --log-requests-format json: {"timestamp", "event": "request.finished", "rid", "obj", "out"} on one line
    code, doc = _parse(LOGS / "sglang_finish_json_eagle_hist.log", capsys, monkeypatch, tmp_path)
    assert code == 0
    pool = _sglang_pool(doc)
    assert pool["forms"] == ["Finish request (json)"]
    assert (pool["draft_tokens"], pool["accepted_tokens"], pool["verify_steps"]) == (120, 98, 30)
    # histogram [4, 0, 2, 2, 22] over 30 steps: at least 1 accepted in 26, 2 in 26, 3 in 24, 4 in 22
    assert pool["acceptance_per_position"] == [26 / 30, 26 / 30, 24 / 30, 22 / 30]
    assert pool["acceptance_rate"] == 98 / 120 and pool["alarm"] is None


def test_verify_count_only_lines_derive_accepted_and_drafted_and_win_over_the_windows(
    capsys, monkeypatch, tmp_path
) -> None:
    # meta_info of the first speculative builds: spec_verify_ct and completion_tokens only; k = 4 - 1 from server_args.
    # accepted = completion - verify steps (SGLang's spec_accept_length = completion_tokens / spec_verify_ct), drafted
    # = verify steps x k (SGLang's own spec_draft_token_num): (256 - 101) + (256 - 99) = 312 of (101 + 99) x 3 = 600
    code, doc = _parse(LOGS / "sglang_finish_verify_ct_only_with_windows.log", capsys, monkeypatch, tmp_path)
    assert code == 0
    pool = _sglang_pool(doc)
    assert pool["scopes"] == ["request"]  # the exact counts are the figure; the windows are not pooled beside them
    assert (pool["draft_tokens"], pool["accepted_tokens"], pool["verify_steps"]) == (600, 312, 200)
    assert pool["acceptance_rate"] == 312 / 600 and pool["acceptance_length"] == 1 + 312 / 200
    assert pool["acceptance_rate_at_most"] is None
    codes = [w.split("(")[0] for w in pool["warnings"]]
    assert codes == ["ACCEPTED_FROM_LENGTH", "DRAFTED_FROM_K", "WINDOWS_NOT_POOLED"]
    assert "2 Finish lines" in pool["warnings"][0] and "2 decode-batch windows" in pool["warnings"][2]
    assert doc["sglang_spec_summary"]["windows"] == 2  # the windows are still summarised


def _finish(meta: str, rid: str = "r") -> str:
    return f"[2026-01-05 10:00:00] Finish: obj=GenerateReqInput(rid='{rid}', stream=False), out={{'meta_info': {meta}}}"


ARGS = (
    "[2026-01-05 09:59:00] server_args=ServerArgs(model_path='Qwen/Qwen3-8B', speculative_algorithm='EAGLE3', "
    "speculative_num_steps=3, speculative_eagle_topk=1, speculative_num_draft_tokens=4)"
)


def test_a_head_accepting_nothing_alarms_from_exact_counts(capsys, monkeypatch, tmp_path) -> None:
    meta = (
        "{'id': 'r', 'completion_tokens': 60, 'spec_accept_rate': 0.0, 'spec_accept_length': 1.0, "
        "'spec_num_correct_drafts': 0, 'spec_num_proposed_drafts': 180, 'spec_verify_ct': 60, "
        "'spec_accepted_drafts': 0, 'spec_proposed_drafts': 180, 'spec_correct_drafts_histogram': [60, 0, 0, 0]}"
    )
    log = tmp_path / "dead.log"
    log.write_text("\n".join([ARGS, _finish(meta, "a"), _finish(meta, "b")]) + "\n", encoding="utf-8")
    code, doc = _parse(log, capsys, monkeypatch, tmp_path)
    assert code == 1
    pool = _sglang_pool(doc)
    assert (pool["draft_tokens"], pool["accepted_tokens"], pool["verify_steps"]) == (360, 0, 120)
    assert pool["alarm"] == "LOW_ACCEPTANCE(eagle3 accepts 0.0% of drafted tokens over 120 drafts, < 5%)"


def test_a_cut_or_malformed_finish_line_is_named_never_a_crash(capsys, monkeypatch, tmp_path) -> None:
    good = _finish(
        "{'completion_tokens': 40, 'spec_verify_ct': 10, 'spec_accept_token_num': 30, "
        "'spec_draft_token_num': 30, 'output_token_logprobs': [(-0.1, 5, None)] ... [(-0.2, 6, None)]}"
    )
    cut = _finish("{'completion_tokens': 40, 'spec_verify_ct': 10, 'spec_acc")
    bad = _finish("{'completion_tokens': 40, 'spec_verify_ct': 10, 'spec_accept_token_num': float('nan')}")
    log = tmp_path / "cut.log"
    log.write_text("\n".join([ARGS, good, cut, bad]) + "\n", encoding="utf-8")
    code, doc = _parse(log, capsys, monkeypatch, tmp_path)
    assert code == 0
    pool = _sglang_pool(doc)
    # the truncated logprobs list (level 2's " ... ") does not hide the counts beside it
    assert (pool["draft_tokens"], pool["accepted_tokens"], pool["statistics"]) == (30 + 30, 30 + 30, 2)
    assert "FINISH_LINE_UNREADABLE(line 3: a string, bracket or brace left open: the line was cut)" in pool["warnings"]
    assert "FINISH_FIELD_UNREADABLE(line 4: meta_info.spec_accept_token_num)" in pool["warnings"]


def test_a_line_beyond_the_bound_is_named_not_read(capsys, monkeypatch, tmp_path) -> None:
    from specscope.adapters.sglang.finish import MAX_FINISH_CHARS

    huge = _finish("{'completion_tokens': 40, 'spec_verify_ct': 10, 'note': '" + "x" * MAX_FINISH_CHARS + "'}")
    log = tmp_path / "huge.log"
    log.write_text("\n".join([ARGS, huge]) + "\n", encoding="utf-8")
    code, doc = _parse(log, capsys, monkeypatch, tmp_path)
    assert code == 0
    pool = _sglang_pool(doc)
    assert pool["statistics"] == 0
    assert pool["warnings"] == [f"FINISH_LINE_TOO_LONG(line 2: {len(huge):,} characters, > {MAX_FINISH_CHARS:,})"]


def test_the_window_summary_says_the_finish_counts_are_the_figure(capsys, monkeypatch, tmp_path) -> None:
    log = LOGS / "sglang_finish_verify_ct_only_with_windows.log"
    monkeypatch.setenv("COLUMNS", "250")
    code, text, _ = cli(["serve", "--parse-log", log], capsys, monkeypatch, tmp_path)
    assert code == 0
    assert "SGLang prints no counts" not in text and "sglang_pooled_acceptance_rate" not in text
    assert "the 2 Finish lines' exact counts are the figure (sglang_log_*)" in text
    assert "sglang_windows_acceptance_bound" in text and "600 drafted, 312 accepted over 200 steps" in text


def test_bench_says_the_finish_lines_exact_counts(tmp_path) -> None:
    """`bench --server-log` says the same pool as `serve --parse-log`: the Finish lines' counts, not the windows'."""
    from typer.testing import CliRunner

    from specscope.cli import app
    from specscope.truth import MetricsPlan, ResponsePlan, TruthScript, TruthServer

    log = LOGS / "sglang_finish_verify_ct_only_with_windows.log"
    plan = ResponsePlan(output_tokens=8, tokens_per_chunk=4)
    with TruthServer(TruthScript(default=plan, metrics=MetricsPlan())) as ts:
        args = ["bench", "--server", f"e={ts.base_url}", "--server-log", f"e={log}", "--workloads", "prose"]
        args += ["--max-concurrency", "1", "--repeats", "1", "--max-tokens", "8", "--out", str(tmp_path)]
        b = CliRunner().invoke(app, [*args, "-f", "json"])
    assert b.exit_code == 0, b.output
    assert "server log e (sglang: Decode batch accept len, Decode batch capacity, Finish request): " in b.stderr
    assert "600 drafted, 312 accepted (52.0%) over 200 verify steps" in b.stderr


@pytest.mark.timing
def test_level_2_finish_lines_are_scanned_fast() -> None:
    """20 MB of level-2 Finish lines (2,048-character text, 2,000 output ids each side): the scan looks only at the
    characters that matter in each state; it visited every comma and took ~6 s (3.2 MB/s), now < 1 s here."""
    import time

    from specscope.adapters.sglang.finish import finish_stats

    text = repr(("The quick brown fox, jumps: over {the} [lazy] dog. " * 40)[:2048])
    ids = str(list(range(1000, 3000)))
    meta = (
        "{'completion_tokens': 2000, 'spec_verify_ct': 800, 'spec_accept_token_num': 1200, "
        "'spec_draft_token_num': 2400}"
    )
    line = _finish(meta).replace("out={'meta_info'", f"out={{'text': {text}, 'output_ids': {ids}, 'meta_info'")
    lines = [line] * (20_000_000 // len(line))
    started = time.perf_counter()
    stats, _forms, _warnings = finish_stats(lines, 3)
    assert time.perf_counter() - started < 4.0
    assert len(stats) == len(lines) and (stats[0].accepted_tokens, stats[0].draft_tokens) == (1200, 2400)


def test_a_json_record_behind_a_compose_prefix_is_read(capsys, monkeypatch, tmp_path) -> None:
    lines = (LOGS / "sglang_finish_json_eagle_hist.log").read_text(encoding="utf-8").splitlines()
    log = tmp_path / "compose.log"
    log.write_text("".join(f"sglang-eagle-1  | {line}\n" for line in lines), encoding="utf-8")
    code, doc = _parse(log, capsys, monkeypatch, tmp_path)
    assert code == 0
    pool = _sglang_pool(doc)
    assert (pool["draft_tokens"], pool["accepted_tokens"], pool["verify_steps"]) == (120, 98, 30)


def test_the_first_releases_unquoted_keys_are_read() -> None:
    """The first ``dataclass_to_string_truncated`` printed ``{k: v}`` and strings in bare double quotes (index id
    22221249393): the keys are read the same way; a server without speculation gives no statistic (never 0)."""
    from specscope.adapters.sglang.finish import FINISH, finish_stats

    old = (
        '[2025-01-20 10:00:00] Finish: obj=GenerateReqInput(text="hi", rid="a"), out={text: "x: y", meta_info: '
        '{id: "a", finish_reason: {type: "length", length: 256}, prompt_tokens: 37, spec_verify_ct: 101, '
        "completion_tokens: 256}}"
    )
    plain = "Finish: obj=GenerateReqInput(rid='b'), out={'meta_info': {'id': 'b', 'completion_tokens': 3}}"
    stats, forms, _warnings = finish_stats([old, plain], 3)
    assert [(s.accepted_tokens, s.draft_tokens, s.verify_steps, s.line_number) for s in stats] == [(155, 303, 101, 1)]
    assert forms == [FINISH]


def test_the_server_args_algorithm_is_on_both_screens_without_windows(capsys, monkeypatch, tmp_path) -> None:
    # sglang PR #33518's DSPARK log (--speculative-num-draft-tokens 5) has Finish lines but no decode-batch windows:
    # the JSON had sglang_speculative DSPARK / 5 while the text screen left the row out (the summary needed windows)
    log = LOGS / "sglang_finish_pr33518_dspark_block5.log"
    code, doc = _parse(log, capsys, monkeypatch, tmp_path)
    assert code == 0
    summary = doc["sglang_spec_summary"]
    assert (summary["algorithm"], summary["method"], summary["draft_tokens_per_step"]) == ("DSPARK", "dspark", 4)
    assert summary["windows"] == 0 and summary["acceptance_rate_at_most"] is None  # no window: no bound, never 0
    assert summary["verify_steps_at_least"] is None and summary["accept_length_min"] is None
    text_code, text, _ = cli(["serve", "--parse-log", log], capsys, monkeypatch, tmp_path)
    assert text_code == 0
    assert "DSPARK (dspark, k = 4)" in text
    assert "sglang_spec_windows" not in text and "sglang_pooled_acceptance_rate" not in text
