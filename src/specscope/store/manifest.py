"""The run manifest (``manifest.json``): a pydantic model with a schema version.

Schema history:
- 1: ``run.sqlite`` kept a derived summary per cell (``cells.summary_json``); still readable, the summaries are
  derived again from the stored facts (see :mod:`specscope.store.schema`).
- 2: facts only; every figure is derived when the run is read (:func:`specscope.stats.cells.summarize_run`).

A manifest field that the model does not know, or a required one that is missing, is a :class:`ManifestError`
naming the schema version; nothing is silently dropped.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from specscope.errors import StoreError

__all__ = ["SCHEMA_VERSION", "READABLE_SCHEMAS", "ManifestError", "RunManifest", "validate_manifest"]

SCHEMA_VERSION = 2
READABLE_SCHEMAS = (1, 2)


class ManifestError(StoreError):
    """A ``manifest.json`` with unknown or missing fields, or of a schema version this code cannot read."""


class RunManifest(BaseModel):
    """Everything needed to reproduce a bench run (``manifest.json``).

    Attributes:
        schema_version: the layout of the run folder (see the module docstring).
        kind: ``"bench"`` (a gate run folder has its own manifest: ``specscope.gate.store``).
        created: ISO 8601 UTC time the run was created.
        options: the bench matrix (``specscope.config.BenchOptions`` as JSON).
        run_options: the options the run was given (command line, run file, ``--like``) by their names in the
            option spec, as parsed (``specscope.bench.spec``); ``--like RUN`` repeats them, ``--resume`` checks them.
        external_servers: config name -> URL of servers the user started, or None.
        engine: ``embedded``, ``vllm`` or ``external``.
        recipes: the vLLM recipes file (absolute path) or None.
        baseline: the config speedups are measured against.
        client: the client's settings and limits (``ClientSettings.describe()``).
        machine: platform, CPU, memory (bytes), Python, hostname.
        versions: installed distribution versions.
        packs: workload name -> prompt pack manifest.
        token_source / acceptance_source: where token counts and acceptance come from (text).
        command: the command line that started the run.
        model_bytes: the served model's size on disk (bytes), when known.
        finished: True once every planned cell is stored (or its config crashed).
        cells_done / cells_total: stored / planned cells.
        crashes: config -> label of the cell during which its server died.
        crash_trials: config -> the crash's level, its confirming trials and the levels not run
            (:mod:`specscope.bench.crash_trials`).
        preflight: config -> the pre-flight audit's outcome for launched recipes (``--no-preflight`` recorded).
        datasets: per ``--dataset``, its provenance (dataset, config, revision, files with SHA-256, rows used, rows
            refused with reasons; :class:`specscope.workload.datasets.DatasetLoad`).
        trace: the ``--trace`` replayed (file, format, SHA-256, rows, time scale; :mod:`specscope.workload.trace`).
    """

    model_config = ConfigDict(extra="forbid")

    schema_version: int
    kind: str
    created: str | None = None
    options: dict[str, Any] | None = None
    run_options: dict[str, Any] | None = None
    external_servers: dict[str, str] | None = None
    engine: str | None = None
    recipes: str | None = None
    baseline: str | None = None
    client: dict[str, Any] | None = None
    machine: dict[str, Any] | None = None
    versions: dict[str, str] | None = None
    packs: dict[str, Any] | None = None
    token_source: str | None = None
    acceptance_source: str | None = None
    command: list[str] | None = None
    model_bytes: int | None = None
    finished: bool | None = None
    cells_done: int | None = None
    cells_total: int | None = None
    crashes: dict[str, str] | None = None
    crash_trials: dict[str, Any] | None = None
    preflight: dict[str, Any] | None = None
    datasets: list[dict[str, Any]] | None = None
    trace: dict[str, Any] | None = None


def validate_manifest(data: Any, where: Path | str) -> dict[str, Any]:
    """``data`` checked against :class:`RunManifest`; returns it as a JSON-ready dict of the fields it sets.

    Raises:
        ManifestError: not an object, a schema version this code cannot read, an unknown field, a missing
            required field or a field of the wrong type.
    """
    if not isinstance(data, dict):
        raise ManifestError(
            f"{where} is not a specscope run manifest",
            found=type(data).__name__,
            expected=f"a JSON object with schema_version {SCHEMA_VERSION}",
            fix="pass a folder that `specscope bench` created",
        )
    version = data.get("schema_version")
    if version not in READABLE_SCHEMAS:
        raise ManifestError(
            f"{where} is not a specscope run manifest of a version this specscope reads",
            found=f"schema_version {version}",
            expected=f"schema_version {' or '.join(map(str, READABLE_SCHEMAS))}",
            fix="re-run the benchmark with this version of specscope, or read it with the version that wrote it",
        )
    try:
        model = RunManifest.model_validate(data)
    except ValidationError as exc:
        problems = [f"{'.'.join(map(str, e['loc']))}: {_short(e['type'], e['msg'])}" for e in exc.errors()]
        raise ManifestError(
            f"{where} does not match run manifest schema {version}",
            found="; ".join(problems),
            expected=f"the fields of RunManifest schema_version {version}",
            fix="restore the manifest the run wrote, or re-run the benchmark with this version of specscope",
        ) from None
    return model.model_dump(mode="json", exclude_unset=True)


def _short(kind: str, msg: str) -> str:
    return {"extra_forbidden": "unknown field", "missing": "missing field"}.get(kind, msg)
