"""k (draft tokens per verify step) of an imported config (issue 38): what the file itself records (vLLM's
``spec_decode_per_position_acceptance_rates`` holds one rate per draft position: vllm/benchmarks/serve.py reads the
server's per-position counter, one series per position 0..k-1), else the config name's ``NAME-kK`` (the grammar
``bench --k`` writes, :func:`specscope.kaxis.split_k_name`); a name and a file that disagree are refused."""

from __future__ import annotations

import json

from clirun import cli
from paths import DATA

IMPORTS = DATA / "imports"


def _advise_k(run, capsys, monkeypatch, tmp_path) -> dict[str, object]:
    code, out, err = cli(["advise", run, "-f", "json"], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    return json.loads(out)["k"]


def _import(files, config, run, capsys, monkeypatch, tmp_path) -> tuple[int, str, str]:
    return cli(["import", *files, "--config", config, "--out", run], capsys, monkeypatch, tmp_path)


def _base(run, capsys, monkeypatch, tmp_path) -> None:
    files = [IMPORTS / f"vllm_cpu_base_r{i}.json" for i in (0, 1)]
    assert _import(files, "base", run, capsys, monkeypatch, tmp_path)[0] == 0


def test_the_files_per_position_rates_give_k(tmp_path, capsys, monkeypatch):
    # vllm_cpu_mtp_r0.json: spec_decode_per_position_acceptance_rates [1.0, 1.0, 0.0]: three draft positions
    run = tmp_path / "run"
    _base(run, capsys, monkeypatch, tmp_path)
    files = [IMPORTS / f"vllm_cpu_mtp_r{i}.json" for i in (0, 1)]
    code, _, err = _import(files, "mtp", run, capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert _advise_k(run, capsys, monkeypatch, tmp_path) == {"mtp": 3}


def test_a_file_without_it_takes_k_from_the_config_name(tmp_path, capsys, monkeypatch):
    run = tmp_path / "run"
    _base(run, capsys, monkeypatch, tmp_path)
    doc = json.loads((IMPORTS / "vllm_cpu_mtp_r0.json").read_text())
    del doc["spec_decode_per_position_acceptance_rates"]
    f = tmp_path / "mtp.json"
    f.write_text(json.dumps(doc))
    code, _, err = _import([f], "mtp-k4", run, capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert _advise_k(run, capsys, monkeypatch, tmp_path) == {"mtp-k4": 4}


def test_a_name_and_a_file_that_disagree_are_refused(tmp_path, capsys, monkeypatch):
    run = tmp_path / "run"
    files = [IMPORTS / "vllm_cpu_mtp_r0.json"]
    code, _, err = _import(files, "mtp-k2", run, capsys, monkeypatch, tmp_path)
    assert code == 2
    assert "k 2" in err and "3 draft positions" in err and "--config mtp-k3" in err
    assert not run.exists()
