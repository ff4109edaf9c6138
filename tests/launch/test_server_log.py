"""`bench --server NAME=URL --server-log NAME=FILE` (issue 13): a log the user captured fills the KV table and the
failure signatures of a server specscope did not launch (the ground-truth server here, a real vLLM log beside it);
and "Model loading took X GiB" against the audit's byte census."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from specscope.cli import app
from specscope.errors import ConfigError
from specscope.launch.serverlog import loaded_vs_census, merge_server_logs, parse_server_log_specs
from specscope.store import open_run
from specscope.truth import MetricsPlan, ResponsePlan, TruthScript, TruthServer

LOG = Path(__file__).resolve().parents[1] / "data" / "vllm_startup_qwen3_6_27b_nvfp4_mtp_v0.20.0.log"


@pytest.mark.integration
def test_bench_server_log_fills_the_kv_table(tmp_path: Path) -> None:
    plan = ResponsePlan(output_tokens=8, tokens_per_chunk=4, drafts=2, draft_tokens=4, accepted_per_position=[2, 1])
    with TruthServer(TruthScript(default=plan, metrics=MetricsPlan())) as ts:
        args = ["bench", "--server", f"mtp={ts.base_url}", "--server-log", f"mtp={LOG}", "--workloads", "prose"]
        args += ["--max-concurrency", "1", "--repeats", "1", "--max-tokens", "8", "--out", str(tmp_path)]
        r = CliRunner().invoke(app, [*args, "-f", "json"])
    assert r.exit_code == 0, r.output
    (run_dir,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    with open_run(run_dir) as run:
        facts = run.server_facts.of("mtp")
    assert facts.kind == "external" and facts.stored["log_source"] == "user (--server-log)"
    assert facts.log_facts is not None and facts.log_facts.kv_cache_size_tokens == 36_432
    assert facts.log_facts.max_concurrency_requests == 1.82
    assert [f.code for f in facts.log_facts.failures] == ["min_p_with_speculation"]
    text = CliRunner().invoke(app, ["report", str(run_dir)]).output
    assert "36,432" in text and "1.82x" in text  # the KV table of the report


def test_server_log_spec_errors(tmp_path: Path) -> None:
    assert parse_server_log_specs([str(LOG)], ("mtp",)) == {"mtp": LOG}
    with pytest.raises(ConfigError, match="invalid value for --server-log; found: base="):
        parse_server_log_specs([f"base={LOG}"], ("mtp",))
    with pytest.raises(ConfigError, match="file not found"):
        parse_server_log_specs([f"mtp={tmp_path / 'none.log'}"], ("mtp",))
    with pytest.raises(ConfigError, match="NAME=FILE when there are several servers"):
        parse_server_log_specs([str(LOG)], ("mtp", "base"))


def test_loaded_weights_against_census() -> None:
    # seed 004: 20.24 GiB loaded is right for the packed build; 20.8 GiB means the packed tensors were skipped
    census = round(20.24 * 2**30)
    assert loaded_vs_census(20.24, census) == {
        "loaded_gib": 20.24,
        "census_gib": 20.24,
        "difference_gib": 0.0,
        "difference_fraction": 0.0,
        "agrees": True,
    }
    off = loaded_vs_census(20.8, census)
    assert off is not None and off["agrees"] is False and off["difference_gib"] == pytest.approx(0.56)
    assert loaded_vs_census(None, census) is None
    assert json.dumps(off)  # plain JSON for the run's facts


def test_serve_parse_log_census_names_a_different_build(tmp_path: Path) -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("qwen36_builder", Path(__file__).parents[1] / "audit" / "qwen36.py")
    assert spec is not None and spec.loader is not None
    qwen36 = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(qwen36)
    ck = qwen36.build(tmp_path / "ck")
    r = CliRunner().invoke(app, ["serve", "--parse-log", str(LOG), "--census", str(ck), "-f", "json"])
    assert r.exit_code == 0, r.output
    got = json.loads(r.output)["loaded_vs_census"]
    assert got["loaded_gib"] == 18.41 and got["agrees"] is False
    text = CliRunner().invoke(app, ["serve", "--parse-log", str(LOG), "--census", str(ck)]).output
    assert "model loading vs census: log 18.41 GiB, census 0.00 GiB (+18.41 GiB): DIFFERS" in text


def test_merge_server_logs_for_the_report() -> None:
    facts = {"mtp": {"kind": "external", "base_url": "http://127.0.0.1:9"}, "base": {"kind": "external"}}
    merged = merge_server_logs(facts, {"mtp": LOG})
    assert merged["mtp"]["base_url"] == "http://127.0.0.1:9"
    assert merged["mtp"]["log_facts"]["kv_cache_size_tokens"] == 36_432
    assert merged["base"] == {"kind": "external"} and "log_facts" not in facts["mtp"]  # the input is not changed


def test_bench_records_preflight_and_loaded_vs_census(tmp_path: Path) -> None:
    from specscope.bench.server_logs import attach_server_logs
    from specscope.launch.serverlog import server_log_facts
    from specscope.store import create_run

    run = create_run(tmp_path / "run", {"kind": "bench"})
    run.save_server_facts("mtp", {"kind": "vllm", **server_log_facts(LOG)})  # what a launched server records
    run.close()
    census = round(18.41 * 2**30)
    attach_server_logs(tmp_path / "run", {}, {"mtp": {"status": "passed", "census_bytes": census}})
    with open_run(tmp_path / "run") as r:
        assert r.manifest["preflight"] == {"mtp": {"status": "passed", "census_bytes": census}}
        assert r.server_facts.of("mtp").stored["loaded_vs_census"]["agrees"] is True
        assert r.server_facts.of("mtp").kind == "vllm"


def test_a_bare_server_log_with_several_servers_names_them_as_name_equals_file() -> None:
    """``--server-log x`` with servers base and mtp said ``expected: one of base, mtp=FILE`` and gave a fix with
    other names (fresh-user finding, user59): the expected form names each server, and the fix uses the file given."""
    with pytest.raises(ConfigError) as e:
        parse_server_log_specs(["x.log"], ("base", "mtp"))
    assert e.value.expected == "NAME=FILE with NAME one of base, mtp", e.value.one_line()
    assert e.value.fix == "name the server the log is of: --server-log base=x.log or --server-log mtp=x.log"
    with pytest.raises(ConfigError) as e:
        parse_server_log_specs(["x.log"], ())
    assert e.value.expected == "NAME=FILE with NAME a --server's name (no --server given)", e.value.one_line()
