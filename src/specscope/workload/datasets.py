"""Standard speculative-decoding datasets as workloads: ``--dataset NAME[:CONFIG]`` (+ ``--dataset-path``).

Each dataset's category becomes a workload axis: the prompts of category ``C`` of dataset ``D`` form the
workload ``"D.C"`` (e.g. ``speed-bench.coding``), so one run yields the per-category acceptance matrix.

Datasets (columns as published; tests use small files of exactly these columns, generated in the repo):

* ``speed-bench`` (NVIDIA SPEED-Bench, hub id ``nvidia/SPEED-Bench``; licence: NVIDIA Evaluation Dataset
  License). Configs ``qualitative`` (11 categories x 80 prompts: coding, humanities, math, multilingual, qa,
  rag, reasoning, roleplay, stem, summarization, writing) and ``throughput_1k`` / ``_2k`` / ``_8k`` / ``_16k``
  / ``_32k``; split ``test``; parquet columns ``question_id`` (str), ``category`` (str), ``sub_category``
  (str), ``turns`` (list of str), ``source`` (str), ``src_id`` (str), ``difficulty`` (str), ``multiturn``
  (bool). Source of the columns: the dataset card's ``dataset_info`` block.
* ``spec-bench`` (Spec-Bench, ``data/spec_bench/question.jsonl`` of the hemingkx/Spec-Bench repository;
  licence: Apache-2.0). JSONL with ``question_id`` (int), ``category`` (str: the MT-Bench categories,
  ``translation``, ``summarization``, ``qa``, ``math_reasoning``, ``rag``) and ``turns`` (list of str).

Only the first turn of each record is sent (later turns need the model's own earlier answers).
Loading goes through the ``datasets`` library (optional extra ``specscope[datasets]``): from the hub when no
path is given, else from the local parquet / JSONL file or folder. Nothing is downloaded at import time.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from specscope.errors import ConfigError
from specscope.workload.prompt import Prompt

__all__ = ["DATASETS", "parse_dataset_spec", "load_dataset_prompts"]

#: dataset name -> (hub id, configs, default config); ``None`` configs: the dataset has none.
DATASETS: dict[str, tuple[str, tuple[str, ...] | None, str | None]] = {
    "speed-bench": (
        "nvidia/SPEED-Bench",
        ("qualitative", "throughput_1k", "throughput_2k", "throughput_8k", "throughput_16k", "throughput_32k"),
        "qualitative",
    ),
    "spec-bench": ("hemingkx/Spec-Bench", None, None),
}
_REQUIRED = ("question_id", "category", "turns")


def parse_dataset_spec(spec: str) -> tuple[str, str | None]:
    """``"speed-bench:qualitative"`` -> ``("speed-bench", "qualitative")``; ``"spec-bench"`` -> (name, None).

    Raises:
        ConfigError: unknown dataset or config.
    """
    name, _, config = spec.partition(":")
    if name not in DATASETS:
        raise ConfigError.unknown("dataset", name, DATASETS, fix="pass e.g. --dataset speed-bench:qualitative")
    _, configs, default = DATASETS[name]
    if configs is None:
        if config:
            raise ConfigError(
                f"dataset {name} has no configs", found=config, expected=name, fix=f"pass --dataset {name}"
            )
        return name, None
    chosen = config or default or ""
    if chosen not in configs:
        raise ConfigError.unknown(f"{name} config", chosen, configs, fix=f"pass e.g. --dataset {name}:{default}")
    return name, chosen


def _rows(name: str, config: str | None, path: Path | None) -> list[dict[str, Any]]:
    """The dataset's rows through the ``datasets`` library (hub when ``path`` is None, else local files)."""
    try:
        import datasets as hf_datasets
    except ImportError:
        raise ConfigError(
            "the datasets library is not installed",
            found="no module named datasets",
            expected="specscope[datasets]",
            fix="pip install 'specscope[datasets]'",
        ) from None
    if path is None:
        hub_id = DATASETS[name][0]
        ds = hf_datasets.load_dataset(hub_id, config, split="test") if config else None
        if ds is None:
            raise ConfigError(
                f"{name} is not published as a hub dataset",
                found=hub_id,
                expected="a local copy",
                fix="download question.jsonl and pass --dataset-path FILE",
            )
        return list(ds)
    files = _local_files(path)
    builder = "parquet" if files[0].suffix == ".parquet" else "json"
    ds = hf_datasets.load_dataset(builder, data_files=[str(f) for f in files], split="train")
    return list(ds)


def _local_files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    files = sorted([*path.rglob("*.parquet"), *path.rglob("*.jsonl")]) if path.is_dir() else []
    if not files:
        raise ConfigError(
            f"no dataset file at {path}",
            found=str(path),
            expected="a .parquet or .jsonl file, or a folder holding them",
            fix="pass --dataset-path to the downloaded dataset",
        )
    return files


def load_dataset_prompts(spec: str, path: str | Path | None = None) -> dict[str, list[Prompt]]:
    """Workload name (``"<dataset>.<category>"``) -> its prompts, categories in first-seen order.

    Raises:
        ConfigError: unknown dataset, missing library or file, or rows without the dataset's columns.
    """
    name, config = parse_dataset_spec(spec)
    rows = _rows(name, config, None if path is None else Path(path).expanduser())
    out: dict[str, list[Prompt]] = {}
    for i, row in enumerate(rows):
        missing = [c for c in _REQUIRED if c not in row]
        turns = row.get("turns")
        if missing or not isinstance(turns, list) or not turns or not isinstance(turns[0], str):
            raise ConfigError(
                f"row {i} of {spec} is not shaped like {name}",
                found=sorted(row),
                expected=f"columns {', '.join(_REQUIRED)} with turns a list of strings",
                fix="pass the dataset's own files with --dataset-path",
            )
        category = str(row["category"])
        workload = f"{name}.{category}"
        meta = {"source": spec, "question_id": str(row["question_id"]), "category": category}
        if config:
            meta["config"] = config
        bucket = out.setdefault(workload, [])
        pid = f"{workload}-{len(bucket):04d}"
        bucket.append(Prompt(pid, workload, [{"role": "user", "content": turns[0]}], meta=meta))
    if not out:
        raise ConfigError(f"{spec} holds no rows", found=0, expected="rows", fix="check --dataset-path")
    return out
