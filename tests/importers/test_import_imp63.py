"""imp63: the server overrides a ``vllm bench sweep serve`` run file carries: its speculative config read as what the
server ran (method, k), the others named.

Fixtures: tests/data/imports (SOURCES.md)."""

from __future__ import annotations

import json
from typing import Any

from clirun import cli
from paths import DATA
from specscope.importers import vllm_serve

IMPORTS = DATA / "imports"


def _sweep_run(tmp_path, overrides: dict[str, Any]):
    """``vllm_mtp_r0.json`` as ``vllm bench sweep serve`` rewrites it as ``run=0.json`` (vllm/benchmarks/sweep/
    serve.py @4fa9174d ``_update_run_data``: ``run_number`` and the combination's serve and bench overrides added at
    the top level, keyed as in the ``--serve-params`` JSON, a ``--speculative-config`` dict as a dict)."""
    doc = {**json.loads((IMPORTS / "vllm_mtp_r0.json").read_text()), "run_number": 0, **overrides}
    path = tmp_path / "run=0.json"
    path.write_text(json.dumps(doc))
    return path


def _import_and_report(tmp_path, capsys, monkeypatch, path, config: str = "mtp") -> tuple[str, str]:
    code, out, err = cli(["import", path, "--config", config, "--out", tmp_path / "r"], capsys, monkeypatch, tmp_path)
    imported = " ".join((out + err).split())
    assert code == 0, imported
    code, out, err = cli(["report", tmp_path / "r", "--width", "300"], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    return imported, out


def _server_row(report: str, config: str = "mtp") -> list[str]:
    """The cells of the Servers table's row of ``config`` (the one naming the model)."""
    rows = [
        [c.strip() for c in line.split("\u2502")[1:-1]]
        for line in report.splitlines()
        if "SmolLM2" in line and line.split("\u2502")[1:2] and line.split("\u2502")[1].strip() == config
    ]
    assert len(rows) == 1, report
    return rows[0]


def test_sweep_speculative_config_override_is_the_servers_method_and_k(tmp_path, capsys, monkeypatch):
    """A ``--serve-params`` combination ``{"speculative_config": {"method": "mtp", "num_speculative_tokens": 3},
    "max_num_seqs": 2}``: the speculative config is what the server ran (vLLM's ``--speculative-config``): the Servers
    table shows method mtp and k 3; ``max_num_seqs`` (another server setting, not read) stays named."""
    spec = {"method": "mtp", "num_speculative_tokens": 3}
    path = _sweep_run(tmp_path, {"speculative_config": spec, "max_num_seqs": 2})
    imported, report = _import_and_report(tmp_path, capsys, monkeypatch, path)
    assert imported.endswith("left out: max_num_seqs"), imported
    row = _server_row(report)
    assert row[-3:-1] == ["mtp", "3"], row


def test_sweep_dotted_speculative_keys_are_read_as_the_cli_reads_them(tmp_path, capsys, monkeypatch):
    """The dotted form ``speculative_config.num_speculative_tokens`` (vLLM's ``--speculative-config.KEY`` option,
    sweep's ``_iter_param_key_candidates`` keeps the part after the dot as written; the hyphenated prefix is the same
    option): method and k, nothing unread."""
    path = _sweep_run(tmp_path, {"speculative-config.method": "ngram", "speculative_config.num_speculative_tokens": 3})
    imported, report = _import_and_report(tmp_path, capsys, monkeypatch, path, "ng")
    assert "not understood" not in imported, imported
    assert _server_row(report, "ng")[-3:-1] == ["ngram", "3"], report


def test_sweep_k_disagreeing_with_the_config_name_is_refused(tmp_path, capsys, monkeypatch):
    """The override's k is the record's own k: a config name whose ``-kK`` says otherwise is refused as a
    per-position list's k is, the override named as where k was read."""
    path = _sweep_run(tmp_path, {"speculative_config": {"method": "mtp", "num_speculative_tokens": 3}})
    code, out, err = cli(["import", path, "--config", "mtp-k5", "--out", tmp_path / "r"], capsys, monkeypatch, tmp_path)
    text = " ".join((out + err).split())
    assert code == 2 and not (tmp_path / "r").exists(), text
    assert "speculative_config.num_speculative_tokens 3 (vllm bench sweep serve's server override) (k 3)" in text, text


def test_sweep_speculative_k_that_is_no_draft_length_is_named_not_read(tmp_path, capsys, monkeypatch):
    """``num_speculative_tokens`` "three" is no k: named, the method still read, k not shown."""
    path = _sweep_run(tmp_path, {"speculative_config": {"method": "mtp", "num_speculative_tokens": "three"}})
    imported, report = _import_and_report(tmp_path, capsys, monkeypatch, path)
    assert 'speculative_config.num_speculative_tokens = "three" (not a draft length' in imported, imported
    row = _server_row(report)
    assert row[-3] == "mtp" and row[-2] != "three", row


def test_sweep_k_disagreeing_with_the_per_position_list_is_refused(tmp_path, capsys, monkeypatch):
    """vLLM counts one accepted series per draft position: a server override of k 4 beside the file's 3 per-position
    rates is no run of one server (an edited file): refused with both named, nothing written."""
    path = _sweep_run(tmp_path, {"speculative_config": {"method": "mtp", "num_speculative_tokens": 4}})
    code, out, err = cli(["import", path, "--config", "mtp", "--out", tmp_path / "r"], capsys, monkeypatch, tmp_path)
    text = " ".join((out + err).split())
    assert code == 2 and not (tmp_path / "r").exists(), text
    assert (
        "found: speculative_config.num_speculative_tokens 4 (vllm bench sweep serve's server override); 3 draft "
        "positions in spec_decode_per_position_acceptance_rates"
    ) in text, text


def test_sweep_dynamic_k_schedule_gives_no_one_k(tmp_path, capsys, monkeypatch):
    """vLLM's dynamic speculative decoding (docs/features/speculative_decoding/dynamic_speculative_decoding.md
    @dba5f190: ``num_speculative_tokens_per_batch_size``, the serve params ``vllm bench sweep tune_speculative_k``
    reads) drafts the schedule's K for the batch size, ``num_speculative_tokens`` (7) only its maximum: no one k is
    read (named, neither 7 nor the per-position list's 3), the method is."""
    spec = {"method": "eagle", "num_speculative_tokens": 7, "num_speculative_tokens_per_batch_size": [[1, 64, 3]]}
    path = _sweep_run(tmp_path, {"speculative_config": spec})
    imported, report = _import_and_report(tmp_path, capsys, monkeypatch, path)
    assert (
        "speculative_config.num_speculative_tokens_per_batch_size = [[1, 64, 3]] (the server drafts k by batch size, "
        "num_speculative_tokens 7 its maximum): no one k read"
    ) in imported, imported
    assert _server_row(report)[-3:-1] == ["eagle", "\u2014"], report


def _refused(tmp_path, capsys, monkeypatch, path) -> str:
    code, out, err = cli(["import", path, "--config", "mtp", "--out", tmp_path / "r"], capsys, monkeypatch, tmp_path)
    text = " ".join((out + err).split())
    assert code == 2 and not (tmp_path / "r").exists(), text
    return text


def test_sweep_warmup_run_is_refused_by_name(tmp_path, capsys, monkeypatch):
    """``run_comb`` (vllm/benchmarks/sweep/serve.py @0031557f, ``--warmup-num-prompts``) runs a warm-up first and
    writes it as ``warmup.json`` beside the runs, ``run_number`` -1, kept out of ``summary.json``. It was imported as
    a measured run (a cell r0): refused by name, with the files to pass."""
    doc = {**json.loads((IMPORTS / "vllm_mtp_r0.json").read_text()), "run_number": -1, "num_prompts": 2}
    path = tmp_path / "warmup.json"
    path.write_text(json.dumps(doc))
    text = _refused(tmp_path, capsys, monkeypatch, path)
    assert (
        "record 1 (vllm-bench-serve): the warm-up run of a vllm bench sweep serve combination is no measurement; "
        "found: run_number = -1 (sweep's warmup.json, --warmup-num-prompts); expected: a measured run (run_number 0, "
        "1, ...); fix: import the combination's run=N.json files or its summary.json"
    ) in text, text


def test_sweep_failure_record_is_named(tmp_path, capsys, monkeypatch):
    """With ``--continue-on-error`` a failed run is written as ``run=N.failure.json`` (``run_number``, ``error_type``,
    ``error``, ``serve_overrides``, ``bench_overrides``; a server combination that failed as
    ``SERVE-...-failure.json``, without ``run_number``): refused with the general words, now named."""
    doc = {"run_number": 1, "error_type": "RuntimeError", "error": "boom", "serve_overrides": {}, "bench_overrides": {}}
    path = tmp_path / "run=1.failure.json"
    path.write_text(json.dumps(doc))
    text = _refused(tmp_path, capsys, monkeypatch, path)
    assert (
        "looks like vllm bench sweep serve's record of a failed run (run 1: RuntimeError: boom): nothing was "
        "measured; import the combination's run=N.json files that succeeded, or its summary.json"
    ) in text, text


def test_aiperf_server_metrics_export_is_named(tmp_path, capsys, monkeypatch):
    """AIPerf's ``server_metrics_export.json`` (ai-dynamo/aiperf docs/server_metrics/server_metrics_json_schema.md:
    ``schema_version``, ``summary`` of ``endpoints_configured`` ..., ``metrics`` by Prometheus name, each a ``type`` and
    ``series`` of ``stats``; a counter's ``total`` its increase over the collection) holds the server's counters, no
    request the client counted: refused with the general words, now named with the run's summary to pass and the
    spec-decode counters it holds."""
    counter = {"type": "counter", "series": [{"endpoint_url": "http://127.0.0.1:8000/metrics", "stats": {"total": 40}}]}
    doc = {
        "schema_version": "1.0",
        "aiperf_version": "0.8.0",
        "summary": {"endpoints_configured": ["http://127.0.0.1:8000/metrics"], "endpoints_successful": []},
        "metrics": {"vllm:spec_decode_num_drafts_total": counter, "vllm:num_requests_running": {"type": "gauge"}},
        "input_config": {},
    }
    path = tmp_path / "server_metrics_export.json"
    path.write_text(json.dumps(doc))
    text = _refused(tmp_path, capsys, monkeypatch, path)
    assert (
        "looks like AIPerf's server-metrics export (server_metrics_export.json): the server's Prometheus metrics over "
        "the run (spec-decode counters among them: vllm:spec_decode_num_drafts_total, not read), no request counted "
        "by the client; import profile_export_aiperf.json from the same folder (the run's summary)"
    ) in text, text


def test_sweep_adaptive_k_gives_no_one_k():
    """``enable_adaptive_k`` (docs/features/speculative_decoding/adaptive_k.md @7391f105: k chosen at each step from
    the measured acceptance): no one k, named."""
    doc = {**json.loads((IMPORTS / "vllm_mtp_r0.json").read_text()), "run_number": 0}
    doc["speculative_config"] = {"method": "eagle", "num_speculative_tokens": 10, "enable_adaptive_k": True}
    got = vllm_serve.parse(doc)
    assert got.k is None and got.server_spec == {"method": "eagle"}, got
    assert (
        "speculative_config.enable_adaptive_k = true (the server chooses k at each step, num_speculative_tokens 10 "
        "its maximum): no one k read"
    ) in got.notes, got.notes
