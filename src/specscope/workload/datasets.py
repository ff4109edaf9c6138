"""Standard speculative-decoding datasets as workloads: ``--dataset NAME[:CONFIG][@REVISION]`` (+ ``--dataset-path``).

Each dataset's category becomes a workload: the rows of category ``C`` of dataset ``D`` form the workload ``D.C``
(``speed-bench.coding``, ``spec-bench.mt_bench``, ``blazedit.small``), so one run yields the per-category
acceptance matrix. A row with several turns is one conversation (:attr:`Prompt.follow_ups`): turn k+1 is sent
after the server's answer to turn k, with that answer in its history (``bench`` does the sending).

SPEED-Bench's ``throughput_*`` configs are not categories of the qualitative split: their category column holds
entropy tiers (``low_entropy``, ``mixed``, ``high_entropy``) and the config names an input-length tier, which is
a context axis: ``--dataset speed-bench:throughput_2k`` gives workloads ``speed-bench.mixed`` ... at context
``2k`` (the label ``speed-bench.mixed@2k``), never extended further (:mod:`specscope.bench.workloads`).

Columns, configs and sources: :mod:`specscope.workload.dataset_defs`; row readers and what they refuse:
:mod:`specscope.workload.dataset_rows`. Loading goes through the ``datasets`` library (extra
``specscope[datasets]``): from the hub when no path is given, else from local parquet / JSONL files (a folder may
hold the hub layout ``CONFIG/*.parquet`` or a prepared ``CONFIG.jsonl``). Nothing is downloaded at import time.

A file that is not the dataset (a missing or renamed column, a split used as another) is refused as a whole; rows
that are not workloads (placeholder or empty text, duplicate ids) are refused by id, and the run is refused unless
``drop_bad_rows`` (``--drop-bad-rows``), which runs without them and records each with its reason
(:attr:`DatasetLoad.provenance`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from specscope.errors import ConfigError
from specscope.workload.dataset_check import check_json_file, check_regular
from specscope.workload.dataset_defs import (
    DATASETS,
    SPEED_QUALITATIVE,
    SPEED_THROUGHPUT,
    categories_against,
    category_list,
    require_columns,
    tier_of,
)
from specscope.workload.dataset_rows import DatasetRow, Refusal, row_reader
from specscope.workload.prompt import Prompt

__all__ = [
    "DatasetSpec",
    "DatasetLoad",
    "parse_dataset_spec",
    "load_dataset",
    "load_dataset_prompts",
    "refusal_error",
    "dataset_categories",
]

_FIXES = {
    "placeholder": "fill the placeholder turns from their source with SPEED-Bench's prepare step (NeMo-Skills "
    "speed-bench/prepare.py) and pass its JSONL with --dataset-path, or pass --drop-bad-rows to run without them",
    "duplicate": "remove the repeated rows, or pass --drop-bad-rows to keep only the first of each id",
    "too_long": "pass a model with a longer context or a smaller --max-tokens, or --drop-bad-rows to run without them",
}


@dataclass(frozen=True)
class DatasetSpec:
    """A parsed ``--dataset`` value: name, config (None: the dataset has none) and the revision the user named."""

    name: str
    config: str | None
    revision: str | None = None

    def label(self) -> str:
        """``name[:config][@revision]``, as typed back."""
        return self.name + (f":{self.config}" if self.config else "") + (f"@{self.revision}" if self.revision else "")


@dataclass(frozen=True)
class DatasetLoad:
    """What one ``--dataset`` gave: workload -> its prompts (categories in first-seen order), the rows refused, and
    the provenance recorded in the run manifest (dataset, config, revision, files with SHA-256, rows used /
    refused with reasons, the source of the column definitions)."""

    spec: DatasetSpec
    workloads: dict[str, list[Prompt]]
    refused: tuple[Refusal, ...]
    provenance: dict[str, Any] = field(default_factory=dict)

    @property
    def tier_k(self) -> int | None:
        """The SPEED-Bench throughput input-length tier (kilo-tokens), None for any other config."""
        return tier_of(self.spec.config) if self.spec.name == "speed-bench" else None


def parse_dataset_spec(spec: str) -> DatasetSpec:
    """``"speed-bench:throughput_2k@487aa718"`` -> ``DatasetSpec("speed-bench", "throughput_2k", "487aa718")``.

    Raises:
        ConfigError: unknown dataset or config, or an empty revision.
    """
    head, at, revision = spec.partition("@")
    name, _, config = head.partition(":")
    example = "e.g. --dataset speed-bench:qualitative"
    if name not in DATASETS:
        raise ConfigError.invalid_value(
            "--dataset",
            spec,
            f"NAME[:CONFIG][@REVISION] with NAME one of {', '.join(DATASETS)}",
            choices=DATASETS,
            fix=example,
        )
    if at and not revision:
        raise ConfigError.invalid_value(
            "--dataset",
            spec,
            "NAME[:CONFIG]@REVISION (a revision after @)",
            fix="name the revision after @, or drop the @",
        )
    d = DATASETS[name]
    if d.configs is None:
        if config:
            raise ConfigError.invalid_value(
                "--dataset", spec, f"{name} (dataset {name} has no configs)", fix=f"e.g. --dataset {name}"
            )
        return DatasetSpec(name, None, revision or None)
    chosen = config or d.default_config or ""
    if chosen not in d.configs:
        raise ConfigError.invalid_value(
            "--dataset",
            spec,
            f"{name}:CONFIG with CONFIG one of {', '.join(d.configs)}",
            choices=d.configs,
            fix=f"e.g. --dataset {name}:{d.default_config}",
        )
    return DatasetSpec(name, chosen, revision or None)


def _library() -> Any:
    try:
        import datasets as hf_datasets
    except ImportError:
        raise ConfigError(
            "the datasets library is not installed",
            found="no module named datasets",
            expected="specscope[datasets]",
            fix="pip install 'specscope[datasets]'",
        ) from None
    hf_datasets.disable_progress_bars()  # its "Generating train split" bars would break the one-line errors
    # its "Failed to load JSON from file" log line too: the refusal names the cause (:func:`_read_local`)
    hf_datasets.logging.set_verbosity(hf_datasets.logging.CRITICAL)
    return hf_datasets


#: What a folder's data files may be named, in the order they are looked for (the first kind found is read).
_DATA_GLOBS = (("*.parquet",), ("*.jsonl", "*.jsonl.gz"), ("*.json", "*.json.gz"))
#: JSON files a ``datasets`` folder holds that are not rows (``save_to_disk`` / hub metadata).
_NOT_DATA = frozenset({"dataset_info.json", "state.json", "dataset_dict.json", "dataset_infos.json"})


def _folder_files(path: Path) -> list[Path]:
    """The data files of a folder: its parquet files, else its JSON Lines (``.jsonl``, ``.jsonl.gz``), else its JSON
    files (one array each, ``.json``, ``.json.gz``), never the library's metadata files."""
    for globs in _DATA_GLOBS:
        found = sorted(f for g in globs for f in path.rglob(g) if f.name not in _NOT_DATA and f.is_file())
        if found:
            return found
    return []


def _local_files(path: Path, spec: DatasetSpec) -> list[Path]:
    """The data files of ``spec`` under ``path``: the file itself; in a folder, the hub layout ``CONFIG/`` or a
    prepared ``CONFIG.jsonl`` / ``CONFIG.parquet`` when the config has one, else :func:`_folder_files`."""
    check_regular(path, spec.label())
    if path.is_file():
        return [path]
    files: list[Path] = []
    if path.is_dir():
        if spec.config and (path / spec.config).is_dir():
            path = path / spec.config
        named = [path / f"{spec.config}{ext}" for ext in (".jsonl", ".parquet")] if spec.config else []
        files = [f for f in named if f.is_file()] or _folder_files(path)
    if not files:
        raise ConfigError(
            f"no dataset file at {path}",
            found=str(path),
            expected="a .parquet, .jsonl or .json file (.gz too), or a folder holding them",
            fix="pass --dataset-path to the downloaded dataset",
        )
    return files


def _other_config_in_path(spec: DatasetSpec, files: Sequence[Path]) -> str | None:
    """A config of the same dataset (not the one asked for) that the files' path names, e.g. ``throughput_2k``."""
    configs = DATASETS[spec.name].configs or ()
    for f in files:
        parts = set(f.parts) | {f.stem}
        for other in configs:
            if other != spec.config and other in parts:
                return other
    return None


def _rows(spec: DatasetSpec, path: Path | None) -> tuple[list[dict[str, Any]], list[str], list[dict[str, Any]]]:
    """``(rows, column names, files)`` through the ``datasets`` library; files: ``[{path, sha256, bytes}]``."""
    lib = _library()
    d = DATASETS[spec.name]
    if path is None:
        if d.split is None:
            raise ConfigError(
                f"{spec.name} is not published as a hub dataset",
                found=d.hub_id,
                expected="a local copy",
                fix="download the file and pass --dataset-path FILE",
            )
        hub = d.hub_id.format(config=spec.config)
        config = None if "{config}" in d.hub_id else spec.config
        ds = lib.load_dataset(hub, config, split=d.split, revision=spec.revision)
        return list(ds), list(ds.column_names), [{"hub_id": hub, "split": d.split}]
    files = _local_files(path, spec)
    other = _other_config_in_path(spec, files)
    if other is not None:
        raise ConfigError(
            f"{spec.label()}: the file is the {other} config, not {spec.config}",
            found=str(files[0]),
            expected=f"the {spec.config} files of {spec.name}",
            fix=f"pass --dataset {spec.name}:{other}, or the {spec.config} files with --dataset-path",
        )
    ds = _read_local(lib, spec, files)
    described = [{"path": str(f.resolve()), "sha256": _sha256(f), "bytes": f.stat().st_size} for f in files]
    return list(ds), list(ds.column_names), described


def _read_local(lib: Any, spec: DatasetSpec, files: Sequence[Path]) -> Any:
    """The ``train`` split of local ``files`` through the ``datasets`` library (its parquet or json builder).

    Raises:
        ConfigError: an empty file, or a file the library cannot read (malformed JSON, not parquet, mixed columns):
            the library's own reason and the file, never its exception.
    """
    empty = [f for f in files if f.stat().st_size == 0]
    if empty:
        raise ConfigError(
            f"{spec.label()}: the dataset file is empty",
            found=f"{empty[0]}: 0 bytes" + (f" (and {len(empty) - 1} more empty files)" if len(empty) > 1 else ""),
            expected=f"the {spec.name} rows as JSONL or parquet",
            fix="download the file again, or pass --dataset-path to the folder that holds the data",
        )
    builder = "parquet" if files[0].suffix == ".parquet" else "json"
    if builder == "json":
        for f in files:
            check_json_file(f, spec.label())
    try:
        return lib.load_dataset(builder, data_files=[str(f) for f in files], split="train")
    except (lib.exceptions.DatasetsError, StopIteration, ValueError, TypeError, KeyError, OSError) as exc:
        raise ConfigError(
            f"{spec.label()}: the datasets library cannot read the file",
            found=f"{files[0] if len(files) == 1 else f'{len(files)} files under {files[0].parent}'}: {_cause(exc)}",
            expected=f"the {spec.name} rows as {'parquet' if builder == 'parquet' else 'JSON Lines'}",
            fix="fix the line or file named, or pass --dataset-path to the files as published",
        ) from None


def _cause(exc: BaseException) -> str:
    """The innermost reason of a library error (``JSON parse error: ... in row 22``), one line, bounded."""
    while exc.__cause__ is not None:  # the library's reason (pyarrow's, naming the row), not what it tried next
        exc = exc.__cause__
    text = " ".join(str(exc).split()) or type(exc).__name__
    if "corresponds to no data" in text:  # datasets' words for a split with no rows (blank lines only)
        text = "no rows in it (blank lines only)"
    return text if len(text) <= 300 else text[:300] + "..."


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _check_columns(spec: DatasetSpec, columns: list[str]) -> None:
    d = DATASETS[spec.name]
    needed = list(d.required())
    if spec.name == "speed-bench" and "turns" not in columns and "messages" in columns:
        needed = [c if c != "turns" else "messages" for c in needed]  # the prepared layout
    known = [c.name for c in d.columns] + (["messages"] if spec.name == "speed-bench" else [])
    require_columns(spec.name, spec.label(), columns, needed, known)


def _check_categories(spec: DatasetSpec, rows: Sequence[dict[str, Any]]) -> None:
    """Refuse a file whose categories are not the config's (a throughput file given as qualitative, and back)."""
    want = category_list(spec.name, spec.config)
    if want is None:
        return
    expected, words = want
    found = sorted({str(r.get("category")) for r in rows})
    unexpected = [c for c in found if c not in expected]
    if not unexpected:
        return
    hint = ""
    if spec.name == "speed-bench":
        if set(unexpected) <= SPEED_THROUGHPUT:
            hint = "a throughput split given as qualitative"
            fix = (
                "pass --dataset speed-bench:throughput_<tier> (1k, 2k, 8k, 16k or 32k: the file's tier), "
                "or the qualitative files"
            )
        elif set(unexpected) <= SPEED_QUALITATIVE:
            hint = "the qualitative split given as throughput"
            fix = "pass --dataset speed-bench:qualitative, or the throughput files of the tier"
        else:
            fix = "pass the SPEED-Bench files of the config named"
    else:
        fix = f"pass {spec.name}'s own file with --dataset-path"
    raise ConfigError(
        f"{spec.label()}: categories {', '.join(unexpected[:5])} are not {words}" + (f" ({hint})" if hint else ""),
        found=f"categories {', '.join(found[:12])}",
        expected=f"{words}: {', '.join(sorted(expected))}",
        fix=fix,
    )


def _read_rows(spec: DatasetSpec, rows: Sequence[dict[str, Any]]) -> tuple[list[DatasetRow], list[Refusal]]:
    reader = row_reader(spec.name)
    kept: list[DatasetRow] = []
    refused: list[Refusal] = []
    first: dict[str, int] = {}
    has_ids = DATASETS[spec.name].id_column is not None
    for i, raw in enumerate(rows):
        got = reader(raw, i)
        if isinstance(got, Refusal):
            refused.append(got)
            continue
        if has_ids and got.row_id in first:
            refused.append(Refusal(got.row_id, "duplicate", f"question_id repeats row {first[got.row_id]}"))
            continue
        first[got.row_id] = i
        kept.append(got)
    return kept, refused


def refusal_error(label: str, refused: Sequence[Refusal]) -> ConfigError:
    """The one-line error for rows that are not workloads: the first row's id and reason, and how many more."""
    r = refused[0]
    more = f" ({len(refused) - 1} more rows refused)" if len(refused) > 1 else ""
    return ConfigError(
        f"{label}: row {r.row_id} is not a workload: {r.reason}{more}",
        found=f"{len(refused)} bad rows, kinds {', '.join(sorted({x.kind for x in refused}))}",
        expected="every row with the text to send",
        fix=_FIXES.get(r.kind, "fix the rows named, or pass --drop-bad-rows to run without them"),
    )


def _prompts(spec: DatasetSpec, kept: Sequence[DatasetRow]) -> dict[str, list[Prompt]]:
    out: dict[str, list[Prompt]] = {}
    for row in kept:
        workload = f"{spec.name}.{row.category}"
        bucket = out.setdefault(workload, [])
        meta: dict[str, Any] = {"source": spec.label(), "question_id": row.row_id, "category": row.category, **row.meta}
        meta["row_id"] = row.row_id
        if spec.config:
            meta["config"] = spec.config
        pid = f"{workload}-{len(bucket):04d}"
        first = [{"role": "user", "content": row.turns[0]}]
        bucket.append(Prompt(pid, workload, first, meta=meta, follow_ups=tuple(row.turns[1:])))
    return out


@lru_cache(maxsize=16)
def _load(spec: DatasetSpec, path: str | None, stamp: tuple[float, ...], drop_bad_rows: bool) -> DatasetLoad:
    rows, columns, files = _rows(spec, None if path is None else Path(path))
    if not rows:
        raise ConfigError(f"{spec.label()} holds no rows", found=0, expected="rows", fix="check --dataset-path")
    _check_columns(spec, columns)
    _check_categories(spec, rows)
    kept, refused = _read_rows(spec, rows)
    if refused and not drop_bad_rows:
        raise refusal_error(spec.label(), refused)
    if not kept:
        raise ConfigError(f"{spec.label()}: every row was refused", found=len(refused), expected="rows", fix="check it")
    d = DATASETS[spec.name]
    provenance = {
        "dataset": spec.name,
        "config": spec.config,
        "revision": spec.revision,
        "split": d.split,
        "files": files,
        "columns": columns,
        "rows_total": len(rows),
        "rows_used": len(kept),
        "rows_refused": [r.to_dict() for r in refused],
        "categories": categories_against(spec.name, spec.config, (str(r.get("category")) for r in rows)),
        "definition": d.source,
    }
    return DatasetLoad(spec, _prompts(spec, kept), tuple(refused), provenance)


def load_dataset(
    spec: str | DatasetSpec, path: str | Path | None = None, *, drop_bad_rows: bool = False
) -> DatasetLoad:
    """Read ``--dataset spec`` (from ``path`` when given) into workloads, refusals and provenance.

    Raises:
        ConfigError: unknown dataset or config, missing library or file, a missing or renamed column (naming the
            columns found and the closest match), a file of another config, or, without ``drop_bad_rows``, a row
            that is not a workload (naming its id).
    """
    s = spec if isinstance(spec, DatasetSpec) else parse_dataset_spec(spec)
    p = None if path is None else Path(path).expanduser()
    stamp = tuple(f.stat().st_mtime for f in _local_files(p, s)) if p is not None else ()
    return _load(s, None if p is None else str(p), stamp, drop_bad_rows)


def load_dataset_prompts(
    spec: str, path: str | Path | None = None, *, drop_bad_rows: bool = False
) -> dict[str, list[Prompt]]:
    """Workload name (``"<dataset>.<category>"``) -> its prompts (:func:`load_dataset` without the provenance)."""
    return load_dataset(spec, path, drop_bad_rows=drop_bad_rows).workloads


def dataset_categories(load: DatasetLoad) -> dict[str, list[str]] | None:
    """The row categories of ``load`` against its dataset's full list (``present``, ``missing``, ``full_list``;
    :func:`specscope.workload.dataset_defs.categories_against`); None for a dataset without a fixed list."""
    cats = load.provenance.get("categories")
    return dict(cats) if cats is not None else None
