"""``specscope import``: a --baseline naming no config of the run is refused; importing into a run that bench
measured is refused (its cells were not measured in the same harness); ``bench --resume`` of an imported run says
it cannot be resumed."""

from __future__ import annotations

from clirun import cli
from paths import DATA
from quickrun import make_quick_run

VLLM = [DATA / "imports" / f"vllm_mtp_r{i}.json" for i in (0, 1)]
BASE = [DATA / "imports" / f"vllm_base_r{i}.json" for i in (0, 1)]


def test_a_baseline_that_is_no_config_of_the_run_is_refused(tmp_path, capsys, monkeypatch):
    run = tmp_path / "run"
    argv = ["import", *BASE, "--config", "base", "--out", run, "--baseline", "nothere"]
    code, out, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code == 2 and "--baseline nothere is not a config of the run" in err
    assert "import nothere's files first" in err and not run.exists()


def test_a_baseline_already_in_the_run_or_imported_is_taken(tmp_path, capsys, monkeypatch):
    run = tmp_path / "run"
    assert cli(["import", *BASE, "--config", "base", "--out", run], capsys, monkeypatch, tmp_path)[0] == 0
    argv = ["import", *VLLM, "--config", "mtp", "--out", run, "--baseline", "base"]
    code, _, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code == 0, err


def test_bench_resume_of_an_imported_run_says_it_cannot_be_resumed(tmp_path, capsys, monkeypatch):
    run = tmp_path / "run"
    assert cli(["import", *BASE, "--config", "base", "--out", run], capsys, monkeypatch, tmp_path)[0] == 0
    code, _, err = cli(["bench", "--resume", run], capsys, monkeypatch, tmp_path)
    assert code == 2 and "is an imported run: it cannot be resumed" in err
    assert f"--out {run}" in err and "--workloads" not in err


def test_importing_into_a_run_bench_measured_is_refused(tmp_path, capsys, monkeypatch):
    run = make_quick_run(tmp_path / "bench-run")
    before = (run / "manifest.json").read_text()
    code, _, err = cli(["import", *VLLM, "--config", "mtp", "--out", run], capsys, monkeypatch, tmp_path)
    assert code == 2 and "holds cells bench measured" in err and "fix: import into a new run folder" in err
    assert (run / "manifest.json").read_text() == before
