"""What a draft holds against what its family requires (:mod:`.architectures`), shared by MTP heads and drafts.

A required name is satisfied by its stored spellings (``X.weight_packed`` / ``X.qweight`` for quantized weights, the
fused ``qkv_proj`` / ``gate_up_proj`` that holds a part, the family's loader aliases such as EAGLE-3's ``midlayer.``).
The names a checkpoint holds are its shard headers' names; a folder with an index and no shard file (configs and the
index downloaded to check before the weights) is judged by the index's names, and one with neither is not judged.

Codes: ``DRAFT_TENSORS_MISSING`` (ERROR) and ``DRAFT_TENSORS_UNREAD`` (ERROR when the loader raises, WARNING when it
skips) for separate drafts; the MTP codes live in :mod:`.rules_mtp`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from specscope.audit.architectures import (
    DraftLayout,
    alias_name,
    config_int,
    declared_architectures,
    fused_spellings,
    medusa_counts,
    rename_prefix,
)
from specscope.audit.catalog import finding
from specscope.audit.findings import Finding
from specscope.audit.layout import module_of
from specscope.audit.rules_moe import fused_experts_cover
from specscope.checkpoint import Checkpoint
from specscope.textsafe import shell_word

__all__ = [
    "GroupCount",
    "stored_names",
    "names_source",
    "count_groups",
    "fix_for",
    "check_draft_tensors",
    "check_unread_tensors",
    "unread_tensors",
    "breakdown",
]


def stored_names(ck: Checkpoint) -> set[str] | None:
    """The tensor names a loader sees: every readable header's, or the index's when no shard file is present
    (metadata only); None when the checkpoint has neither (configs only).

    A name the index puts in a shard that is missing, a broken link or unparseable counts as stored: that shard's
    own finding (``INDEX_SHARD_MISSING``, ``BROKEN_SYMLINK``, the header's code) names the cause and the fix, so the
    head or draft is not also reported as missing with a fix (a graft) that would not help.
    """
    if any(s.header is not None for s in ck.shards.values()):
        unreadable = {n for n, s in ck.shards.items() if s.header is None}
        return set(ck.locations) | {t for t, shard in ck.weight_map.items() if shard in unreadable}
    if ck.weight_map:
        return set(ck.weight_map)
    return None


def names_source(ck: Checkpoint) -> str:
    """Where :func:`stored_names` took the names from: ``headers``, ``index`` or ``none``."""
    if any(s.header is not None for s in ck.shards.values()):
        return "headers"
    return "index" if ck.weight_map else "none"


@dataclass(frozen=True)
class GroupCount:
    """One required group: how many of its names are stored, and which are missing."""

    label: str
    present: int
    total: int
    missing: tuple[str, ...]


def _satisfied(layout: DraftLayout, names: set[str], aliased: set[str], required: str) -> bool:
    return any(n in names or n in aliased for n in fused_spellings(required))


def _as_stored(layout: DraftLayout, names: set[str], required: str) -> str:
    """``required`` in the spelling this checkpoint uses (EAGLE-3 ``midlayer.`` when its other tensors use it; the
    family's ``name_aliases`` when any stored name is so spelled)."""
    pairs = layout.family.name_aliases
    if any(rename_prefix(stored, own, n) is not None for n in names for stored, own in pairs):
        for stored, own in pairs:
            renamed = rename_prefix(own, stored, required)
            if renamed is not None:
                return renamed
    for alias in layout.family.layer_aliases:
        if required.startswith("layers.0.") and any(n.startswith(alias) for n in names):
            return alias + required[len("layers.0.") :]
    return required


def count_groups(layout: DraftLayout, names: set[str]) -> list[GroupCount]:
    """Per required group of ``layout``: present / total and the missing names (in table order, spelled as the
    checkpoint spells its other tensors)."""
    aliased = {alias_name(layout.family, n) for n in names}
    out = []
    for label, group in layout.groups:
        missing = tuple(_as_stored(layout, names, n) for n in group if not _satisfied(layout, names, aliased, n))
        out.append(GroupCount(label, len(group) - len(missing), len(group), missing))
    return out


def breakdown(counts: list[GroupCount]) -> str:
    """``MTP-specific: 0 of 4 (missing ...); decoder layer 0 (as main layer 91): 9 of 9`` for a finding's message."""
    parts = []
    for c in counts:
        text = f"{c.label}: {c.present} of {c.total}"
        if c.missing and c.present:
            text += f" (missing {', '.join(c.missing[:4])}{' ...' if len(c.missing) > 4 else ''})"
        parts.append(text)
    return "; ".join(parts)


def fix_for(layout: DraftLayout, checkpoint: str, tensor: str) -> str:
    """The fix of a missing ``tensor``: the family's source, and for an MTP head the graft command that copies it."""
    fam = layout.family
    example = f" (e.g. {fam.source_example})" if fam.source_example else ""
    if fam.kind == "mtp" and fam.unlisted_model_type:  # outside the census: the assumed layout's fix is not its own
        return (
            f"model_type {fam.unlisted_model_type!r} is not in specscope's census of MTP families "
            "(docs/architectures.md), so which tensors its head needs is not known here: check the MTP tensors your "
            "engine's loader for this model type reads, take them from the model's original release, or serve "
            "without MTP"
        )
    if fam.kind == "mtp" and layout.graft_prefix:
        command = (
            f"specscope surgery graft {shell_word(checkpoint)} --from BF16_ORIGINAL "
            f"--prefix {shell_word(layout.graft_prefix)} --out NEW_FOLDER"
        )
        return (
            f"take {tensor} from {fam.source}{example}: `{command}` with BF16_ORIGINAL a local copy of it; or serve "
            "without MTP"
        )
    return f"download the draft again: {tensor} comes only from {fam.source}{example}"


#: a Medusa head in the Medusa repository's own names (FasterDecoding/Medusa ``medusa_model.py``: ``{h}.{l}.linear.*``
#: ResBlocks and ``{h}.{L}.weight`` the head's Linear; Medusa-2 full checkpoints prefix ``medusa_head.``)
_MEDUSA_ORIGINAL = re.compile(r"^(?:medusa_head\.)?\d+\.\d+\.(?:linear\.)?(?:weight|bias)$")


def _medusa_renaming(names: set[str] | list[str]) -> str | None:
    """The fix for Medusa heads stored in the Medusa repository's names, which vLLM's ``medusa.py`` skips silently
    (it reads ``blocks.{h}.layers.{l}.*`` and ``lm_heads.{h}.weight``), or None when the draft holds none."""
    found = sorted(n for n in names if _MEDUSA_ORIGINAL.match(n))
    if not found:
        return None
    return (
        f"the heads are stored in the Medusa repository's own names ({', '.join(found[:3])}), which vLLM's medusa.py "
        "does not read (it skips them: the heads stay uninitialised); rename each {h}.{l}.linear.weight / .bias to "
        "blocks.{h}.layers.{l}.weight / .bias and each head's last {h}.{L}.weight to lm_heads.{h}.weight (e.g. "
        "0.0.linear.weight -> blocks.0.layers.0.weight, 0.1.weight -> lm_heads.0.weight) and save them with "
        "safetensors beside the config"
    )


def _medusa_undeclared(cfg: dict[str, Any], names: set[str]) -> str | None:
    """The fix for Medusa heads whose config declares no head count (FasterDecoding/Medusa issue #76): vLLM then
    builds its default 5 heads (:func:`specscope.audit.architectures.medusa_counts`), so the heads stored are the
    count to declare; None when a key declares it."""
    if any("num" in k and "heads" in k for k in cfg):
        return None
    stored = sum(1 for h in range(64) if f"lm_heads.{h}.weight" in names or f"blocks.{h}.layers.0.weight" in names)
    if not stored:
        return None
    return (
        f"config.json declares no head count, so vLLM builds its default 5 heads: declare the {stored} stored, "
        f'"medusa_num_heads": {stored}, in config.json'
    )


#: the head index of a stored Medusa head tensor: vLLM's names (``medusa.py`` @01dbb081: ``blocks.{h}.layers.{l}.*``,
#: ``lm_heads.{h}.weight``, a ``medusa_heads.`` prefix stripped) or the Medusa repository's (:data:`_MEDUSA_ORIGINAL`)
_MEDUSA_HEAD = re.compile(r"^(?:medusa_heads?\.)?(?:blocks\.|lm_heads\.)?(\d+)\.")


def medusa_head_count(cfg: dict[str, Any], names: set[str]) -> tuple[str, dict[str, Any]] | None:
    """``(text, details)`` when the heads a Medusa draft stores are not the heads its config declares (the last key
    holding "num" and "heads", as vLLM's MedusaConfig reads it: :func:`specscope.audit.architectures.medusa_counts`):
    ``config.json declares 4 heads ("medusa_num_heads": 4) and the draft stores 3 (heads 0, 1, 2; head 3
    missing)``, or, heads stored past the count (vLLM builds the declared heads and skips the rest), ``... declares 3
    heads ("medusa_num_heads": 3) and the draft stores 4 (heads 0, 1, 2, 3; head 3 not loaded)``; None when the
    stored heads are the declared ones or no key declares a count (:func:`_medusa_undeclared`)."""
    key = _heads_key(cfg)
    if key is None:
        return None
    declared = medusa_counts(cfg)[0]
    stored = sorted({int(m.group(1)) for n in names if (m := _MEDUSA_HEAD.match(n)) and int(m.group(1)) < 1024})
    missing = [h for h in range(declared) if h not in stored]
    extra = [h for h in stored if h >= declared]
    if not (missing or extra) or not stored:
        return None

    def heads(which: list[int], what: str) -> str:
        shown = ", ".join(map(str, which[:8])) + (" ..." if len(which) > 8 else "")
        return f"head{'s' if len(which) > 1 else ''} {shown} {what}"

    told = "; ".join(heads(w, what) for w, what in ((missing, "missing"), (extra, "not loaded")) if w)
    text = (
        f'config.json declares {declared} heads ("{key}": {declared}) and the draft stores {len(stored)} '
        f"(heads {', '.join(map(str, stored[:8]))}{' ...' if len(stored) > 8 else ''}; {told})"
    )
    return text, {"declared": declared, "stored": stored, "missing": missing, "not_loaded": extra}


def medusa_extra_heads_fix(ck: Checkpoint, names: set[str]) -> tuple[str, dict[str, Any]] | None:
    """The fix of ``DRAFT_TENSORS_UNREAD`` for a Medusa draft storing heads past its declared count, and its head
    details (:func:`medusa_head_count`): declare the stored count if the heads were trained so, else re-export the
    draft without the heads not loaded; None when no stored head lies past the count."""
    counted = medusa_head_count(ck.text_config, names)
    if counted is None or not counted[1]["not_loaded"]:
        return None
    text, heads = counted
    n, extra = len(heads["stored"]), heads["not_loaded"]
    declare = f'if the heads were trained as {n}, declare "{_heads_key(ck.text_config)}": {n} in config.json'
    drop = f"head{'s' if len(extra) > 1 else ''} {', '.join(map(str, extra))}"
    return f"{text}: {declare}; else re-export the draft without {drop}", {"heads": heads}


def _medusa_fix(ck: Checkpoint, names: set[str], otherwise: str) -> tuple[str, dict[str, Any]]:
    """A Medusa draft's fix for missing tensors and the details of its head counts (empty when they agree): the
    head-count mismatch first (:func:`medusa_head_count`: declare the stored count, or get the missing heads), then
    the renaming of the Medusa repository's names (needed either way), else the head count to declare when none is
    (:func:`_medusa_undeclared`), else ``otherwise``."""
    renaming = _medusa_renaming(names)
    fix = renaming or _medusa_undeclared(ck.text_config, names) or otherwise
    counted = medusa_head_count(ck.text_config, names)
    if counted is None:
        return fix, {}
    text, heads = counted
    n = len(heads["stored"])
    declare = f'if the heads were trained as {n}, declare "{_heads_key(ck.text_config)}": {n} in config.json'
    if renaming is not None:
        return f"{text}: {declare}, else get the missing heads from the heads' publisher; and {renaming}", {
            "heads": heads
        }
    return f"{text}: {declare}; else {fix}", {"heads": heads}


def _heads_key(cfg: dict[str, Any]) -> str | None:
    """The key whose count vLLM reads as the heads (the last holding "num" and "heads": :func:`medusa_counts`)."""
    return next((k for k in reversed(cfg) if "num" in k and "heads" in k and config_int(cfg, k) is not None), None)


def check_draft_tensors(ck: Checkpoint, layout: DraftLayout) -> list[Finding]:
    """``DRAFT_TENSORS_MISSING`` for a separate draft checkpoint that lacks tensors its family requires."""
    names = stored_names(ck)
    if names is None:
        return []
    counts = count_groups(layout, names)
    missing = [n for c in counts for n in c.missing]
    fused_out, missing = _fused_experts(ck, layout, set(names), missing)
    if fused_out:  # the per-expert names are the fused finding's: counted and listed there only
        kept = set(missing)
        counts = [_without(c, kept) for c in counts]
    if not missing:
        return fused_out
    total = sum(c.total for c in counts)
    fam = layout.family
    fix, heads = (
        _medusa_fix(ck, names, fix_for(layout, ck.label, missing[0]))
        if fam.key == "medusa"
        else (fix_for(layout, ck.label, missing[0]), {})
    )
    return [
        finding(
            "DRAFT_TENSORS_MISSING",
            file="config.json",
            tensor=missing[0],
            family=fam.title,
            present=total - len(missing),
            required=total,
            breakdown=breakdown(counts),
            missing=", ".join(missing[:8]) + (f" (+{len(missing) - 8} more)" if len(missing) > 8 else ""),
            fix=fix,
            details={
                "family": fam.key,
                "expected": total,
                "present": total - len(missing),
                "missing": missing,
                "groups": [c.__dict__ for c in counts],
                "names_from": names_source(ck),
                **heads,
            },
        )
    ] + fused_out


def _without(c: GroupCount, kept: set[str]) -> GroupCount:
    """``c`` less the missing names not in ``kept`` (neither counted nor listed)."""
    missing = tuple(n for n in c.missing if n in kept)
    return GroupCount(c.label, c.present, c.total - (len(c.missing) - len(missing)), missing)


def _fused_experts(
    ck: Checkpoint, layout: DraftLayout, names: set[str], missing: list[str]
) -> tuple[list[Finding], list[str]]:
    """``DRAFT_TENSORS_MISSING/fused-experts`` for the per-expert names of a MoE draft (``block_moe``) whose layers
    store the experts fused (:func:`.rules_moe.fused_experts_cover`), and the rest of ``missing``."""
    arch = (ck.config or {}).get("architectures")
    arch = str(arch[0]) if isinstance(arch, list) and arch else None
    moe = next((m for a, m in layout.family.block_moe if a == arch), None)
    if moe is None or not missing:
        return [], missing
    covered, fused = fused_experts_cover(ck, moe.expert, names, missing)
    if not covered:
        return [], missing
    facts: dict[str, Any] = {"family": layout.family.title, "architecture": arch, "n": len(covered)}
    facts |= {"example": covered[0], "n_fused": len(fused), "fused": ", ".join(fused[:4])}
    facts["fused"] += f" (+{len(fused) - 4} more)" if len(fused) > 4 else ""
    plain = [f.split(" [")[0] for f in fused]
    details: dict[str, Any] = {"fused": plain, "missing_per_expert": len(covered)}
    key = "DRAFT_TENSORS_MISSING/fused-experts"
    found = finding(key, file="config.json", tensor=plain[0], details=details, **facts)
    gone = set(covered)
    return [found], [n for n in missing if n not in gone]


def unread_tensors(layout: DraftLayout, names: set[str] | list[str]) -> list[str]:
    """Stored ``names`` the family's loader has no place for: not under a declared draft layer, not a module of a
    required, optional or shareable name (any suffix: weight, bias, scales), and not one of the family's
    ``loader_names``. Empty for a family whose loader is not judged (``unread_tensors = ""``)."""
    fam = layout.family
    if not fam.unread_tensors:
        return []
    optional = [p + o for p in layout.layer_prefixes for o in fam.layer_optional]
    known = {module_of(n)[0] for n in (*layout.required, *layout.shareable, *optional)}
    exact = tuple(n for n in fam.loader_names if not n.endswith("."))
    prefixes = tuple(n for n in fam.loader_names if n.endswith(".")) + layout.layer_prefixes
    out = []
    for name in names:
        plain = alias_name(fam, name)
        if plain in exact or plain.startswith(prefixes) or module_of(plain)[0] in known:
            continue
        out.append(name)
    return sorted(out)


def check_unread_tensors(ck: Checkpoint, layout: DraftLayout, *, named: tuple[str, ...] = ()) -> list[Finding]:
    """``DRAFT_TENSORS_UNREAD``: a separate draft stores tensors its loader has no parameter for (a DSpark export's
    ``markov_head`` saved as ``DFlashDraftModel``); ERROR when the loader raises on them, WARNING when it skips them
    (architectures.toml ``unread_tensors``, ``unread_skipped``, from each loader's ``load_weights``), and a WARNING
    naming them (``/unjudged``) for a plain draft model, whose loader is its own architecture's. ``named``: prefixes
    another finding already names (the MTP head inside a whole model given as a draft, ``DRAFT_HAS_MTP_HEAD``)."""
    names = stored_names(ck)
    if names is None:
        return []
    unread = [n for n in unread_tensors(layout, names) if not n.startswith(named)]
    fam = layout.family
    extra = medusa_extra_heads_fix(ck, names) if fam.key == "medusa" and unread else None
    if fam.unread_tensors == "raises":
        skipped = [n for n in unread if n.endswith(fam.unread_skipped)] if fam.unread_skipped else []
        groups = [("raises", [n for n in unread if n not in skipped]), ("skips", skipped)]
    else:
        groups = [(fam.unread_tensors, unread)]
    variant = {"raises": "DRAFT_TENSORS_UNREAD", "skips": "DRAFT_TENSORS_UNREAD/skipped"}
    out = []
    for loader, group in groups:
        if not group:
            continue
        shown = ", ".join(group[:8]) + (f" (+{len(group) - 8} more)" if len(group) > 8 else "")
        out.append(
            finding(
                "DRAFT_TENSORS_UNREAD/heads"
                if extra and loader == "skips"
                else variant.get(loader, "DRAFT_TENSORS_UNREAD/unjudged"),
                file=ck.shard_of(group[0]),
                tensor=group[0],
                n=len(group),
                family=fam.title,
                shown=shown,
                arch=", ".join(declared_architectures(ck.config)) or "(none)",
                details={"family": fam.key, "loader": loader, "tensors": group} | (extra[1] if extra else {}),
                fix=extra[0] if extra else "",
            )
        )
    return out
