"""The checkpoint model: configs, the shard index and every shard header, read through a byte source.

A checkpoint is what loaders see: ``config.json``, the optional ``hf_quant_config.json`` (ModelOpt's legacy copy),
``model.safetensors.index.json`` (``{"metadata": {"total_size": int}, "weight_map": {tensor: shard}}``, written by
transformers' ``save_pretrained``) and the ``*.safetensors`` shards. Only headers are read, never tensor data
(:meth:`Checkpoint.read_scalar` reads one small scale tensor on request).

Foreign JSON stays a plain ``dict`` so unknown keys survive a later patch. The tensor inventory is the *union* of the
index and the headers (case C03: an index-only view hides a shard the index forgot).
"""

from __future__ import annotations

import os
import posixpath
import struct
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from specscope.checkpoint.header import (
    LENGTH_PREFIX_BYTES,
    HeaderFormatError,
    SafetensorsHeader,
    TensorInfo,
    header_length,
    parse_header,
)
from specscope.checkpoint.kind import checkpoint_elsewhere
from specscope.checkpoint.safefiles import RepeatedKey
from specscope.checkpoint.schema import check_json_file
from specscope.checkpoint.source import ByteSource, LocalSource, open_source
from specscope.errors import CheckpointError

__all__ = [
    "network_config",
    "DRAFT_NESTED_CONFIG_KEYS",
    "INDEX_NAME",
    "ShardRead",
    "TensorLocation",
    "Checkpoint",
    "read_header",
    "load_checkpoint",
    "nested_text_config",
    "shard_name_is_safe",
]

INDEX_NAME = "model.safetensors.index.json"
#: config keys under which a draft format nests its network's config (speculators ``transformer_layer_config``,
#: EAGLE ``model``): :attr:`Checkpoint.text_config` reads the shapes there.
DRAFT_NESTED_CONFIG_KEYS = ("transformer_layer_config", "model")


#: config keys under which a vision-language wrapper nests its language model's config, the first present wins:
#: ``text_config`` (transformers), ``llm_config`` (Nemotron-H Nano VL / Omni, InternVL: their config classes map it to
#: the ``text_config`` engines read; vLLM ``speculative.py`` @002e77c1 promotes ``hf_config.text_config`` of
#: NemotronH_Super_Omni_Reasoning_V3 before its ``nemotron_h`` MTP switch)
TEXT_CONFIG_KEYS = ("text_config", "llm_config")


def nested_text_config(config: dict[str, Any] | None) -> dict[str, Any] | None:
    """The language model's config a vision-language ``config`` nests (:data:`TEXT_CONFIG_KEYS`), else None."""
    cfg = config or {}
    return next((tc for key in TEXT_CONFIG_KEYS if isinstance(tc := cfg.get(key), dict)), None)


def network_config(config: dict[str, Any] | None) -> dict[str, Any]:
    """The config that describes the network's shapes: the nested language model's (:func:`nested_text_config`) for
    vision-language checkpoints; for a draft whose shapes are nested, the nested config with the top-level keys it
    lacks (the speculators format's ``transformer_layer_config``, vLLM
    ``transformers_utils/configs/speculators/base.py``; EAGLE's ``model``, vLLM ``transformers_utils/configs/eagle.py``
    ``EAGLEConfig``); else ``config`` itself ({} if none)."""
    cfg = config or {}
    tc = nested_text_config(cfg)
    if tc is not None:
        return tc
    for key in DRAFT_NESTED_CONFIG_KEYS:
        nested = cfg.get(key)
        if isinstance(nested, dict) and "hidden_size" in nested:
            return {**{k: v for k, v in cfg.items() if k != key}, **nested}
    return cfg


#: scale tensors up to this many bytes may be read by :meth:`Checkpoint.read_scalar`.
MAX_SCALAR_BYTES = 64

_SCALAR_FORMATS = {"F32": "<f", "F64": "<d", "F16": "<e"}
#: integer / bool tensors :meth:`Checkpoint.read_index_array` may read (vocabulary maps), numpy dtype by header dtype.
_INDEX_DTYPES = {"I64": "<i8", "I32": "<i4", "I16": "<i2", "U8": "u1", "BOOL": "?", "U32": "<u4", "U64": "<u8"}
#: the largest vocabulary map read (a 1M-entry I64 map is 8 MB).
MAX_INDEX_ARRAY_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class ShardRead:
    """One shard file: its header, or the format error that stopped parsing it (never both)."""

    name: str
    size_bytes: int | None
    header: SafetensorsHeader | None
    error: HeaderFormatError | None
    missing: bool = False


@dataclass(frozen=True, slots=True)
class TensorLocation:
    """Where a tensor physically is: shard file name and its header record."""

    shard: str
    info: TensorInfo


def shard_name_is_safe(name: str) -> bool:
    """True when an index shard name stays inside the checkpoint folder (relative, no ``..``, no backslash)."""
    if not name or name.startswith("/") or "\\" in name or ":" in name:
        return False
    norm = posixpath.normpath(name)
    return not (norm.startswith("..") or norm.startswith("/"))


def read_header(source: ByteSource, name: str, size_bytes: int) -> SafetensorsHeader:
    """Fetch and parse the header of shard ``name``: 8 bytes, bound check, then exactly the header bytes.

    Raises:
        HeaderFormatError: any format violation (see :func:`specscope.checkpoint.header.parse_header`).
    """
    prefix = source.read_range(name, 0, LENGTH_PREFIX_BYTES)
    n = header_length(prefix, file_size_bytes=size_bytes)  # raises before the big read
    body = source.read_range(name, LENGTH_PREFIX_BYTES, n)
    return parse_header(prefix + body, size_bytes)


@dataclass
class Checkpoint:
    """Everything the audit needs, read from headers and JSON.

    Attributes:
        label: folder path or ``org/name@rev``.
        files: relative file name -> size in bytes.
        config: ``config.json`` as a dict (None if absent).
        hf_quant_config: ``hf_quant_config.json`` as a dict (None if absent).
        index: the raw index dict (None when the checkpoint is a single file).
        weight_map: tensor name -> shard name, from the index ({} without an index).
        index_total_size_bytes: ``metadata.total_size`` (None if absent).
        shards: shard name -> :class:`ShardRead` for every top-level ``*.safetensors`` and every indexed shard.
        locations: tensor name -> every place it is stored (len > 1 means duplicate copies).
        broken: file name -> why it cannot be opened, for entries the folder lists that lead nowhere (dangling
            symlinks, symlink loops; a local folder only). A broken ``*.safetensors`` is also a missing shard.
        repeated_keys: JSON file name -> each key one of its objects gives more than once (the value read is the
            last: :class:`~specscope.checkpoint.safefiles.RepeatedKey`), for the files read here.
    """

    source: ByteSource
    label: str
    files: dict[str, int]
    config: dict[str, Any] | None
    hf_quant_config: dict[str, Any] | None
    index: dict[str, Any] | None
    weight_map: dict[str, str]
    index_total_size_bytes: int | None
    shards: dict[str, ShardRead]
    locations: dict[str, list[TensorLocation]] = field(default_factory=dict)
    broken: dict[str, str] = field(default_factory=dict)
    repeated_keys: dict[str, list[RepeatedKey]] = field(default_factory=dict)

    @property
    def text_config(self) -> dict[str, Any]:
        """The config that describes the network's shapes (:func:`network_config` of ``config``)."""
        return network_config(self.config)

    def tensor(self, name: str) -> TensorInfo | None:
        """The copy a loader would use: the indexed shard's copy if any, else the first physical copy."""
        locs = self.locations.get(name)
        if not locs:
            return None
        want = self.weight_map.get(name)
        for loc in locs:
            if loc.shard == want:
                return loc.info
        return locs[0].info

    def shard_of(self, name: str) -> str | None:
        """Shard holding the loader's copy of ``name`` (see :meth:`tensor`)."""
        locs = self.locations.get(name)
        if not locs:
            return None
        want = self.weight_map.get(name)
        return want if any(loc.shard == want for loc in locs) else locs[0].shard

    def tensors(self) -> dict[str, TensorInfo]:
        """Name -> loader's copy for every tensor found in any readable header."""
        return {n: info for n in self.locations if (info := self.tensor(n)) is not None}

    def read_scalar(self, name: str) -> float | None:
        """Value of a small F32/F16/F64 scale tensor (<= 64 bytes; the first element), None when unreadable.

        This is the one place tensor data is read; it is used for scalar scales only (KV ``k_scale``/``v_scale``,
        NVFP4 ``weight_scale_2``/``input_scale``).
        """
        info = self.tensor(name)
        shard = self.shard_of(name)
        fmt = _SCALAR_FORMATS.get(info.dtype) if info else None
        if info is None or shard is None or fmt is None or not 0 < info.nbytes <= MAX_SCALAR_BYTES:
            return None
        raw = self.source.read_range(shard, info.file_offset_bytes, struct.calcsize(fmt))
        if len(raw) < struct.calcsize(fmt):
            return None
        return float(struct.unpack(fmt, raw)[0])

    def read_index_array(self, name: str) -> np.ndarray | None:
        """A 1-D integer / bool tensor (an EAGLE-3 ``d2t`` / ``t2d`` or Medusa ``token_map`` vocabulary map) as a
        numpy array; None when absent, of another dtype or rank, or larger than :data:`MAX_INDEX_ARRAY_BYTES`.

        The only tensors besides scalar scales whose data is read: maps, never weights.
        """
        info = self.tensor(name)
        shard = self.shard_of(name)
        dtype = _INDEX_DTYPES.get(info.dtype) if info else None
        if info is None or shard is None or dtype is None or len(info.shape) != 1:
            return None
        if not 0 <= info.nbytes <= MAX_INDEX_ARRAY_BYTES:
            return None
        raw = self.source.read_range(shard, info.file_offset_bytes, info.nbytes)
        if len(raw) != info.nbytes:
            return None
        return np.frombuffer(raw, dtype=np.dtype(dtype)).copy()


def _reindex_fix(label: str) -> str:
    """The fix of a broken index: the command that rebuilds it from the shard headers, for this checkpoint."""
    import shlex

    return f"rebuild it from the shard headers: `specscope surgery reindex {shlex.quote(label)} --out NEW_FOLDER`"


def _check_weight_map(wm: object, label: str) -> None:
    if isinstance(wm, dict):
        bad = [(k, v) for k, v in wm.items() if not (isinstance(k, str) and isinstance(v, str))]
        if not bad:
            return
        k, v = bad[0]
        found = f"{len(bad)} of {len(wm)} entries are not tensor name -> shard file name; first {k!r}: {v!r}"
    else:
        found = f"weight_map is {type(wm).__name__ if wm is not None else 'null'}, not an object"
    raise CheckpointError(
        f"{INDEX_NAME} has no usable weight_map",
        found=found,
        expected='{"weight_map": {"tensor name": "shard file", ...}}',
        fix=_reindex_fix(label),
    )


def load_checkpoint(target: str | os.PathLike[str] | ByteSource) -> Checkpoint:
    """Read configs, index and every shard header of ``target`` (folder, ``.safetensors`` file, repo id or source).

    Header format errors do not raise: they are kept in :attr:`ShardRead.error` for the audit to report.

    Raises:
        CheckpointError: the target cannot be opened, holds no safetensors file and no config, or a JSON file is
            not an object / not JSON.
    """
    source: ByteSource = open_source(target) if isinstance(target, str | os.PathLike) else target
    files = source.files()
    broken_files = getattr(source, "broken_files", None)  # local folders only: a hub lists no symlinks
    broken: dict[str, str] = broken_files() if callable(broken_files) else {}
    config = check_json_file(
        source.read_json("config.json"), "config.json", source.label, present="config.json" in files
    )
    hf_quant = check_json_file(
        source.read_json("hf_quant_config.json"),
        "hf_quant_config.json",
        source.label,
        present="hf_quant_config.json" in files,
    )
    raw_index = source.read_json(INDEX_NAME)
    if isinstance(raw_index, dict):
        _check_weight_map(raw_index.get("weight_map"), source.label)
    index = check_json_file(
        raw_index, INDEX_NAME, source.label, fix=_reindex_fix(source.label), present=INDEX_NAME in files
    )

    weight_map: dict[str, str] = {}
    total_size: int | None = None
    if index is not None:
        weight_map = dict(index["weight_map"])
        meta = index.get("metadata")
        if isinstance(meta, dict) and isinstance(meta.get("total_size"), int):
            total_size = int(meta["total_size"])

    shard_names = sorted(
        {n for n in [*files, *broken] if n.endswith(".safetensors") and "/" not in n}
        | {s for s in weight_map.values() if shard_name_is_safe(s)}
    )
    if not shard_names and config is None and not broken:
        instead = checkpoint_elsewhere(files, source.label) if isinstance(source, LocalSource) else None
        raise CheckpointError(
            "no checkpoint here",
            found=f"{source.label}: no config.json and no *.safetensors" + (f"; {instead[0]}" if instead else ""),
            expected="a model folder or repo with config.json and safetensors shards",
            fix=instead[1] if instead else "point at the folder that holds config.json",
        )
    shards: dict[str, ShardRead] = {}
    locations: dict[str, list[TensorLocation]] = {}
    for name in shard_names:
        size = files.get(posixpath.normpath(name))
        if size is None:
            shards[name] = ShardRead(name, None, None, None, missing=True)
            continue
        try:
            header = read_header(source, posixpath.normpath(name), size)
        except HeaderFormatError as exc:
            shards[name] = ShardRead(name, size, None, exc)
            continue
        shards[name] = ShardRead(name, size, header, None)
        for info in header.tensors:
            locations.setdefault(info.name, []).append(TensorLocation(name, info))
    read = ("config.json", "hf_quant_config.json", INDEX_NAME)
    held: dict[str, list[RepeatedKey]] = getattr(source, "repeated_keys", None) or {}  # a source of ours keeps them
    repeated = {name: list(held[name]) for name in read if held.get(name)}
    return Checkpoint(
        source,
        source.label,
        files,
        config,
        hf_quant,
        index,
        weight_map,
        total_size,
        shards,
        locations,
        broken,
        repeated_keys=repeated,
    )
