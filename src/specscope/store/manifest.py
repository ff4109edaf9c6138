"""The run manifest (``manifest.json``): a pydantic model with a schema version.

Schema history:
- 1: ``run.sqlite`` kept a derived summary per cell (``cells.summary_json``); still readable, the summaries are
  derived again from the stored facts (see :mod:`specscope.store.schema`).
- 2: facts only; every figure is derived when the run is read (:func:`specscope.stats.cells.summarize_run`).

A required field that is missing, or a field of the wrong type, is a :class:`ManifestError` naming the schema
version. A top-level field the model does not know (a newer specscope's, or a hand edit) is kept as stored and
named (:meth:`RunManifest.unknown_fields`, a note in the report); a run holding one can be read but not written to
(:func:`refuse_unknown_fields`), and the writers of this version may not add one (``validate_manifest(...,
reading=False)``). ``options`` is checked against the fields of
:class:`specscope.config.BenchOptions` it holds (types and ranges; a field this version does not know is kept
as stored). The file is read as a regular file of at most :data:`MAX_MANIFEST_BYTES`, its JSON parsed by
pydantic's JSON parser (nesting and number size bounded): a damaged manifest is a :class:`ManifestError`, never a crash.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, model_validator

from specscope import strictjson
from specscope.errors import StoreError
from specscope.textsafe import clip

if TYPE_CHECKING:
    from specscope.config import BenchOptions, RunOptions

__all__ = [
    "CrashRecord",
    "CrashTrial",
    "SCHEMA_VERSION",
    "READABLE_SCHEMAS",
    "MAX_MANIFEST_BYTES",
    "ManifestError",
    "RunManifest",
    "manifest_record",
    "read_manifest",
    "refuse_unknown_fields",
    "validate_manifest",
    "stored_bench_options",
]

#: the largest manifest.json read (bytes); bench writes a few KiB.
MAX_MANIFEST_BYTES = 16 * 2**20

SCHEMA_VERSION = 2
READABLE_SCHEMAS = (1, 2)


class ManifestError(StoreError):
    """A ``manifest.json`` with unknown or missing fields, or of a schema version this code cannot read."""


class CrashTrial(BaseModel):
    """One crash trial as ``bench`` stores it (``specscope.bench.crash_trials``' docstring has the shape): the
    fields the report reads are typed; a trial without ``error`` ran and carries its counts."""

    model_config = ConfigDict(extra="allow", frozen=True)

    trial: int
    crashed: bool
    log: str
    error: str | None = None
    planned: int | None = Field(default=None, ge=0)
    ok: int | None = Field(default=None, ge=0)
    failed: int | None = Field(default=None, ge=0)
    not_sent: int | None = Field(default=None, ge=0)
    last_engine_stats: dict[str, Any] | None = None

    @model_validator(mode="after")
    def _counts_when_run(self) -> CrashTrial:
        if self.error is None and None in (self.planned, self.ok, self.failed, self.not_sent):
            raise ValueError("a trial that ran has planned / ok / failed / not_sent counts")
        return self


class LevelNotRun(BaseModel):
    """A level of a crashed config that was not run (``levels_not_run`` of a :class:`CrashRecord`): the level, how
    many cells it held and why it was not run."""

    model_config = ConfigDict(extra="allow", frozen=True)

    level: int
    cells: int = Field(ge=0)
    why: str


class CrashRecord(BaseModel):
    """One crash of a config and its trials (manifest ``crash_trials[CONFIG]`` is a list of these): the workload and
    level it crashed at, the trials in which the server died of those run (``crashed_in`` of ``of``), the levels not
    run and the sentence saying what the sweep did next; each is None where a hand-made record leaves it out."""

    model_config = ConfigDict(extra="allow", frozen=True)

    level: int = Field(ge=1)
    workload: str | None = None
    crashed_in: int | None = Field(default=None, ge=0)
    of: int | None = Field(default=None, ge=0)
    trials: list[CrashTrial] = Field(default_factory=list)
    levels_not_run: list[LevelNotRun] = Field(default_factory=list)
    note: str | None = None


class ImportRecord(BaseModel):
    """One record imported from another tool's result file (manifest ``imports`` is a list of these;
    :func:`specscope.importers.write.import_files` writes them): the report's imports table reads each field. A record
    left out (a closed loop of a file whose request rates were imported...) has no ``cell`` and says why in
    ``left_out``."""

    model_config = ConfigDict(extra="allow", frozen=True)

    file: str | None = None
    sha256: str | None = None
    record: int | None = None
    shape: str | None = None
    tool: str | None = None
    cell: str | None = None
    load: str | None = None
    not_recorded: list[str] = Field(default_factory=list)
    #: why the record is not a cell (None: it is one; ``cell`` is then None)
    left_out: str | None = None


class MachineFacts(BaseModel):
    """The machine the run was measured on (:func:`specscope.bench.machine.machine_facts`)."""

    model_config = ConfigDict(extra="allow", frozen=True)

    platform: str | None = None
    cpu: str | None = None
    cpu_count: int | None = None
    memory_bytes: int | None = None
    python: str | None = None
    hostname: str | None = None


class PackRecord(BaseModel):
    """A workload's prompt pack as the manifest records it (``packs``; :mod:`specscope.workload.packs`): its form
    (``plain``, ``prefill``, ``file``...) and whatever else its writer keeps (kept, not read here)."""

    model_config = ConfigDict(extra="allow", frozen=True)

    form: str | None = None


class RefusedRow(BaseModel):
    """A row a dataset or trace refused (:meth:`specscope.workload.dataset_rows.Refusal.to_dict`): its id, the kind
    of refusal and the reason."""

    model_config = ConfigDict(extra="allow", frozen=True)

    row: str | int | None = None
    kind: str | None = None
    reason: str | None = None


class SourceFile(BaseModel):
    """A file a dataset was read from: a local ``path`` with its ``sha256``, or a hub dataset's ``hub_id`` and
    ``split``."""

    model_config = ConfigDict(extra="allow", frozen=True)

    path: str | None = None
    sha256: str | None = None
    hub_id: str | None = None
    split: str | None = None


class CategoryCoverage(BaseModel):
    """The categories a dataset file holds against its published list (``categories_against``)."""

    model_config = ConfigDict(extra="allow", frozen=True)

    present: list[str] = Field(default_factory=list)
    full_list: list[str] = Field(default_factory=list)
    missing: list[str] = Field(default_factory=list)


class DatasetSource(BaseModel):
    """One ``--dataset``'s provenance (manifest ``datasets``; :func:`specscope.workload.datasets.load_dataset`,
    completed by the bench's context check and row counts)."""

    model_config = ConfigDict(extra="allow", frozen=True)

    dataset: str | None = None
    spec: str | None = None
    config: str | None = None
    revision: str | None = None
    files: list[SourceFile] = Field(default_factory=list)
    rows_total: int | None = None
    rows_used: int | None = None
    rows_refused: list[RefusedRow] = Field(default_factory=list)
    context_check: str | None = None
    rows_sent_per_repeat: int | None = None
    categories: CategoryCoverage | None = None


class TraceSource(BaseModel):
    """The ``--trace`` replayed (manifest ``trace``; :meth:`specscope.workload.trace.Trace.provenance`, completed by
    the context check and the prompt builder's ``units``)."""

    model_config = ConfigDict(extra="allow", frozen=True)

    path: str | None = None
    format: str | None = None
    sha256: str | None = None
    rows_total: int | None = None
    rows_used: int | None = None
    time_scale: int | float | None = None  # as stored: 1 stays 1 in the report
    reordered: bool = False
    rows_refused: list[RefusedRow] = Field(default_factory=list)
    context_check: str | None = None
    units: str | None = None


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
        cells_done / cells_total: stored / planned cells (a record for the reader: ``--resume`` derives the plan
            from the options, never from these).
        crashes: config -> label of the cell during which its server died.
        stopped: the refusal that ended the run after its folder was made (one line: message, found, expected, fix;
            secrets masked), e.g. a server whose every ``/tokenize`` answer is of the wrong shape; ``--resume``
            clears it when it starts again (issue 37).
        crash_trials: config -> the crash's level, its confirming trials and the levels not run
            (:mod:`specscope.bench.crash_trials`).
        preflight: config -> the pre-flight audit's outcome for launched recipes (``--no-preflight`` recorded).
        datasets: per ``--dataset``, its provenance (dataset, config, revision, files with SHA-256, rows used, rows
            refused with reasons; :class:`specscope.workload.datasets.DatasetLoad`).
        trace: the ``--trace`` replayed (file, format, SHA-256, rows, time scale; :mod:`specscope.workload.trace`).
        imports: per record imported from another tool's result file (``specscope import``): file, SHA-256, record,
            shape, tool, the cell it became, its load and what the tool did not record (:mod:`specscope.importers`).
    """

    model_config = ConfigDict(extra="allow", frozen=True)  # kept as stored and named: unknown_fields()

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
    machine: MachineFacts | None = None
    versions: dict[str, str] | None = None
    packs: dict[str, PackRecord] | None = None
    token_source: str | None = None
    acceptance_source: str | None = None
    command: list[str] | None = None
    model_bytes: int | None = None
    finished: bool | None = None
    cells_done: int | None = None
    cells_total: int | None = None
    crashes: dict[str, str] | None = None
    stopped: str | None = None
    crash_trials: dict[str, list[CrashRecord]] | None = None
    preflight: dict[str, Any] | None = None
    datasets: list[DatasetSource] | None = None
    trace: TraceSource | None = None
    imports: list[ImportRecord] | None = None

    def stored_options(self) -> RunOptions:
        """The bench options the run stored, as the report and the statistics read them
        (:class:`specscope.config.RunOptions`: absent ones None, unknown ones named)."""
        from specscope.config import RunOptions

        return RunOptions.from_stored(self.options)

    def unknown_fields(self) -> tuple[str, ...]:
        """Top-level fields this version does not know (kept as stored, never read), sorted."""
        return tuple(sorted(self.model_extra or ()))

    def to_json(self) -> dict[str, Any]:
        """The manifest as stored (the fields it sets), for the JSON report."""
        return self.model_dump(mode="json", exclude_unset=True)


def validate_manifest(data: Any, where: Path | str, *, reading: bool = False) -> dict[str, Any]:
    """``data`` checked against :class:`RunManifest`; returns it as a JSON-ready dict of the fields it sets.

    Args:
        reading: a stored manifest read (a field this version does not know is kept as stored and named by
            :meth:`RunManifest.unknown_fields`); otherwise one this version writes, where such a field is refused.

    Raises:
        ManifestError: not an object, a schema version this code cannot read, an unknown field (when writing), a
            missing required field or a field of the wrong type.
    """
    if not isinstance(data, dict):
        raise ManifestError(
            f"{where} is not a specscope run manifest",
            found=type(data).__name__,
            expected=f"a JSON object with schema_version {SCHEMA_VERSION}",
            fix="pass a folder that `specscope bench` or `specscope import` created",
        )
    version = data.get("schema_version")
    if version not in READABLE_SCHEMAS:
        raise ManifestError(
            f"{where} is not a specscope run manifest of a version this specscope reads",
            found=f"schema_version {version}",
            expected=f"schema_version {' or '.join(map(str, READABLE_SCHEMAS))}",
            fix="re-run the benchmark with this version of specscope, or read it with the version that wrote it",
        )
    model = None
    try:
        model = RunManifest.model_validate(data)
        problems = [f"{k}: unknown field" for k in model.unknown_fields()] if not reading else []
    except ValidationError as exc:
        problems = [f"{'.'.join(map(str, e['loc']))}: {_short(e['type'], e['msg'])}" for e in exc.errors()]
    if problems:
        raise ManifestError(
            f"{where} does not match run manifest schema {version}",
            found="; ".join(problems),
            expected=f"the fields of RunManifest schema_version {version}",
            fix="restore the manifest the run wrote, or re-run the benchmark with this version of specscope",
        ) from None
    assert model is not None  # problems is empty
    _check_options(model.options, where, version)
    return model.model_dump(mode="json", exclude_unset=True)


def manifest_record(manifest: Mapping[str, Any] | None) -> RunManifest:
    """The typed record of a manifest :func:`validate_manifest` returned (``Run.manifest``); None or an empty one
    (``advise --from-csv``: no run) reads as a manifest with no field set but its version."""
    if not manifest:
        return RunManifest.model_construct(schema_version=SCHEMA_VERSION, kind="none")
    return RunManifest.model_validate(manifest)


def read_manifest(path: Path) -> dict[str, Any]:
    """The validated manifest of the file at ``path`` (:func:`validate_manifest`).

    Raises:
        ManifestError: not a regular file of at most :data:`MAX_MANIFEST_BYTES`, not UTF-8 JSON, nested too deep,
            a number too long, or a manifest :func:`validate_manifest` refuses.
    """
    from specscope.readfile import read_limited

    try:
        raw = read_limited(path, MAX_MANIFEST_BYTES)
        data = TypeAdapter(Any).validate_json(raw)
    except (OSError, ValueError) as exc:  # ValueError: FileTooLarge, and pydantic's ValidationError (not JSON)
        what = exc.errors()[0]["msg"] if isinstance(exc, ValidationError) else f"{type(exc).__name__}: {exc}"
        raise ManifestError(
            f"{path} cannot be read",
            found=what[:300],
            expected=f"a UTF-8 JSON manifest of at most {MAX_MANIFEST_BYTES:,} bytes",
            fix="restore the file or start a new run",
        ) from None
    try:  # a key twice (a hand edit): the parser kept the last value silently (issue 37)
        strictjson.loads(raw, unique_keys=True)
    except strictjson.DuplicateKey as exc:
        raise ManifestError(
            f"{path} holds a key twice in one object",
            found=f"{exc.key!r} is {clip(repr(exc.first), 60)}, then again {clip(repr(exc.again), 60)}",
            expected="each key once per object, as specscope writes it",
            fix=f"keep the one you mean and delete the other in {path}",
        ) from None
    except ValueError:  # read above; pydantic's reader and json's differ only on what each refuses
        pass
    return validate_manifest(data, path, reading=True)


def refuse_unknown_fields(manifest: Mapping[str, Any], where: Path | str) -> None:
    """Refuse to write to a run whose manifest holds top-level fields this version does not know (a newer
    specscope's): resuming it here would drop their meaning.

    Raises:
        ManifestError: naming the fields.
    """
    unknown = manifest_record(manifest).unknown_fields()
    if unknown:
        raise ManifestError(
            f"{where} holds manifest fields this specscope does not know: {', '.join(unknown)}",
            found=f"{unknown[0]}: {manifest[unknown[0]]!r:.60}",
            expected="only the fields bench of this version writes (the run can still be read: specscope report RUN)",
            fix="continue the run with the specscope version that wrote it, or start a new run",
        )


def _check_options(options: Any, where: Path | str, version: Any) -> None:
    """``options``: each field :class:`~specscope.config.BenchOptions` knows has its type and range.

    Raises:
        ManifestError: naming the first field that does not.
    """
    from specscope.config import BenchOptions

    known = {k: v for k, v in (options or {}).items() if k in BenchOptions.model_fields}
    try:
        BenchOptions.model_validate(known)
    except ValidationError as exc:
        e = exc.errors()[0]
        raise ManifestError(
            f"{where} does not match run manifest schema {version}",
            found=f"options.{'.'.join(map(str, e['loc']))}: {e['msg']} (stored {e.get('input')!r:.60})",
            expected="the bench options a bench run stores",
            fix="restore the manifest the run wrote, or re-run the benchmark with this version of specscope",
        ) from None


def stored_bench_options(manifest: dict[str, Any], where: Path | str) -> BenchOptions:
    """The bench matrix a stored run was made with (``manifest["options"]``), for ``--resume`` and ``--like``.

    Reading a run keeps an option this version does not know as stored (:func:`_check_options`); running more
    cells of it cannot, so such an option (renamed, or from another version) is refused by name.

    Raises:
        ManifestError: an option this version does not know, or one of the wrong type.
    """
    from specscope.config import BenchOptions

    options = manifest.get("options")
    if not options:  # null or {}: read as the defaults, a resume ran (or refused) the quick profile's matrix
        raise ManifestError(
            f"{where} stores no bench options",
            found=f"options: {options}",
            expected="the bench options the run was made with (an object of option values)",
            fix="start a new run with the options given again by hand",
        )
    unknown = sorted(k for k in options if k not in BenchOptions.model_fields)
    if unknown:
        raise ManifestError(
            f"{where} holds bench options this specscope does not know: {', '.join(unknown)}",
            found=f"options.{unknown[0]}: {options[unknown[0]]!r:.60}",
            expected="only the options bench of this version stores (`specscope bench --help`)",
            fix="continue the run with the specscope version that wrote it, or start a new run with the options "
            "given again by hand",
        )
    _check_options(options, where, manifest.get("schema_version"))
    return BenchOptions.model_validate(options)


def _short(kind: str, msg: str) -> str:
    return {"extra_forbidden": "unknown field", "missing": "missing field"}.get(kind, msg)
