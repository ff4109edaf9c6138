"""Config-only plans: ``patch-config`` (exclude unquantized draft modules, sync the two ModelOpt files) and
``dflash-layers`` (seed 000: declare every DFlash draft layer sliding so a released vLLM loads it).

Both write JSON only: in place (atomic replace of the config files, nothing else touched) or, with ``out``, a
new folder where every other file is hardlinked.
"""

from __future__ import annotations

import copy
from pathlib import Path

from specscope.checkpoint.schema import read_config_file
from specscope.errors import SurgeryError
from specscope.surgery.configs import CONFIG, add_exclusions, remove_exclusions, sync_configs
from specscope.surgery.graft import _indent_of, _read_configs, config_jobs, linear_modules
from specscope.surgery.plan import JsonJob, LinkJob, SurgeryPlan
from specscope.surgery.shards import open_checkpoint

__all__ = ["plan_patch_config", "plan_dflash_layers"]


def _finish(plan: SurgeryPlan, root: Path, changed: set[str]) -> SurgeryPlan:
    if not plan.in_place:
        plan.links = _other_files_all(root, changed)
    return plan


def _other_files_all(root: Path, skip: set[str]) -> list[LinkJob]:
    return [
        LinkJob(p.name, p, p.stat().st_size)
        for p in sorted(root.iterdir())
        if p.is_file() and p.name not in skip and not p.name.startswith(".")
    ]


def plan_patch_config(
    ckpt_dir: str | Path,
    *,
    exclude_unquantized: str | None = None,
    include_quantized: str | None = None,
    sync: bool = False,
    out: str | Path | None = None,
) -> SurgeryPlan:
    """Plan config patches decided by the tensors on disk.

    Args:
        exclude_unquantized: a prefix (e.g. ``mtp.``): every unquantized linear under it (2-D float weight
            without ``weight_scale``) that no exclude entry covers is appended, by name, to every exclude list
            (case C06; Quark keeps its list in config.json, ModelOpt in both files); a compressed-tensors list gains
            one ``re:`` pattern for the prefix instead when no linear under it is quantized
            (:func:`specscope.surgery.configs.add_exclusions`).
        include_quantized: a prefix (e.g. ``mtp.``): every exclude entry (name, glob or compressed-tensors ``re:``
            pattern) that covers a quantized linear under it is dropped; the unquantized linears a dropped entry
            still has to cover are re-added by name (``MTP_QUANTIZED_BUT_EXCLUDED``).
        sync: make ``config.json`` and ``hf_quant_config.json`` agree, toward what the tensors show (case C11).
        out: a new folder; None = in place.

    Raises:
        SurgeryError: nothing asked, or a patch the configs cannot express.
    """
    if not exclude_unquantized and not include_quantized and not sync:
        raise SurgeryError(
            "nothing to patch",
            found="no option",
            expected="--exclude-unquantized PREFIX, --include-quantized PREFIX or --sync",
            fix="choose a patch",
        )
    ckpt = open_checkpoint(ckpt_dir)
    before = _read_configs(ckpt)
    after = copy.deepcopy(before)
    notes: list[str] = []
    if exclude_unquantized:
        modules = linear_modules(ckpt, exclude_unquantized, quantized=False)
        whole = not linear_modules(ckpt, exclude_unquantized, quantized=True)
        after = add_exclusions(after, modules, whole_prefix=exclude_unquantized if whole else None)
        notes.append(f"{len(modules)} unquantized linears under {exclude_unquantized!r}")
    if include_quantized:
        modules = linear_modules(ckpt, include_quantized, quantized=True)
        after = remove_exclusions(after, modules, linear_modules(ckpt, "", quantized=False))
        notes.append(f"{len(modules)} quantized linears under {include_quantized!r} taken out of the exclude lists")
    if sync:
        kv = any(n.endswith((".k_scale", ".v_scale")) for n in ckpt.location)
        after, actions = sync_configs(
            after,
            kv_scales_present=kv,
            unquantized_linears=set(linear_modules(ckpt, quantized=False)),
            quantized_linears=set(linear_modules(ckpt, quantized=True)),
        )
        notes += actions or ["configs already agree"]
    in_place = out is None
    plan = SurgeryPlan(
        "patch-config",
        ckpt.root,
        ckpt.root if out is None else Path(out),
        in_place=in_place,
        args={"exclude_unquantized": exclude_unquantized, "include_quantized": include_quantized, "sync": sync},
        notes=notes,
    )
    plan.jsons = config_jobs(ckpt, before, after)
    return _finish(plan, ckpt.root, {j.name for j in plan.jsons})


def plan_dflash_layers(
    draft_dir: str | Path, *, all_sliding: bool = True, out: str | Path | None = None
) -> SurgeryPlan:
    """Plan: rewrite a DFlash draft's ``layer_types`` so every layer is ``sliding_attention`` (seed 000).

    vLLM's ``qwen3_dflash.py`` refuses a mix of sliding and full layers (vLLM PR #40898). Declaring the full
    layers sliding is exact while the context is shorter than ``sliding_window`` and approximate beyond it;
    the plan's notes say so. The weights are untouched.

    Raises:
        SurgeryError: no ``config.json``, no ``layer_types``, or no integer ``sliding_window``.
    """
    if not all_sliding:
        raise SurgeryError(
            "only --all-sliding is implemented", found="no mode", expected="--all-sliding", fix="pass --all-sliding"
        )
    root = Path(draft_dir)
    cfg_path = root / CONFIG
    if not cfg_path.is_file():
        raise SurgeryError(
            "draft has no config.json",
            found=str(root),
            expected="a DFlash draft folder",
            fix="point at the draft model folder",
        )
    before = read_config_file(cfg_path) or {}
    layer_types = before.get("layer_types")
    window = before.get("sliding_window")
    if not isinstance(layer_types, list) or not layer_types:
        raise SurgeryError(
            "draft config has no layer_types",
            found=sorted(before)[:12],
            expected="layer_types list",
            fix="nothing to rewrite: the draft declares one attention kind",
        )
    if not isinstance(window, int) or isinstance(window, bool) or window <= 0:
        raise SurgeryError(
            "draft config has no sliding_window",
            found=window,
            expected="a positive integer",
            fix="set sliding_window, or serve with a vLLM that supports mixed layers (PR #40898)",
        )
    full = [i for i, t in enumerate(layer_types) if t != "sliding_attention"]
    after = copy.deepcopy(before)
    after["layer_types"] = ["sliding_attention"] * len(layer_types)
    in_place = out is None
    plan = SurgeryPlan(
        "dflash-layers", root, root if out is None else Path(out), in_place=in_place, args={"all_sliding": True}
    )
    if full:
        plan.jsons.append(JsonJob(CONFIG, after, before, indent=_indent_of(cfg_path)))
        plan.notes.append(
            f"layers {full} were full attention and now use a {window}-token window: exact for "
            f"contexts below {window} tokens, approximate beyond (acceptance may drop there; "
            "outputs stay correct because the target verifies every draft token)"
        )
    else:
        plan.notes.append("all layers already sliding_attention; nothing to change")
    return _finish(plan, root, {j.name for j in plan.jsons})
