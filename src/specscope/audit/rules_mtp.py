"""Rule 3: the MTP / next-n head the config declares is complete, indexed and correctly shaped, by its family.

Sources: seed 000 (Qwen3.6-27B uploads before 2026-07-21 lack ``mtp.fc.weight`` [5120, 10240] BF16; vLLM serves them
without error and rejects every draft), vLLM PR #35548 (quantized GLM-5 without its MTP layer, case C01),
huggingface_hub issue #4725 (case C02), osaurus-ai/vmlx-swift PR #388 (case C03). What each family's head holds, may
share and is declared by: :mod:`specscope.audit.architectures` (``architectures.toml``, engine loaders named there).
"""

from __future__ import annotations

import json
import re

from specscope.audit.archdoc import unjudged_mtp_model_types
from specscope.audit.architectures import (
    DraftLayout,
    config_int,
    detect_family,
    draft_layout,
    main_layer_prefix,
    step_pattern,
    unlisted,
)
from specscope.audit.catalog import arg, finding
from specscope.audit.findings import Finding
from specscope.audit.rules_heads import breakdown, count_groups, fix_for, names_source, stored_names
from specscope.audit.rules_mtp_undeclared import MTP_SEGMENT, declared_mtp_keys
from specscope.audit.rules_shapes import check_mtp_shapes
from specscope.checkpoint import INDEX_NAME, Checkpoint
from specscope.checkpoint.dtypes import PACKED_INT_DTYPES

__all__ = ["check_mtp", "mtp_layout"]


def mtp_layout(ck: Checkpoint) -> DraftLayout | None:
    """The MTP head ``ck``'s config declares (family by config keys, model type and tensor names), or None."""
    names = sorted(set(ck.locations) | set(ck.weight_map))
    found = detect_family(ck.config, names)
    if found is None:
        return None
    fam, n_layers, key, cfg = found
    model_type = str(cfg.get("model_type", ""))
    if fam.unlisted_model_type and declared_mtp_keys(cfg):
        return None  # declared as MiniMax's heads are, for a type no census engine loads one for: MTP_NO_ENGINE
    if not fam.unlisted_model_type and model_type in unjudged_mtp_model_types():
        fam = unlisted(fam, model_type)  # the census names another loader for it: not this family's rule
    return draft_layout(fam, ck.config, names, num_layers=n_layers, config_key=key)


def _declared(layout: DraftLayout) -> str:
    return f"{layout.config_key}: {layout.num_layers}"


def _held_elsewhere(layout: DraftLayout, names: set[str]) -> list[str]:
    """Tensors that look like the declared head but sit under another prefix: a name ending in one of the head's own
    leaf names (``eh_proj.weight``, ``fc.weight`` under ``mtp.``'s layout) or holding an ``mtp`` / ``nextn`` segment,
    e.g. a DeepSeek head left at ``model.layers.61.*`` after the main layers were pruned (fresh-user check,
    2026-12-05: those were never mentioned, and the fix asked for a graft from a release)."""
    leaves = set()
    for name in layout.specific:
        prefix = next((p for p in layout.prefixes if name.startswith(p)), "")
        leaves.add(name[len(prefix) :])
    generic = {"weight", "norm.weight", "bias"}
    leaves -= generic
    return sorted(n for n in names if any(n.endswith("." + leaf) for leaf in leaves) or _MTP_SEGMENT.search(n))


def _missing_all(ck: Checkpoint, layout: DraftLayout, names: set[str]) -> Finding:
    specific = list(layout.specific)
    prefix_text = ", ".join(layout.prefixes)
    elsewhere = _held_elsewhere(layout, names)
    fix = fix_for(layout, ck.label, specific[0] if specific else prefix_text)
    if elsewhere:
        more = len(elsewhere) - _SHOWN
        shown = ", ".join(elsewhere[:_SHOWN]) + (f" (+{more} more)" if more > 0 else "")
        fix = (
            f"the checkpoint holds {len(elsewhere)} tensors that look like this head under another prefix ({shown}): "
            f"rename them to {prefix_text} (or correct the layer count in config.json); else {fix}"
        )
    return finding(
        "MTP_WEIGHTS_MISSING",
        file="config.json",
        tensor=specific[0] if specific else None,
        family=layout.family.title,
        layers=layout.num_layers,
        prefixes=prefix_text,
        n_specific=len(specific),
        specific=", ".join(specific),
        required=len(layout.required),
        declared=_declared(layout),
        fix=fix,
        details={
            "family": layout.family.key,
            "prefixes": list(layout.prefixes),
            "tensors_found": 0,
            "held_elsewhere": elsewhere,
            "required": list(layout.required),
            "specific_missing": specific,
            "names_from": names_source(ck),
        },
    )


def _incomplete(ck: Checkpoint, layout: DraftLayout, names: set[str]) -> Finding | None:
    counts = count_groups(layout, names)
    missing = [n for c in counts for n in c.missing]
    if not missing:
        return None
    n_req = sum(c.total for c in counts)
    return finding(
        "MTP_INCOMPLETE",
        file="config.json",
        tensor=missing[0],
        family=layout.family.title,
        layers=layout.num_layers,
        present=n_req - len(missing),
        required=n_req,
        breakdown=breakdown(counts),
        missing=", ".join(missing),
        declared=_declared(layout),
        fix=fix_for(layout, ck.label, missing[0]),
        details={
            "family": layout.family.key,
            "expected": n_req,
            "present": n_req - len(missing),
            "missing": missing,
            "groups": [c.__dict__ for c in counts],
            "names_from": names_source(ck),
        },
    )


def _not_indexed(ck: Checkpoint, physical: list[str]) -> Finding | None:
    unindexed = [n for n in physical if n not in ck.weight_map]
    if ck.index is None or not unindexed:
        return None
    shards = sorted({loc.shard for n in unindexed for loc in ck.locations[n]})
    return finding(
        "MTP_NOT_INDEXED",
        file=INDEX_NAME,
        tensor=unindexed[0],
        unindexed=len(unindexed),
        physical=len(physical),
        shards=", ".join(shards),
        checkpoint=arg(ck.label),
        details={"unindexed": unindexed, "shards": shards},
    )


def _fusion_shape(ck: Checkpoint, layout: DraftLayout) -> Finding | None:
    fc_name, h = layout.fusion_tensor, layout.hidden_size
    fc = ck.tensor(fc_name) if fc_name else None
    if fc is None or not h or fc_name is None:
        return None
    if fc.dtype in PACKED_INT_DTYPES and len(fc.shape) == 2:
        ok = fc.shape[0] == h and fc.shape[1] in (2 * h, h, 2 * h // 8)  # 4-bit codes packed 2 per U8 / 8 per I32
        want = f"[{h}, {2 * h}] (or a packed form)"
    else:
        ok = list(fc.shape) == [h, 2 * h]
        want = f"[{h}, {2 * h}]"
    if ok:
        return None
    shape = list(fc.shape)
    return finding("MTP_FC_SHAPE", file=ck.shard_of(fc_name), tensor=fc_name, shape=shape, dtype=fc.dtype, want=want)


#: a name segment that marks an MTP / next-n head in any layout (``mtp.``, ``model.mtp_block.``, ``model.mtp.``,
#: ``nextn``): where an unlisted model type's head may be stored.
_MTP_SEGMENT = MTP_SEGMENT
_SHOWN = 3


def _unknown_layout(ck: Checkpoint, layout: DraftLayout, names: set[str], on_head: list[str]) -> Finding | None:
    """``MTP_LAYOUT_UNKNOWN`` (WARNING) for a model type outside the census (no family lists it) whose checkpoint
    holds MTP tensors: under the nearest family's prefixes (e.g. Bailing's ``model.layers.N.*`` read as DeepSeek's,
    Nemotron-H's ``mtp.layers.0.eh_proj`` under Qwen's ``mtp.``) or elsewhere (any ``mtp`` / ``nextn`` segment). The
    finding lists what is stored and what the nearest family would need, and judges nothing: another family's rule
    would call a working head broken and give that family's fix. With no MTP tensor anywhere the head is missing
    (``MTP_WEIGHTS_MISSING``)."""
    model_type = layout.family.unlisted_model_type
    if not model_type:
        return None
    held = on_head or sorted(n for n in names if _MTP_SEGMENT.search(n))
    if not held:
        return None
    prefixes = sorted({n[: m.end()] for n in held if (m := _MTP_SEGMENT.search(n))} or set(layout.prefixes))
    base = layout.family.title.rsplit("read with the ", 1)[-1].removesuffix(" layout)")
    have = sum(1 for n in layout.specific if n in names)
    return finding(
        "MTP_LAYOUT_UNKNOWN",
        file="config.json",
        tensor=held[0],
        layers=layout.num_layers,
        declared=_declared(layout),
        model_type=model_type,
        n=len(held),
        prefixes=", ".join(prefixes),
        examples=", ".join(held[:_SHOWN]),
        base=base,
        specific=", ".join(layout.specific),
        have=have,
        details={
            "model_type": model_type,
            "tensors": len(held),
            "prefixes": prefixes,
            "nearest": base,
            "nearest_needs": list(layout.specific),
            "nearest_stored": have,
        },
    )


def _layers_not_built(ck: Checkpoint, layout: DraftLayout, names: set[str]) -> Finding | None:
    """``MTP_LAYERS_NOT_BUILT``: head layers stored at or past the count the engine builds, by what the family's
    loader does with them (architectures.toml ``past_layers``). ERROR where it raises, e.g. a Qwen3-Next head of
    ``mtp_num_hidden_layers: 2`` with two layers stored, of which vLLM builds ``num_nextn_predict_layers`` (default 1)
    and raises on ``mtp.layers.1.*`` (qwen3_next_mtp.py @055e47c2 ``load_weights``: AutoWeightsLoader with no skip
    prefix). ``/skipped`` (WARNING) where it skips them: Qwen3.5 (qwen3_5_mtp.py @01d99805) and DeepSeek
    (deepseek_mtp.py, ``model.layers.{N+i}`` with i >= ``num_nextn_predict_layers``). Both were exit 0 with no word.
    ``/fixed`` (ERROR) where the loader raises and loads no more layers whatever the key declares (``layers_fixed``:
    LongCat-Flash, ERNIE): the fix is a re-export, not the key. Each family's behaviour is read from its own loader
    (architectures.toml ``engines``); a family whose loader was not read has no ``past_layers`` and is not judged.
    Layer indices are draft indices (DeepSeek's ``model.layers.{N+1}`` is draft layer 1; Nemotron-H's step of
    ``len(mtp_hybrid_override_pattern)`` physical layers ``mtp.layers.{j}`` is one draft layer, and nemotron_h_mtp.py
    @01ca2773 skips a physical layer past the step it builds). ``/target`` (ERROR) where the MTP loader would skip
    them but the target model's own loader, which reads the same checkpoint first, raises on them
    (architectures.toml ``target_past_layers``: Kimi-K3's KimiLinearModel @006193b5 skips only the layers
    ``num_nextn_predict_layers`` declares and indexes its parameters by name for the rest); that is what the user
    hits, with or without speculation."""
    fam = layout.family
    if fam.past_layers not in ("raises", "skips"):
        return None
    raising = _target_raises_past(ck, layout, names)
    if raising is not None:
        return raising
    width = 1  # physical layers per draft layer: a step of len(pattern) layers for a pattern family (Nemotron-H)
    if fam.pattern_key:
        step = step_pattern(fam, ck.text_config)
        if not step:
            return None
        width, stem, first = len(step), f"{fam.head_prefix}layers.\0.", 0
    else:
        if not layout.layer_prefixes or ("{i}" not in fam.layer_prefix and "{n}" not in fam.layer_prefix):
            return None
        stem = fam.layer_prefix.format(head=fam.head_prefix, i="\0", n="\0", main=main_layer_prefix(sorted(names)))
    # a layer number of at most 9 digits (a 5,000-digit one is no layer: int() refuses past 4,300 digits, fuzz case)
    pattern = re.compile(re.escape(stem).replace("\0", r"(\d{1,9})(?!\d)"))
    if not fam.pattern_key:
        first_match = pattern.match(layout.layer_prefixes[0])
        if first_match is None:
            return None
        first = int(first_match.group(1))  # draft layer 0's index in the stored names (DeepSeek: num_hidden_layers)
    past: dict[int, list[str]] = {}
    physical: set[int] = set()
    for name in sorted(names):
        m = pattern.match(name)
        if m is not None and (int(m.group(1)) - first) // width >= layout.num_layers:
            past.setdefault((int(m.group(1)) - first) // width, []).append(name)
            physical.add(int(m.group(1)))
    if not past:
        return None
    indices = sorted(past)
    tensors = [n for i in indices for n in past[i]]
    prefixes = [stem.replace("\0", str(j)) for j in sorted(physical)]  # never read per step (audit.census unread)
    code = "MTP_LAYERS_NOT_BUILT" if fam.past_layers == "raises" else "MTP_LAYERS_NOT_BUILT/skipped"
    if fam.past_layers == "raises" and fam.layers_fixed:
        code = "MTP_LAYERS_NOT_BUILT/fixed"  # raising the layers key would not make the loader read them
    if fam.past_layers == "skips" and fam.target_past_layers == "raises":
        code = "MTP_LAYERS_NOT_BUILT/target"  # the target's own loader reads them first and raises
    return _past_finding(code, ck, layout, indices, tensors, prefixes)


def _past_finding(
    code: str, ck: Checkpoint, layout: DraftLayout, indices: list[int], tensors: list[str], prefixes: list[str]
) -> Finding:
    """The ``MTP_LAYERS_NOT_BUILT*`` finding of draft layers ``indices`` stored past those built: ``tensors`` their
    names (in layer order), ``prefixes`` their physical prefixes (never read per step: audit.census)."""
    fam = layout.family
    return finding(
        code,
        file=ck.shard_of(tensors[0]),
        tensor=tensors[0],
        n=len(tensors),
        indices=", ".join(map(str, indices)),
        built=layout.num_layers,
        last=layout.num_layers - 1,
        stored=indices[-1] + 1,
        family=fam.title,
        declared=_declared(layout),
        layers_key=fam.layers_key,
        details={
            "family": fam.key,
            "built": layout.num_layers,
            "stored_past": indices,
            "tensors": tensors,
            "prefixes": prefixes,
        },
    )


def _target_raises_past(ck: Checkpoint, layout: DraftLayout, names: set[str]) -> Finding | None:
    """``MTP_LAYERS_NOT_BUILT/target`` (ERROR) for a main-layer index past those the target's loader drops that holds
    a name the target looks up with no skip (architectures.toml ``target_past_names``). HY-V4: vLLM
    vllm/models/hy_v4/nvidia/model.py @055e47c2 HYV4ForCausalLM.load_weights drops ``model.mtp_layers.*`` and
    ``model.layers.{N+i}`` for i < ``num_nextn_predict_layers``; HYV4Model.load_weights skips any other name it has no
    parameter for, except fused experts (``experts.gate_up_proj`` / ``experts.down_proj``), which
    load_fused_expert_weights looks up in ``params_dict[name]``: a KeyError. Such a layer was exit 0 with no word (the
    past-layer rule reads ``model.mtp_layers.{i}`` only)."""
    fam = layout.family
    if not fam.target_past_names:
        return None
    tc = ck.text_config
    n_main = tc.get("num_hidden_layers")
    if not isinstance(n_main, int) or isinstance(n_main, bool):
        return None
    declared = tc.get(fam.layers_key)
    dropped = declared if isinstance(declared, int) and not isinstance(declared, bool) and declared > 0 else 0
    stem = re.escape(main_layer_prefix(sorted(names)) + "layers.")
    pattern = re.compile(stem + r"(\d{1,9})\.")
    past: dict[int, list[str]] = {}
    for name in sorted(names):
        m = pattern.match(name)
        if m is None or int(m.group(1)) < n_main + dropped:
            continue
        if any(part in name for part in fam.target_past_names):
            past.setdefault(int(m.group(1)), []).append(name)
    if not past:
        return None
    physical = sorted(past)
    indices = [j - n_main for j in physical]  # draft indices: model.layers.{N+i} is draft layer i
    tensors = [n for j in physical for n in past[j]]
    prefixes = [f"{main_layer_prefix(sorted(names))}layers.{j}." for j in physical]
    return _past_finding("MTP_LAYERS_NOT_BUILT/target", ck, layout, indices, tensors, prefixes)


def _layers_unsupported(ck: Checkpoint, layout: DraftLayout) -> Finding | None:
    """``MTP_LAYERS_UNSUPPORTED`` (ERROR): the config declares more MTP layers than the family's engine accepts
    (architectures.toml ``layers_max``): vLLM nemotron_h_mtp.py @01ca2773 asserts ``num_nextn_predict_layers == 1``
    when it builds the predictor, so a Nemotron-H config declaring 2 never starts with MTP; it was audited as two steps
    (exit 0 with both stored). The head is judged as the count the engine accepts."""
    fam = layout.family
    if fam.layers_max <= 0:
        return None
    declared = config_int(ck.text_config, fam.layers_key) or config_int(ck.config, fam.layers_key)
    if declared is None or declared <= fam.layers_max:
        return None
    return finding(
        "MTP_LAYERS_UNSUPPORTED",
        file="config.json",
        layers_key=fam.layers_key,
        declared=declared,
        most=fam.layers_max,
        family=fam.title,
        details={"family": fam.key, "declared": declared, "accepted": fam.layers_max},
    )


def _layer_types_invalid(ck: Checkpoint, layout: DraftLayout) -> Finding | None:
    """``DRAFT_CONFIG_INVALID/mtp`` (ERROR): the family's per-layer list (architectures.toml ``layer_types_key``) is
    not a list with one entry per declared MTP layer. vLLM speculative.py @002e77c1, dots3_note: ``n_predict =
    getattr(hf_config, "num_nextn_predict_layers", 1)``, ``mtp_layer_types`` defaults to one "sliding_attention" per
    layer and any other length raises "mtp_layer_types must have one entry per MTP layer"."""
    key = layout.family.layer_types_key
    cfg = ck.text_config
    if not key or key not in cfg:
        return None
    value, layers_key = cfg[key], layout.family.layers_key
    declared = config_int(cfg, layers_key)
    declared = 1 if declared is None and layers_key not in cfg else declared
    if isinstance(value, list) and declared is not None and len(value) == declared:
        return None
    shown = f"a list of {len(value)}" if isinstance(value, list) else repr(value)
    return finding(
        "DRAFT_CONFIG_INVALID/mtp",
        file="config.json",
        config_key=key,
        value=json.dumps(value),
        why=f"{shown} where the engine wants one entry per MTP layer ({layers_key}: {declared})",
        expected=f"a list of {declared} layer type(s)",
        details={"family": layout.family.key, "key": key, "declared": declared},
    )


def check_mtp(ck: Checkpoint) -> tuple[list[Finding], DraftLayout | None]:
    """Findings for the declared MTP head, and the layout used (None when the config declares no MTP).

    Codes: ``MTP_WEIGHTS_MISSING`` (ERROR, no tensor under the head's prefixes), ``MTP_INCOMPLETE`` (ERROR, some
    required tensors missing; the message counts them per group), ``MTP_NOT_INDEXED`` (ERROR, tensors on disk but
    absent from the index), ``MTP_FC_SHAPE`` (ERROR, the fusion projection is not [hidden, 2*hidden]),
    ``MTP_LAYER_SHAPE`` (ERROR, :mod:`.rules_shapes`), ``MTP_LAYOUT_UNKNOWN`` (WARNING: a model type outside the
    census that holds MTP tensors: listed beside the nearest family's needs, not judged). A tensor the
    family shares with the target (DeepSeek's per-layer ``embed_tokens`` / ``shared_head.head``) may be omitted.
    A folder with configs only (no index, no shard) is not judged on tensors.
    """
    layout = mtp_layout(ck)
    if layout is None:
        return [], None
    names = stored_names(ck)
    if names is None:
        return [], layout
    on_head = sorted(n for n in names if layout.contains(n))
    unknown = _unknown_layout(ck, layout, names, on_head)
    if unknown is not None:
        return [unknown], layout
    if not on_head:
        return [_missing_all(ck, layout, names)], layout
    checks = [_layers_unsupported(ck, layout), _layer_types_invalid(ck, layout), _incomplete(ck, layout, names)]
    checks.append(_layers_not_built(ck, layout, names))
    out = [f for f in checks if f is not None]
    physical = sorted(n for n in ck.locations if layout.contains(n))
    out += [f for f in (_not_indexed(ck, physical), _fusion_shape(ck, layout)) if f is not None]
    out += check_mtp_shapes(ck, layout)
    return out, layout
