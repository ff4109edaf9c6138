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

* ``blazedit`` (Blazedit, hub ids ``vdaita/edit_5k_char`` / ``vdaita/edit_10k_char``, configs ``5k`` / ``10k``,
  split ``train``; licence: see the dataset card). Columns used: ``code`` (str, the original file),
  ``change_request`` (str) and ``norm_distance`` (float, the Levenshtein distance between the original and the
  new file over the original's length). The prompt is Blazedit's own template (its ``create_refined_dataset.py``,
  the one vLLM's ``benchmarks/datasets`` sends); the category is the size of the edit: ``small``
  (norm_distance < 0.1), ``medium`` (< 0.3) or ``large`` -- the axis along which n-gram and suffix drafting
  acceptance moves most on edits.
* ``instructcoder`` (InstructCoder, hub id ``likaixin/InstructCoder``, split ``train``; licence: see the
  dataset card). Columns used: ``instruction`` (str) and ``input`` (str, the code to edit); one category,
  ``edit``. The prompt is the input, a blank line, the instruction and "Just output the code, do not include
  any explanation." (the form vLLM's ``benchmarks/datasets`` sends, vLLM 0.32.0).

Only the first turn of each record is sent (later turns need the model's own earlier answers).
Loading goes through the ``datasets`` library (optional extra ``specscope[datasets]``): from the hub when no
path is given, else from the local parquet / JSONL file or folder. Nothing is downloaded at import time.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from specscope.errors import ConfigError
from specscope.workload.prompt import Prompt

__all__ = ["DATASETS", "parse_dataset_spec", "load_dataset_prompts"]

#: dataset name -> (hub id, configs, default config); ``None`` configs: the dataset has none. A ``{config}`` in
#: the hub id is the config's place in the id (Blazedit publishes one dataset per size).
DATASETS: dict[str, tuple[str, tuple[str, ...] | None, str | None]] = {
    "speed-bench": (
        "nvidia/SPEED-Bench",
        ("qualitative", "throughput_1k", "throughput_2k", "throughput_8k", "throughput_16k", "throughput_32k"),
        "qualitative",
    ),
    "spec-bench": ("hemingkx/Spec-Bench", None, None),
    "blazedit": ("vdaita/edit_{config}_char", ("5k", "10k"), "5k"),
    "instructcoder": ("likaixin/InstructCoder", None, None),
}
#: The hub split each dataset publishes its rows under.
_SPLITS = {"speed-bench": "test", "blazedit": "train", "instructcoder": "train"}
#: Blazedit's prompt template (Blazedit's ``dataset/create_refined_dataset.py``; the text vLLM sends too).
BLAZEDIT_TEMPLATE = (
    "Given a code file, please apply the change requests and generate the new file.\n\n"
    "Original file:\n```python\n{code}\n```\n\nChange request:\n{change}\n\n"
    'Please generate the new code file in the "New file" section below.'
)
#: Blazedit edit-size categories: upper bound of ``norm_distance`` (exclusive) -> category.
BLAZEDIT_SIZES = ((0.1, "small"), (0.3, "medium"), (float("inf"), "large"))


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
        split = _SPLITS.get(name)
        if split is None:
            raise ConfigError(
                f"{name} is not published as a hub dataset",
                found=hub_id,
                expected="a local copy",
                fix="download question.jsonl and pass --dataset-path FILE",
            )
        if "{config}" in hub_id:
            ds = hf_datasets.load_dataset(hub_id.format(config=config), split=split)
        else:
            ds = hf_datasets.load_dataset(hub_id, config, split=split)
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


def _turns_row(row: dict[str, Any]) -> tuple[str, str, str] | None:
    """SPEED-Bench / Spec-Bench: (category, first turn, question id), None when the row lacks the columns."""
    turns = row.get("turns")
    if not all(c in row for c in ("question_id", "category")) or not isinstance(turns, list) or not turns:
        return None
    return (str(row["category"]), turns[0], str(row["question_id"])) if isinstance(turns[0], str) else None


def _blazedit_row(row: dict[str, Any]) -> tuple[str, str, str] | None:
    """Blazedit: (edit-size category, the template filled in, "" for no question id)."""
    code, change, dist = row.get("code"), row.get("change_request"), row.get("norm_distance")
    if not isinstance(code, str) or not isinstance(change, str) or not isinstance(dist, int | float):
        return None
    category = next(c for bound, c in BLAZEDIT_SIZES if dist < bound)
    return category, BLAZEDIT_TEMPLATE.format(code=code, change=change), ""


def _instructcoder_row(row: dict[str, Any]) -> tuple[str, str, str] | None:
    """InstructCoder: ("edit", input + instruction + the no-explanation request, "")."""
    instruction, code = row.get("instruction"), row.get("input")
    if not isinstance(instruction, str) or not isinstance(code, str):
        return None
    return "edit", f"{code}\n\n{instruction} Just output the code, do not include any explanation.", ""


#: dataset name -> (row reader, the columns it needs, for the error message).
_READERS: dict[str, tuple[Callable[[dict[str, Any]], tuple[str, str, str] | None], str]] = {
    "speed-bench": (_turns_row, "question_id, category, turns (a list of strings)"),
    "spec-bench": (_turns_row, "question_id, category, turns (a list of strings)"),
    "blazedit": (_blazedit_row, "code, change_request (strings), norm_distance (a number)"),
    "instructcoder": (_instructcoder_row, "instruction, input (strings)"),
}


def load_dataset_prompts(spec: str, path: str | Path | None = None) -> dict[str, list[Prompt]]:
    """Workload name (``"<dataset>.<category>"``) -> its prompts, categories in first-seen order.

    Raises:
        ConfigError: unknown dataset, missing library or file, or rows without the dataset's columns.
    """
    name, config = parse_dataset_spec(spec)
    rows = _rows(name, config, None if path is None else Path(path).expanduser())
    reader, columns = _READERS[name]
    out: dict[str, list[Prompt]] = {}
    for i, row in enumerate(rows):
        got = reader(row)
        if got is None:
            raise ConfigError(
                f"row {i} of {spec} is not shaped like {name}",
                found=sorted(row),
                expected=f"columns {columns}",
                fix="pass the dataset's own files with --dataset-path",
            )
        category, text, question_id = got
        workload = f"{name}.{category}"
        bucket = out.setdefault(workload, [])
        meta = {"source": spec, "question_id": question_id or str(i), "category": category}
        if config:
            meta["config"] = config
        pid = f"{workload}-{len(bucket):04d}"
        bucket.append(Prompt(pid, workload, [{"role": "user", "content": text}], meta=meta))
    if not out:
        raise ConfigError(f"{spec} holds no rows", found=0, expected="rows", fix="check --dataset-path")
    return out
