"""Per-request arrays of uneven lengths (issue 37): a ``vllm bench serve --save-result --save-detailed`` file (or an
SGLang ``bench_serving --output-details`` line) whose ``ttfts`` has 4 entries and ``itls`` 3 was imported without a
word, its request i's TTFT paired with another request's gaps. The arrays are lined up by index only when they agree:
otherwise the record gets a named warning (each array and its length), the per-request figures are absent (named
not recorded) and the tool's own aggregate percentiles are read, as for a file without the arrays."""

from __future__ import annotations

import json

from clirun import cli
from paths import DATA
from specscope.importers import sglang_serving, vllm_serve

IMPORTS = DATA / "imports"
PER_REQUEST = ("ttfts_s", "latencies_s", "output_lens_tokens", "input_lens_tokens", "start_times_s", "errors")


def _vllm_uneven() -> dict:
    doc = json.loads((IMPORTS / "vllm_base_r0.json").read_text())
    doc["itls"] = doc["itls"][:3]
    del doc["latencies"]  # the latencies are then ttft + sum(itls): the itls are read
    return doc


def test_vllm_uneven_arrays_are_named_and_their_figures_absent():
    doc = _vllm_uneven()
    imp = vllm_serve.parse(doc)
    lengths = "ttfts 4, itls 3, output_lens 4, input_lens 4, errors 4, start_times 4"
    assert f"per-request arrays of uneven lengths ({lengths}): per-request figures left out" in imp.notes
    assert all(imp.facts.get(k) is None for k in PER_REQUEST)
    assert f"per-request figures (arrays of uneven lengths: {lengths})" in imp.facts["not_recorded"]
    assert imp.facts["ttft_p50_s"] == doc["median_ttft_ms"] / 1000  # the tool's aggregate instead
    assert imp.facts["failed"] == 0  # the tool's count, not the arrays'


def test_vllm_start_times_of_another_length_are_named_and_no_concurrency_is_derived():
    # the start instants are lined up with the latencies by index (issue 38): one short, which request lacks its
    # start the file does not say
    doc = json.loads((IMPORTS / "vllm_base_r0.json").read_text())
    doc["start_times"] = doc["start_times"][:3]
    imp = vllm_serve.parse(doc)
    lengths = "ttfts 4, latencies 4, output_lens 4, input_lens 4, errors 4, start_times 3"
    assert f"per-request arrays of uneven lengths ({lengths}): per-request figures left out" in imp.notes
    assert imp.facts.get("start_times_s") is None


def test_vllm_even_arrays_are_read_silently():
    imp = vllm_serve.parse(json.loads((IMPORTS / "vllm_base_r0.json").read_text()))
    assert imp.notes == () and imp.facts["ttfts_s"] == [0.04, 0.04, 0.04, 0.04]


def test_sglang_uneven_arrays_are_named_and_their_figures_absent():
    doc = json.loads((IMPORTS / "sglang_eagle.jsonl").read_text().splitlines()[0])
    doc["output_lens"] = doc["output_lens"][:-1]
    imp = sglang_serving.parse(doc)
    n = len(doc["ttfts"])
    lengths = f"ttfts {n}, itls {n}, output_lens {n - 1}, input_lens {n}, errors {n}"
    assert f"per-request arrays of uneven lengths ({lengths}): per-request figures left out" in imp.notes, imp.notes
    assert all(imp.facts.get(k) is None for k in PER_REQUEST)


def test_import_warns_on_stderr(tmp_path, capsys, monkeypatch):
    src = tmp_path / "v.json"
    src.write_text(json.dumps(_vllm_uneven()))
    code, _, err = cli(["import", src, "--config", "x", "--out", tmp_path / "run"], capsys, monkeypatch, tmp_path)
    assert code == 0 and "warning:" in err and "uneven lengths (ttfts 4, itls 3" in err, err
