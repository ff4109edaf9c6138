"""``specscope export RUN --to mlflow``: one MLflow run per specscope run, read back through MLflow's own client,
offline (a local file store) (issue 38 item 2)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from clirun import cli
from paths import DATA
from report_cli import report_json
from specscope.records import ClientFacts

mlflow = pytest.importorskip("mlflow", reason="the optional mlflow extra (make test installs it)")


def _run(tmp_path: Path, capsys, monkeypatch) -> Path:
    run = tmp_path / "run"
    for config in ("base", "mtp"):
        files = [DATA / "imports" / f"vllm_{config}_r{i}.json" for i in (0, 1)]
        assert cli(["import", *files, "--config", config, "--out", run], capsys, monkeypatch, tmp_path)[0] == 0
    return run


def test_export_logs_params_metrics_verdicts_and_reports_once(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")
    run = _run(tmp_path, capsys, monkeypatch)
    uri = (tmp_path / "mlruns").as_uri()
    code, out, err = cli(["export", run, "--to", "mlflow", "--tracking-uri", uri], capsys, monkeypatch, tmp_path)
    assert code == 0 and "(created)" in out, err
    client = mlflow.tracking.MlflowClient(tracking_uri=uri)
    exp = client.get_experiment_by_name("specscope")
    (r,) = client.search_runs([exp.experiment_id])
    params, metrics, tags = r.data.params, r.data.metrics, r.data.tags
    assert params["configs"] == "base,mtp" and params["baseline"] == "base" and params["levels"] == "2"
    assert params["engine.mtp.model"] == "HuggingFaceTB/SmolLM2-135M-Instruct"
    (cmp,) = report_json(run)["comparisons"]
    assert math.isclose(metrics["cmp.mtp.imported.2.speedup"], cmp["speedup"])
    assert math.isclose(metrics["cmp.mtp.imported.2.low"], cmp["low"])
    assert math.isclose(metrics["cmp.mtp.imported.2.high"], cmp["high"])
    assert metrics["cmp.mtp.imported.2.rounds"] == cmp["rounds"] == 2  # what the interval rests on
    assert "max_tokens" not in params and "temperature" not in params  # imported: never the string "None"
    assert metrics["cell.base.imported.2.r0.output_tok_s"] == 120 / 4.0
    assert metrics["cell.mtp.imported.2.r1.acceptance_length"] == 2.875
    assert "cell.base.imported.2.r0.acceptance_rate" not in metrics  # absent stays absent
    assert tags["verdict.mtp.imported.2"] == cmp["verdict"]
    names = sorted(a.path for a in client.list_artifacts(r.info.run_id))
    assert names == ["report.html", "report.json"]
    local = Path(client.download_artifacts(r.info.run_id, "report.json", str(tmp_path)))
    assert json.loads(local.read_text())["comparisons"][0]["speedup"] == cmp["speedup"]
    # again: the same MLflow run, nothing duplicated
    code, out, _ = cli(["export", run, "--to", "mlflow", "--tracking-uri", uri], capsys, monkeypatch, tmp_path)
    assert code == 0 and "(unchanged)" in out and r.info.run_id in out
    assert len(client.search_runs([exp.experiment_id])) == 1


def test_a_changed_run_replaces_its_mlflow_run(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")
    run = _run(tmp_path, capsys, monkeypatch)
    uri = (tmp_path / "mlruns").as_uri()
    assert cli(["export", run, "--to", "mlflow", "--tracking-uri", uri], capsys, monkeypatch, tmp_path)[0] == 0
    more = DATA / "imports" / "sglang_eagle.jsonl"
    code, _, _ = cli(
        ["import", more, "--config", "eagle", "--workload", "imported", "--out", run], capsys, monkeypatch, tmp_path
    )
    assert code == 0
    code, out, _ = cli(["export", run, "--to", "mlflow", "--tracking-uri", uri], capsys, monkeypatch, tmp_path)
    assert code == 0 and "(replaced)" in out
    client = mlflow.tracking.MlflowClient(tracking_uri=uri)
    (r,) = client.search_runs([client.get_experiment_by_name("specscope").experiment_id])
    assert r.data.params["configs"] == "base,eagle,mtp" and r.data.params["levels"] == "2,4"


def test_alarms_and_failed_cells_are_tags_and_a_failed_cell_has_no_figure(tmp_path, capsys, monkeypatch):
    """An alarm the report raises is a tag (alarm.CODE.CONFIG.WORKLOAD); a failed cell's status is a tag and its
    figures are not logged, as the report leaves them out (fresh-user finding, 2026-12-05)."""
    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")
    run = _run(tmp_path, capsys, monkeypatch)
    doc = json.loads((DATA / "imports" / "vllm_mtp_r0.json").read_text())
    doc.update(completed=0, failed=4, duration=4.5, spec_decode_acceptance_rate=0.5, spec_decode_num_drafts=100)
    bad = tmp_path / "eagle_r0.json"
    bad.write_text(json.dumps(doc))
    assert cli(["import", bad, "--config", "eagle", "--out", run], capsys, monkeypatch, tmp_path)[0] == 0
    zero = []
    for i in (0, 1):  # a speculative config whose server drafted nothing: NOT_ENGAGED
        d = json.loads((DATA / "imports" / f"vllm_mtp_r{i}.json").read_text())
        d.update(spec_decode_num_drafts=0, spec_decode_draft_tokens=0, spec_decode_accepted_tokens=0)
        d.pop("spec_decode_acceptance_rate", None)
        zero.append(tmp_path / f"mtp_off_r{i}.json")
        zero[-1].write_text(json.dumps(d))
    assert cli(["import", *zero, "--config", "mtp-off", "--out", run], capsys, monkeypatch, tmp_path)[0] == 0
    report = report_json(run)
    assert {a["code"] for a in report["judged_alarms"] if a["config"] == "mtp-off"} == {"NOT_ENGAGED"}
    (failed,) = [c for c in report["cells"] if c["config"] == "eagle"]
    assert failed["status"] == "failed"
    uri = (tmp_path / "mlruns").as_uri()
    assert cli(["export", run, "--to", "mlflow", "--tracking-uri", uri], capsys, monkeypatch, tmp_path)[0] == 0
    client = mlflow.tracking.MlflowClient(tracking_uri=uri)
    (r,) = client.search_runs([client.get_experiment_by_name("specscope").experiment_id])
    assert r.data.tags["status.eagle.imported.2.r0"] == "failed"
    assert not [k for k in r.data.metrics if k.startswith("cell.eagle.")]
    for a in report["judged_alarms"]:
        assert r.data.tags[f"alarm.{a['code']}.{a['config']}.{a['workload']}"] == str(a["figure"])


def _drifting_run(path: Path) -> Path:
    """base then mtp in blocks, the baseline speeding up 0.02 %/s, confirmed by sentinel cells across the run: the
    judgement raises a run-wide DRIFT alarm (no workload) and leaves mtp's +3 % undetermined for DRIFT."""
    from dataclasses import replace

    from factmaker import cell_facts
    from specscope.store import create_run

    run = create_run(path, {"kind": "bench", "baseline": "base"})

    def timed(cfg: str, rep: int, at_s: float, tok_s: float) -> None:
        clock = {"started_at_s": 1_800_000_000.0 + at_s, "ended_at_s": 1_800_000_005.0 + at_s}
        run.save_cell(replace(cell_facts(cfg, "prose", 1, rep, tok_s), client=ClientFacts.from_dict({"clock": clock})))

    machine = [100.0 * math.exp(0.0002 * t) for t in (0.0, 20.0, 40.0, 60.0)]
    for rep, at_s in enumerate((0.0, 20.0, 40.0, 60.0)):
        timed("base", rep, at_s, machine[rep] * (1.0 + 0.001 * (-1) ** rep))
    for rep, at_s in enumerate((200.0, 220.0, 240.0, 260.0)):
        timed("mtp", rep, at_s, 1.03 * sum(machine) / 4 * (1.0 - 0.001 * (-1) ** rep))
    for rep, at_s in enumerate((100.0, 180.0, 280.0, 300.0)):
        timed("base~sentinel", rep, at_s, 100.0 * math.exp(0.0002 * at_s))
    run.close()
    return path


def test_a_run_wide_alarm_and_a_verdicts_reasons_are_tags_without_a_none(tmp_path, capsys, monkeypatch):
    """The report says 'undetermined (DRIFT)' and raises ALARM DRIFT (base) for the whole run; the MLflow run had
    ``alarm.DRIFT.base.None`` (the string None for the absent workload) and a bare ``undetermined`` with nothing to
    say why (fresh-user finding, 2026-12-05)."""
    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")
    run = _drifting_run(tmp_path / "run")
    report = report_json(run)
    (alarm,) = report["judged_alarms"]
    assert (alarm["code"], alarm["workload"]) == ("DRIFT", None)
    (cmp,) = report["comparisons"]
    assert cmp["verdict"] == "undetermined" and [r["code"] for r in cmp["reasons"]] == ["DRIFT"]
    uri = (tmp_path / "mlruns").as_uri()
    assert cli(["export", run, "--to", "mlflow", "--tracking-uri", uri], capsys, monkeypatch, tmp_path)[0] == 0
    client = mlflow.tracking.MlflowClient(tracking_uri=uri)
    (r,) = client.search_runs([client.get_experiment_by_name("specscope").experiment_id])
    tags = r.data.tags
    assert not [k for k in tags if "None" in k]
    assert tags["alarm.DRIFT.base"] == str(alarm["figure"])
    assert tags["verdict.mtp.prose.1"] == "undetermined"
    assert tags["reasons.mtp.prose.1"] == "DRIFT"


@pytest.mark.parametrize(
    ("uri", "found"),
    [
        ("::::", "::::: MlflowException: "),  # a bare path: MLflow's file store, refused unless opted in
        ("http://[::zz]", "http://[::zz]: ValueError: '::zz' does not appear to be an IPv4 or IPv6 address"),
    ],
)
def test_a_tracking_uri_mlflow_cannot_use_is_refused(uri, found, tmp_path, capsys, monkeypatch):
    """``--tracking-uri ::::`` and ``http://[::zz]`` were internal errors (exit 3: MlflowException from the client's
    constructor, ValueError from the first request); now a refusal by name (exit 2) with the forms MLflow takes."""
    run = _run(tmp_path, capsys, monkeypatch)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("MLFLOW_ALLOW_FILE_STORE", raising=False)
    code, _, err = cli(["export", run, "--to", "mlflow", "--tracking-uri", uri], capsys, monkeypatch, tmp_path)
    assert code == 2
    assert "error: --tracking-uri is no tracking URI MLflow can use; found: " in err
    assert found in err
    assert "expected: http(s)://HOST:PORT of an MLflow server or a folder as a file: URI (file:///ABS/PATH)" in err


def test_a_bare_folder_as_tracking_uri_is_told_its_file_uri_and_that_runs(tmp_path, capsys, monkeypatch):
    """`--tracking-uri ./mlruns` (the help's own default, typed out) was refused with the fix 'pass --tracking-uri
    http://127.0.0.1:5000 (or leave it out: ./mlruns)': no command that writes to the folder asked for. Now the fix
    names the folder's file: URI, which MLflow takes (new-user finding, 2026-12-06)."""
    run = _run(tmp_path, capsys, monkeypatch)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("MLFLOW_ALLOW_FILE_STORE", raising=False)
    code, _, err = cli(["export", run, "--to", "mlflow", "--tracking-uri", "./mlruns"], capsys, monkeypatch, tmp_path)
    uri = (tmp_path / "mlruns").resolve().as_uri()
    assert code == 2 and err.rstrip().endswith(f"fix: pass the folder as a file: URI, --tracking-uri {uri}"), err
    code, out, err = cli(["export", run, "--to", "mlflow", "--tracking-uri", uri], capsys, monkeypatch, tmp_path)
    assert code == 0 and "(created)" in out and uri in out, err
    # MLflow 3's client refuses a file store unless told (user62: reading the export back raised MlflowException)
    assert "read it back with MLFLOW_ALLOW_FILE_STORE=true set (e.g. `MLFLOW_ALLOW_FILE_STORE=true mlflow ui " in out
    assert f"--backend-store-uri {uri}`): MLflow's file store is in maintenance mode" in " ".join(out.split())


def test_the_tracking_uri_help_says_a_folder_is_given_as_a_file_uri(tmp_path, capsys, monkeypatch):
    """`export --help` said `--tracking-uri`'s default is ./mlruns, and README the same, so a user typed
    `--tracking-uri /tmp/x/mlruns` and got exit 2: a folder is taken only as a file: URI (the default is ./mlruns as
    one). The help now says so (new-user finding, 2026-12-06)."""
    monkeypatch.setenv("COLUMNS", "300")
    _, out, _ = cli(["export", "--help"], capsys, monkeypatch, tmp_path)
    assert "a folder as a file: URI (file:///ABS/PATH)" in out, out
    assert "default: ./mlruns as a file: URI" in out, out


@pytest.mark.parametrize("where", ["the run", "inside the run", "default in the run"])
def test_a_tracking_store_in_the_run_folder_is_refused_and_the_run_untouched(where, tmp_path, capsys, monkeypatch):
    """attack50: `export RUN --to mlflow --tracking-uri file:///ABS/RUN` wrote MLflow's experiment folder into RUN
    (exit 0, after a traceback MLflow printed reading RUN/logs as an experiment); so did the default ./mlruns from
    inside RUN. A run is read-only after bench: the store is refused by name, as -o inside what a command reads is."""
    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")
    run = _run(tmp_path, capsys, monkeypatch)
    before = sorted(p.name for p in run.iterdir())
    argv = ["export", run, "--to", "mlflow"]
    if where == "default in the run":
        monkeypatch.chdir(run)
    else:
        argv += ["--tracking-uri", (run if where == "the run" else run / "mlruns").resolve().as_uri()]
    code, _, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code == 2, err
    assert "error: --tracking-uri would write into what this command reads; found: " in err
    assert f"inside {run}" in err or f"the run folder {run}" in err
    assert sorted(p.name for p in run.iterdir()) == before


@pytest.mark.parametrize("store", ["/dev/null", "a-file", "a-file/sub"])
def test_a_file_uri_of_no_folder_is_refused_by_name(store, tmp_path, capsys, monkeypatch):
    """attack53: `export RUN --to mlflow --tracking-uri file:///dev/null` was exit 3 (NotADirectoryError: MLflow's
    file store making '/dev/null/.trash'); so was a file: URI of a regular file or a path under one. Now exit 2 naming
    the store and the system's words, nothing written."""
    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")
    run = _run(tmp_path, capsys, monkeypatch)
    (tmp_path / "a-file").write_text("x")
    path = Path(store) if store.startswith("/") else tmp_path / store
    uri = "file://" + str(path)
    code, _, err = cli(["export", run, "--to", "mlflow", "--tracking-uri", uri], capsys, monkeypatch, tmp_path)
    assert code == 2, err
    assert f"error: --tracking-uri names a store MLflow cannot write; found: {uri}: Not a directory" in err
    fix = f"fix: pass --tracking-uri of a folder you can write, e.g. --tracking-uri {(tmp_path / 'mlruns').as_uri()}"
    assert fix in err, err
    assert (tmp_path / "a-file").read_text() == "x"


def test_a_database_uri_is_refused_by_name_and_never_offered(tmp_path, capsys, monkeypatch):
    """Issue 37: `--tracking-uri sqlite:////tmp/x.db` was refused by MLflow's model registry (the `mlflow` extra is
    mlflow-skinny: no SQLAlchemy, no database store) while the refusal's own expected offered "a database URI
    (sqlite:///mlflow.db)" and the help "sqlite:///FILE". Now the refusal says MLflow has no database store here and
    points to a file: URI; neither it nor the help offers sqlite."""
    pytest.importorskip("mlflow")
    try:
        import sqlalchemy  # noqa: F401

        pytest.skip("a full MLflow with SQLAlchemy may take a database URI")
    except ImportError:
        pass
    run = _run(tmp_path, capsys, monkeypatch)
    monkeypatch.chdir(tmp_path)
    uri = f"sqlite:///{tmp_path / 'x.db'}"
    code, out, err = cli(["export", run, "--to", "mlflow", "--tracking-uri", uri], capsys, monkeypatch, tmp_path)
    assert code == 2 and out == "", err
    line = [x for x in err.splitlines() if x.startswith("error:")][0]
    assert line == (
        f"error: --tracking-uri names a database store this MLflow cannot use; found: {uri} (the MLflow installed "
        "has no database store: the mlflow extra is mlflow-skinny, without SQLAlchemy); expected: "
        "http(s)://HOST:PORT of an MLflow server or a folder as a file: URI (file:///ABS/PATH); fix: pass "
        f"--tracking-uri {(tmp_path / 'mlruns').as_uri()}, or an MLflow server's URL"
    )
    assert not (tmp_path / "x.db").exists()
    monkeypatch.setenv("COLUMNS", "300")
    _, help_text, _ = cli(["export", "--help"], capsys, monkeypatch, tmp_path)
    assert "sqlite" not in help_text
