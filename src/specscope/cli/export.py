"""``specscope export RUN --to mlflow|profile``: a run's report carried out of the run folder (:mod:`specscope.export`).

Exit codes: 0 exported; 2 not a run folder, an unknown ``--to``, ``--to profile`` without ``-o`` or on a run with no
per-position acceptance, MLflow not installed.
"""

from __future__ import annotations

import json
from pathlib import Path

import typer

from specscope.cli.command_options import ExportOutputOption, ExportToOption, TrackingUriOption
from specscope.cli.options import RequiredRunArgument
from specscope.cli.vocab import VocabCommand
from specscope.errors import ConfigError
from specscope.textsafe import shell_word

TARGETS = ("mlflow", "profile")


def _profile(run: Path, output: Path | None) -> None:
    from specscope.cli.output import make_output_folder, report_target
    from specscope.export.profile import is_folder_target, profile_paths, run_profiles, sidecar_path
    from specscope.fsio import link_target, write_json_atomic
    from specscope.report.build import run_data
    from specscope.store import open_run

    if output is None:
        raise ConfigError(
            "--to profile needs -o FILE or -o FOLDER",
            found="no -o",
            expected="-o FILE: where speculation_profile.json is written (a run of one profile), or -o FOLDER",
            fix=f"specscope export {shell_word(run)} --to profile -o speculation_profile.json",
        )
    side = sidecar_path(output)
    # -o FOLDER: the -o rules (not a source, not a special file) on the file written in it
    report_target(None, side if is_folder_target(output) else output, ("json",), format_option=False, reads=(run,))
    with open_run(run) as r:
        profiles, idle = run_profiles(run_data(r))
    paths = profile_paths(output, profiles)  # before anything is written: -o FILE with several profiles is refused
    for path in (*paths, side):  # the folder of each file written (of a link's target: fsio.link_target)
        make_output_folder(path)
    for note in idle:
        typer.echo(f"note: {note}", err=True)
    for p, path in zip(profiles, paths, strict=True):
        write_json_atomic(link_target(path), p.body, indent=2)  # a link the user names: written through
        typer.echo(f"{path}  ({p.config} / {p.workload} / {p.beside['load']} / {p.phase})")
        if never := p.beside.get("positions_never_drafted"):
            typer.echo(
                f"note: {p.config} / {p.workload} / {p.beside['load']} / {p.phase}: positions {never[0]}..{never[1]} "
                f"were never drafted (no draft was longer than {never[0] - 1} tokens): the rates stop at position "
                f"{never[0] - 1}",
                err=True,
            )
    beside = [{"file": str(path), **p.beside} for p, path in zip(profiles, paths, strict=True)]
    write_json_atomic(link_target(side), {"run": str(run), "profiles": beside}, indent=2)
    typer.echo(f"{side}  (what the schema has no field for)")


def _mlflow(run: Path, tracking_uri: str | None) -> None:
    from specscope.export.mlflow_run import export_mlflow
    from specscope.report.build import load_document
    from specscope.report.html import render_document_html
    from specscope.report.render import json_document

    doc = load_document([run])
    out = export_mlflow(json.loads(json_document(doc)), render_document_html(doc), run, tracking_uri)
    typer.echo(
        f"MLflow run {out.run_id} ({out.outcome}) in experiment {out.experiment_id} at {out.tracking_uri}: "
        f"{out.params} params, {out.metrics} metrics, report.json and report.html"
    )
    if out.tracking_uri.startswith("file:"):  # MLflow 3 opens its file store only when told (export sets it)
        typer.echo(
            "note: read it back with MLFLOW_ALLOW_FILE_STORE=true set (e.g. `MLFLOW_ALLOW_FILE_STORE=true mlflow ui "
            f"--backend-store-uri {out.tracking_uri}`): MLflow's file store is in maintenance mode and its client "
            "refuses to open it otherwise"
        )


def export_cmd(
    run: RequiredRunArgument,
    to: ExportToOption = "mlflow",
    output: ExportOutputOption = None,
    tracking_uri: TrackingUriOption = None,
) -> None:
    """Export a run to MLflow, or as speculation profiles (specdec_bench's schema).

    --to mlflow logs one MLflow run (params, metrics per cell and comparison, verdicts as tags, the
    JSON and HTML reports as artifacts; exporting again does not duplicate); --to profile writes speculation
    profiles in the speculation_profile.json schema of NVIDIA Model-Optimizer's specdec_bench, one profile per file
    (one per config x workload x level x phase): -o FILE.json is that file when the run has one profile (what the
    schema has no field for beside it in STEM.specscope.json); -o FOLDER (a folder, or a name without a suffix)
    holds CONFIG-WORKLOAD-LEVEL-PHASE.json for each and specscope.json. Every path written is printed; a
    speculative config's group whose server reported no drafts has no profile, and a note names it.

    Exit codes: 0 exported; 2 not a run, an invalid --to, --to profile without -o, -o FILE.json on a run of several
    profiles, no per-position acceptance, MLflow not installed."""
    if to not in TARGETS:  # the one wording of a value outside an option's choices
        raise ConfigError.invalid_value("--to", to, f"one of {', '.join(TARGETS)}", choices=TARGETS)
    from specscope.store import open_run

    with open_run(run):  # not a run: said before any option that only matters for a run (user63)
        pass
    wrong = ("--tracking-uri", tracking_uri, "--to mlflow") if to == "profile" else ("-o", output, "--to profile")
    if wrong[1] is not None:
        raise ConfigError(
            f"{wrong[0]} does not apply to --to {to}",
            found=f"--to {to} {wrong[0]} {wrong[1]}",
            expected=f"{wrong[0]} only with {wrong[2]}"
            + (" (MLflow keeps the run in its tracking store, not in a file)" if to == "mlflow" else ""),
            fix=f"drop {wrong[0]}" + (", or pass --to profile -o FILE.json" if to == "mlflow" else ""),
        )
    if tracking_uri is not None and not tracking_uri.strip():  # "" was taken as the default, ./mlruns
        raise ConfigError(
            "--tracking-uri is empty",
            found=repr(tracking_uri),
            expected="an MLflow tracking URI (http://HOST:PORT, file:///path) or a folder",
            fix="name the tracking store, or leave --tracking-uri out for ./mlruns",
        )
    if to == "profile":
        _profile(Path(run), output)
    else:
        _mlflow(Path(run), tracking_uri)


def register(app: typer.Typer) -> None:
    app.command("export", cls=VocabCommand)(export_cmd)
