"""The speculative families (``architectures.toml``): which one a checkpoint is, and what its draft must hold.

:func:`families` reads the table once; :func:`detect_family` names the family a config (and its tensor names)
declares; :func:`draft_layout` turns a family into the tensor names a checkpoint must hold (grouped, so a finding can
say "9 of 12: the decoder layer's 9 present, the 3 MTP-specific tensors missing"), the names engines take from the
target (their absence is fine, a copy is never read) and the prefixes that belong to the draft. The sources behind
every entry are named in the table's ``engines`` field; ``docs/architectures.md`` renders the table.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field, replace
from functools import cache
from importlib import resources
from typing import Any

from specscope.audit.layout import is_vision, layer_of, module_of
from specscope.checkpoint.index import nested_text_config, network_config

__all__ = [
    "Family",
    "DraftLayout",
    "families",
    "family",
    "detect_family",
    "detect_draft_family",
    "draft_layout",
    "main_layer_prefix",
    "census_mtp_family",
    "MTP_HEAD_PREFIXES",
    "unlisted",
    "FUSED_SPELLINGS",
    "config_int",
    "declared_architectures",
    "EAGLE3_FUSION_FAMILIES",
    "Eagle3Fusion",
    "eagle3_fusion",
    "eagle_para_norms_declared",
    "EAGLE_PARA_NORMS",
    "unlisted_draft_architecture",
    "vision_processor_files",
    "vision_processors",
    "built",
    "Conditions",
]

_TABLE = "architectures.toml"
_WEIGHT_SUFFIXES = ("weight", "weight_packed", "qweight")
#: token mixers other than self-attention a hybrid model's layer may hold instead (census.py groups them the same way)
_LINEAR_MIXERS = ("linear_attn.", "mamba.", "mixer.")
#: a part -> the fused module that holds it in checkpoints that store the engine's fused form (vLLM
#: ``packed_modules_mapping``; Phi-3 / some exporters store ``qkv_proj`` and ``gate_up_proj``).
FUSED_SPELLINGS = {
    "q_proj": "qkv_proj",
    "k_proj": "qkv_proj",
    "v_proj": "qkv_proj",
    "gate_proj": "gate_up_proj",
    "up_proj": "gate_up_proj",
}


#: config conditions under which a loader builds a tensor: (key, its default when absent) pairs that must all be true
#: (a key spelled ``!key``: must be false), e.g. (("layer_norm_elementwise_affine", True),)
Conditions = tuple[tuple[str, Any], ...]


def built(cfg: dict[str, Any] | None, conditions: Conditions) -> bool:
    """Whether a loader builds a tensor under ``conditions`` for config ``cfg``: each ``(key, default)`` reads
    ``cfg.get(key, default)`` as the model's config class does (its default when absent) and must be truthy, falsy
    for a key spelled ``!key``. ``built({"use_qk_norm": True}, (("use_qk_norm", False),))`` is True."""
    cfg = cfg or {}
    for key, default in conditions:
        name = key.removeprefix("!")
        if bool(cfg.get(name, default)) == key.startswith("!"):
            return False
    return True


def _conditions(table: dict[str, Any]) -> tuple[tuple[str, Conditions], ...]:
    """``{name: [[key, default], ...]}`` (architectures.toml) -> ``((name, ((key, default), ...)), ...)``."""
    return tuple((str(n), tuple((str(c[0]), c[1]) for c in conds)) for n, conds in table.items())


@dataclass(frozen=True)
class DraftHead:
    """Where a plain draft model's architecture keeps what Llama keeps under ``model.``: its head prefix
    (``gpt_neox.``), the head names under it (embedding, final norm), its layers' prefix (``{head}layers.{i}.``) and
    its LM head."""

    head_prefix: str
    head: tuple[str, ...]
    layer_prefix: str
    lm_head: str
    #: the config key of its layer count when not ``num_hidden_layers`` (GPT-2's ``n_layer``)
    layers_key: str = ""
    #: (stored prefix, the loader's prefix) of another spelling its loader reads (GPT-2's ``h.`` for
    #: ``transformer.h.``)
    aliases: tuple[tuple[str, str], ...] = ()
    #: (a head name, the config conditions under which the loader builds it: :func:`built`) pairs (OPT's
    #: final_layer_norm only with do_layer_norm_before and not _remove_final_layer_norm)
    head_when: tuple[tuple[str, Conditions], ...] = ()


@dataclass(frozen=True)
class MoeBlock:
    """Which layers of a MoE draft architecture its loader builds sparse, and their names
    (``[families.draft_model.block_moe]``): layer i is sparse when the expert count (``experts``: config key, its
    default) is above 0, (i + 1) % ``step`` is 0 and i is not listed under the ``dense_layers`` key; a sparse layer
    holds ``sparse`` and ``expert`` (``{e}`` each expert index) in place of ``dense`` (vLLM qwen3_moe.py)."""

    experts: tuple[str, Any]
    step: tuple[str, Any]
    dense_layers: str
    dense: tuple[str, ...]
    sparse: tuple[str, ...]
    expert: tuple[str, ...]


@dataclass(frozen=True)
class Family:
    """One row of ``architectures.toml`` (field meanings are documented at the top of the file)."""

    key: str
    title: str
    kind: str
    architectures: tuple[str, ...]
    model_types: tuple[str, ...]
    keys: tuple[str, ...]
    layers_key: str
    head_prefix: str
    head: tuple[str, ...]
    layer_prefix: str
    layer_aliases: tuple[str, ...]
    layer_glue: tuple[str, ...]
    layer_body: str
    layer_optional: tuple[str, ...]
    shareable: tuple[str, ...]
    layer_shareable: tuple[str, ...]
    fusion: str
    vocab_map: str
    graft_prefix: str
    source: str
    source_example: str
    engines: str
    body_names: tuple[str, ...] = ()
    #: (config key, names added when it is set, names added when it is absent or null) of the body table
    body_keyed: tuple[str, tuple[str, ...], tuple[str, ...]] = ("", (), ())
    #: config key of a pattern string with one character per physical layer of one draft step (Nemotron-H
    #: ``mtp_hybrid_override_pattern``): the step's last layer holds ``end_norm``
    pattern_key: str = ""
    #: config key of the same step as a list of block types (Nemotron-H ``mtp_layers_block_type``), the canonical
    #: spelling: ``pattern_key`` is read only when it is absent or ``pattern_default``; with neither, the default
    pattern_list_key: str = ""
    #: (block type, pattern character) pairs of ``pattern_list_key``'s entries
    pattern_chars: tuple[tuple[str, str], ...] = ()
    #: the step the config class assumes when the config gives neither key
    pattern_default: str = ""
    end_norm: str = ""
    #: config key whose value "full" makes every draft step run one physical layer (dots.llm3 ``mtp_head_sharing``)
    sharing_key: str = ""
    #: MTP layers the engine builds and reads whatever the config declares (vLLM MiMo-V2: 1; ERNIE: 1, index 0 is the
    #: only one its loader renames); 0 = as declared. No count for a config without the layers key (``default_layers``)
    engine_layers: int = 0
    #: MTP layers the engine builds when the config omits ``layers_key`` (vLLM LongCat-Flash, Step-3.5, MiMo-V2: 1);
    #: 0 = none
    default_layers: int = 0
    #: ``layer_glue`` belongs to the first draft layer only (EAGLE-3's ``hidden_norm``)
    glue_first_layer_only: bool = False
    #: set when this row was chosen for a ``model_type`` the table does not list (by tensor names, else the DeepSeek
    #: layout): the model type, so findings say which layout was assumed and never cite this row's example source.
    unlisted_model_type: str = ""
    #: what the loader does with a stored tensor it has no parameter for: "raises", "skips", "" (not judged)
    unread_tensors: str = ""
    #: what the engine's loader does with a stored head layer past the ones it builds (``{head}layers.{i}.`` with i at
    #: or past the layer count): "raises", "skips" (never read), "" (not judged); not inherited from a base row
    past_layers: str = ""
    #: the loader loads no more head layers than it builds now whatever the layers key declares (LongCat-Flash: one;
    #: ERNIE: index 0 only): raising the key is no fix; not inherited from a base row
    layers_fixed: bool = False
    #: (another layer prefix the loader also reads, the change it makes to the declared layer count) pairs: HY-V4's
    #: ``model.layers.{n}.`` beside ``model.mtp_layers.{i}.``, of which its layer picker reads
    #: max(num_nextn_predict_layers - 1, 1) layers. Used when the checkpoint holds the head only in that spelling
    layer_spellings: tuple[tuple[str, int], ...] = ()
    #: the most MTP layers the engine accepts: a config declaring more is refused when the model is built (vLLM
    #: nemotron_h_mtp.py asserts ``num_nextn_predict_layers == 1``); 0 = no such bound read
    layers_max: int = 0
    #: what the *target's* loader does with the same stored head layers past the count (it reads the checkpoint
    #: first): "raises" (the server does not start, with or without speculation), "skips" (it drops them too), ""
    #: (the target's loader not read)
    target_past_layers: str = ""
    #: name parts the target's loader looks up by name, with no skip, in a main-layer index past those it drops
    #: (``{main}layers.{N+i}`` for i >= the layers key): a layer stored there holding one raises before the MTP
    #: loader runs (HY-V4's fused experts ``experts.gate_up_proj`` / ``experts.down_proj``); not inherited
    target_past_names: tuple[str, ...] = ()
    #: names (a tensor, or a module prefix ending in ".") the loader reads or drops by name besides the layout's
    loader_names: tuple[str, ...] = ()
    #: name endings the loader skips when it has no parameter for them, where it raises on other names (``.bias``)
    unread_skipped: tuple[str, ...] = ()
    #: names (a prefix ends in ".", ``{i}`` any layer index) of which a draft in the family's layout holds one
    #: (the plain draft model's Llama layout: ``model.norm.weight``, ``model.layers.{i}.mlp.down_proj.``); none held:
    #: another architecture's own layout, not judged (:func:`in_family_layout`)
    layout_marks: tuple[str, ...] = ()
    #: (stored prefix, the loader's prefix) pairs of another spelling of the family's own names (the speculators
    #: format's EAGLE-1 ``fusion_fc.`` for ``fc.``): a stored name so spelled is judged as the loader's name
    name_aliases: tuple[tuple[str, str], ...] = ()
    #: (architecture, its decoder block's names) for a plain draft model whose architecture's block the census knows
    #: (``[families.draft_model.block_layouts]``): each layer must hold the whole block
    block_layouts: tuple[tuple[str, tuple[str, ...]], ...] = ()
    #: (architecture, (block name, the config conditions under which its loader builds it) pairs)
    #: (``[families.draft_model.block_when]``): a block name not built for the draft's config is not required
    block_when: tuple[tuple[str, tuple[tuple[str, Conditions], ...]], ...] = ()
    #: (architecture, its model's head) for a plain draft model not under ``model.layers`` / ``model.embed_tokens``
    #: (``[families.draft_model.block_heads]``): GPT-NeoX's ``gpt_neox.`` and ``embed_out``, InternLM2's ``output``
    block_heads: tuple[tuple[str, DraftHead], ...] = ()
    #: (architecture, its MoE layers' rule) for a plain draft model whose MLP is sparse layer by layer
    #: (``[families.draft_model.block_moe]``): Qwen3-MoE, Qwen2-MoE, Mixtral
    block_moe: tuple[tuple[str, MoeBlock], ...] = ()
    #: the separate LM head a draft whose config sets ``tie_word_embeddings`` false must hold
    lm_head: str = "lm_head.weight"
    #: prefixes the MTP loader strips from a stored name before it reads the head (vLLM nemotron_h_mtp.py:
    #: ``language_model.`` in vision-language checkpoints): a head stored only under one is judged there
    head_wrappers: tuple[str, ...] = ()
    #: config key of a list with one entry per declared MTP layer that the engine checks before it builds the head
    #: (vLLM speculative.py, dots3_note: ``mtp_layer_types``, default one "sliding_attention" per layer)
    layer_types_key: str = ""


def _draft_heads(entry: dict[str, Any]) -> tuple[tuple[str, DraftHead], ...]:
    rows = dict(entry.get("block_heads", {}))
    return tuple(
        (
            str(k),
            DraftHead(
                str(v["head_prefix"]),
                _tuple(v, "head"),
                str(v["layer_prefix"]),
                str(v["lm_head"]),
                str(v.get("layers_key", "")),
                tuple((str(a), str(b)) for a, b in dict(v.get("aliases", {})).items()),
                _conditions(dict(v.get("head_when", {}))),
            ),
        )
        for k, v in rows.items()
    )


def _moe_blocks(entry: dict[str, Any]) -> tuple[tuple[str, MoeBlock], ...]:
    """``[families.draft_model.block_moe]`` rows as :class:`MoeBlock` (a row without ``step``: every layer's step 1)."""
    out = []
    for arch, v in dict(entry.get("block_moe", {})).items():
        step = (str(v["step"][0]), v["step"][1]) if "step" in v else ("", 1)
        rule = MoeBlock(
            (str(v["experts"][0]), v["experts"][1]),
            step,
            str(v.get("dense_layers", "")),
            *(_tuple(v, k) for k in ("dense", "sparse", "expert")),
        )
        out.append((str(arch), rule))
    return tuple(out)


def _tuple(entry: dict[str, Any], name: str) -> tuple[str, ...]:
    value = entry.get(name, [])
    return tuple(str(v) for v in value) if isinstance(value, list) else ()


@cache
def families() -> dict[str, Family]:
    """Family key -> :class:`Family`, in table order (detection order: drafts are tried in this order)."""
    raw = tomllib.loads(resources.files(__package__).joinpath(_TABLE).read_text(encoding="utf-8"))
    bodies = {k: tuple(v["required"]) for k, v in raw.get("bodies", {}).items()}
    keyed = {
        k: (str(v["keyed"]), _tuple(v, "keyed_set"), _tuple(v, "keyed_unset"))
        for k, v in raw.get("bodies", {}).items()
        if "keyed" in v
    }
    out: dict[str, Family] = {}
    table = raw["families"]
    for key, entry in table.items():
        merged = {**(table[entry["base"]] if "base" in entry else {}), **entry}
        body = str(merged.get("layer_body", "none"))
        out[key] = Family(
            key=key,
            title=str(merged["title"]),
            kind=str(merged["kind"]),
            architectures=_tuple(merged, "architectures"),
            model_types=_tuple(merged, "model_types"),
            keys=_tuple(merged, "keys"),
            layers_key=str(merged.get("layers_key", "")),
            head_prefix=str(merged.get("head_prefix", "")),
            head=_tuple(merged, "head"),
            layer_prefix=str(merged.get("layer_prefix", "")),
            layer_aliases=_tuple(merged, "layer_aliases"),
            layer_glue=_tuple(merged, "layer_glue"),
            layer_body=body,
            layer_optional=_tuple(merged, "layer_optional"),
            shareable=_tuple(merged, "shareable"),
            layer_shareable=_tuple(merged, "layer_shareable"),
            fusion=str(merged.get("fusion", "")),
            vocab_map=str(merged.get("vocab_map", "")),
            graft_prefix=str(merged.get("graft_prefix", "")),
            source=str(merged["source"]),
            source_example=str(merged.get("source_example", "")),
            engines=" ".join(str(merged.get("engines", "")).split()),
            body_names=bodies.get(body, ()),
            body_keyed=keyed.get(body, ("", (), ())),
            pattern_key=str(merged.get("pattern_key", "")),
            layout_marks=_tuple(merged, "layout_marks"),
            pattern_list_key=str(merged.get("pattern_list_key", "")),
            pattern_chars=tuple((str(k), str(v)) for k, v in dict(merged.get("pattern_chars", {})).items()),
            pattern_default=str(merged.get("pattern_default", "")),
            end_norm=str(merged.get("end_norm", "")),
            sharing_key=str(merged.get("sharing_key", "")),
            engine_layers=int(merged.get("engine_layers", 0)),
            default_layers=int(merged.get("default_layers", 0)),
            glue_first_layer_only=bool(merged.get("glue_first_layer_only", False)),
            unread_tensors=str(merged.get("unread_tensors", "")),
            past_layers=str(entry.get("past_layers", "")),  # not inherited: each loader read on its own
            layers_fixed=bool(entry.get("layers_fixed", False)),
            layer_spellings=tuple((str(k), int(v)) for k, v in dict(merged.get("layer_spellings", {})).items()),
            layers_max=int(merged.get("layers_max", 0)),
            target_past_layers=str(entry.get("target_past_layers", "")),  # not inherited: each target read on its own
            target_past_names=_tuple(entry, "target_past_names"),
            loader_names=_tuple(merged, "loader_names"),
            unread_skipped=_tuple(merged, "unread_skipped"),
            name_aliases=tuple((str(k), str(v)) for k, v in dict(merged.get("name_aliases", {})).items()),
            block_layouts=tuple((str(k), bodies[str(v)]) for k, v in dict(merged.get("block_layouts", {})).items()),
            block_heads=_draft_heads(merged),
            block_moe=_moe_blocks(merged),
            block_when=tuple((str(k), _conditions(dict(v))) for k, v in dict(merged.get("block_when", {})).items()),
            head_wrappers=_tuple(merged, "head_wrappers"),
            layer_types_key=str(merged.get("layer_types_key", "")),
        )
    return out


def family(key: str) -> Family:
    """The family ``key`` (KeyError for an unknown key: a bug in the caller)."""
    return families()[key]


def config_int(cfg: dict[str, Any] | None, key: str) -> int | None:
    """``cfg[key]`` when it is an int (not a bool), else None: the one reading of an integer config key here."""
    v = (cfg or {}).get(key)
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _int(cfg: dict[str, Any], key: str) -> int:
    return config_int(cfg, key) or 0


def _configs(config: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The nested language model's config first (:func:`.nested_text_config`: vision-language wrappers declare the
    text model's keys there), then the top level, then the top level with its ``mtp_config`` keys (Inkling)."""
    if not config:
        return []
    tc = nested_text_config(config)
    out = [tc, config] if tc is not None else [config]
    mtp = config.get("mtp_config")  # Inkling: num_nextn_predict_layers under mtp_config (vLLM speculative.py)
    return [*out, {**config, **mtp}] if isinstance(mtp, dict) else out


#: prefixes of MTP heads stored outside the main layers (Qwen ``mtp.``, MiMo ``model.mtp_layers.``, ERNIE
#: ``model.mtp_block.`` / ``model.mtp_linear_proj.`` ...): never the main model's layers.
MTP_HEAD_PREFIXES = ("mtp.", "model.mtp_")


def main_layer_prefix(names: list[str] | set[str]) -> str:
    """The main model's layer prefix (``model.``, ``model.language_model.``) from the first layered tensor name."""
    for n in sorted(names):
        lo = layer_of(n)
        if lo and not is_vision(n) and not n.startswith(MTP_HEAD_PREFIXES):
            return lo[0]
    return "model."


def _mtp_family(
    cfg: dict[str, Any], names: list[str] | set[str], archs_of: dict[str, Any] | None = None
) -> tuple[Family, int, str] | None:
    """(family, declared layers, config key) for an MTP head declared by ``cfg``, or None. ``archs_of``: the config
    whose ``architectures`` name the target (the top level, when ``cfg`` is a vision-language ``text_config``)."""
    model_type = str(cfg.get("model_type", ""))
    by_type = {t: f for f in families().values() if f.kind == "mtp" for t in f.model_types}
    top_type = str((archs_of or {}).get("model_type", ""))  # Kimi-K3: kimi_k3 above a kimi_linear text_config
    n_qwen = _int(cfg, "mtp_num_hidden_layers")
    own = by_type.get(model_type) or by_type.get(top_type)
    if n_qwen > 0 and own is not None and own.layers_key != "mtp_num_hidden_layers" and own.default_layers > 0:
        # the model type's engine counts its head by another key (vLLM qwen3_next_mtp.py: num_nextn_predict_layers,
        # default 1) and never reads mtp_num_hidden_layers: that key, else the engine's default
        if own.layers_key not in cfg:
            return (
                own,
                own.default_layers,
                (
                    f"{own.layers_key} absent, the engine's default {own.default_layers} "
                    f"(mtp_num_hidden_layers {n_qwen} is not read)"
                ),
            )
        n_qwen = 0
    if n_qwen > 0:  # Qwen3.5's key: its layout, or the row of a model type that declares with it (Intern-S2)
        keyed = own if own is not None and own.layers_key == "mtp_num_hidden_layers" else family("qwen3_5_mtp")
        return keyed, n_qwen, "mtp_num_hidden_layers"
    n_next = _int(cfg, "num_nextn_predict_layers")
    by_arch = {a: f for f in families().values() if f.kind == "mtp" for a in f.architectures}
    declared = [*(cfg.get("architectures") or []), *((archs_of or {}).get("architectures") or [])]
    archs = [str(a) for a in declared if str(a) in by_arch]
    if n_next <= 0:  # a family keyed on the architecture whose engine builds its layers whatever is declared (MiMo-V2)
        keyed_on_arch = next((by_arch[a] for a in archs if by_arch[a].engine_layers > 0), None)
        return _default_head(by_type.get(model_type) or keyed_on_arch, cfg, names)
    if model_type in by_type:
        chosen = by_type[model_type]
    elif top_type in by_type and by_type[top_type].layers_key == "num_nextn_predict_layers":
        chosen = by_type[top_type]
    elif archs:  # a loader keyed on the target's architecture (vLLM MiMoV2ForCausalLM -> MiMoV2MTPModel)
        chosen = by_arch[archs[0]]
    else:  # a model type the table does not list: the layout its tensor names show, else DeepSeek's
        if any(str(n).startswith("mtp.") for n in names):
            chosen = family("qwen3_5_mtp")
        elif any(str(n).startswith("model.mtp_layers.") for n in names):
            chosen = family("mimo_mtp")
        elif any(str(n).startswith("model.mtp_block.") for n in names):
            chosen = family("ernie_mtp")
        else:
            chosen = family("deepseek_mtp")  # the layout num_nextn_predict_layers was introduced with
        chosen = unlisted(chosen, model_type)
    if "{n}" in chosen.layer_prefix and _int(cfg, "num_hidden_layers") <= 0:
        return None  # the layer index N + i is unknown
    if chosen.sharing_key and cfg.get(chosen.sharing_key) == "full":
        return chosen, 1, f"num_nextn_predict_layers with {chosen.sharing_key} full"  # one layer serves every step
    if 0 < chosen.layers_max < n_next:  # the engine refuses the count (Nemotron-H): judged as the count it accepts
        return chosen, chosen.layers_max, f"num_nextn_predict_layers {n_next} declared, the most the engine accepts"
    if 0 < chosen.engine_layers < n_next:  # the engine reads its first layers only (vLLM MiMo-V2)
        return chosen, chosen.engine_layers, f"num_nextn_predict_layers {n_next} declared, layers the engine reads"
    return chosen, n_next, "num_nextn_predict_layers"


def _default_head(
    fam: Family | None, cfg: dict[str, Any], names: list[str] | set[str]
) -> tuple[Family, int, str] | None:
    """The head of a family whose engine builds ``default_layers`` when the config omits ``num_nextn_predict_layers``
    (vLLM ``speculative.py`` @002e77c1: ``getattr(hf_config, "num_nextn_predict_layers", 1)`` for LongCat-Flash and
    Step-3.5; MiMo-V2: ``n_predict = _MIMO_V2_FLASH_NUM_MTP_LAYERS``, keyed on the architecture), when the checkpoint
    holds tensors under its first layer's prefix; None when the key is given (0 builds no head) or no such tensor is
    stored (an ordinary model). ``engine_layers`` alone is no default: ERNIE's loader reads only index 0 but reads the
    key with no default (``config.num_nextn_predict_layers``), so its head without the key stays undeclared."""
    default = fam.default_layers if fam is not None else 0
    if fam is None or default <= 0 or fam.layers_key in cfg:
        return None
    n_main = _int(cfg, "num_hidden_layers")
    if "{n}" in fam.layer_prefix and n_main <= 0:
        return None
    first = fam.layer_prefix.format(i=0, n=n_main, main=main_layer_prefix(names), head=fam.head_prefix)
    if not any(str(n).startswith(first) for n in names):
        return None
    return fam, default, f"{fam.layers_key} absent, the engine's default {default}"


def census_mtp_family(config: dict[str, Any] | None) -> Family | None:
    """The MTP family the census gives this config's model type or architecture, whether it declares a head or not
    (``text_config`` first, then the top level), or None: no engine in the census loads an MTP head for it."""
    mtp = [f for f in families().values() if f.kind == "mtp"]
    for cfg in _configs(config):
        model_type = str(cfg.get("model_type", ""))
        archs = {str(a) for a in cfg.get("architectures") or []}
        for fam in mtp:
            if model_type in fam.model_types or archs & set(fam.architectures):
                return fam
    return None


def unlisted(fam: Family, model_type: str) -> Family:
    """``fam`` as the assumed layout of a ``model_type`` the table does not list: its title says so, and it has no
    example source (that release is another model's)."""
    short = fam.title.split(" /")[0].removesuffix(" MTP")
    title = f"MTP (model_type {model_type!r}, read with the {short} layout)"
    return replace(fam, title=title, source_example="", unlisted_model_type=model_type or "(none)")


def detect_family(
    config: dict[str, Any] | None, names: list[str] | set[str]
) -> tuple[Family, int, str, dict[str, Any]] | None:
    """The MTP head ``config`` declares: ``(family, layers, config key, the config dict that declared it)``.

    Separate drafts are named by :func:`detect_draft_family`.
    """
    for cfg in _configs(config):
        found = _mtp_family(cfg, names, config)
        if found is not None:
            return (*found, cfg)
    return None


#: words a speculative format's architecture name carries (the speculative sections of the engines' registries:
#: ``EagleCohereForCausalLM``, ``PeagleLlamaForCausalLM``, ``PEagleDraftModel``, ``DSparkDraftModel``,
#: ``MiMoMTPModel``, ``MLPSpeculatorPreTrainedModel`` ...). Used only to tell a draft format the census does not list
#: from an ordinary causal LM (an EAGLE-1 draft exported as ``LlamaForCausalLM``), never to pick a family.
_DRAFT_WORDS = ("eagle", "medusa", "dflash", "dspark", "speculator", "draft", "mtp", "nextn")


def declared_architectures(cfg: dict[str, Any] | None) -> list[str]:
    """``cfg["architectures"]`` as strings (empty when absent or not a list)."""
    archs = (cfg or {}).get("architectures")
    return [str(a) for a in archs] if isinstance(archs, list) else []


def unlisted_draft_architecture(cfg: dict[str, Any] | None) -> str | None:
    """The declared architecture when it names a speculative format (:data:`_DRAFT_WORDS`) and no family of the
    census lists any declared architecture exactly, else None. Architecture names match the census exactly: a name
    that holds a family's name (``PeagleLlamaForCausalLM`` holds ``EagleLlamaForCausalLM``) is another loader's."""
    archs = declared_architectures(cfg)
    listed = {a for f in families().values() if f.kind == "draft" for a in f.architectures}
    if not archs or set(archs) & listed:
        return None
    return next((a for a in archs if any(w in a.lower() for w in _DRAFT_WORDS)), None)


def detect_draft_family(config: dict[str, Any] | None, names: list[str] | set[str]) -> Family | None:
    """The draft family of a separate draft checkpoint (EAGLE, EAGLE-3, DFlash, Medusa, MLP speculator), or None.

    By architecture name (exactly as a family lists it), model type, declaring key, then by tensor names (``d2t`` /
    ``midlayer.``: EAGLE-3; ``fc.weight`` beside ``layers.0.*`` with no ``model.`` prefix, or EAGLE-1's first layer
    without ``fc`` (:func:`_eagle1_layer_names`): EAGLE-1 exported as a plain Llama config). A
    speculators-format config names its method (``speculators_model_type``): vLLM's speculators ``algos.py`` maps each
    method to its own loader, so a method no family is (``peagle``, ``mtp``, ``dspark``) is None, never the family its
    keys or names resemble (P-EAGLE carries EAGLE-3's ``draft_vocab_size`` and ``d2t``); so is an architecture that
    names a speculative format no family lists (:func:`unlisted_draft_architecture`).
    """
    cfg = config or {}
    archs = set(declared_architectures(cfg))
    model_type = str(cfg.get("model_type", "")).lower()
    speculators = str(cfg.get("speculators_model_type", "")).lower()
    drafts = [f for f in families().values() if f.kind == "draft" and f.key != "draft_model"]
    for fam in drafts:
        if archs & set(fam.architectures) or speculators == fam.key:
            return fam
    if speculators:  # a speculators method no family is: its own loader (vLLM speculators algos.py), not a guess
        return None
    if unlisted_draft_architecture(cfg) is not None:  # a draft format the census lacks: never the nearest family
        return None
    for fam in drafts:
        if model_type in fam.model_types or any(k in cfg for k in fam.keys):
            return fam
    if "eagle_config" in cfg:
        return family("eagle3") if "draft_vocab_size" in cfg else family("eagle")
    name_set = set(names)
    if "d2t" in name_set or any(n.startswith("midlayer.") for n in name_set):
        return family("eagle3")
    if "fc.weight" in name_set and any(n.startswith("layers.0.") for n in name_set):
        return family("eagle")
    if _eagle1_layer_names(name_set):
        return family("eagle")
    return None


def _eagle1_layer_names(names: set[str]) -> bool:
    """EAGLE-1's own layer layout without its ``fc``: Llama decoder names under ``layers.0.`` with no ``model.``
    prefix and no ``input_layernorm`` in layer 0. vLLM ``llama_eagle.py`` @00da9231 prefixes every name but ``lm_head``
    with ``model.`` and builds layer 0 without ``input_layernorm``; a plain causal LM stores ``model.layers.*`` (vLLM's
    ``LlamaForCausalLM`` has no top-level ``layers`` module), and a Mistral-format export names its attention
    ``layers.0.attention.*``. Such a draft is EAGLE with its ``fc`` missing, not a draft model of unknown format."""
    return (
        any(n.startswith("layers.0.self_attn.") for n in names)
        and "layers.0.input_layernorm.weight" not in names
        and not any(n.startswith("model.") for n in names)
    )


@dataclass(frozen=True)
class DraftLayout:
    """The tensors a draft (an MTP head inside the target, or a separate draft checkpoint) must hold.

    Attributes:
        family: the family row.
        num_layers: draft layers declared (or counted).
        prefixes: tensor-name prefixes that belong to the draft (``("",)``: the whole checkpoint is the draft).
        groups: ``(label, required names)`` in the order a finding lists them: family-specific tensors first, then
            each decoder layer ("decoder layer 0 (as main layer 63)").
        shareable: names engines take from the target (an omitted one is fine; a copy is not read per step).
        config_key: the config key that declared it.
        hidden_size: the text model's hidden size (None when absent).
        graft_prefix: what ``specscope surgery graft --prefix`` copies (empty for separate drafts).
        layer_prefixes: one prefix per draft layer.
        template_prefix: the main layer an MTP decoder layer mirrors (``model.layers.3.``), None when there is none.
        unchecked: layer names not required because the draft's own layers hold none of them (unknown block).
    """

    family: Family
    num_layers: int
    prefixes: tuple[str, ...]
    groups: tuple[tuple[str, tuple[str, ...]], ...]
    shareable: tuple[str, ...]
    config_key: str
    hidden_size: int | None
    graft_prefix: str
    layer_prefixes: tuple[str, ...] = field(default=())
    template_prefix: str | None = None
    #: a plain draft model of an architecture whose block the census does not know: the layer names of the Llama
    #: block no layer holds, taken as the architecture's and not required (DRAFT_FORMAT_UNKNOWN/own-layers)
    unchecked: tuple[str, ...] = ()

    @property
    def fusion_tensor(self) -> str | None:
        """The [embedding; hidden] projection ([hidden, 2*hidden]) of the first draft layer, when the family has one."""
        fam = self.family
        if not fam.fusion:
            return None
        if fam.fusion in fam.head or not self.layer_prefixes:
            return fam.head_prefix + fam.fusion
        return self.layer_prefixes[0] + fam.fusion

    @property
    def required(self) -> tuple[str, ...]:
        """Every required name, sorted."""
        return tuple(sorted({n for _, names in self.groups for n in names}))

    @property
    def specific(self) -> tuple[str, ...]:
        """The family-specific tensors (the first group: what makes this a draft rather than a decoder layer)."""
        return self.groups[0][1] if self.groups else ()

    def contains(self, name: str) -> bool:
        return name.startswith(self.prefixes)


def _layer_template(
    names: list[str], *, skip: tuple[str, ...], prefer_index: int | None
) -> tuple[tuple[str, ...], int | None, str | None]:
    """Weight names (normalised to ``.weight``) and biases of one main decoder layer with full attention, its index
    and prefix.

    An MTP decoder layer mirrors a main full-attention layer (same attention, same MLP or MoE, the same biases: MiMo's
    Qwen2 layers carry ``q/k/v_proj.bias``), so its tensor set is read from the checkpoint itself; ``prefer_index``
    picks the layer (DeepSeek: the last main layer, MoE). Quantization side tensors (scales) are not required: an MTP
    head is often stored unquantized.
    """
    layers: dict[tuple[str, int], list[str]] = {}
    for n in names:
        if n.startswith(skip) or is_vision(n):
            continue
        lo = layer_of(n)
        if lo:
            layers.setdefault((lo[0], lo[1]), []).append(lo[2])
    attn = {k: v for k, v in layers.items() if any(r.startswith(("self_attn.", "attn.")) for r in v)}
    if not attn:
        return family("draft_model").body_names, None, None
    key = max(attn, key=lambda k: (k[1] == prefer_index, k[1]))
    out = set()
    for rest in attn[key]:
        module, suffix = module_of(rest)
        if suffix in _WEIGHT_SUFFIXES:
            out.add(f"{module}.weight")
        elif suffix == "bias":
            out.add(f"{module}.bias")
    return tuple(sorted(out)), key[1], f"{key[0]}layers.{key[1]}."


#: (what the layer holds instead, the dense names it replaces) for a whole model given as a draft: a hybrid model's
#: linear-attention layer (Qwen3-Next, Mamba hybrids), DeepSeek's MLA attention, a mixture-of-experts MLP,
#: Granite-4.0-H's shared MLP (vLLM granitemoehybrid.py GraniteMoeSharedMLP: shared_mlp.input_linear /
#: output_linear, beside an optional block_sparse_moe).
_LAYER_VARIANTS = (
    (_LINEAR_MIXERS, "self_attn."),
    (("self_attn.kv_a_proj_with_mqa.", "self_attn.q_a_proj."), "self_attn."),
    (("mlp.experts.", "mlp.shared_experts.", "block_sparse_moe.", "mlp.gate.weight", "shared_mlp."), "mlp."),
)


def _own_layer_body(body: tuple[str, ...], prefix: str, names: list[str], held: set[str]) -> tuple[str, ...]:
    """A draft model's dense layer body, without the dense names a layer of another kind replaces, and without the
    names none of its layers holds (``held``: the names under any layer prefix, that prefix removed; all of them when
    it holds none). The draft is loaded whole by its own architecture's loader (vLLM draft_model.py), whose layer may
    leave out one of Llama's names: OLMo-2 / EXAONE-4 have no input_layernorm (olmo2.py, exaone4.py), Cohere no
    post_attention_layernorm (commandr.py), Starcoder2 an mlp.c_fc / c_proj MLP (starcoder2.py), Baichuan a fused
    self_attn.W_pack (baichuan.py); a name its other layers hold is still required in each. A block's name (under
    ``self_attn.`` / ``mlp.``) is left out only when the layers hold another name of that block: a draft with no
    attention at all is still missing it."""
    out = body
    for markers, replaced in _LAYER_VARIANTS:
        if any(n.startswith(tuple(prefix + m for m in markers)) for n in names):
            out = tuple(b for b in out if not b.startswith(replaced))
    return tuple(b for b in out if not held or _held_or_block_absent(b, held))


def _held_or_block_absent(name: str, held: set[str]) -> bool:
    """Whether a layer body ``name`` is held (in any spelling) by some layer, or belongs to a block (``self_attn.``,
    ``mlp.``) of which no layer holds any name (then the block is missing, not another architecture's)."""
    if any(s in held for s in fused_spellings(name)):
        return True
    block, _, rest = name.partition(".")
    return "." in rest and not any(h.startswith(block + ".") for h in held)


def medusa_counts(cfg: dict[str, Any]) -> tuple[int, int]:
    """``(heads, layers per head)`` of a Medusa config as vLLM reads it: ``MedusaConfig.from_pretrained``
    (``transformers_utils/configs/medusa.py`` @0531c222) renames, in key order, every key holding "num" and "heads"
    to ``num_heads`` and every other key holding "num" and "layers" to ``num_hidden_layers`` (FasterDecoding's
    ``medusa_num_heads`` and ``medusa_model_new.py``'s ``num_medusa_heads`` alike; FasterDecoding/Medusa issue #76),
    and defaults to 5 heads of 1 layer when none is given."""
    heads, layers = 5, 1
    for key in cfg:
        value = config_int(cfg, key)
        if "num" not in key or value is None:
            continue
        if "heads" in key:
            heads = value
        elif "layers" in key:
            layers = value
    return heads, layers


def _declared_layers(fam: Family, tc: dict[str, Any], cfg: dict[str, Any]) -> int:
    """Draft layers (heads) the config declares under the family's ``layers_key``, else 1; Medusa heads as vLLM
    reads them (:func:`medusa_counts`: a missing head passed when ``medusa_num_heads`` was read as 1 head, fresh-user
    check, 2026-12-05)."""
    if fam.layer_body == "medusa":
        return medusa_counts(tc)[0]
    n = _int(tc, fam.layers_key) or _int(cfg, fam.layers_key)
    return n or 1


def _medusa_groups(cfg: dict[str, Any], n_heads: int) -> list[tuple[str, tuple[str, ...]]]:
    depth = medusa_counts(cfg)[1]
    heads = tuple(f"lm_heads.{h}.weight" for h in range(1 if cfg.get("original_lm_head") else n_heads))
    groups = [("lm heads", heads)]
    for h in range(n_heads):
        groups.append((f"head {h}", tuple(f"blocks.{h}.layers.{i}.weight" for i in range(depth))))
    return groups


def _mlp_speculator_groups(cfg: dict[str, Any], n_predict: int) -> list[tuple[str, tuple[str, ...]]]:
    tied = bool(cfg.get("tie_weights"))
    stages = range(1) if tied else range(n_predict)
    names = [f"{k}.{i}.weight" for i in stages for k in ("emb", "head", "ln")] + [f"ln.{i}.bias" for i in stages]
    projs = range(min(2, n_predict)) if tied else range(n_predict)
    names += [f"proj.{i}.weight" for i in projs]
    return [("speculator stages" + (" (tie_weights: one shared copy)" if tied else ""), tuple(sorted(names)))]


@dataclass(frozen=True)
class Eagle3Fusion:
    """How an EAGLE-3 draft fuses the target's states, as its loader reads the config: vLLM ``llama_eagle3.py`` (the
    release with PR #42143, "read norm_before_fc from eagle_config"; a stored copy whose path the index did not give).
    ``eagle_config.use_aux_hidden_state`` false: no ``fc`` (nor the norms below) is built and a stored ``fc.*`` is
    skipped. ``fc`` is ``[hidden, n_aux * target width]`` (the release @00bd1493 hard-coded 3). ``norm_before_fc``
    (``eagle_config.norm_before_fc``, else the top-level key) builds ``input_norm`` = RMSNorm(n_aux * target width)
    and, false, skips every stored ``input_norm.*``; ``fc_norm`` (top level) builds ``fc_norm.{i}`` = RMSNorm(target
    width) per auxiliary state, and, false, leaves a stored ``fc_norm.*`` without a parameter (the weights loader
    raises). ``n_aux``: ``num_aux_hidden_states``, else the length of ``eagle_config.eagle_aux_hidden_state_layer_ids``,
    else 3."""

    use_aux: bool
    norm_before_fc: bool
    fc_norm: bool
    n_aux: int

    @property
    def required(self) -> tuple[str, ...]:
        """The fusion's tensors the loader builds: ``fc`` and the declared norms (none without aux states)."""
        if not self.use_aux:
            return ()
        fc_norms = tuple(f"fc_norm.{i}.weight" for i in range(self.n_aux)) if self.fc_norm else ()
        return ("fc.weight",) + (("input_norm.weight",) if self.norm_before_fc else ()) + fc_norms


#: The families whose fc fuses EAGLE-3's auxiliary target states (:func:`eagle3_fusion`).
EAGLE3_FUSION_FAMILIES = ("eagle3", "eagle3_deepseek")


def eagle3_fusion(cfg: dict[str, Any] | None, family_key: str = "eagle3") -> Eagle3Fusion:
    """:class:`Eagle3Fusion` of an EAGLE-3 draft config (the top level, and its ``eagle_config``). For the DeepSeek
    MLA variant (``eagle3_deepseek``: vLLM deepseek_eagle3.py @03590193) fc is always built, over the same ``n_aux``
    states, with ``fc_norm`` (or SGLang's ``use_aux_norm``) read and neither ``norm_before_fc`` nor
    ``use_aux_hidden_state``."""
    top = cfg or {}
    if family_key == "eagle3_deepseek":
        nested = top.get("eagle_config")
        ids = nested.get("eagle_aux_hidden_state_layer_ids") if isinstance(nested, dict) else None
        n = config_int(top, "num_aux_hidden_states") or (len(ids) if isinstance(ids, list) and ids else 3)
        # SGLang kimi_k25_eagle3.py @054a1cef also builds fc_norm from the legacy use_aux_norm (vLLM reads fc_norm
        # alone: rules_draft EAGLE3_AUX_NORM_KEY names the split)
        return Eagle3Fusion(True, False, bool(top.get("fc_norm") or top.get("use_aux_norm")), n)
    nested = top.get("eagle_config")
    eagle = nested if isinstance(nested, dict) else {}
    before = bool(eagle.get("norm_before_fc", top.get("norm_before_fc", False)))
    ids = eagle.get("eagle_aux_hidden_state_layer_ids")
    n_aux = config_int(top, "num_aux_hidden_states") or (len(ids) if isinstance(ids, list) and ids else 3)
    use_aux = eagle.get("use_aux_hidden_state", True) is not False
    return Eagle3Fusion(use_aux, before and use_aux, bool(top.get("fc_norm", False)) and use_aux, n_aux)


#: HASS's norms of an EAGLE draft, over the token embedding and over the target's hidden state (vLLM
#: ``llama_eagle.py`` @00da9231: LlamaModel builds ``embedding_layernorm`` and ``hidden_states_layernorm`` only when
#: ``add_para_norm`` is true; the speculators format stores the second as ``pre_lm_head_layernorm``).
EAGLE_PARA_NORMS = ("embedding_layernorm.weight", "hidden_states_layernorm.weight")


def eagle_para_norms_declared(config: dict[str, Any] | None) -> bool:
    """Whether an EAGLE draft's config declares HASS's norms: ``add_para_norm`` true (vLLM ``llama_eagle.py``
    @00da9231) or, in the speculators format, ``layernorms`` true (vLLM's speculators eagle config
    ``update_defualts`` @2748f013 maps it to ``add_para_norm``), at the top level or in the nested network config."""
    cfg = config or {}
    return any(c.get(k) is True for c in (cfg, network_config(cfg)) for k in ("add_para_norm", "layernorms"))


def in_family_layout(fam: Family, names: list[str] | set[str], config: dict[str, Any] | None = None) -> bool:
    """Whether ``names`` hold one of the family's ``layout_marks`` (always, for a family without marks, and for a
    draft whose architecture's block the census knows: :func:`known_block`): a plain draft model is judged by the
    Llama layout only when it is in it. vLLM draft_model.py runs the draft whole with its own architecture's loader,
    e.g. falcon_h1.py @0189427 (model.final_layernorm, feed_forward / mamba layers)."""
    if not fam.layout_marks or known_block(fam, config):
        return True
    marks = [re.compile(re.escape(m).replace(re.escape("{i}"), r"\d+")) for m in fam.layout_marks]
    return any(m.match(n) for n in names for m in marks)


def step_pattern(fam: Family, cfg: dict[str, Any]) -> str:
    """One draft step's physical layers, one character each (Nemotron-H ``"*E"``: attention then MoE), or ``""``
    for a family without one or a config whose step cannot be read.

    The list (``pattern_list_key``) is canonical; the legacy string (``pattern_key``) is read when the list is absent
    or equal to the default, and the default stands when neither is given: sgl-project/sglang
    python/sglang/srt/configs/nemotron_h.py @2409eacc ``_resolve_mtp_layers_block_type`` (adapted from vLLM's
    transformers_utils/configs/nemotron_h.py), whose ``mtp_hybrid_override_pattern`` property is what vLLM
    nemotron_h_mtp.py @01ca2773 builds the step from."""
    if not fam.pattern_key:
        return ""
    chars = dict(fam.pattern_chars)
    listed = cfg.get(fam.pattern_list_key) if fam.pattern_list_key else None
    from_list = ""
    if isinstance(listed, list) and listed and all(isinstance(b, str) and b in chars for b in listed):
        from_list = "".join(chars[b] for b in listed)
    legacy = cfg.get(fam.pattern_key)
    if isinstance(legacy, str) and legacy and (listed is None or from_list == fam.pattern_default):
        return legacy
    if from_list:
        return from_list
    return fam.pattern_default if listed is None else ""


def _pattern_end_norms(fam: Family, cfg: dict[str, Any], n_layers: int) -> list[str]:
    """The end norm of each draft step for a family whose step is several physical layers (``pattern_key``): step
    ``i`` spans ``{head}layers.{i*P}`` .. ``{head}layers.{(i+1)*P - 1}`` with ``P`` the pattern's length (vLLM
    nemotron_h_mtp.py: ``has_end_norm`` on the step's last layer; the step from :func:`step_pattern`)."""
    if not fam.pattern_key or not fam.end_norm:
        return []
    width = len(step_pattern(fam, cfg)) or 1
    return [f"{fam.head_prefix}layers.{width * (i + 1) - 1}.{fam.end_norm}" for i in range(n_layers)]


def _wrapped_head(fam: Family, names: list[str]) -> Family:
    """``fam`` with its head under the wrapper the checkpoint stores its model under (``head_wrappers``, e.g.
    Nemotron-H's ``language_model.`` of a vision-language checkpoint: the head is then ``language_model.mtp.``) when
    nothing is stored under its own head prefix, else ``fam``."""
    own = fam.head_prefix
    if not fam.head_wrappers or not own or any(n.startswith(own) for n in names):
        return fam
    for wrapper in fam.head_wrappers:
        if any(n.startswith(wrapper) for n in names):
            graft = wrapper + fam.graft_prefix if fam.graft_prefix.startswith(own) else fam.graft_prefix
            return replace(fam, head_prefix=wrapper + own, graft_prefix=graft)
    return fam


def _other_spelling(fam: Family, names: list[str], n_main: int, main: str) -> tuple[str, int] | None:
    """The family's other layer spelling (``layer_spellings``) when the checkpoint holds its first layer there and
    nothing under the family's own first layer prefix, else None."""
    if not fam.layer_spellings or not fam.layer_prefix:
        return None
    own = fam.layer_prefix.format(i=0, n=n_main, main=main, head=fam.head_prefix)
    if any(n.startswith(own) for n in names):
        return None
    for spelling, change in fam.layer_spellings:
        first = spelling.format(i=0, n=n_main, main=main, head=fam.head_prefix)
        if n_main > 0 and any(n.startswith(first) for n in names):
            return spelling, change
    return None


def draft_layout(
    fam: Family,
    config: dict[str, Any] | None,
    names: list[str] | set[str],
    *,
    num_layers: int | None = None,
    config_key: str | None = None,
) -> DraftLayout:
    """The :class:`DraftLayout` of ``fam`` for a checkpoint with ``config`` and tensor ``names``.

    Args:
        num_layers: declared draft layers (default: the family's ``layers_key`` in the config, else 1).
        config_key: the key that declared them (for the finding's text).
    """
    cfg = config or {}
    fam = with_draft_head(fam, cfg) if fam.block_heads else fam
    fam = _wrapped_head(fam, sorted(names))
    tc = network_config(cfg)
    n_layers = num_layers if num_layers is not None else _declared_layers(fam, tc, cfg)
    hidden = tc.get("hidden_size") if isinstance(tc.get("hidden_size"), int) else None
    name_list = sorted(names)
    main = main_layer_prefix(name_list)
    n_main = _int(tc, "num_hidden_layers")
    head = fam.head_prefix
    spelled = _other_spelling(fam, name_list, n_main, main)
    if spelled is not None:  # the head stored only in another spelling the loader reads (HY-V4 model.layers.{N+i})
        fam, declared = replace(fam, layer_prefix=spelled[0], graft_prefix=spelled[0]), n_layers
        n_layers = max(n_layers + spelled[1], 1)
        shown = spelled[0].format(i="i", n="N+i", main=main, head=head)
        config_key = f"{config_key or fam.layers_key} {declared} declared, layers the loader picks as {shown}"
    layer_prefixes = tuple(
        fam.layer_prefix.format(i=i, n=n_main + i, main=main, head=head) for i in range(n_layers) if fam.layer_prefix
    )
    groups: list[tuple[str, tuple[str, ...]]] = []
    unchecked: tuple[str, ...] = ()
    template: str | None = None
    if fam.layer_body == "medusa":
        groups = _medusa_groups(tc, n_layers)
    elif fam.layer_body == "mlp_speculator":
        groups = _mlp_speculator_groups(tc, n_layers)
    else:
        head_names = list(fam.head)
        if fam.vocab_map == "eagle3" and _int(tc, "draft_vocab_size") in (0, _int(tc, "vocab_size")):
            head_names.remove("lm_head.weight")  # a full-vocabulary head is the target's when the draft has none
        if fam.key in EAGLE3_FUSION_FAMILIES:  # fc and its optional norms as the config declares them
            head_names = [n for n in head_names if n != "fc.weight"] + list(eagle3_fusion(cfg, fam.key).required)
        if fam.key == "eagle" and eagle_para_norms_declared(cfg):  # built, and never loaded when absent
            head_names += list(EAGLE_PARA_NORMS)
        glued = layer_prefixes[:1] if fam.glue_first_layer_only else layer_prefixes
        specific = [head + n for n in head_names] + [p + g for p in glued for g in fam.layer_glue]
        specific += _pattern_end_norms(fam, tc, n_layers)
        if fam.key == "draft_model" and tc.get("tie_word_embeddings") is False:
            specific.append(fam.lm_head)  # transformers' default is tied: no lm_head of its own
        groups.append(("MTP-specific" if fam.kind == "mtp" else "draft-specific", tuple(specific)))
        if fam.layer_body == "target":
            own = tuple(layer_prefixes) + ((head,) if head else ())
            prefer = n_main - 1 if fam.key not in ("qwen3_5_mtp", "qwen3_next_mtp") else None
            body, index, template = _layer_template(name_list, skip=own, prefer_index=prefer)
            label = f"as main layer {index}" if index is not None else "a dense layer: no main layer found"
        else:
            body = tuple(n for n in fam.body_names + keyed_body(fam, tc) if n not in fam.layer_optional)
            label = "the draft's own layer"
        layer_groups, unchecked = _layer_groups(fam, cfg, body, layer_prefixes, name_list)
        groups += [(f"decoder layer {i} ({label})", g) for i, g in layer_groups]
    share = list(fam.shareable)
    if fam.vocab_map == "eagle3" and "lm_head.weight" not in [n for _, g in groups for n in g]:
        share.append("lm_head.weight")
    shareable = tuple([head + s for s in share] + [p + s for p in layer_prefixes for s in fam.layer_shareable])
    if fam.kind == "mtp":
        prefixes = tuple(sorted({*((head,) if head else ()), *layer_prefixes}))
    else:
        prefixes = ("",)
    graft = fam.graft_prefix.format(i=0, n=n_main, main=main, head=head) if fam.graft_prefix else ""
    return DraftLayout(
        fam,
        n_layers,
        prefixes,
        tuple(groups),
        shareable,
        config_key or fam.layers_key,
        hidden,
        graft,
        layer_prefixes,
        template,
        unchecked,
    )


def is_stage_embedding(fam: Family, name: str) -> bool:
    """Whether ``name`` (as :func:`alias_name` gives it) is an MLP speculator stage's embedding ``emb.{i}.weight``:
    vLLM ``mlp_speculator.py`` @0531c222 builds each as a VocabParallelEmbedding and looks it up by the last token
    (``self.emb[i](last_tokens)``), so a step reads one row of it, never the table."""
    parts = name.split(".")
    return fam.key == "mlp_speculator" and len(parts) == 3 and parts[0] == "emb" and parts[1].isdigit()


def _layer_groups(
    fam: Family, cfg: dict[str, Any] | None, body: tuple[str, ...], prefixes: tuple[str, ...], names: list[str]
) -> tuple[list[tuple[int, tuple[str, ...]]], tuple[str, ...]]:
    """``([(layer index, required names)], unchecked)``: each draft layer's ``body`` under its prefix (none for an
    empty body: the loader's decoder layer is not judged tensor by tensor). A plain draft model is judged by its
    architecture's known block (:func:`known_block`), else from its own layers (:func:`_own_layer_body`), and then
    ``unchecked`` lists the names of ``body`` that no layer holds and were therefore not required."""
    block = known_block(fam, cfg)
    held = {n[len(lp) :] for n in names for lp in prefixes if n.startswith(lp)}
    out: list[tuple[int, tuple[str, ...]]] = []
    unchecked: list[str] = []
    for i, p in enumerate(prefixes):
        layer_body = body
        moe = moe_layer_block(fam, cfg, i, block) if block else None
        if moe is not None:
            layer_body = moe
        elif fam.key == "draft_model":
            layer_body = _own_layer_body(block or body, p, names, set() if block else held)
            full = () if block else _own_layer_body(body, p, names, set())
            unchecked += [p + b for b in full if b not in layer_body]
        if layer_body:
            out.append((i, tuple(p + b for b in layer_body)))
    return out, tuple(unchecked)


def with_draft_head(fam: Family, cfg: dict[str, Any] | None) -> Family:
    """``fam`` with the head and layer prefix of the draft's first declared architecture when ``block_heads`` names
    it (the loader reads those names, and the LM head, beside the layers): GPT-NeoX / Pythia, Phi-2, InternLM2."""
    arch = _first_architecture(cfg)
    own = next((h for a, h in fam.block_heads if a == arch), None)
    if own is None:
        return fam
    loader = (own.head_prefix, own.lm_head.rpartition(".")[0] + ".")
    unbuilt = {n for n, conds in own.head_when if not built(cfg, conds)}
    return replace(
        fam,
        head_prefix=own.head_prefix,
        head=tuple(n for n in own.head if n not in unbuilt),
        layer_prefix=own.layer_prefix,
        lm_head=own.lm_head,
        loader_names=loader,
        layers_key=own.layers_key or fam.layers_key,
        name_aliases=own.aliases or fam.name_aliases,
    )


def known_block(fam: Family, cfg: dict[str, Any] | None) -> tuple[str, ...]:
    """The decoder block the census knows for the draft's first declared architecture (``block_layouts``), or ``()``
    when it knows none (the draft is then judged from its own layers); a name its ``block_when`` conditions leave
    unbuilt for ``cfg`` (:func:`built`) is left out."""
    arch = _first_architecture(cfg)
    names = next((names for a, names in fam.block_layouts if a == arch), ())
    when = dict(next((w for a, w in fam.block_when if a == arch), ()))
    return tuple(n for n in names if built(cfg, when.get(n, ())))


def _first_architecture(cfg: dict[str, Any] | None) -> str | None:
    """The draft config's first declared architecture (None when it declares none)."""
    archs = (cfg or {}).get("architectures")
    return str(archs[0]) if isinstance(archs, list) and archs else None


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def moe_layer_block(
    fam: Family, cfg: dict[str, Any] | None, index: int, block: tuple[str, ...]
) -> tuple[str, ...] | None:
    """Draft layer ``index``'s names for a MoE architecture (``block_moe``): ``block`` in a dense layer; in a sparse
    one ``block`` without its dense MLP, plus the router (``sparse`` as its ``block_when`` builds it) and each
    expert's names. None when the architecture has no such rule, or the config's expert count or step is not a whole
    number (the layer is then judged as an unknown block's). ``num_experts`` 2, layer 0 of a Qwen3-MoE draft:
    ``(..., "mlp.gate.weight", "mlp.experts.0.gate_proj.weight", ..., "mlp.experts.1.down_proj.weight")``."""
    arch = _first_architecture(cfg)
    moe = next((m for a, m in fam.block_moe if a == arch), None)
    if moe is None:
        return None
    cfg = cfg or {}
    n = cfg.get(moe.experts[0], moe.experts[1])
    step = cfg.get(moe.step[0], moe.step[1]) if moe.step[0] else 1
    if not _whole(n) or not _whole(step) or step < 1:
        return None
    kept = cfg.get(moe.dense_layers) if moe.dense_layers else None
    if n <= 0 or (index + 1) % step or index in (kept if isinstance(kept, list) else ()):
        return block
    when = dict(next((w for a, w in fam.block_when if a == arch), ()))
    sparse = tuple(s for s in moe.sparse if built(cfg, when.get(s, ())))
    experts = tuple(x.format(e=e) for e in range(n) for x in moe.expert)
    return tuple(b for b in block if b not in moe.dense) + sparse + experts


def keyed_body(fam: Family, cfg: dict[str, Any]) -> tuple[str, ...]:
    """The layer names the family's body table adds by a config key (``keyed``): ``keyed_set`` when ``cfg`` gives it
    a value other than null, else ``keyed_unset`` (DeepSeek MLA's query side by ``q_lora_rank``)."""
    key, when_set, when_unset = fam.body_keyed
    if not key:
        return ()
    return when_set if cfg.get(key) is not None else when_unset


def rename_prefix(prefix: str, to: str, name: str) -> str | None:
    """``name`` with its leading ``prefix`` replaced by ``to`` (``{i}`` in both: the same layer index), or None when
    ``name`` does not start with ``prefix``: ``rename_prefix("model.layers.{i}.mlp.up_proj.",
    "layers.{i}.feed_forward.w3.", "model.layers.2.mlp.up_proj.weight")`` is ``"layers.2.feed_forward.w3.weight"``."""
    if "{i}" not in prefix:
        return to + name[len(prefix) :] if name.startswith(prefix) else None
    head, _, tail = prefix.partition("{i}")
    m = re.match(re.escape(head) + r"(\d+)" + re.escape(tail), name)
    return to.replace("{i}", m.group(1)) + name[m.end() :] if m else None


def alias_name(fam: Family, name: str) -> str:
    """``name`` as the family's loader renames it (EAGLE-3 / DFlash ``midlayer.`` -> ``layers.0.``; the family's
    ``name_aliases``, e.g. the speculators format's ``fusion_fc.`` -> ``fc.``)."""
    for stored, own in fam.name_aliases:
        renamed = rename_prefix(stored, own, name)
        if renamed is not None:
            return renamed
    for alias in fam.layer_aliases:
        if name.startswith(alias):
            return "layers.0." + name[len(alias) :]
    if fam.key == "medusa" and name.startswith("medusa_heads."):
        return name[len("medusa_heads.") :]
    if fam.key == "mlp_speculator" and name.startswith("speculator."):  # mlp_speculator.py load_weights strips it
        return name[len("speculator.") :]
    return name


def fused_spellings(name: str) -> list[str]:
    """Stored names that satisfy a required ``name``: itself, its packed / quantized weights, its fused module."""
    out = [name]
    if name.endswith((".weight", ".bias")):
        module, suffix = module_of(name)
        if suffix == "weight":
            out += [name + "_packed", name[: -len("weight")] + "qweight"]
        parent, _, leaf = module.rpartition(".")
        fused = FUSED_SPELLINGS.get(leaf)
        if fused:
            out.append(f"{parent}.{fused}.{suffix}" if parent else f"{fused}.{suffix}")
    return out


@cache
def vision_processors() -> dict[str, tuple[str, ...]]:
    """The census's ``vision_processors`` table: config.json architecture -> the processor files its vision-language
    checkpoint needs beyond ``preprocessor_config.json`` (from transformers' processor class of the architecture)."""
    raw = tomllib.loads(resources.files(__package__).joinpath(_TABLE).read_text(encoding="utf-8"))
    return {arch: tuple(names) for arch, names in raw.get("vision_processors", {}).items()}


def vision_processor_files(architectures: tuple[str, ...]) -> tuple[str, ...]:
    """The processor files a vision-language checkpoint of these config.json ``architectures`` needs beyond
    ``preprocessor_config.json`` (:func:`vision_processors`, file names in table order); () for architectures the
    table does not list."""
    table = vision_processors()
    return tuple(dict.fromkeys(name for arch in architectures for name in table.get(arch, ())))
