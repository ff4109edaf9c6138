"""The whole suite against a scripted server on 127.0.0.1: a good model passes every gate; a broken one
(thinking never closes, prose loops) fails exactly the thinking and repetition gates."""

import json
import subprocess
import sys

import pytest
from gate_scripted_server import REASONING, ScriptedServer

from hangguard import HANG_S
from specscope.gate import GateProfile, Target, load_gate_run, render_gate_markdown, run_gate_suite, write_gate_run

pytestmark = pytest.mark.integration


def _profile() -> GateProfile:
    return GateProfile().with_overrides(long_context={"context_tokens": 512}, thinking={"max_tokens": 300})


@pytest.fixture(scope="module")
def servers():
    prof = _profile()
    with ScriptedServer("good", prof) as good, ScriptedServer("broken", prof) as broken:
        yield good, broken


def test_good_and_broken_verdicts(servers, tmp_path):
    good, broken = servers
    prof = _profile()
    run = run_gate_suite([Target("base", good.base_url), Target("mtp", broken.base_url)], prof)
    got = {(v.gate, v.config): (v.passed, v.passed_probes, v.total_probes) for v in run.verdicts}
    assert got == {
        ("thinking", "base"): (True, 5, 5),
        ("thinking", "mtp"): (False, 0, 5),
        ("arithmetic", "base"): (True, 8, 8),
        ("arithmetic", "mtp"): (True, 8, 8),
        ("code", "base"): (True, 4, 4),
        ("code", "mtp"): (True, 4, 4),
        ("tool_call", "base"): (True, 1, 1),
        ("tool_call", "mtp"): (True, 1, 1),
        ("long_context", "base"): (True, 1, 1),
        ("long_context", "mtp"): (True, 1, 1),
        ("repetition", "base"): (True, 6, 6),
        ("repetition", "mtp"): (False, 0, 6),
        # seed 002's shape: 3/6 identical token sequences, 6/6 same answer -> pass
        ("compare", "base vs mtp"): (True, 6, 6),
    }
    assert not run.passed
    cmp = next(v for v in run.verdicts if v.gate == "compare")
    assert cmp.metrics == {"identical": 3, "same_answer": 6, "total": 6, "judged": True}
    assert cmp.why == (
        "3/6 identical sequences, 6/6 same answer; first divergence cmp-sum-odd at token 0 (base 'Working', mtp "
        "'Let'); probed one request at a time: outputs that change only under concurrent batching or a prefix-cache "
        "hit are not probed"
    )

    # thinking tokens: the good model's reasoning counted through /tokenize (words); the broken one is all thinking
    good_thinking = [r for r in run.results if r.gate == "thinking" and r.config == "base"]
    assert {r.output.reasoning_tokens for r in good_thinking} == {len(REASONING.split())}
    assert {r.output.reasoning_tokens_source for r in good_thinking} == {"tokenize"}
    bad_thinking = [r for r in run.results if r.gate == "thinking" and r.config == "mtp"]
    assert {
        (r.output.reasoning_tokens, r.output.reasoning_tokens_source, r.output.finish_reason) for r in bad_thinking
    } == {(300, "all_output", "length")}
    assert bad_thinking[0].check.why.startswith("thinking never closed; finish reason 'length'")

    # requests: greedy, thinking enabled via chat_template_kwargs, tools sent, logprobs only for compare
    thinking_req = next(r.request for r in run.results if r.gate == "thinking")
    assert thinking_req["temperature"] == 0.0 and thinking_req["chat_template_kwargs"] == {"enable_thinking": True}
    assert thinking_req["max_tokens"] == 300
    assert (
        next(r.request for r in run.results if r.gate == "tool_call")["tools"][0]["function"]["name"]
        == "get_current_weather"
    )
    assert all(r.request.get("logprobs") is True for r in run.results if r.gate == "compare")
    assert not any(r.request.get("logprobs") for r in run.results if r.gate != "compare")

    # the run folder round-trips
    folder = write_gate_run(run, tmp_path / "g")
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["kind"] == "gate" and manifest["passed"] is False and manifest["gates_failed"] == 2
    back = load_gate_run(folder)
    assert back.to_dict() == run.to_dict()
    md = render_gate_markdown(back)
    assert "**FAILED: 2 of 13 gate checks failed (thinking on mtp, repetition on mtp)." in md
    assert "| Thinking termination | PASS 5/5 | FAIL 0/5 |" in md
    # `specscope report` shows a gate run like a bench run
    rep = subprocess.run(
        [sys.executable, "-m", "specscope", "report", str(folder), "--format", "markdown"],
        capture_output=True,
        text=True,
        timeout=HANG_S,
    )
    assert rep.returncode == 0, rep.stderr
    assert "| Thinking termination | PASS 5/5 | FAIL 0/5 |" in rep.stdout


def test_cli_exit_codes(servers, tmp_path):
    good, broken = servers
    prof_file = tmp_path / "p.toml"
    prof_file.write_text("[long_context]\ncontext_tokens = 512\n[thinking]\nmax_tokens = 300\n")

    def cli(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "specscope", "gate", *args],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            timeout=HANG_S,
        )

    r = cli(
        "--server",
        good.base_url,
        "--configs",
        "base",
        "--run-file",
        str(prof_file),
        "--out",
        str(tmp_path / "runs"),
        "--format",
        "json",
    )
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["passed"] is True and [c["name"] for c in data["configs"]] == ["base"]
    assert len(data["verdicts"]) == 6  # no compare gate with one server
    assert (tmp_path / "runs").is_dir() and not (tmp_path / "gate.json").exists()
    r = cli(
        "--server",
        f"base={good.base_url}",
        "--server",
        f"mtp={broken.base_url}",
        "--run-file",
        str(prof_file),
        "--gate",
        "thinking",
        "--out",
        str(tmp_path / "runs"),
    )
    assert r.returncode == 1, r.stderr
    assert "FAIL 0/5" in r.stdout
    bad = tmp_path / "bad.toml"
    bad.write_text("[repetition]\nmin_unique_ratio = 0.5\n")
    r = cli("--server", good.base_url, "--run-file", str(bad), "--out", str(tmp_path / "runs"))
    assert r.returncode == 2
    assert r.stderr.startswith("error: invalid gate profile") and "repetition.min_unique_ratio" in r.stderr
    r = cli("--server", "127.0.0.1:1")
    assert r.returncode == 2 and "--server must be a URL" in r.stderr
