"""Which tool wrote a result file, recognised by content, and its records
(:class:`~specscope.importers.record.Imported`).

A file is read as one JSON document, else as JSON lines (one document per non-empty line: SGLang's
``--output-file``, vLLM's ``--append-result``). Each document is offered to every shape in :data:`SHAPES`, in
order; a document no shape recognises, or a file that is not JSON, is refused naming every shape tried.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from specscope import strictjson
from specscope.errors import ConfigError
from specscope.importers import (
    aiperf_export,
    aiperf_records,
    aiperf_slices,
    genai_bench,
    guidellm_report,
    peers,
    sglang_serving,
    vllm_serve,
)
from specscope.importers.record import BadFigure, Imported, spelled
from specscope.readfile import FileKind, read_user_bytes_and_text
from specscope.stats.imported import COMPLETED_NOT_RECORDED

__all__ = ["SHAPES", "Shape", "read_records", "MAX_RESULT_BYTES"]

#: the largest result file read (bytes): a detailed vLLM result of 100,000 requests is ~100 MB with its texts.
MAX_RESULT_BYTES = 512 * 2**20
#: a result file's words in a user error (:func:`specscope.readfile.read_user_file`)
_RESULT_FILE = FileKind(
    "the result file",
    expected="a readable UTF-8 JSON file the tool saved",
    fix="pass the file the tool saved",
    limit_fix="pass one result file of the tool (a detailed one of 100,000 requests is ~100 MB)",
)


@dataclass(frozen=True)
class Shape:
    """A result format: its ``name``, the ``tool`` that writes it, its source, and its reader (one record per
    document, or with ``parse_all`` several: a GuideLLM report holds one benchmark per level; or with ``parse_file``
    one for the whole file: AIPerf's per-request export holds one request per line); ``vet``, when set, judges each
    record with the file's path (where the tool wrote it: AIPerf's per-slice summaries, :mod:`aiperf_slices`)."""

    name: str
    tool: str
    source: str
    recognise: Callable[[Any], bool]
    parse: Callable[[Mapping[str, Any]], Imported] | None = None
    parse_all: Callable[[Mapping[str, Any]], list[Imported]] | None = None
    parse_file: Callable[[Path, list[Mapping[str, Any]]], Imported] | None = None
    vet: Callable[[Path, Mapping[str, Any], Imported], Imported] | None = None

    def records(self, doc: Mapping[str, Any], path: Path) -> list[Imported]:
        if self.parse_all is not None:
            return self.parse_all(doc)
        assert self.parse is not None  # every shape has one of the two
        rec = self.parse(doc)
        return [rec if self.vet is None else self.vet(path, doc, rec)]


SHAPES: tuple[Shape, ...] = (
    Shape(vllm_serve.SHAPE, vllm_serve.TOOL, "vllm/benchmarks/serve.py", vllm_serve.recognise, vllm_serve.parse),
    Shape(
        sglang_serving.SHAPE,
        sglang_serving.TOOL,
        "python/sglang/bench_serving.py",
        sglang_serving.recognise,
        sglang_serving.parse,
    ),
    Shape(
        aiperf_export.SHAPE,
        aiperf_export.TOOL,
        "src/aiperf/exporters/metrics_json_exporter.py",
        aiperf_export.recognise,
        aiperf_export.parse,
        vet=aiperf_slices.vet,
    ),
    Shape(
        aiperf_records.SHAPE,
        aiperf_records.TOOL,
        "src/aiperf/common/models/record_models.py (MetricRecordInfo)",
        aiperf_records.recognise,
        parse_file=aiperf_records.parse_file,
    ),
    Shape(
        guidellm_report.SHAPE,
        guidellm_report.TOOL,
        "src/guidellm/benchmark/schemas/report.py (0.8.1), benchmark/benchmark.py (the earlier schema)",
        guidellm_report.recognise,
        parse_all=guidellm_report.parse_all,
    ),
)


#: the keys a shape's recogniser requires, for naming what a near miss lacks (vLLM's and SGLang's totals).
_REQUIRED: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
    (vllm_serve.SHAPE, vllm_serve.REQUIRED_KEYS, ("endpoint_type", "backend")),
    (sglang_serving.SHAPE, (*sglang_serving.REQUIRED_KEYS, "request_rate"), ()),
)


def _near_miss(doc: Any) -> str:
    """``"; looks like SHAPE but lacks: duration"`` for a document holding most of a shape's required keys, else ""."""
    if not isinstance(doc, Mapping):
        return ""
    best: tuple[int, str, list[str]] | None = None
    for name, keys, one_of in _REQUIRED:
        have = [k for k in keys if k in doc]
        missing = [k for k in keys if k not in doc]
        if one_of and not any(k in doc for k in one_of):
            missing.append(" or ".join(one_of))
        if missing and len(have) >= len(keys) / 2 and (best is None or len(missing) < len(best[2])):
            best = (len(have), name, missing)
    return "" if best is None else f"; looks like {best[1]} but lacks: {', '.join(best[2])}"


def _tried() -> str:
    return "; ".join(f"{s.name} ({s.tool}, {s.source})" for s in SHAPES)


def _unknown(path: Path, found: str) -> ConfigError:
    return ConfigError(
        f"{path} is not a result file specscope can import",
        found=found,
        expected=f"a result file of one of the shapes tried: {_tried()}",
        fix="pass the JSON / JSONL file the tool itself saved (vLLM: --save-result; SGLang: --output-file; AIPerf: "
        "profile_export_aiperf.json or profile_export.jsonl; GuideLLM: --output-path *.json; genai-bench: its "
        "experiment folder)",
    )


def _refuse_surrogate(path: Path, doc: Any, where: str) -> Any:
    if (escape := strictjson.lone_surrogate(doc)) is not None:  # stored, the run could not be read back (attack50)
        raise _unknown(path, f"{where} holds a lone UTF-16 surrogate ({escape}: half of a character, no text)")
    return doc


def _twice(path: Path, where: str, exc: strictjson.DuplicateKey) -> ConfigError:
    """The refusal of a document holding a key twice: Python's reader keeps the last value, silently (attack53)."""
    return ConfigError(
        f"{path} holds a key twice in one object",
        found=f"{where}: {exc.key!r} is {spelled(exc.first)}, then again {spelled(exc.again)}",
        expected="each key once per object, as the tool's JSON writer saves it",
        fix="pass the file the tool saved, unchanged (a hand edit or two files joined is the usual cause); nothing "
        "was written",
    )


def _documents(path: Path, text: str) -> list[Any]:
    try:
        doc = strictjson.loads(text, unique_keys=True)
    except strictjson.DuplicateKey as exc:
        try:  # one document (else JSON lines: each line is read, and refused, below)
            strictjson.loads(text)
        except ValueError:
            pass
        else:
            raise _twice(path, "the document", exc) from None
    except ValueError:
        pass
    else:
        return [_refuse_surrogate(path, doc, "a string")]
    docs = []
    for i, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            docs.append(_refuse_surrogate(path, strictjson.loads(line, unique_keys=True), f"line {i}"))
        except strictjson.DuplicateKey as exc:
            raise _twice(path, f"line {i}", exc) from None
        except json.JSONDecodeError as exc:
            raise _unknown(path, f"line {i} is not JSON ({exc.msg}){peers.text_hint(text)}") from None
    if not docs:
        raise _unknown(path, "an empty file")
    return docs


def read_records(path: Path) -> list[Imported]:
    """Every record of the result file at ``path``, with its provenance (``file``, ``sha256``, ``record``: 1-based)
    in its facts.

    Raises:
        ConfigError: the file cannot be read, is not JSON, holds a document of no known shape (naming them), or a
            total or load that is not what its field means (NaN, a string, a fraction of a request: naming it), or
            an object holding a key twice (naming it and both values).
    """
    if path.is_dir() and (path / genai_bench.METADATA).is_file():
        return _genai_bench_folder(path)
    data, text = read_user_bytes_and_text(path, _RESULT_FILE, MAX_RESULT_BYTES)
    sha = hashlib.sha256(data).hexdigest()
    out: list[Imported] = []
    docs = _documents(path, text)
    docs = (vllm_serve.sweep_runs(docs[0]) or docs) if len(docs) == 1 else docs
    for i, doc in enumerate(docs, 1):
        shape = next((s for s in SHAPES if s.recognise(doc)), None)
        if shape is None:
            keys = ", ".join(sorted(map(str, doc))[:8]) if isinstance(doc, Mapping) else type(doc).__name__
            hints = peers.document_hint(doc) or _near_miss(doc)
            raise _unknown(path, f"record {i}: {keys or 'an empty object'}{hints}")
        try:
            records = shape.records(doc, path) if shape.parse_file is None else [_whole_file(path, docs, shape)]
        except (ConfigError, BadFigure) as exc:  # a reader's refusal (no level to name): said with the file and record
            raise _said_at(
                f"{path} record {i} ({shape.name})",
                exc,
                "pass the file the tool saved (a hand-edited value is the usual cause), or leave this file out; "
                "nothing was written",
            ) from None
        for rec in records:
            facts = {**rec.facts, "file": path.name, "sha256": sha, "record": len(out) + 1}
            if facts.get("completed") is None and COMPLETED_NOT_RECORDED not in facts.get("not_recorded", ()):
                # no completed count in the file (any tool): the cell's stream count is absent, named (imp58)
                facts["not_recorded"] = [COMPLETED_NOT_RECORDED, *facts.get("not_recorded", ())]
            out.append(replace(rec, facts=facts))
        if shape.parse_file is not None:
            break
    return out


def _whole_file(path: Path, docs: list[Any], shape: Shape) -> Imported:
    """The one record of a file of a whole-file shape (``parse_file``: every document one request).

    Raises:
        ConfigError: a document of another shape among them (naming it), or the shape's own refusal.
        BadFigure: a figure that is not what its field means.
    """
    assert shape.parse_file is not None
    other = next((i for i, d in enumerate(docs, 1) if not shape.recognise(d)), None)
    if other is not None:
        raise ConfigError(
            f"record {other} is not a {shape.name} record like record 1",
            found=f"record {other}: {spelled(docs[other - 1])}",
            expected=f"one {shape.name} record per line",
            fix="pass the file the tool saved, unchanged",
        )
    return shape.parse_file(path, docs)


def _said_at(where: str, exc: ConfigError | BadFigure, fix: str) -> ConfigError:
    """A reader's refusal said with where it was read (``where``: ``{path} record {i} ({shape})``): a ConfigError
    keeps its words; a BadFigure names its field, with ``fix`` (what to pass instead)."""
    if isinstance(exc, ConfigError):
        return ConfigError(f"{where}: {exc.message}", found=exc.found, expected=exc.expected, fix=exc.fix)
    return ConfigError(
        f"{where}: {exc.field} is not a figure specscope can store", found=str(exc), expected=exc.expected, fix=fix
    )


def _one_document(path: Path) -> tuple[str, Mapping[str, Any]]:
    """The SHA-256 and the one JSON object of the file at ``path``.

    Raises:
        ConfigError: unreadable, not JSON, or not one object.
    """
    data, text = read_user_bytes_and_text(path, _RESULT_FILE, MAX_RESULT_BYTES)
    docs = _documents(path, text)
    if len(docs) != 1 or not isinstance(docs[0], Mapping):
        raise _unknown(path, f"{len(docs)} documents, not one JSON object")
    return hashlib.sha256(data).hexdigest(), docs[0]


def _genai_bench_folder(folder: Path) -> list[Imported]:
    """The records of a genai-bench experiment folder (:mod:`specscope.importers.genai_bench`), one per run file in
    name order, each with its file (``folder/name``), SHA-256 and record number.

    Raises:
        ConfigError: no run file in the folder, a file that is not what genai-bench writes, or a run of no level.
    """
    _, meta = _one_document(folder / genai_bench.METADATA)
    runs = sorted(p for p in folder.iterdir() if p.is_file() and genai_bench.RUN_FILE.match(p.name))
    if not runs:
        raise ConfigError(
            f"{folder} holds genai-bench's {genai_bench.METADATA} but no run's result",
            found=f"no file named like {genai_bench.RUN_FILE.pattern} in it",
            expected="the experiment folder genai-bench benchmark wrote, its run files beside its metadata",
            fix="pass the folder once its runs finished",
        )
    out: list[Imported] = []
    for i, run in enumerate(runs, 1):
        sha, doc = _one_document(run)
        if not isinstance(doc.get("aggregated_metrics"), Mapping):
            raise _unknown(run, "no aggregated_metrics: not a genai-bench run's result")
        try:
            rec = genai_bench.parse_run(doc, meta)
        except (ConfigError, BadFigure) as exc:
            raise _said_at(
                f"{run} ({genai_bench.SHAPE})",
                exc,
                "pass the folder the tool saved, or leave this file out; nothing was written",
            ) from None
        out.append(replace(rec, facts={**rec.facts, "file": f"{folder.name}/{run.name}", "sha256": sha, "record": i}))
    return out
