"""``specscope export -o``: the same -o rules as report/advise/predict/counters/audit (cli/output.py)."""

from __future__ import annotations

import json

from clirun import cli, vllm_import_run


def test_export_profile_makes_the_folder_of_o(tmp_path, capsys, monkeypatch):
    run = vllm_import_run(tmp_path, capsys, monkeypatch)
    target = tmp_path / "not" / "there" / "y.json"
    code, out, err = cli(["export", run, "--to", "profile", "-o", target], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert json.loads(target.read_text())["schema_version"] == "1.0"
    assert (target.parent / "y.specscope.json").is_file()


def test_export_profile_o_a_folder_holds_the_profiles(tmp_path, capsys, monkeypatch):
    # issue 50: -o FOLDER holds one CONFIG-WORKLOAD-LEVEL-PHASE.json per profile (was refused as a folder)
    run = vllm_import_run(tmp_path, capsys, monkeypatch)
    folder = tmp_path / "out"
    folder.mkdir()
    code, _, err = cli(["export", run, "--to", "profile", "-o", folder], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert sorted(p.name for p in folder.iterdir()) == ["mtp-imported-2-all.json", "specscope.json"]
    assert not list(tmp_path.glob("out-*")) and not list(tmp_path.glob("out.*"))


def test_export_profile_o_with_a_suffix_naming_no_json_is_refused(tmp_path, capsys, monkeypatch):
    run = vllm_import_run(tmp_path, capsys, monkeypatch)
    code, _, err = cli(["export", run, "--to", "profile", "-o", tmp_path / "y.txt"], capsys, monkeypatch, tmp_path)
    assert code == 2 and "y.txt" in err and ".json" in err
    assert "-f text" not in err  # export has no -f
    assert not list(tmp_path.glob("y*"))


def test_tracking_uri_with_to_profile_is_refused(tmp_path, capsys, monkeypatch):
    run = vllm_import_run(tmp_path, capsys, monkeypatch)
    argv = ["export", run, "--to", "profile", "-o", tmp_path / "p.json", "--tracking-uri", tmp_path / "mlruns"]
    code, _, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code == 2 and "--tracking-uri does not apply to --to profile" in err and "fix: drop --tracking-uri" in err
    assert not (tmp_path / "p.json").exists()


def test_o_with_to_mlflow_is_refused(tmp_path, capsys, monkeypatch):
    run = vllm_import_run(tmp_path, capsys, monkeypatch)
    monkeypatch.chdir(tmp_path)  # MLflow's default store is ./mlruns
    code, _, err = cli(["export", run, "--to", "mlflow", "-o", tmp_path / "z.json"], capsys, monkeypatch, tmp_path)
    assert code == 2 and "-o does not apply to --to mlflow" in err and "fix: drop -o" in err
    assert not (tmp_path / "z.json").exists() and not (tmp_path / "mlruns").exists()
