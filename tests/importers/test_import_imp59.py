"""imp59: result files of the peer tools' other releases and options, read as an outside checker would.

vLLM's ``--burstiness inf`` (constant arrivals) was read as Poisson, and AIPerf's gamma arrivals of two smoothness
values were one load; GenAI-Perf's CSV summary was told to be AIPerf's, and GenAI-Perf's, LLMPerf's and GuideLLM
0.2-0.6's other files were refused without naming their tool. Fixtures: tests/data/imports (SOURCES.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clirun import cli
from paths import DATA

IMPORTS = DATA / "imports"
PEERS = IMPORTS / "peers"


def _import(tmp_path: Path, capsys, monkeypatch, *files: Path, run: str = "run") -> tuple[int, str]:
    code, out, err = cli(["import", *files, "--config", "base", "--out", tmp_path / run], capsys, monkeypatch, tmp_path)
    return code, " ".join((out + err).split())


def _changed(tmp_path: Path, src: Path, name: str, change) -> Path:
    doc = json.loads(src.read_text())
    change(doc)
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


def test_vllm_burstiness_inf_is_constant_arrivals_not_poisson(tmp_path, capsys, monkeypatch):
    """``vllm bench serve --burstiness inf`` spaces requests evenly (``get_request``: a delay of 1 / rate each,
    vllm/benchmarks/serve.py @009e6d4a) and writes ``"burstiness": Infinity``; it was imported as '2 req/s poisson'
    and stored as a repeat of a Poisson run at that rate."""
    inf = IMPORTS / "vllm_burstiness_inf.json"
    code, text = _import(tmp_path, capsys, monkeypatch, inf)
    assert code == 0 and "(vllm bench serve, 2 req/s constant)" in text, text
    poisson = _changed(tmp_path, inf, "poisson.json", lambda d: d.update(burstiness=1.0))
    code, text = _import(tmp_path, capsys, monkeypatch, inf, poisson, run="run2")
    assert code == 2 and "found: arrival poisson against constant at 2 req/s" in text, text


def test_aiperf_gamma_arrivals_keep_their_smoothness(tmp_path, capsys, monkeypatch):
    """AIPerf's ``--arrival-pattern gamma --arrival-smoothness S`` (``loadgen.arrival_smoothness``, "compatible with
    vLLM's --burstiness": src/aiperf/common/config/loadgen_config.py @199d8a36): runs at 0.5 and at 4.0 were one load,
    '2 req/s gamma', stored as repeats of one another. The arrival is named as vLLM's is, smoothness 1 (or none)
    being Poisson."""
    half = IMPORTS / "aiperf_gamma_smoothness_0.5.json"
    code, text = _import(tmp_path, capsys, monkeypatch, half)
    assert code == 0 and "(aiperf profile, 2 req/s gamma(burstiness=0.5))" in text, text
    four = _changed(tmp_path, half, "s4.json", lambda d: d["input_config"]["loadgen"].update(arrival_smoothness=4.0))
    code, text = _import(tmp_path, capsys, monkeypatch, half, four, run="run2")
    assert code == 2 and "found: arrival gamma(burstiness=4) against gamma(burstiness=0.5) at 2 req/s" in text, text
    one = _changed(tmp_path, half, "s1.json", lambda d: d["input_config"]["loadgen"].pop("arrival_smoothness"))
    code, text = _import(tmp_path, capsys, monkeypatch, one, run="run3")
    assert code == 0 and "(aiperf profile, 2 req/s poisson)" in text, text


@pytest.mark.parametrize(
    ("name", "named"),
    [
        # GenAI-Perf's CSV summary opens like AIPerf's ('Metric,avg,min,max,...') but its percentiles run p99 down:
        # it was told to import profile_export_aiperf.json, a file GenAI-Perf does not write
        ("profile_export_genai_perf.csv", "GenAI-Perf's CSV summary (profile_export_genai_perf.csv)"),
        ("profile_export_genai_perf.json", "GenAI-Perf's summary (profile_export_genai_perf.json)"),
        ("profile_export.json", "the perf_analyzer export GenAI-Perf reads (profile_export.json)"),
        ("llmperf_summary.json", "LLMPerf's summary (token_benchmark_ray.py *_summary.json)"),
        ("llmperf_individual_responses.json", "LLMPerf's per-request file (*_individual_responses.json)"),
        ("guidellm_0.3_benchmarks.csv", "GuideLLM's CSV report"),
        ("profile_export_aiperf.csv", "AIPerf's CSV summary (profile_export_aiperf.csv)"),
    ],
)
def test_a_peer_tools_unimportable_file_is_refused_naming_its_tool(tmp_path, capsys, monkeypatch, name, named):
    code, text = _import(tmp_path, capsys, monkeypatch, PEERS / name)
    found = text.split("found:", 1)[1].split("expected:", 1)[0]
    assert code == 2 and named in found, text
    assert ("AIPerf's CSV summary" in found) == (name == "profile_export_aiperf.csv"), text
    assert not (tmp_path / "run").exists()


def _aiperf_loadgen(tmp_path: Path, name: str, **loadgen) -> Path:
    """aiperf_base_r0.json (AIPerf 0.13.0) with ``input_config.loadgen`` in place of its phases."""

    def change(doc):
        doc["input_config"].pop("phases", None)
        doc["input_config"]["loadgen"] = loadgen

    return _changed(tmp_path, IMPORTS / "aiperf_base_r0.json", name, change)


@pytest.mark.parametrize(
    ("loadgen", "found"),
    [
        # --user-centric-rate 4 --num-users 8 (user_config.py @90153c83: no request rate, no concurrency needed):
        # it was imported as a closed loop of 1
        (
            {"user_centric_rate": 4.0, "num_users": 8, "request_count": 16},
            "found: loadgen.user_centric_rate = 4.0 with num_users = 8",
        ),
        # --prefill-concurrency 2 alone (CONCURRENCY_BURST "works with either session concurrency OR prefill
        # concurrency"): at most 2 requests awaiting their first token, the rest unbounded; imported as N=1
        ({"prefill_concurrency": 2, "request_count": 16}, "found: loadgen.prefill_concurrency = 2 (no concurrency"),
        ({"concurrency": 8, "prefill_concurrency": 2}, "found: loadgen.prefill_concurrency = 2 (below concurrency 8"),
    ],
)
def test_an_aiperf_load_of_no_single_level_is_refused_not_read_as_one_stream(
    tmp_path, capsys, monkeypatch, loadgen, found
):
    code, text = _import(tmp_path, capsys, monkeypatch, _aiperf_loadgen(tmp_path, "x.json", **loadgen))
    assert code == 2 and found in text and "fix:" in text, text
    assert not (tmp_path / "run").exists()


def test_an_aiperf_prefill_cap_at_or_above_the_concurrency_is_the_concurrency(tmp_path, capsys, monkeypatch):
    """A prefill cap no lower than the concurrency never binds: the run is the closed loop of its concurrency."""
    path = _aiperf_loadgen(tmp_path, "x.json", concurrency=4, prefill_concurrency=4)
    code, text = _import(tmp_path, capsys, monkeypatch, path)
    assert code == 0 and "(aiperf profile, N=4)" in text, text


def test_an_aiperf_ramp_in_the_measured_phase_is_named(tmp_path, capsys, monkeypatch):
    """``--concurrency-ramp-duration`` / ``--request-rate-ramp-duration`` (loadgen_config.py @199d8a36: from 1, or a
    fraction of the rate, to the target over D s) ramp the measured phase: the level was not held for its whole
    window. It was imported as N=4 with no word of it."""
    path = _aiperf_loadgen(tmp_path, "x.json", concurrency=4, concurrency_ramp_duration=10.0)
    code, text = _import(tmp_path, capsys, monkeypatch, path)
    assert code == 0 and "(aiperf profile, N=4)" in text, text
    assert (
        "warning: " in text
        and "the load ramped to its level over the first 10 s of the measured phase "
        "(loadgen.concurrency_ramp_duration = 10.0): the level was not held for the whole window"
        in text
    ), text
    rate = _aiperf_loadgen(tmp_path, "r.json", request_rate=2.0, request_rate_ramp_duration=5)
    code, text = _import(tmp_path, capsys, monkeypatch, rate, run="run2")
    assert code == 0 and "(loadgen.request_rate_ramp_duration = 5)" in text, text
