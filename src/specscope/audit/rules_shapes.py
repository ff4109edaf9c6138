"""Shapes an engine checks when it loads a draft: the tensors are built from the configs, then each stored tensor must
fit its parameter exactly (vLLM ``default_weight_loader`` and the linear layers' loaders assert ``param.size() ==
loaded_weight.size()``).

Rules, by family, with the loaders they come from:

- **MTP heads** (vLLM ``qwen3_5_mtp.py`` / ``qwen3_next_mtp.py``, ``deepseek_mtp.py``, ``glm4_moe_mtp.py``,
  ``mimo_mtp.py`` @0bb55d60): the draft decoder layer is built with the target's own config, so each of its tensors
  has the shape of the same tensor in a main full-attention layer (``mtp.layers.0.mlp.up_proj`` as
  ``model.layers.3.mlp.up_proj``); the head's norms (``mtp.norm``, ``mtp.pre_fc_norm_*``; DeepSeek ``enorm``,
  ``hnorm``, ``shared_head.norm``; MiMo ``token_layernorm`` ...) are ``RMSNorm(hidden_size)``: ``[hidden]``. When the
  draft tensor and the main one are stored in different formats (a BF16 head beside an NVFP4 body) only the output
  dimension is comparable: packing halves the input dimension.
- **EAGLE** (``llama_eagle.py``): ``fc`` is ``[hidden, 2*hidden]``, and the draft consumes the target's hidden states
  as they are: its ``hidden_size`` is the target's.
- **EAGLE-3** (``llama_eagle3.py`` @00bd1493): ``fc`` is ``ReplicatedLinear(3 * T, hidden)`` with ``T`` the config's
  ``target_hidden_size`` (else its ``hidden_size``): stored ``[hidden, 3*T]``; ``T`` must be the target's
  ``hidden_size``.
- **DFlash** (``qwen3_dflash.py`` @036a00d1, ``_get_dflash_fc_input_size``): ``fc`` is ``[hidden, n*T]`` with ``n``
  the number of target layers it reads (``target_layer_ids``; the speculators format's ``aux_hidden_state_layer_ids``;
  else ``num_hidden_layers``) and ``T`` as for EAGLE-3.
- **Medusa** (``medusa.py`` @01dbb081): residual blocks ``nn.Linear(hidden, hidden)`` over the target's last hidden
  state: ``hidden_size`` is the target's.
- **MLP speculator** (``mlp_speculator.py`` and ``configs/mlp_speculator.py`` @0531c222): ``proj.0`` is
  ``nn.Linear(emb_dim, inner_dim)`` over the target's last hidden state (``attribute_map`` reads ``hidden_size`` as
  ``emb_dim``), so ``emb_dim`` is the target's ``hidden_size``; ``proj.{i>0}`` ``[inner, inner]``, ``emb.{i}`` and
  ``head.{i}`` ``[vocab_size, inner]``, ``ln.{i}`` weight and bias ``[inner]`` with ``inner`` = ``inner_dim`` or, when
  0, ``emb_dim``; ``MLPSpeculatorConfig`` asserts ``len(top_k_tokens_per_head) == n_predict``.

- **EAGLE-3 norms** (:class:`.architectures.Eagle3Fusion`): ``input_norm`` / ``fc_norm.{i}`` stored but not declared.

Codes: ``MTP_LAYER_SHAPE`` (ERROR), ``DRAFT_FC_SHAPE`` (ERROR), ``EAGLE3_AUX_COUNT_MISMATCH`` (ERROR),
``DRAFT_HIDDEN_MISMATCH`` (ERROR), ``DRAFT_TENSOR_SHAPE`` (ERROR), ``DRAFT_CONFIG_INVALID`` (ERROR),
``DRAFT_TENSOR_NOT_READ`` (ERROR).
"""

from __future__ import annotations

from typing import Any

from specscope.audit.archdoc import draft_row_for
from specscope.audit.architectures import (
    EAGLE3_FUSION_FAMILIES,
    DraftLayout,
    alias_name,
    config_int,
    eagle3_fusion,
    eagle_para_norms_declared,
)
from specscope.audit.catalog import finding
from specscope.audit.findings import Finding
from specscope.audit.rules_heads import fix_for
from specscope.checkpoint import Checkpoint, TensorInfo
from specscope.checkpoint.dtypes import PACKED_INT_DTYPES

__all__ = ["check_mtp_shapes", "check_draft_shapes", "target_width", "check_hidden_vs_target"]

_SHOWN = 4


def _comparable(draft: TensorInfo, main: TensorInfo) -> bool:
    """Same shape when stored alike; only the output dimension when one side is packed / quantized differently."""
    if draft.dtype == main.dtype:
        return list(draft.shape) == list(main.shape)
    return draft.shape[:1] == main.shape[:1] and len(draft.shape) == len(main.shape)


def _is_norm(name: str) -> bool:
    """Whether ``name`` is a norm's weight by its module path: ``enorm.weight``, Qwen's ``pre_fc_norm_hidden.weight``,
    ERNIE's ``mtp_emb_norm.0.weight``, LongCat's ``enorm.m.weight`` (a module whose last two parts hold ``norm``)."""
    stem, _, leaf = name.rpartition(".")
    return leaf == "weight" and any("norm" in part for part in stem.split(".")[-2:])


def check_mtp_shapes(ck: Checkpoint, layout: DraftLayout) -> list[Finding]:
    """``MTP_LAYER_SHAPE``: draft-layer tensors shaped unlike the main layer they mirror; norms not ``[hidden]`` (or
    ``[hidden * hc_count]`` for a norm over hyper-connection streams, vLLM Qwen4ExpMTP ``pre_fc_norm_hidden``)."""
    hidden = layout.hidden_size
    fam = layout.family
    bad: list[tuple[str, TensorInfo, str, str]] = []  # (name, info, expected shape text, reference)
    for prefix in layout.layer_prefixes:
        own = {g for g in (*fam.layer_glue, *fam.layer_shareable)}
        for name, info in sorted(ck.tensors().items()):
            if not name.startswith(prefix) or name[len(prefix) :] in own or layout.template_prefix is None:
                continue
            ref = layout.template_prefix + name[len(prefix) :]
            main = ck.tensor(ref)
            if main is not None and not _comparable(info, main):
                bad.append((name, info, f"{main.dtype} {list(main.shape)}", f"as {ref}"))
    norms = [n for n in layout.specific if _is_norm(n)]
    streams = config_int(ck.text_config, "hc_count") or 1  # Qwen4-Exp: pre_fc_norm_hidden spans hc_count streams
    for name in norms:
        norm = ck.tensor(name)
        if hidden and norm is not None and list(norm.shape) not in ([hidden], [hidden * streams]):
            bad.append((name, norm, f"[{hidden}]", f"RMSNorm(hidden_size {hidden})"))
    if not bad:
        return []
    name, info, want, ref = bad[0]
    shown = "; ".join(f"{n} {list(i.shape)} (expected {w}, {r})" for n, i, w, r in bad[:_SHOWN])
    return [
        finding(
            "MTP_LAYER_SHAPE",
            file=ck.shard_of(name),
            tensor=name,
            n=len(bad),
            family=fam.title,
            shown=shown + (f" (+{len(bad) - _SHOWN} more)" if len(bad) > _SHOWN else ""),
            dtype=info.dtype,
            shape=list(info.shape),
            want=want,
            reference=ref,
            fix=fix_for(layout, ck.label, name),
            details={"tensors": [{"name": n, "shape": list(i.shape), "expected": w, "as": r} for n, i, w, r in bad]},
        )
    ]


#: where a DFlash config lists the target layers it reads, first found wins: z-lab's ``dflash_config``, a top-level
#: ``target_layer_ids``, and the speculators format's ``aux_hidden_state_layer_ids`` (vllm-project/speculators
#: ``src/speculators/models/dflash/core.py`` @c05b95b3 sizes ``fc`` by it; vLLM's speculators ``algos.py``
#: ``update_dflash`` copies it into ``dflash_config.target_layer_ids``).
DFLASH_LAYER_IDS_KEYS = ("dflash_config.target_layer_ids", "target_layer_ids", "aux_hidden_state_layer_ids")


def dflash_layer_ids(cfg: dict[str, Any]) -> tuple[str, object]:
    """``(key, value)`` of the first of :data:`DFLASH_LAYER_IDS_KEYS` present in ``cfg``; ``("", None)`` when none."""
    dflash = cfg.get("dflash_config")
    nested = dflash if isinstance(dflash, dict) else {}
    for key in DFLASH_LAYER_IDS_KEYS:
        where, _, leaf = key.rpartition(".")
        held = nested if where else cfg
        if held.get(leaf) is not None:
            return key, held[leaf]
    return "", None


def target_width(cfg: dict[str, Any], layout: DraftLayout) -> tuple[int | None, str]:
    """The width of the target hidden states the draft reads, and the config key it comes from."""
    hidden = config_int(cfg, "hidden_size")
    if layout.family.key == "mlp_speculator" and config_int(cfg, "emb_dim") is not None:
        return config_int(cfg, "emb_dim"), "emb_dim"
    if layout.family.key in (*EAGLE3_FUSION_FAMILIES, "dflash"):
        t = config_int(cfg, "target_hidden_size")
        return (t, "target_hidden_size") if t is not None else (hidden, "hidden_size")
    return hidden, "hidden_size"


def _fc_want(cfg: dict[str, Any], layout: DraftLayout) -> tuple[int, str] | None:
    """``(in_features, why)`` the loader builds ``fc`` with, or None when the family has no such rule."""
    hidden = config_int(cfg, "hidden_size")
    width, key = target_width(cfg, layout)
    if hidden is None or width is None:
        return None
    fam = layout.family.key
    if fam in ("eagle", "eagle_mistral"):
        src = "vLLM llama_eagle.py" if fam == "eagle" else "the Mistral EAGLE loader, mistral_eagle.py"
        return 2 * hidden, f"2 x hidden_size {hidden} ({src})"
    if fam in EAGLE3_FUSION_FAMILIES:
        fusion = eagle3_fusion(cfg, fam)
        if not fusion.use_aux:
            return None  # no fc is built (eagle_config.use_aux_hidden_state false)
        n = fusion.n_aux
        src = "vLLM llama_eagle3.py" if fam == "eagle3" else "deepseek_eagle3.py"
        return n * width, f"{n} x {key} {width} ({src})"
    if fam == "dflash":
        key_ids, ids = dflash_layer_ids(cfg)
        n, what = (
            (len(ids), f"len({key_ids.rpartition('.')[2]})")
            if isinstance(ids, list) and ids
            else (config_int(cfg, "num_hidden_layers") or 0, "num_hidden_layers")
        )
        return n * width, f"{what} {n} x {key} {width} (vLLM qwen3_dflash.py)"
    return None


def _mlp_speculator_shapes(cfg: dict[str, Any]) -> dict[str, list[int]]:
    """Stage tensor name -> the shape the MLP speculator's loader builds (see the module docstring); names whose size
    the config does not give are left out."""
    emb, vocab, n = config_int(cfg, "emb_dim"), config_int(cfg, "vocab_size"), config_int(cfg, "n_predict")
    inner = config_int(cfg, "inner_dim") or emb
    if inner is None or n is None:
        return {}
    out: dict[str, list[int]] = {}
    for i in range(n):
        out |= {f"ln.{i}.weight": [inner], f"ln.{i}.bias": [inner]}
        if i or emb is not None:
            out[f"proj.{i}.weight"] = [inner, inner if i else emb or 0]
        if vocab is not None:
            out |= {f"emb.{i}.weight": [vocab, inner], f"head.{i}.weight": [vocab, inner]}
    return out


def _shape_finding(ck: Checkpoint, bad: list[tuple[str, list[int], list[int]]], keys: str, family: str) -> Finding:
    """``DRAFT_TENSOR_SHAPE`` for ``bad`` = [(tensor name, stored shape, expected shape)] (non-empty): the first one
    named, :data:`_SHOWN` listed, every one in the details; ``keys`` are the config keys the shapes follow."""
    name, stored, wanted = bad[0]
    shown = "; ".join(f"{n} {s} (expected {e})" for n, s, e in bad[:_SHOWN])
    return finding(
        "DRAFT_TENSOR_SHAPE",
        file=ck.shard_of(name),
        tensor=name,
        n=len(bad),
        shown=shown + (f" (+{len(bad) - _SHOWN} more)" if len(bad) > _SHOWN else ""),
        shape=stored,
        want=wanted,
        keys=keys,
        family=family,
        details={"tensors": [{"name": n, "shape": s, "expected": e} for n, s, e in bad]},
    )


def _check_mlp_speculator(ck: Checkpoint, layout: DraftLayout) -> list[Finding]:
    """``DRAFT_CONFIG_INVALID`` (a ``top_k_tokens_per_head`` the config class refuses) and ``DRAFT_TENSOR_SHAPE``
    (stage tensors shaped unlike the loader builds them) for an MLP speculator."""
    cfg = ck.text_config
    out: list[Finding] = []
    n, top_k = config_int(cfg, "n_predict"), cfg.get("top_k_tokens_per_head")
    if n is not None and isinstance(top_k, list) and len(top_k) != n:
        expected = f"{n} entries (n_predict)"
        details = {"key": "top_k_tokens_per_head", "value": top_k, "expected": expected}
        out.append(
            finding(
                "DRAFT_CONFIG_INVALID",
                file="config.json",
                config_key="top_k_tokens_per_head",
                value=top_k,
                expected=expected,
                why=f"MLPSpeculatorConfig asserts one entry per predicted token (n_predict {n})",
                details=details,
            )
        )
    want = _mlp_speculator_shapes(cfg)
    bad: list[tuple[str, list[int], list[int]]] = []  # (name, stored shape, expected shape)
    for name, shape in want.items():
        info = ck.tensor(name)
        if info is not None and info.dtype not in PACKED_INT_DTYPES and list(info.shape) != shape:
            bad.append((name, list(info.shape), shape))
    if bad:
        out.append(_shape_finding(ck, bad, "emb_dim, inner_dim, vocab_size", layout.family.title))
    return out


def _check_eagle3_fusion(ck: Checkpoint) -> list[Finding]:
    """``DRAFT_TENSOR_NOT_READ`` (ERROR): an EAGLE-3 draft stores ``input_norm.*`` / ``fc_norm.*`` that its config
    does not declare (:class:`.architectures.Eagle3Fusion`: the loader skips ``input_norm``, and has no parameter for
    ``fc_norm``); ``DRAFT_TENSOR_SHAPE`` (ERROR): a declared norm not ``[n_aux * width]`` / ``[width]``."""
    norms = eagle3_fusion(ck.config)
    names = sorted(ck.tensors())
    out: list[Finding] = []
    unread = (
        (
            "norm_before_fc",
            norms.norm_before_fc,
            "input_norm.",
            "the engine skips it: the draft runs without a norm it was trained with, and acceptance falls",
        ),
        (
            "fc_norm",
            norms.fc_norm,
            "fc_norm.",
            "the engine builds no such parameter: its weights loader raises and the draft does not load",
        ),
    )
    for key, declared, prefix, consequence in unread:
        stored = [n for n in names if n.startswith(prefix)]
        if declared or not stored:
            continue
        out.append(
            finding(
                "DRAFT_TENSOR_NOT_READ",
                file=ck.shard_of(stored[0]),
                tensor=stored[0],
                n=len(stored),
                config_key=key,
                prefix=prefix + "*",
                consequence=consequence,
                details={"key": key, "value": False, "tensors": stored},
            )
        )
    width = config_int(ck.text_config, "target_hidden_size") or config_int(ck.text_config, "hidden_size")
    if width is None:
        return out
    want = {"input_norm.weight": [norms.n_aux * width]} if norms.norm_before_fc else {}
    want |= {f"fc_norm.{i}.weight": [width] for i in range(norms.n_aux)} if norms.fc_norm else {}
    bad = [(n, list(i.shape), w) for n, w in want.items() if (i := ck.tensor(n)) is not None and list(i.shape) != w]
    if bad:
        out.append(_shape_finding(ck, bad, "target_hidden_size / hidden_size, num_aux_hidden_states", "EAGLE-3"))
    return out


_QKV = tuple(f"self_attn.{p}.weight" for p in ("q_proj", "k_proj", "v_proj", "qkv_proj"))
#: the projections over the layer input of EAGLE-3's MLA layer 0 (q_proj without q_lora_rank): SGLang
#: kimi_k25_eagle3.py @054a1cef fused_qkv_a_proj_with_mqa = ReplicatedLinear(2 * hidden_size, ...)
_MLA_IN = tuple(f"self_attn.{p}.weight" for p in ("q_a_proj", "kv_a_proj_with_mqa", "q_proj"))


def _check_eagle3_first_layer(ck: Checkpoint, inputs: tuple[str, ...] = _QKV) -> list[Finding]:
    """``DRAFT_TENSOR_SHAPE``: EAGLE-3's first layer attends over [embedding; hidden] (vLLM ``llama_eagle3.py``
    @00bd1493: ``qkv_input_size = 2 * hidden_size`` for layer 0), so its projections of the layer input (``inputs``:
    q/k/v, or MLA's :data:`_MLA_IN`) take ``2 * hidden`` inputs, those of a later layer ``hidden`` (``qkv_input_size =
    2 * self.hidden_size if layer_idx == 0 else self.hidden_size``); a projection stored with another input width
    fails the loader's shape assertion."""
    hidden = config_int(ck.text_config, "hidden_size")
    if hidden is None:
        return []
    bad: list[tuple[str, list[int], list[int]]] = []
    for name, info in sorted(ck.tensors().items()):
        rest = name.removeprefix("midlayer.").removeprefix("layers.0.")
        width = 2 * hidden
        if rest == name:  # a later layer (layers.{i}, i > 0) runs on the hidden stream alone
            head, _, rest = name.partition(".")[2].partition(".")
            width = hidden
            if not name.startswith("layers.") or not head.isdigit():
                continue
        if rest not in inputs or len(info.shape) != 2 or info.dtype in PACKED_INT_DTYPES:
            continue
        if info.shape[1] != width:
            bad.append((name, list(info.shape), [info.shape[0], width]))
    what = "EAGLE-3, layer 0 over [embedding; hidden], later layers over hidden"
    return [_shape_finding(ck, bad, "hidden_size", what)] if bad else []


def check_draft_shapes(ck: Checkpoint, layout: DraftLayout) -> list[Finding]:
    """``DRAFT_FC_SHAPE``: a separate draft's ``fc`` is not ``[hidden_size, in_features]`` as its loader builds it;
    the MLP speculator's stage shapes and config (:func:`_check_mlp_speculator`)."""
    if layout.family.key == "mlp_speculator":
        return _check_mlp_speculator(ck, layout)
    out = _check_eagle3_fusion(ck) + _check_eagle3_first_layer(ck) if layout.family.key == "eagle3" else []
    out += _check_eagle3_first_layer(ck, _MLA_IN) if layout.family.key == "eagle3_deepseek" else []
    out += _check_eagle_para_norms(ck) + _check_eagle_fc_bias(ck, layout) if layout.family.key == "eagle" else []
    return out + _check_fc(ck, layout)


#: HASS's norms of an EAGLE draft (over the embedding, over the target's hidden state; the speculators format's
#: ``pre_lm_head_layernorm`` is renamed to the second), built only with ``add_para_norm`` (vLLM llama_eagle.py
#: @00da9231); a speculators config's ``layernorms`` sets it (its eagle config ``update_defualts``).
_PARA_NORMS = ("embedding_layernorm.", "hidden_states_layernorm.", "pre_lm_head_layernorm.")


def _check_eagle_para_norms(ck: Checkpoint) -> list[Finding]:
    """``DRAFT_TENSOR_NOT_READ`` (ERROR): an EAGLE draft stores HASS's norms (:data:`_PARA_NORMS`) and its config sets
    neither ``add_para_norm`` nor ``layernorms``: the loader has no parameter for them and skips them."""
    if eagle_para_norms_declared(ck.config):
        return []
    stored = sorted(n for n in ck.tensors() if n.startswith(_PARA_NORMS))
    if not stored:
        return []
    return [
        finding(
            "DRAFT_TENSOR_NOT_READ",
            file=ck.shard_of(stored[0]),
            tensor=stored[0],
            n=len(stored),
            config_key="add_para_norm",
            prefix=", ".join(sorted({n.split(".")[0] + ".*" for n in stored})),
            consequence="the engine builds no such parameter and skips them: the draft runs without the norms it "
            "was trained with (HASS), and acceptance falls",
            details={"key": "add_para_norm", "value": False, "tensors": stored},
        )
    ]


def _check_eagle_fc_bias(ck: Checkpoint, layout: DraftLayout) -> list[Finding]:
    """``fc.bias`` (speculators: ``fusion_fc.bias``) of an EAGLE draft, by the engine its architecture names in the
    census. EAGLE-1 trains the bias by default (SafeAILab ``cnets1.py``).

    - SGLang (``LlamaForCausalLMEagle``: ``llama_eagle.py`` @034b3be8; ``Qwen2ForCausalLMEagle``: ``qwen2_eagle.py``
      @005da006) builds ``fc`` as ``nn.Linear`` with its default bias and reads ``fc.bias`` by name: a draft without
      it runs with the bias's random initial value (the loader checks no parameter was left unloaded):
      ``DRAFT_TENSORS_MISSING/fc-bias`` (ERROR).
    - vLLM (every other EAGLE architecture: ``llama_eagle.py`` @00da9231) builds ``fc`` with ``bias=False`` and skips
      a name it has no parameter for (vllm-project/vllm PRs #22323 and #22558, "load bias from config for Eagle",
      closed unmerged): a stored one is ``DRAFT_TENSOR_NOT_READ/fc-bias`` (WARNING)."""
    stored = sorted(n for n in ck.tensors() if alias_name(layout.family, n) == "fc.bias")
    hit = draft_row_for(ck.config, layout.family.key)
    if hit is not None and hit[1].fc_bias:
        if stored or not any(alias_name(layout.family, n) == "fc.weight" for n in ck.tensors()):
            return []  # no fc at all: DRAFT_TENSORS_MISSING names fc.weight
        arch, row = hit
        where = f"{row.repository} {row.file} @{row.commit}"
        facts: dict[str, Any] = {"architecture": arch, "engine": row.engine, "where": where}
        return [
            finding(
                "DRAFT_TENSORS_MISSING/fc-bias",
                file="config.json",
                **facts,
                details={"missing": ["fc.bias"], "engine": row.engine},
            )
        ]
    if not stored:
        return []
    return [
        finding(
            "DRAFT_TENSOR_NOT_READ/fc-bias",
            file=ck.shard_of(stored[0]),
            tensor=stored[0],
            details={"tensors": stored},
        )
    ]


def _check_fc(ck: Checkpoint, layout: DraftLayout) -> list[Finding]:
    cfg = ck.text_config
    want = _fc_want(cfg, layout)
    hidden = config_int(cfg, "hidden_size")
    fc = layout.family.fusion or "fc.weight"  # eagle_linear.weight in Mistral's native names
    name = next((n for n in ck.tensors() if alias_name(layout.family, n) == fc), None)
    info = ck.tensor(name) if name else None
    if want is None or info is None or name is None or hidden is None or len(info.shape) != 2:
        return []
    in_f, why = want
    packed = info.dtype in PACKED_INT_DTYPES  # only the output dimension survives packing
    ok = info.shape[0] == hidden and (packed or info.shape[1] == in_f)
    if ok:
        return _check_eagle3_taps(ck, layout, name, in_f) if layout.family.key == "eagle3" and not packed else []
    return [
        finding(
            "DRAFT_FC_SHAPE",
            file=ck.shard_of(name),
            tensor=name,
            family=layout.family.title,
            dtype=info.dtype,
            shape=list(info.shape),
            want=f"[{hidden}, {in_f}]",
            why=f"out hidden_size {hidden}, in {why}",
            details={"shape": list(info.shape), "expected": [hidden, in_f]},
        )
    ]


def _check_eagle3_taps(ck: Checkpoint, layout: DraftLayout, name: str, in_f: int) -> list[Finding]:
    """``EAGLE3_AUX_COUNT_MISMATCH`` (ERROR): a top-level ``eagle_aux_hidden_state_layer_ids`` is the list of target
    layers vLLM taps (``eagle3_utils.get_eagle3_aux_layers_from_config`` reads the draft config's top-level key; the
    nested ``eagle_config`` one is not read there) and concatenates into ``fc``; ``fc`` is sized by
    :func:`.architectures.eagle3_fusion` (``num_aux_hidden_states``, ``eagle_config``'s ids, else 3). Another count
    loads, then fails at the first draft step (the matmul over ``len(ids) * width`` values into ``fc``). Called only
    when ``fc`` is as its loader builds it (else ``DRAFT_FC_SHAPE`` says it)."""
    ids = ck.text_config.get("eagle_aux_hidden_state_layer_ids")
    width, _ = target_width(ck.text_config, layout)
    if not isinstance(ids, list) or not ids or width is None or len(ids) * width == in_f:
        return []
    return [
        finding(
            "EAGLE3_AUX_COUNT_MISMATCH",
            file=ck.shard_of(name),
            tensor=name,
            n=len(ids),
            values=len(ids) * width,
            n_aux=in_f // width,
            width=width,
            fc_in=in_f,
            ids=ids,
            details={"ids": ids, "taps": len(ids), "fc_in": in_f, "width": width},
        )
    ]


def check_hidden_vs_target(
    draft_cfg: dict[str, Any], layout: DraftLayout | None, target_cfg: dict[str, Any]
) -> list[Finding]:
    """``DRAFT_HIDDEN_MISMATCH``: a draft that reads the target's hidden states (EAGLE, EAGLE-3, DFlash, Medusa, MLP
    speculator) built for another width. A separate draft model reads only token ids: its width is its own."""
    if layout is None or layout.family.key not in (
        "eagle",
        "eagle_minicpm",
        "eagle3",
        "dflash",
        "medusa",
        "mlp_speculator",
    ):
        return []
    width, key = target_width(draft_cfg, layout)
    target = config_int(target_cfg, "hidden_size")
    if width is None or target is None or width == target:
        return []
    return [
        finding(
            "DRAFT_HIDDEN_MISMATCH",
            file="config.json",
            family=layout.family.title,
            source_key=key,
            draft=width,
            target=target,
            details={"draft_width": width, "from": key, "target_hidden_size": target},
        )
    ]
