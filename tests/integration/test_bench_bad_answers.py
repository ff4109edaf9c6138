"""A bad answer is a reason of the cell it touched (issue 37): a server whose ``/metrics``, ``/tokenize`` and
``/v1/models`` answer a proxy's HTML error page (HTTP 200) on some requests. The run finishes every cell; the cells
whose counter scrape was unreadable name ``METRICS_UNREADABLE(before|after)`` and have no counter figures; the
others keep theirs; nothing exits 3."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from hangguard import HANG_S
from sent_rows import assert_rows_sent, only_run
from specscope.bench import run_bench
from specscope.config import BenchOptions
from specscope.errors import ServerError
from specscope.seam.answers import ModelsAnswer, TokenCount, read_answer
from specscope.stats.cells import summarize_run
from specscope.stats.summary import CellSummary
from specscope.store import open_run
from specscope.truth import ResponsePlan, TruthScript, TruthServer
from specscope.truth.server import GARBAGE_PAGE
from specscope.workload.context import TOLERANCE_TOKENS

pytestmark = pytest.mark.integration

PLAN = ResponsePlan(output_tokens=6, finish_reason="length", ttft_ms=5, inter_chunk_ms=1, role_ms=None)


def _three_cells(script: TruthScript, tmp_path: Path) -> list[CellSummary]:
    """Three repeats of one cell (N=1, 6 tokens) against the truth server playing ``script``, in repeat order; each
    cell's one stream is complete."""
    opts = BenchOptions(configs=("x",), workloads=("prose",), levels=(1,), repeats=3, max_tokens=6, order="blocks")
    with TruthServer(script) as ts:
        run_dir = run_bench(opts, servers={"x": ts.base_url}, run_dir=tmp_path / "run")
    with open_run(run_dir) as run:
        cells = sorted(summarize_run(run), key=lambda c: c.repeat)
    assert len(cells) == 3 and all(c.streams == 1 and c.streams_ok == 1 for c in cells)
    return cells


def test_a_garbage_scrape_mid_run_is_the_cell_reason_and_the_run_goes_on(tmp_path):
    # /metrics requests 0 and 1 are the start-up checks; then each cell scrapes once before and once after its
    # streams (the truth server is idle at once): cell 1 = requests 2, 3; cell 2 = 4, 5; cell 3 = 6, 7. Request 2
    # (cell 1's before) and 5 (cell 2's after) answer the proxy page.
    cells = _three_cells(TruthScript(default=PLAN, garbage={"/metrics": [2, 5]}), tmp_path)
    unread = {c.repeat: [r for r in c.reasons if r.startswith("METRICS_UNREADABLE")] for c in cells}
    assert sorted(unread.values()) == [[], ["METRICS_UNREADABLE(after)"], ["METRICS_UNREADABLE(before)"]]
    for c in cells:
        if unread[c.repeat]:  # no counter figures from an unread scrape: absent, never 0
            assert c.server_generation_tokens is None and c.status == "degraded"
            assert c.output_tokens == 6 and c.token_source == "usage"  # the streams' own usage still counts
        else:
            assert c.server_generation_tokens == 6 and c.status == "ok"


def test_a_scrape_the_server_hangs_up_on_twice_is_the_cell_reason_and_the_run_goes_on(tmp_path):
    # CI 2026-12-06: a /metrics request on a connection the server closed ended the run (ServerUnreachable while the
    # server was alive). One hang-up is sent again on a new connection (client/metrics.py); two in a row leave the
    # cell without that snapshot, and the run goes on. /metrics requests 0, 1: start-up checks; 2 (cell 1's before)
    # and 3 (its second try) hang up; 4: cell 1's after; cell 2 = 5, 6 (hangs up) and 7 (its second try, answered);
    # cell 3 = 8, 9.
    cells = _three_cells(TruthScript(default=PLAN, hangup={"/metrics": [2, 3, 6]}), tmp_path)
    unread = [[r for r in c.reasons if r.startswith("METRICS_UNREADABLE")] for c in cells]
    assert unread == [["METRICS_UNREADABLE(before)"], [], []]
    assert cells[0].server_generation_tokens is None and cells[0].output_tokens == 6
    assert [c.server_generation_tokens for c in cells[1:]] == [6, 6]  # a single hang-up (6) was sent again


def test_garbage_tokenize_and_models_answers_are_asked_again_and_the_run_finishes(tmp_path):
    # the first /v1/models answer and the first two /tokenize answers are the proxy page: each is asked again
    script = TruthScript(
        default=PLAN, serve_models=True, serve_tokenizer=True, garbage={"/v1/models": [0], "/tokenize": [0, 1]}
    )
    prompts = tmp_path / "p.jsonl"
    prompts.write_text(json.dumps({"messages": [{"role": "user", "content": "name three rivers"}]}) + "\n")
    with TruthServer(script) as ts:
        args = ["bench", "--server", f"x={ts.base_url}", "--workload", f"mine={prompts}", "--max-concurrency", "1"]
        args += ["--repeats", "1", "--max-tokens", "6", "--context-tokens", "64", "-f", "json", "--out", str(tmp_path)]
        res = subprocess.run([sys.executable, "-m", "specscope", *args], capture_output=True, text=True, timeout=HANG_S)
        log = ts.served()
    assert res.returncode == 0, res.stderr[-2000:]
    (cell,) = json.loads(res.stdout)["cells"]
    # a loaded machine may flag the cell CLIENT_LIMITED (the client's self-check), as elsewhere
    limited = all(r.startswith("CLIENT_LIMITED") for r in cell["reasons"])
    assert (cell["status"] == "ok" or limited) and cell["streams"] == 1, cell["reasons"]
    assert assert_rows_sent(only_run(tmp_path), log) == {"x/mine@64/c1/r0": 1}  # the prompt grew to 64 tokens
    assert [r["model"] for r in log] == ["truth", "truth"]  # warm-up + the cell, named from the 2nd /v1/models answer
    # the cell's prompt was extended to 64 of the truth server's tokens (one per word), within the builder's tolerance
    words = sum(len(str(m["content"]).split()) for m in log[-1]["messages"])
    assert abs(words - 64) <= TOLERANCE_TOKENS


def _server_reasons(cell) -> tuple[str, ...]:
    """A cell's reasons less the client's own load flag (CLIENT_LIMITED: a loaded 2-core machine sets it on any cell;
    make test saw "loop lag p99 11.2 ms > 10 ms" beside the reason a test pins)."""
    return tuple(r for r in cell.reasons if not r.startswith("CLIENT_LIMITED"))


def test_a_bad_answer_is_named_not_a_traceback():
    with pytest.raises(ServerError) as info:
        read_answer(TokenCount, GARBAGE_PAGE, path="/tokenize", fix="f")
    err = info.value
    assert str(err).startswith("the server's answer to /tokenize is not what it should be (")
    assert err.found.startswith("'<html><head><title>502 Bad Gateway")
    assert err.expected == "JSON of the TokenCount shape (count)"
    with pytest.raises(ServerError) as info:
        read_answer(ModelsAnswer, b'{"data": [{"object": "model"}]}', path="GET /v1/models", fix="f")
    assert "data.0.id" in str(info.value)
    good = read_answer(ModelsAnswer, b'{"data": [{"id": "m", "max_model_len": 8}]}', path="p", fix="f")
    assert (good.data[0].id, good.data[0].max_model_len) == ("m", 8)


def test_the_gauge_child_names_itself_as_the_seam_says():
    from specscope.client import gauge_child
    from specscope.seam.target import GAUGE_USER_AGENT

    assert gauge_child.GAUGE_USER_AGENT == GAUGE_USER_AGENT


def _prompts(tmp_path: Path) -> Path:
    prompts = tmp_path / "p.jsonl"
    prompts.write_text(json.dumps({"messages": [{"role": "user", "content": "name three rivers"}]}) + "\n")
    return prompts


def _bench_rc(script: TruthScript, tmp_path: Path, *extra: str) -> tuple[int, list[dict], str]:
    """``bench`` (N=1, 6 tokens, two repeats) against the truth server playing ``script``: exit code, cells, stderr."""
    with TruthServer(script) as ts:
        args = ["bench", "--server", f"x={ts.base_url}", "--workload", f"mine={_prompts(tmp_path)}"]
        args += ["--max-concurrency", "1"]
        args += ["--repeats", "2", "--max-tokens", "6", "-f", "json", "--out", str(tmp_path), *extra]
        res = subprocess.run([sys.executable, "-m", "specscope", *args], capture_output=True, text=True, timeout=HANG_S)
    cells = json.loads(res.stdout)["cells"] if res.returncode in (0, 1) else []
    return res.returncode, cells, res.stderr


@pytest.mark.parametrize(
    "bad",
    [
        {"garbage": {"/metrics": [0]}},  # the proxy page on the first start-up check
        {"garbage": {"/metrics": [1]}},  # ... on the second (the run's own, after its folder is made)
        {"garbage": {"/metrics": [0]}, "garbage_status": 503},  # a busy proxy's 503
        {"hangup": {"/metrics": [0]}},  # a dropped connection
        {"hangup": {"/v1/models": [0]}, "serve_models": True},
        # JSON of no engine's shape (a proxy's JSON error page) on the first check: refused at once before (exit 2,
        # "serves /metrics as JSON that no engine adapter reads") where the HTML page was asked again (issue 37)
        {"garbage": {"/metrics": [0]}, "garbage_body": {"/metrics": '{"error": "upstream timed out"}'}},
    ],
)
def test_one_bad_start_up_answer_is_asked_again_and_every_cell_runs(tmp_path, bad):
    # 2026-12-06: one bad answer to a start-up check refused the run (exit 2; the proxy page's "found" read
    # "HTTP 200 on GET /metrics", a hang-up "cannot be reached" though the server answered the next request)
    code, cells, err = _bench_rc(TruthScript(default=PLAN, **bad), tmp_path)
    assert code == 0, err[-1500:]
    assert [c["streams"] for c in cells] == [1, 1]


def test_a_503_to_v1_models_is_asked_again_not_read_as_no_model(tmp_path):
    # 2026-12-06: a 503 on GET /v1/models was read as "lists no model": every request then named the model
    # "default" (a real server answers 404 to each); the third answer names the served model
    script = TruthScript(default=PLAN, serve_models=True, garbage={"/v1/models": [0, 1]}, garbage_status=503)
    with TruthServer(script) as ts:
        args = ["bench", "--server", f"x={ts.base_url}", "--workload", f"mine={_prompts(tmp_path)}"]
        args += ["--max-concurrency", "1", "--repeats", "1", "--max-tokens", "6", "-f", "json", "--out", str(tmp_path)]
        res = subprocess.run([sys.executable, "-m", "specscope", *args], capture_output=True, text=True, timeout=HANG_S)
        log = ts.served()
    assert res.returncode == 0, res.stderr[-1500:]
    assert {r["model"] for r in log} == {"truth"}


def test_start_up_metrics_that_stay_garbage_are_refused_quoting_the_body(tmp_path):
    code, _, err = _bench_rc(TruthScript(default=PLAN, garbage={"/metrics": [0, 1, 2, 3, 4]}), tmp_path)
    assert code == 2
    assert "found: HTTP 200 on GET /metrics: '<html><head><title>502 Bad Gateway" in err


def test_start_up_metrics_that_stay_json_of_no_engine_are_refused_naming_that(tmp_path):
    body = {"/metrics": '{"error": "upstream timed out"}'}
    script = TruthScript(default=PLAN, garbage={"/metrics": [0, 1, 2, 3, 4]}, garbage_body=body)
    code, _, err = _bench_rc(script, tmp_path)
    assert code == 2
    assert "serves /metrics as JSON that no engine adapter reads" in err and "upstream timed out" in err


@pytest.mark.parametrize(
    "bad",
    [
        {"garbage_status": 503},  # a busy proxy's 503 page: asked again as a 200 page is
        {"garbage_body": {"/tokenize": '{"count": 100000000000000000000000000}'}},  # 1e26: no token count
        {"garbage_body": {"/tokenize": '{"count": 1e400}'}},
        {"garbage_body": {"/tokenize": '{"count": "7"}'}},  # a string: read as 7 by pydantic's lax int (2026-12-07)
        {"garbage_body": {"/tokenize": '{"count": true}'}},  # a boolean: read as 1
    ],
)
def test_one_bad_tokenize_answer_is_asked_again_and_the_run_finishes(tmp_path, bad):
    # 2026-12-06: a 503 on the first /tokenize refused the run ("the server cannot count tokens"), and a count of
    # 10^26 was believed ("prompt mine-0001 is already 100000000000000000000000000 tokens ... pass a longer
    # --context-tokens", exit 2)
    script = TruthScript(default=PLAN, serve_models=True, serve_tokenizer=True, garbage={"/tokenize": [0]}, **bad)
    code, cells, err = _bench_rc(script, tmp_path, "--context-tokens", "64")
    assert code == 0, err[-1500:]
    assert [c["streams"] for c in cells] == [1, 1]


def test_a_token_count_past_the_record_bound_is_a_bad_answer():
    with pytest.raises(ServerError, match=r"count: Input should be less than or equal to 9223372036854775807"):
        read_answer(TokenCount, b'{"count": 100000000000000000000000000}', path="/tokenize", fix="f")


def test_v1_models_that_answers_5xx_three_times_refuses_before_the_first_cell(tmp_path):
    # 2026-12-06: three 503s on GET /v1/models read as "lists no model", and every request then asked for the model
    # "default" (a real server answers 404 to each); now the run is refused before any cell, naming what was found
    script = TruthScript(default=PLAN, serve_models=True, garbage={"/v1/models": [0, 1, 2]}, garbage_status=503)
    with TruthServer(script) as ts:
        code, _, err = _bench_rc_at(ts, tmp_path)
        log = ts.served()
    assert code == 2 and log == []  # no request was sent
    assert "found: HTTP 503 from GET /v1/models x3" in err
    assert "expected: a model list" in err
    assert "Traceback" not in err


def _bench_rc_at(ts: TruthServer, tmp_path: Path) -> tuple[int, list[dict], str]:
    args = ["bench", "--server", f"x={ts.base_url}", "--workload", f"mine={_prompts(tmp_path)}"]
    args += ["--max-concurrency", "1", "--repeats", "1", "--max-tokens", "6", "-f", "json", "--out", str(tmp_path)]
    res = subprocess.run([sys.executable, "-m", "specscope", *args], capture_output=True, text=True, timeout=HANG_S)
    cells = json.loads(res.stdout)["cells"] if res.returncode in (0, 1) else []
    return res.returncode, cells, res.stderr


@pytest.mark.parametrize(("value", "named"), [("1e400", "inf"), ("NaN", "nan"), ("-5", "-5"), ('"4096"', "4096")])
def test_a_max_model_len_not_understood_is_a_named_warning_and_the_run_goes_on(tmp_path, value, named):
    # 2026-12-06: max_model_len 1e400 (or NaN, negative, a string) in GET /v1/models refused the whole run; now that
    # fact is absent, a named warning says so and the served model is still read from the list
    body = '{"object": "list", "data": [{"id": "truth", "max_model_len": ' + value + "}]}"
    every = list(range(20))
    script = TruthScript(
        default=PLAN, serve_models=True, garbage={"/v1/models": every}, garbage_body={"/v1/models": body}
    )
    with TruthServer(script) as ts:
        code, cells, err = _bench_rc_at(ts, tmp_path)
        log = ts.served()
    assert code == 0, err[-1500:]
    assert [c["streams"] for c in cells] == [1]
    assert {r["model"] for r in log} == {"truth"}
    assert f"warning: server 'x': GET /v1/models: MODEL_FIELD_UNREADABLE(max_model_len={named})" in err


def _vllm_body(*series: tuple[str, float]) -> str:
    """A ``/metrics`` body of vLLM's names: per ``(model_name, generated tokens)`` one series set (engine 0) whose
    prompt counter equals its generated one and whose speculative counters are 0, the server idle."""
    lines = []
    for model, tokens in series:
        labels = f'{{engine="0",model_name="{model}"}}'
        for name in ("spec_decode_num_drafts", "spec_decode_num_draft_tokens", "spec_decode_num_accepted_tokens"):
            lines.append(f"vllm:{name}_total{labels} 0.0")
        lines += [f"vllm:generation_tokens_total{labels} {tokens}", f"vllm:prompt_tokens_total{labels} {tokens}"]
        lines += [f"vllm:num_requests_running{labels} 0.0", f"vllm:num_requests_waiting{labels} 0.0"]
    return "\n".join(lines) + "\n"


def test_counters_all_zero_mid_run_are_a_reset_with_absent_figures_not_zero(tmp_path):
    # 2026-12-06: cell 1's after scrape (request 3) with every counter at 0 read COUNTER_RESET with generation tokens
    # 0.0 (the Prometheus increase() convention: the value since the restart), a window that was never counted
    script = TruthScript(default=PLAN, garbage={"/metrics": [3]}, garbage_body={"/metrics": _vllm_body(("truth", 0.0))})
    cells = _three_cells(script, tmp_path)
    first = cells[0]
    assert "COUNTER_RESET" in first.reasons and first.status == "degraded"
    assert first.server_generation_tokens is None
    assert first.counters is not None
    counts = ("drafts", "draft_tokens", "accepted_tokens", "generation_tokens", "prompt_tokens", "rejected_tokens")
    assert [getattr(first.counters, n) for n in counts] == [None] * 6
    assert first.counters.accepted_per_position == ()
    assert first.output_tokens == 6 and first.token_source == "usage"  # the streams' own usage still counts
    assert first.acceptance_rate is None
    assert [c.server_generation_tokens for c in cells[1:]] == [6, 6]


@pytest.mark.parametrize("body", ["[]", "{}", "hello world\n"])
def test_a_scrape_mid_run_that_is_no_prometheus_text_is_the_cell_unreadable_reason(tmp_path, body):
    # 2026-12-06: a mid-run /metrics body of [] (JSON an engine that drains on read may send) was read as an empty
    # drained slice: ENGINE_VANISHED / ENGINE_UNKNOWN_START, as if the engine had changed; the server answered
    # Prometheus text at start, so it is no reading of that server (cell 1's before = request 2, cell 2's after = 5)
    script = TruthScript(default=PLAN, garbage={"/metrics": [2, 5]}, garbage_body={"/metrics": body})
    cells = _three_cells(script, tmp_path)
    assert [_server_reasons(c) for c in cells] == [("METRICS_UNREADABLE(before)",), ("METRICS_UNREADABLE(after)",), ()]
    assert [c.server_generation_tokens for c in cells] == [None, None, 6]


def test_a_second_models_series_mid_run_is_not_the_served_models(tmp_path):
    # 2026-12-06: cell 1's after scrape (request 3) that adds a second model's series read that series as the cell's
    # (ENGINE_UNKNOWN_START, a degraded cell); the served model's series are picked by their model_name label, and
    # its 6 tokens (12 after, 6 before: the warm-up's) are the cell's
    body = _vllm_body(("truth", 12.0), ("other", 50.0))
    script = TruthScript(default=PLAN, serve_models=True, garbage={"/metrics": [3]}, garbage_body={"/metrics": body})
    cells = _three_cells(script, tmp_path)  # GET /v1/models names the served model: truth
    assert [_server_reasons(c) for c in cells] == [(), (), ()]
    assert [c.server_generation_tokens for c in cells] == [6, 6, 6]


def test_the_served_model_is_picked_by_its_model_name_in_each_scrape():
    # a server that labels its series by model_name alone: one model before, a second one after
    from specscope.client.metrics import parse_metrics
    from specscope.stats.counters import counters_delta, series_reasons

    one = 'vllm:generation_tokens_total{model_name="truth"} 6.0\n'
    two = one.replace("6.0", "12.0") + 'vllm:generation_tokens_total{model_name="other"} 50.0\n'
    d = counters_delta(parse_metrics(one, model="truth"), parse_metrics(two, model="truth"))
    assert (d.generation_tokens, series_reasons(d)) == (6.0, [])
    pooled = counters_delta(parse_metrics(one), parse_metrics(two))  # no served model named: every series read
    assert pooled.generation_tokens is None and series_reasons(pooled) != []


def test_a_replica_scrape_of_the_other_kind_than_its_first_is_the_cell_unreadable_reason(tmp_path):
    # follow-up of the test above: a --metrics NAME=URL replica (and a server specscope launches) had no start-time
    # kind, so a [] mid-run was read as an empty drained slice (ENGINE_VANISHED, figures of nothing). Its first read
    # (cell 1's before, request 0) answered Prometheus text; cell 2's before (request 2) and cell 3's after (5) are []
    replica = TruthScript(default=PLAN, garbage={"/metrics": [2, 5]}, garbage_body={"/metrics": "[]"})
    opts = BenchOptions(configs=("x",), workloads=("prose",), levels=(1,), repeats=3, max_tokens=6, order="blocks")
    with TruthServer(replica) as rs, TruthServer(TruthScript(default=PLAN)) as ts:
        opts = opts.model_copy(update={"metrics": {"x": (rs.base_url,)}})
        run_dir = run_bench(opts, servers={"x": ts.base_url}, run_dir=tmp_path / "run")
    with open_run(run_dir) as run:
        cells = sorted(summarize_run(run), key=lambda c: c.repeat)
    # was: [TOKENS_MISMATCH], [ENGINE_UNKNOWN_START(0)], [ENGINE_VANISHED(0), SERIES_VANISHED(...)]; the replica is
    # an idle second server, so cell 1's server tokens are its 0 (the one cell whose counters were read)
    assert [_server_reasons(c) for c in cells] == [
        ("TOKENS_MISMATCH(client=6, server=0)",),
        ("METRICS_UNREADABLE(before)",),
        ("METRICS_UNREADABLE(after)",),
    ]
    assert [c.counters is None for c in cells] == [False, True, True]


def test_an_empty_model_id_is_refused_before_the_run_folder_is_made(tmp_path):
    # 2026-12-07: GET /v1/models answering {"data": [{"id": ""}]} on every try was refused ("model name is empty",
    # exit 2) only after the run folder was made: an empty run folder was left behind under --out
    body = '{"object": "list", "data": [{"id": ""}]}'
    script = TruthScript(
        default=PLAN, serve_models=True, garbage={"/v1/models": list(range(20))}, garbage_body={"/v1/models": body}
    )
    out = tmp_path / "runs"
    out.mkdir()
    (out / "kept.txt").write_text("the user's")
    with TruthServer(script) as ts:
        args = ["bench", "--server", f"x={ts.base_url}", "--workload", f"mine={_prompts(tmp_path)}"]
        args += ["--max-concurrency", "1", "--repeats", "1", "--max-tokens", "6", "--out", str(out)]
        res = subprocess.run([sys.executable, "-m", "specscope", *args], capture_output=True, text=True, timeout=HANG_S)
        log = ts.served()
    assert res.returncode == 2 and log == [], res.stderr[-1500:]
    assert "Traceback" not in res.stderr
    assert (
        "error: the server's answer to GET /v1/models is not what it should be (data.0.id: String should have at "
        'least 1 character); found: \'{"object": "list", "data": [{"id": ""}]}\'; expected: JSON of the '
        "ModelsAnswer shape (data)" in res.stderr
    )
    assert sorted(p.name for p in out.iterdir()) == ["kept.txt"]  # no run folder left behind
