"""Type checks for the parts of ``config.json``, the quantization configs and the shard index that specscope reads.

The models are permissive (``extra="allow"``: unknown keys are kept and never checked) and strict on the keys
specscope uses, so a wrong JSON type is one :class:`CheckpointError` naming the key, not a traceback deep in a rule.
The files stay plain dicts after the check (foreign JSON is copied as is by surgery); only the check uses the models.

Sources of the key names: transformers ``PretrainedConfig`` (``architectures``, ``num_hidden_layers``,
``text_config``), Qwen3-Next/3.5 (``mtp_num_hidden_layers``), DeepSeek-V3 (``num_nextn_predict_layers``),
ModelOpt ``hf_quant_config.json`` (``quantization.{quant_algo, exclude_modules, quantized_layers, group_size,
kv_cache_quant_algo}``), compressed-tensors (``config_groups``, ``ignore``, ``kv_cache_scheme``), transformers
``save_pretrained`` for the index (``{"metadata": {"total_size": int}, "weight_map": {tensor: shard}}``).

Caps: values that size loops or allocations are bounded (layer counts by :data:`MAX_LAYERS`, widths and vocab by
:data:`MAX_WIDTH`), far above any real model and far below what would exhaust memory.
"""

from __future__ import annotations

import os
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, ValidationError

from specscope.checkpoint.safefiles import read_json_file
from specscope.errors import CheckpointError

__all__ = ["MAX_LAYERS", "MAX_WIDTH", "MAX_CONFIG_BYTES", "check_json_file", "read_config_file"]

#: most layers (main or draft) a config may declare; the largest released models have fewer than 200.
MAX_LAYERS = 10_000
#: largest hidden size / vocabulary / expert count accepted.
MAX_WIDTH = 100_000_000
#: JSON files above this size are refused (configs are kilobytes; an index of 100k tensors is a few MB).
MAX_CONFIG_BYTES = 64 * 1024 * 1024

Layers = Annotated[StrictInt, Field(ge=0, le=MAX_LAYERS)]
Width = Annotated[StrictInt, Field(ge=0, le=MAX_WIDTH)]
Names = list[StrictStr]


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow")


class QuantConfig(_Open):
    """``quantization_config`` (config.json) or ``quantization`` (hf_quant_config.json)."""

    quant_method: StrictStr | None = None
    quant_algo: StrictStr | None = None
    format: StrictStr | None = None
    group_size: StrictInt | None = None
    kv_cache_quant_algo: StrictStr | None = None
    kv_cache_scheme: dict[str, Any] | None = None
    ignore: Names | None = None
    exclude_modules: Names | None = None
    exclude: Names | None = None
    modules_to_not_convert: Names | None = None
    dynamic: dict[str, Any] | None = None
    config_groups: dict[str, Any] | None = None
    quantized_layers: dict[str, dict[str, Any]] | None = None
    global_quant_config: dict[str, Any] | None = None


class ModelConfig(_Open):
    """``config.json`` (and its ``text_config`` for vision-language models)."""

    architectures: Names | None = None
    model_type: StrictStr | None = None
    num_hidden_layers: Layers | None = None
    mtp_num_hidden_layers: Layers | None = None
    num_nextn_predict_layers: Layers | None = None
    num_target_layers: Layers | None = None
    hidden_size: Width | None = None
    vocab_size: Width | None = None
    num_experts: Width | None = None
    num_local_experts: Width | None = None
    n_routed_experts: Width | None = None
    num_experts_per_tok: Width | None = None
    layer_types: Names | None = None
    quantization_config: QuantConfig | None = None
    text_config: ModelConfig | None = None


class HfQuantConfig(_Open):
    """ModelOpt's ``hf_quant_config.json``."""

    quantization: QuantConfig | None = None


class IndexMetadata(_Open):
    total_size: Annotated[StrictInt, Field(ge=0)] | None = None


class IndexFile(_Open):
    """``model.safetensors.index.json``."""

    metadata: IndexMetadata | None = None
    weight_map: dict[StrictStr, StrictStr]


_MODELS: dict[str, type[BaseModel]] = {
    "config.json": ModelConfig,
    "hf_quant_config.json": HfQuantConfig,
    "model.safetensors.index.json": IndexFile,
}


def _first_error(exc: ValidationError) -> tuple[str, str, str]:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err["loc"]) or "(top level)"
    found = repr(err.get("input"))
    if len(found) > 80:
        found = found[:77] + "..."
    return where, found, err["msg"]


def check_json_file(
    obj: object, name: str, label: str, *, fix: str | None = None, present: bool = False
) -> dict[str, Any] | None:
    """Check the parsed JSON file ``name`` (config.json, hf_quant_config.json, the index) and return it as a dict.

    ``None`` passes through when the file is absent; with ``present`` it is a file holding JSON ``null``, which is
    not an object (it was read as "no config": no findings, exit 0). Files with no model here only need to be objects.

    Raises:
        CheckpointError: not an object, or a key specscope reads has the wrong type or an out-of-range value.
    """
    if obj is None and not present:
        return None
    if not isinstance(obj, dict):
        raise CheckpointError(
            f"{name} is not a JSON object",
            found=f"{label}/{name}: {'null' if obj is None else type(obj).__name__}",
            expected="a JSON object",
            fix=fix or f"repair {name}",
        )
    model = _MODELS.get(name)
    if model is not None:
        try:
            model.model_validate(obj)
        except ValidationError as exc:
            where, found, msg = _first_error(exc)
            raise CheckpointError(
                f"{name}: {where} has the wrong type or value",
                found=f"{label}/{name}: {where} = {found}",
                expected=msg,
                fix=fix or f"repair {where} in {name}",
            ) from None
    return obj


def read_config_file(path: str | os.PathLike[str], *, fix: str | None = None) -> dict[str, Any] | None:
    """Read, bound and type-check one local JSON file of a checkpoint; None when the file does not exist."""
    obj = read_json_file(path, max_bytes=MAX_CONFIG_BYTES, fix=fix)
    p = os.fspath(path)
    present = obj is not None or os.path.lexists(p)
    return check_json_file(obj, os.path.basename(p), os.path.dirname(p) or ".", fix=fix, present=present)
