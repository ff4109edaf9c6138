"""The gate profile: which gates run, their token budgets and thresholds, loaded from TOML.

Defaults live in the package file ``data/default_profile.toml`` (values from seed 002's P2 quality gates and
seed 003's repetition check); a user profile overrides any subset of keys. Unknown keys are rejected
(pydantic ``extra="forbid"``), so a typo cannot silently keep a default.
"""

from __future__ import annotations

import tomllib
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from specscope.errors import ConfigError
from specscope.readfile import SETTINGS_FILE_MAX_BYTES, FileKind, read_user_file, settings_or_refuse, toml_loads
from specscope.values import TIMEOUT_BOUNDS_S

__all__ = ["GateSection", "GateProfile", "default_profile_text", "load_profile"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)  # TOML reads inf and nan as floats


class RequestSettings(_Strict):
    """Settings shared by every probe request."""

    temperature: float = Field(0.0, ge=0.0)
    timeout_s: float = Field(900.0, ge=TIMEOUT_BOUNDS_S[0], le=TIMEOUT_BOUNDS_S[1])  # 1 ms to 1 day
    seed: int | None = 0


class GateSection(_Strict):
    """Settings every gate has.

    Attributes:
        enabled: run this gate.
        max_tokens: completion budget per probe request, tokens.
        limit: run only the first ``limit`` probes of the gate (``None``: all).
        min_pass_fraction: fraction of probes that must pass for the gate to pass (1.0 = all).
    """

    enabled: bool = True
    max_tokens: int = Field(1024, ge=1)
    limit: int | None = Field(None, ge=1)
    min_pass_fraction: float = Field(1.0, ge=0.0, le=1.0)


class ThinkingSection(GateSection):
    require_reasoning: bool = False
    chat_template_kwargs: dict[str, Any] = Field(default_factory=lambda: {"enable_thinking": True})


class CodeSection(GateSection):
    timeout_s: float = Field(10.0, ge=TIMEOUT_BOUNDS_S[0], le=TIMEOUT_BOUNDS_S[1])


class LongContextSection(GateSection):
    context_tokens: int = Field(8192, ge=64)
    depth_fraction: float = Field(0.5, ge=0.0, le=1.0)


class RepetitionSection(GateSection):
    n: int = Field(8, ge=1)
    max_repeated_ngram_count: int = Field(1, ge=1)
    min_unique_word_ratio: float = Field(0.528, ge=0.0, le=1.0)


class CompareSection(GateSection):
    min_identical_fraction: float = Field(0.0, ge=0.0, le=1.0)
    min_same_answer_fraction: float = Field(1.0, ge=0.0, le=1.0)


class GateProfile(_Strict):
    """A whole gate profile (see ``data/default_profile.toml`` for the documented defaults)."""

    request: RequestSettings = RequestSettings()
    thinking: ThinkingSection = ThinkingSection(max_tokens=16384)
    arithmetic: GateSection = GateSection(max_tokens=2048)
    code: CodeSection = CodeSection(max_tokens=2048)
    tool_call: GateSection = GateSection(max_tokens=1024)
    long_context: LongContextSection = LongContextSection(max_tokens=256)
    repetition: RepetitionSection = RepetitionSection(max_tokens=1500)
    compare: CompareSection = CompareSection(max_tokens=512)

    def section(self, gate: str) -> GateSection:
        """The settings of gate ``gate`` (one of :data:`specscope.gate.model.GATES`)."""
        section: GateSection = getattr(self, gate)
        return section

    def with_overrides(self, **sections: dict[str, Any]) -> GateProfile:
        """A copy with some keys of some sections replaced, validated again.

        Raises:
            ConfigError: an override is invalid.
        """
        data = self.model_dump()
        for name, values in sections.items():
            data.setdefault(name, {}).update(values)
        return _validate(data, "overrides")


def default_profile_text() -> str:
    """The packaged default profile, TOML text."""
    return resources.files("specscope.gate").joinpath("data/default_profile.toml").read_text(encoding="utf-8")


def _deep_merge(base: dict[str, Any], top: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for k, v in top.items():
        out[k] = (
            _deep_merge(out[k], v)
            if isinstance(v, dict) and isinstance(out.get(k), dict) and k != "chat_template_kwargs"
            else v
        )
    return out


def _validate(data: dict[str, Any], source: str) -> GateProfile:
    try:
        return GateProfile.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        raise ConfigError(
            f"invalid gate profile {source}",
            found=f"{where}: {err['msg']} (input {err.get('input')!r})",
            expected="keys and value ranges of the default profile (specscope gate --print-run-file)",
            fix=f"correct or remove '{where}' in {source}",
        ) from None


#: a gate profile's words in a user error (:func:`specscope.readfile.read_user_file`)
_PROFILE_FILE = FileKind(
    "the gate profile",
    expected="a TOML file",
    fix="check the --run-file path",
    limit_fix="a gate profile is a few KiB of TOML: check the --run-file path",
)


def load_profile(path: str | Path | None = None) -> GateProfile:
    """The default profile, with the TOML file at ``path`` (if given) merged over it.

    Raises:
        ConfigError: the file is missing, is not TOML, or has an unknown key or out-of-range value.
    """
    defaults = tomllib.loads(default_profile_text())
    if path is None:
        return _validate(defaults, "(defaults)")
    p = Path(path)
    text = read_user_file(p, _PROFILE_FILE, SETTINGS_FILE_MAX_BYTES, text=True)
    try:
        user = toml_loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(
            "gate profile is not valid TOML", found=f"{p}: {exc}", expected="TOML", fix="fix the syntax error"
        ) from None
    fix = "drop --run-file for the default profile, or write one with: specscope gate --print-run-file > gate.toml"
    settings_or_refuse(user, p, _PROFILE_FILE.name, fix)
    return _validate(_deep_merge(defaults, user), str(p))
