"""Plans that move tensors between checkpoints: extract, graft, reindex; and the shared shard/index logic.

Shard rule (seed 004: "hardlinking the shards it does not touch"): a source shard that loses none of its
tensors is hardlinked; one that loses all is left out; one that loses some is rewritten under the same name
with the rest (byte copies), because index-driven loaders load every tensor of every shard the index names
and a stale copy would shadow the new one. New tensors live in a shard of their own. The index is rebuilt from
the shard headers (never by globbing ``model-*-of-*``; case C03), ``total_size`` = sum of tensor bytes.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

from specscope.audit.architectures import DraftLayout, config_int
from specscope.audit.quantcfg import effective_view, quant_views
from specscope.audit.rules_mtp import mtp_layout
from specscope.checkpoint import load_checkpoint
from specscope.checkpoint.dtypes import FLOAT8_DTYPES
from specscope.checkpoint.index import network_config
from specscope.checkpoint.schema import read_config_file
from specscope.errors import SurgeryError
from specscope.surgery.configs import add_exclusions, dialect, exclude_lists
from specscope.surgery.plan import JsonJob, LinkJob, ShardJob, SurgeryPlan, TensorJob
from specscope.surgery.shards import (
    FLOAT_DTYPES,
    INDEX_NAME,
    Checkpoint,
    no_tensor_under,
    open_checkpoint,
    planned_nbytes,
)

__all__ = [
    "linear_modules",
    "plan_removal",
    "build_index",
    "plan_extract",
    "plan_graft",
    "plan_reindex",
    "copy_job",
    "CONFIG_FILES",
]

CONFIG_FILES = ("config.json", "hf_quant_config.json")


def copy_job(ckpt: Checkpoint, name: str, out_name: str | None = None) -> TensorJob:
    """A tensor job that copies ``name``'s bytes from ``ckpt`` unchanged."""
    info = ckpt.info(name)
    return TensorJob(
        out_name or name,
        info.dtype,
        info.shape,
        lambda: ckpt.read_bytes(name),
        origin=f"copy of {ckpt.location[name]}:{name}",
    )


def linear_modules(ckpt: Checkpoint, prefix: str = "", *, quantized: bool | None = False) -> list[str]:
    """Module names of Linear-like weights under ``prefix``: ``<m>.weight`` with 2 dims, or a quantized payload
    ``<m>.weight_packed`` (compressed-tensors) / ``<m>.qweight`` (GPTQ, AWQ).

    ``quantized=False``: float dtype and no ``<m>.weight_scale`` sibling (an unquantized linear, case C06);
    ``True``: has a ``weight_scale`` or ``weight_scale_inv`` sibling, an 8-bit float weight, or is a packed payload;
    None: both. 1-D norm weights are never listed.
    """
    out = []
    for name in ckpt.names(prefix):
        if name.endswith((".weight_packed", ".qweight")):
            if quantized is not False and len(ckpt.info(name).shape) == 2:
                out.append(name.rpartition(".")[0])
            continue
        if not name.endswith(".weight"):
            continue
        info = ckpt.info(name)
        if len(info.shape) != 2:
            continue
        module = name[: -len(".weight")]
        has_scale = (
            f"{module}.weight_scale" in ckpt.location
            or f"{module}.weight_scale_inv" in ckpt.location  # block FP8 (DeepSeek-V3's original)
            or info.dtype in FLOAT8_DTYPES
        )
        if (
            quantized is None
            or (quantized and has_scale)
            or (not quantized and not has_scale and info.dtype in FLOAT_DTYPES)
        ):
            out.append(module)
    return out


def plan_removal(ckpt: Checkpoint, remove: set[str]) -> tuple[list[LinkJob], list[ShardJob], dict[str, str], list[str]]:
    """Shard jobs for ``ckpt`` minus the tensors in ``remove`` (see the module docstring).

    Returns:
        ``(links, rewritten_shards, kept_location, notes)``; ``kept_location`` maps every kept tensor to its shard.
    """
    links: list[LinkJob] = []
    shards: list[ShardJob] = []
    kept: dict[str, str] = {}
    notes: list[str] = []
    for shard, header in ckpt.headers.items():
        names = [t.name for t in header.tensors]
        keep = [n for n in names if n not in remove]
        for n in keep:
            kept[n] = shard
        if len(keep) == len(names):
            links.append(LinkJob(shard, ckpt.root / shard, header.file_size_bytes))
        elif not keep:
            notes.append(f"{shard} is left out (all its tensors are replaced)")
        else:
            shards.append(ShardJob(shard, [copy_job(ckpt, n) for n in keep], dict(header.metadata) or {"format": "pt"}))
            notes.append(f"{shard} is rewritten without {len(names) - len(keep)} replaced tensors")
    return links, shards, kept, notes


def build_index(ckpt: Checkpoint, location: dict[str, str], total_bytes: int) -> dict[str, Any]:
    """An index for ``location`` (tensor -> shard): sorted weight_map, exact ``total_size``, other metadata kept."""
    meta = dict((ckpt.index or {}).get("metadata") or {})
    meta["total_size"] = total_bytes
    return {"metadata": meta, "weight_map": {n: location[n] for n in sorted(location)}}


def _other_files(ckpt: Checkpoint, skip: set[str]) -> list[LinkJob]:
    """Hardlink jobs for every non-shard file (tokenizer, generation config, ...) not in ``skip``."""
    out = []
    for p in sorted(ckpt.root.iterdir()):
        if p.is_file() and not p.name.endswith(".safetensors") and p.name not in skip and not p.name.startswith("."):
            out.append(LinkJob(p.name, p, p.stat().st_size))
    return out


def _tensor_bytes(jobs_location: dict[str, str], ckpt: Checkpoint, new: list[TensorJob]) -> int:
    return sum(ckpt.info(n).nbytes for n in jobs_location) + sum(planned_nbytes(t.dtype, t.shape) for t in new)


def _free_shard_name(ckpt: Checkpoint, base: str, keep: set[str]) -> str:
    name = f"{base}.safetensors"
    i = 1
    while name in keep:
        name = f"{base}-{i}.safetensors"
        i += 1
    return name


def _prefix_stem(prefix: str) -> str:
    return prefix.strip(".").replace(".", "-") or "tensors"


def plan_extract(src: str | Path, prefix: str, out: str | Path) -> SurgeryPlan:
    """Plan: the tensors under ``prefix`` as ``<stem>.safetensors`` plus ``manifest.json`` (names, dtypes,
    shapes, bytes, SHA-256 of each tensor's bytes).

    Raises:
        SurgeryError: no tensor under ``prefix``.
    """
    ckpt = open_checkpoint(src)
    names = ckpt.names(prefix)
    if not names:
        raise no_tensor_under(prefix, found=f"{len(ckpt.location)} tensors in {src}", fix="check --prefix (e.g. mtp.)")
    shard = f"{_prefix_stem(prefix)}.safetensors"
    plan = SurgeryPlan("extract", ckpt.root, Path(out), args={"prefix": prefix})
    plan.shards.append(ShardJob(shard, [copy_job(ckpt, n) for n in names]))

    def manifest(hashes: dict[str, str]) -> dict[str, Any]:
        return {
            "source": str(ckpt.root),
            "prefix": prefix,
            "file": shard,
            "tensors": [
                {
                    "name": n,
                    "dtype": ckpt.info(n).dtype,
                    "shape": list(ckpt.info(n).shape),
                    "nbytes": ckpt.info(n).nbytes,
                    "sha256": hashes.get(n),
                }
                for n in names
            ],
        }

    plan.jsons.append(JsonJob("manifest.json", manifest))
    return plan


def _read_configs(ckpt: Checkpoint) -> dict[str, dict[str, Any]]:
    return {f: c for f in CONFIG_FILES if (c := ckpt.config(f)) is not None}


def config_jobs(ckpt: Checkpoint, before: dict[str, dict[str, Any]], after: dict[str, dict[str, Any]]) -> list[JsonJob]:
    """JSON jobs for the configs that changed (indentation of the original kept)."""
    jobs = []
    for name, data in after.items():
        if data != before.get(name):
            jobs.append(JsonJob(name, data, before.get(name), indent=_indent_of(ckpt.root / name)))
    return jobs


def _indent_of(path: Path) -> int:
    try:
        for line in path.read_text(encoding="utf-8").splitlines()[1:]:
            if line.strip():
                return max(1, len(line) - len(line.lstrip(" ")))
    except OSError:
        pass
    return 2


SINGLE_FILE, BACKBONE_FILE = "model.safetensors", "model_backbone.safetensors"


def _rename_single_file(links: list[LinkJob], shards: list[ShardJob], kept: dict[str, str], notes: list[str]) -> None:
    """A single-file source's ``model.safetensors`` becomes ``model_backbone.safetensors`` in a result that has an
    index: transformers loads ``model.safetensors`` alone when it exists and never reads the index, so the new
    shard would be ignored (issue 13; the audit's ``SINGLE_FILE_SHADOWS_INDEX``)."""
    jobs: list[LinkJob | ShardJob] = [*links, *shards]
    for job in jobs:
        if job.name == SINGLE_FILE:
            job.name = BACKBONE_FILE
            notes.append(f"{SINGLE_FILE} is written as {BACKBONE_FILE} (listed in the index) so it cannot shadow it")
    for tensor, shard in kept.items():
        if shard == SINGLE_FILE:
            kept[tensor] = BACKBONE_FILE


def plan_derived(
    ckpt: Checkpoint,
    out: Path,
    operation: str,
    args: dict[str, Any],
    remove: set[str],
    new_shard_base: str,
    new_tensors: list[TensorJob],
    new_configs: Callable[[dict[str, dict[str, Any]]], dict[str, dict[str, Any]]],
) -> SurgeryPlan:
    """A new checkpoint folder = ``ckpt`` minus ``remove`` plus ``new_tensors`` in their own shard, with
    configs transformed by ``new_configs`` and the index rebuilt; every other file hardlinked."""
    links, shards, kept, notes = plan_removal(ckpt, remove)
    _rename_single_file(links, shards, kept, notes)
    new_name = _free_shard_name(ckpt, new_shard_base, set(kept.values()))
    before = _read_configs(ckpt)
    after = new_configs(copy.deepcopy(before))
    cfg_jobs = config_jobs(ckpt, before, after)
    changed = {j.name for j in cfg_jobs}
    links += _other_files(ckpt, skip=changed | {INDEX_NAME})
    location = dict(kept)
    location.update({t.name: new_name for t in new_tensors})
    index = build_index(ckpt, location, _tensor_bytes(kept, ckpt, new_tensors))
    plan = SurgeryPlan(operation, ckpt.root, Path(out), args=args, links=links, notes=notes)
    plan.shards = shards + [ShardJob(new_name, new_tensors)]
    plan.jsons = cfg_jobs + [JsonJob(INDEX_NAME, index, ckpt.index, indent=2)]
    return plan


def _hidden(cfg: dict[str, Any] | None) -> int | None:
    """The language model's ``hidden_size`` (:func:`.network_config`: ``text_config`` / ``llm_config`` first)."""
    return config_int(network_config(cfg), "hidden_size")


def _head_prefixes(want: DraftLayout) -> tuple[str, ...]:
    """The name prefixes of the target's MTP head (its graft prefix and each prefix the layout names)."""
    return tuple(sorted({want.graft_prefix, *want.prefixes} - {""}))


def check_graft_source(target: str | Path, src: str | Path, prefix: str) -> DraftLayout:
    """Refuse a graft no engine could load, before anything is planned: an empty ``prefix`` (the whole source), a
    ``prefix`` that is not where the target's own MTP family keeps its head (``architectures.toml``: Qwen ``mtp.``,
    DeepSeek / GLM ``model.layers.N.``, MiMo ``model.mtp_layers.``), a target that declares no MTP head, a source of
    another family, or a source of another hidden size (every grafted tensor would be misshapen).

    Raises:
        SurgeryError: with found / expected / fix (exit 2; nothing written).
    """
    if not prefix:
        raise SurgeryError(
            "an empty --prefix grafts the whole source checkpoint",
            found='--prefix ""',
            expected="the prefix of the draft head, e.g. mtp. (Qwen) or model.layers.61. (DeepSeek-V3)",
            fix="pass the head's prefix: `specscope audit TARGET` names it (MTP_WEIGHTS_MISSING / MTP_INCOMPLETE fix)",
        )
    want = mtp_layout(load_checkpoint(target))
    if want is None:
        raise SurgeryError(
            "the graft target declares no MTP head",
            found=f"{target}: no mtp_num_hidden_layers / num_nextn_predict_layers > 0 in config.json",
            expected="a target whose config declares the head being grafted",
            fix="declare the head in the target's config.json first (engines load only declared layers)",
        )
    allowed = _head_prefixes(want)
    if not prefix.startswith(allowed) and not any(p.startswith(prefix) for p in allowed):
        raise SurgeryError(
            f"--prefix {prefix} is not where a {want.family.title} head lives",
            found=f"--prefix {prefix}",
            expected=f"{want.graft_prefix} (the target's {want.family.title} head)",
            fix=f"graft from a {want.family.title} source with --prefix {want.graft_prefix}",
        )
    have = mtp_layout(load_checkpoint(src))
    if have is not None and have.family.key != want.family.key:
        raise SurgeryError(
            "the graft source carries another family's MTP head",
            found=f"{src}: {have.family.title}",
            expected=f"{want.family.title}, like the target",
            fix=f"graft from the target's own unquantized original ({want.family.source_example})",
        )
    th, sh = (
        _hidden(read_config_file(Path(target) / "config.json")),
        _hidden(read_config_file(Path(src) / "config.json")),
    )
    if th is not None and sh is not None and th != sh:
        raise SurgeryError(
            "the graft source has another hidden size",
            found=f"{src}: hidden_size {sh}",
            expected=f"hidden_size {th}, the target's",
            fix="graft from the unquantized original of this same model",
        )
    return want


def _same_file(a: Path, b: Path) -> bool:
    """True when both paths exist and are one file or folder (symlink, ``/.``, hardlink)."""
    try:
        return a.samefile(b)
    except OSError:
        return False


def check_not_itself(tgt: Checkpoint, source: Checkpoint, prefix: str) -> None:
    """Refuse a graft whose donor is the target: the same folder, or a folder whose every shard holding a ``prefix``
    tensor is the file the target holds that tensor in (hardlinks). The result would be the target with its own head.

    Raises:
        SurgeryError: found / expected / fix (exit 2; nothing written).
    """
    head = source.names(prefix)
    same = _same_file(tgt.root, source.root) or (
        bool(head)
        and all(
            n in tgt.location and _same_file(tgt.root / tgt.location[n], source.root / source.location[n]) for n in head
        )
    )
    if same:
        raise SurgeryError(
            "the graft source is the target itself: its head would replace itself",
            found=f"--from {source.root}"
            + ("" if _same_file(tgt.root, source.root) else f" (its {prefix} shards are hardlinks of {tgt.root}'s)"),
            expected=f"another checkpoint than {tgt.root}, holding the head to graft",
            fix="--from the checkpoint whose head you want (e.g. the unquantized original)",
        )


def check_graft_names(want: DraftLayout, prefix: str, sides: dict[str, Checkpoint]) -> None:
    """Refuse a ``prefix`` that selects tensors outside the head: names match by string, so ``model.layers.1``
    (no closing dot) on a DeepSeek target whose head is layer 12 took layers 1, 10 and 11 of the backbone too. vLLM
    places a DeepSeek MTP weight only under ``model.layers.{i}.`` with its dot (deepseek_mtp.py
    ``get_spec_layer_idx_from_weight_name``); sgl-project/sglang PR #40311: a guard on the layer name that did not
    hold loaded the MTP layer's weights into a main layer.

    Raises:
        SurgeryError: a side (``{"graft source": ckpt, "target": ckpt}``) holds a tensor under ``prefix`` that no
            head prefix covers (exit 2; nothing written).
    """
    head = _head_prefixes(want)
    for side, ckpt in sides.items():
        outside = [n for n in ckpt.names(prefix) if not n.startswith(head)]
        if outside:
            title = want.family.title
            raise SurgeryError(
                f"--prefix {prefix} selects tensors outside the {title} head",
                found=f"{side} {ckpt.root}: {len(outside)} tensors outside it, e.g. {outside[0]}",
                expected=f"tensors under {', '.join(head)} only",
                fix=f"graft with --prefix {want.graft_prefix} (the head, with its closing dot)",
            )


def _method(ckpt: Checkpoint) -> str | None:
    view = effective_view(quant_views(ckpt.config("config.json"), ckpt.config("hf_quant_config.json")))
    return None if view is None else view.method


def _check_quantized_head(tgt: Checkpoint, source: Checkpoint, prefix: str) -> None:
    """Refuse a head stored quantized by another method than the target's: its scales are in a layout the target's
    config does not describe (DeepSeek-V3's original keeps its MTP layer in block FP8, ``weight_scale_inv``; intel/
    auto-round PR #1526 dequantizes such tensors to BF16 before copying them into another format).

    Raises:
        SurgeryError: found / expected / fix (exit 2; nothing written).
    """
    quantized = linear_modules(source, prefix, quantized=True)
    theirs, ours = _method(source), _method(tgt)
    if quantized and theirs != ours:
        method = theirs or "no quantization config"
        raise SurgeryError(
            "the graft source's head is quantized by another method than the target's",
            found=f"{source.root}: {len(quantized)} quantized linears under {prefix} ({method}), e.g. {quantized[0]}",
            expected=f"unquantized linears, or linears quantized by {ours or 'no method'} like the target's",
            fix="graft from a BF16 copy of the head (dequantize it first)",
        )


def plan_graft(target: str | Path, src: str | Path, prefix: str, out: str | Path) -> SurgeryPlan:
    """Plan: ``target`` with every tensor under ``prefix`` taken from ``src`` (seed 002).

    Grafted tensors go to ``model-<stem>.safetensors``; the target's old ``prefix`` tensors are removed; the
    grafted unquantized linears are added to every exclude list of the target's quantization config (both
    ModelOpt files) and dropped from a ModelOpt ``quantized_layers`` map.

    Raises:
        SurgeryError: no tensor under ``prefix`` in ``src``, the target itself as ``src``
            (:func:`check_not_itself`), or a source :func:`check_graft_source` refuses.
    """
    tgt = open_checkpoint(target)
    source = open_checkpoint(src)
    want = check_graft_source(target, src, prefix)
    check_graft_names(want, prefix, {"graft source": source, "target": tgt})
    check_not_itself(tgt, source, prefix)
    names = source.names(prefix)
    if not names:
        raise no_tensor_under(prefix, where=" in the graft source", found=str(src), fix="check --from and --prefix")
    modules = linear_modules(source, prefix, quantized=False)
    _check_quantized_head(tgt, source, prefix)

    def patch(cfgs: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
        if dialect(cfgs) is None or not modules:
            return cfgs
        whole = not linear_modules(source, prefix, quantized=True)  # the grafted prefix is the source's alone
        cfgs = add_exclusions(cfgs, modules, whole_prefix=prefix if whole else None)
        for sec_file, sec in (("config.json", "quantization_config"), ("hf_quant_config.json", "quantization")):
            layers = (cfgs.get(sec_file) or {}).get(sec, {}).get("quantized_layers")
            if isinstance(layers, dict):
                for m in modules:
                    layers.pop(m, None)
        return cfgs

    new = [copy_job(source, n) for n in names]
    plan = plan_derived(
        tgt,
        Path(out),
        "graft",
        {"from": str(source.root), "prefix": prefix},
        set(tgt.names(prefix)),
        f"model-{_prefix_stem(prefix)}",
        new,
        patch,
    )
    plan.inputs = [source.root]
    if modules and not exclude_lists(_read_configs(tgt)):
        plan.notes.append("target has no quantization config: grafted modules load unquantized as they are")
    return plan


def plan_reindex(ckpt_dir: str | Path, out: str | Path | None = None) -> SurgeryPlan:
    """Plan: rebuild ``model.safetensors.index.json`` from the shard headers (case C03). In place when
    ``out`` is None (only the index is replaced, atomically); otherwise a new folder with hardlinked shards.
    An empty plan (no JSON job) means the index is already right."""
    ckpt = open_checkpoint(ckpt_dir, broken_index_ok=True)
    total = sum(h.tensor_bytes for h in ckpt.headers.values())
    index = build_index(ckpt, ckpt.location, total)
    in_place = out is None
    plan = SurgeryPlan("reindex", ckpt.root, ckpt.root if out is None else Path(out), in_place=in_place)
    old = ckpt.index or {}
    if ckpt.index_problem:
        plan.notes.append(f"the old index was set aside ({ckpt.index_problem}); rebuilt from the shard headers")
    dangling = sorted(set(old.get("weight_map", {})) - set(ckpt.location))
    if dangling:
        plan.notes.append(f"{len(dangling)} index entries name tensors no shard holds; dropped: {dangling[:5]}")
    added = sorted(set(ckpt.location) - set(old.get("weight_map", {})))
    if added:
        shards = sorted({ckpt.location[n] for n in added})
        plan.notes.append(f"{len(added)} tensors added to the index from {shards}")
    if index != ckpt.index:
        plan.jsons.append(JsonJob(INDEX_NAME, index, ckpt.index, indent=2))
    if not in_place:
        plan.links = [LinkJob(s, ckpt.root / s, h.file_size_bytes) for s, h in ckpt.headers.items()]
        plan.links += _other_files(ckpt, skip={INDEX_NAME})
        if not plan.jsons and ckpt.index is not None:
            plan.links.append(LinkJob(INDEX_NAME, ckpt.root / INDEX_NAME, (ckpt.root / INDEX_NAME).stat().st_size))
    return plan
