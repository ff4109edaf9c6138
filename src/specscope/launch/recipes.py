"""Server recipes: named vLLM configs read from TOML, turned into ``vllm serve`` argv (pure functions).

A recipe file looks like::

    [defaults]                      # optional: merged into every recipe, a recipe's own keys win
    model = "org/checkpoint"
    kv_cache_dtype = "fp8"
    max_model_len_tokens = 262144

    [recipes.mtp2]
    method = "mtp"
    num_speculative_tokens = 2

    [recipes.cpu]                   # inherit_defaults = false: this recipe ignores [defaults]
    inherit_defaults = false
    model = "~/models/small"

Methods and the ``--speculative-config`` JSON each one produces (keys in this order, compact separators, as
the seeds write them; seed 000 for base/mtp/dflash, seed 002 for suffix/ngram):

=========  ===============================================================  ======================================
method     speculative config                                                required fields
=========  ===============================================================  ======================================
base       (no --speculative-config)                                        none of the speculative fields
mtp        {"method":"mtp","num_speculative_tokens":k}                      num_speculative_tokens
draft      {"method":"draft_model","model":M,"num_speculative_tokens":k}    draft_model, num_speculative_tokens
ngram      {"method":"ngram","num_speculative_tokens":k,                    num_speculative_tokens
           "prompt_lookup_min":a,"prompt_lookup_max":b}
suffix     {"method":"suffix",["num_speculative_tokens":k]}                 none
dflash     {"method":"dflash","model":M,"num_speculative_tokens":k}         draft_model, num_speculative_tokens
eagle3     {"method":"eagle3","model":M,"num_speculative_tokens":k}         draft_model, num_speculative_tokens
=========  ===============================================================  ======================================

``speculative_extra`` adds further keys (e.g. seed 002's ``suffix_decoding_max_tree_depth``). The method
names are vLLM's (vllm/config/speculative.py, ``SpeculativeMethod``; ``draft_model`` for a separate draft).
"""

from __future__ import annotations

import difflib
import json
import os
import tomllib
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from specscope.errors import ConfigError, did_you_mean
from specscope.kaxis import split_k_name
from specscope.readfile import (
    SETTINGS_FILE_MAX_BYTES,
    FileTooLarge,
    read_error_text,
    read_text_limited,
    settings_or_refuse,
    toml_loads,
)

__all__ = [
    "Method",
    "Recipe",
    "RecipeBook",
    "default_recipes_path",
    "docker_argv",
    "load_recipes",
    "parse_recipes",
    "speculative_config",
    "vllm_argv",
]

Method = Literal["base", "mtp", "draft", "ngram", "suffix", "dflash", "eagle3"]
_VLLM_METHOD = {"draft": "draft_model"}
_NEEDS_K = {"mtp", "draft", "ngram", "dflash", "eagle3"}
_NEEDS_DRAFT = {"draft", "dflash", "eagle3"}
DEFAULT_IMAGE = "vllm/vllm-openai:latest"


class Recipe(BaseModel):
    """One server config. Units in names: ``*_tokens`` tokens, ``*_bytes`` bytes; fractions are 0..1.

    ``vllm_command`` is the program that takes ``serve`` (``["vllm"]`` normally; the CPU build uses
    ``[VENV/bin/python, -m, specscope_vllm_cpu_launcher]``); a leading ``~`` is expanded. ``env`` is added
    to the child's environment. ``tool_call_parser`` implies ``--enable-auto-tool-choice``.
    ``per_request_spec_metrics`` (``summary`` | ``detailed``) adds ``--per-request-spec-decode-metrics``: each
    ``n == 1`` response then carries ``metrics.speculative_decoding`` (per-request acceptance, issue 16), in a
    stream on the final usage chunk only (vLLM 0.32.0 ``vllm/config/observability.py:50``,
    ``vllm/engine/arg_utils.py:1657``; vLLM refuses the flag without a speculative config, hence not for ``base``).
    ``per_request_metrics`` adds ``--enable-per-request-metrics``: each response then carries its timing
    (``metrics.queue_time_ms`` and others, vLLM 0.32.0 ``vllm/entrypoints/launchers/cli_args.py``), which gives each
    stream its queue wait (``StreamRecord.queue_s``) and the capacity table its ``queue p50``; vLLM refuses it with
    ``--disable-log-stats``.
    ``enable_weights_track`` adds ``--model-loader-extra-config '{"enable_weights_track": true}'`` (seed 000:
    vLLM then refuses a checkpoint whose MTP weights are missing instead of running with garbage).
    """

    model_config = ConfigDict(extra="forbid")

    name: str = ""
    model: str
    method: Method = "base"
    num_speculative_tokens: int | None = Field(default=None, ge=1)
    draft_model: str | None = None
    prompt_lookup_min: int | None = Field(default=None, ge=1)
    prompt_lookup_max: int | None = Field(default=None, ge=1)
    speculative_extra: dict[str, Any] = Field(default_factory=dict)
    served_model_name: str | None = None
    dtype: str | None = None
    kv_cache_dtype: str | None = None
    attention_backend: str | None = None
    max_model_len_tokens: int | None = Field(default=None, ge=1)
    gpu_memory_utilization: float | None = Field(default=None, gt=0, le=1)
    kv_cache_memory_bytes: int | None = Field(default=None, ge=1)
    max_num_seqs: int | None = Field(default=None, ge=1)
    tensor_parallel_size: int | None = Field(default=None, ge=1)
    enforce_eager: bool = False
    trust_remote_code: bool = False
    reasoning_parser: str | None = None
    tool_call_parser: str | None = None
    enable_weights_track: bool = False
    per_request_spec_metrics: Literal["summary", "detailed"] | None = None
    per_request_metrics: bool = False
    extra_args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    vllm_command: list[str] = Field(default_factory=lambda: ["vllm"], min_length=1)
    docker_image: str = DEFAULT_IMAGE
    docker_gpus: str = "all"

    @model_validator(mode="after")
    def _check_method(self) -> Recipe:
        m = self.method
        if m in _NEEDS_K and self.num_speculative_tokens is None:
            raise ValueError(f"method {m!r} needs num_speculative_tokens (k)")
        if m in _NEEDS_DRAFT and not self.draft_model:
            raise ValueError(f"method {m!r} needs draft_model")
        if m not in _NEEDS_DRAFT and self.draft_model:
            raise ValueError(f"draft_model is only used by draft, dflash and eagle3, not {m!r}")
        if m != "ngram" and (self.prompt_lookup_min is not None or self.prompt_lookup_max is not None):
            raise ValueError("prompt_lookup_min/max are only used by method 'ngram'")
        if m == "base" and (self.num_speculative_tokens is not None or self.speculative_extra):
            raise ValueError("method 'base' takes no speculative settings")
        lo, hi = self.prompt_lookup_min, self.prompt_lookup_max
        if lo is not None and hi is not None and lo > hi:
            raise ValueError(f"prompt_lookup_min {lo} > prompt_lookup_max {hi}")
        return self

    def display_model_name(self) -> str:
        """The model name the server answers to: ``served_model_name`` or else ``model``."""
        return self.served_model_name or self.model


def speculative_config(recipe: Recipe) -> dict[str, Any] | None:
    """The ``--speculative-config`` object of a recipe (see the module table), or None for ``base``."""
    if recipe.method == "base":
        return None
    spec: dict[str, Any] = {"method": _VLLM_METHOD.get(recipe.method, recipe.method)}
    if recipe.draft_model:
        spec["model"] = _expand(recipe.draft_model)
    if recipe.num_speculative_tokens is not None:
        spec["num_speculative_tokens"] = recipe.num_speculative_tokens
    if recipe.prompt_lookup_min is not None:
        spec["prompt_lookup_min"] = recipe.prompt_lookup_min
    if recipe.prompt_lookup_max is not None:
        spec["prompt_lookup_max"] = recipe.prompt_lookup_max
    spec.update(recipe.speculative_extra)
    return spec


def _expand(path_or_id: str) -> str:
    return os.path.expanduser(path_or_id) if path_or_id.startswith("~") else path_or_id


def _serve_flags(recipe: Recipe) -> list[str]:
    """The flags after ``serve MODEL`` (without host/port), in the seeds' order."""
    r = recipe
    out: list[str] = []
    if r.served_model_name:
        out += ["--served-model-name", r.served_model_name]
    if r.dtype:
        out += ["--dtype", r.dtype]
    if r.kv_cache_dtype:
        out += ["--kv-cache-dtype", r.kv_cache_dtype]
    if r.attention_backend:
        out += ["--attention-backend", r.attention_backend]
    if r.max_model_len_tokens is not None:
        out += ["--max-model-len", str(r.max_model_len_tokens)]
    if r.gpu_memory_utilization is not None:
        out += ["--gpu-memory-utilization", f"{r.gpu_memory_utilization:g}"]
    if r.kv_cache_memory_bytes is not None:
        out += ["--kv-cache-memory-bytes", str(r.kv_cache_memory_bytes)]
    if r.max_num_seqs is not None:
        out += ["--max-num-seqs", str(r.max_num_seqs)]
    if r.tensor_parallel_size is not None:
        out += ["--tensor-parallel-size", str(r.tensor_parallel_size)]
    if r.enforce_eager:
        out += ["--enforce-eager"]
    if r.reasoning_parser:
        out += ["--reasoning-parser", r.reasoning_parser]
    if r.trust_remote_code:
        out += ["--trust-remote-code"]
    if r.tool_call_parser:
        out += ["--enable-auto-tool-choice", "--tool-call-parser", r.tool_call_parser]
    if r.per_request_spec_metrics and r.method != "base":  # issue 16: metrics.speculative_decoding per response
        out += ["--per-request-spec-decode-metrics", r.per_request_spec_metrics]
    if r.per_request_metrics:  # issue 12: metrics.queue_time_ms per response
        out += ["--enable-per-request-metrics"]
    if r.enable_weights_track:
        out += ["--model-loader-extra-config", '{"enable_weights_track": true}']
    spec = speculative_config(r)
    if spec is not None:
        out += ["--speculative-config", json.dumps(spec, separators=(",", ":"))]
    out += list(r.extra_args)
    return out


def vllm_argv(recipe: Recipe, *, port: int, host: str = "127.0.0.1") -> list[str]:
    """The local command line: ``[*vllm_command, "serve", MODEL, "--host", host, "--port", port, *flags]``."""
    command = [os.path.expanduser(recipe.vllm_command[0]), *recipe.vllm_command[1:]]
    return [*command, "serve", _expand(recipe.model), "--host", host, "--port", str(port), *_serve_flags(recipe)]


def docker_argv(recipe: Recipe, *, port: int, container_name: str, hf_cache: str | None = None) -> list[str]:
    """The docker form: ``docker run --rm --name N --gpus G --ipc=host -p 127.0.0.1:PORT:8000 [-v ...] [-e ...]
    IMAGE MODEL --host 0.0.0.0 --port 8000 *flags``.

    The image's entrypoint is ``vllm serve`` (vllm/vllm-openai). The port is published on loopback only.
    ``hf_cache`` (default ``~/.cache/huggingface``) is mounted at /root/.cache/huggingface; a model or draft
    that is an existing local folder is mounted read-only at the same path.

    Raises:
        ConfigError: the recipe has its own ``vllm_command`` (e.g. the CPU build's launcher): the GPU image
            would not run what the recipe describes.
    """
    if recipe.vllm_command != ["vllm"]:
        raise ConfigError(
            "this recipe runs its own vLLM command, not the vllm/vllm-openai image",
            found=f"vllm_command = {recipe.vllm_command}",
            expected='vllm_command = ["vllm"] for --docker',
            fix="run it as a local process (drop --docker), or set docker_image to a matching image "
            "and vllm_command to the default",
        )
    cache = os.path.expanduser(hf_cache or "~/.cache/huggingface")
    argv = [
        "docker",
        "run",
        "--rm",
        "--name",
        container_name,
        "--gpus",
        recipe.docker_gpus,
        "--ipc=host",
        "-p",
        f"127.0.0.1:{port}:8000",
        "-v",
        f"{cache}:/root/.cache/huggingface",
    ]
    for path in (recipe.model, recipe.draft_model):
        if path and Path(_expand(path)).is_dir():
            local = _expand(path)
            argv += ["-v", f"{local}:{local}:ro"]
    for key, value in sorted(recipe.env.items()):
        argv += ["-e", f"{key}={value}"]
    argv += [recipe.docker_image, _expand(recipe.model), "--host", "0.0.0.0", "--port", "8000"]
    return argv + _serve_flags(recipe)


class RecipeBook(BaseModel):
    """All recipes of one file, by name, plus where they came from (``source``)."""

    model_config = ConfigDict(extra="forbid")

    source: str
    recipes: dict[str, Recipe]

    def get(self, name: str, flag: str = "--configs") -> Recipe:
        """The recipe called ``name``; ``NAME-kK`` is speculative recipe ``NAME`` with ``num_speculative_tokens``
        K in ``--speculative-config`` (the k axis, :mod:`specscope.kaxis`). Raises ConfigError (``invalid value for
        FLAG``, ``flag`` the option or argument that named it) naming the known recipes when absent."""
        base, k = split_k_name(name)
        if name not in self.recipes and k is not None and base in self.recipes:
            recipe = self.recipes[base]
            if recipe.method != "base":
                return recipe.model_copy(update={"name": name, "num_speculative_tokens": k})
        try:
            return self.recipes[name]
        except KeyError:
            raise self._unknown(name, flag) from None

    def _unknown(self, name: str, flag: str) -> ConfigError:
        """The error for a recipe the file lacks: its recipes, the close matches to ``name`` first; the fix runs the
        closest one, and adds a recipe in a file of the user's own (``--recipes FILE``), never in the installed
        package's file."""
        close = difflib.get_close_matches(name, list(self.recipes), n=len(self.recipes), cutoff=0.6)
        known = [*close, *sorted(set(self.recipes) - set(close))]
        shipped = Path(self.source) == default_recipes_path()
        pick = "pick one of those"
        if close:
            run = f"specscope serve {close[0]} --print"
            pick = f"`{run}`" if shipped else f"`{run} --recipes {self.source}`"
        if shipped:
            add = f"write [recipes.{name}] in a TOML file of your own and run `specscope serve {name} --recipes FILE`"
        else:
            add = f"add [recipes.{name}] to {self.source}"
        return ConfigError(
            f"invalid value for {flag}",
            found=name,
            expected=f"a recipe of the file{' (closest first)' if close else ''}: {', '.join(known)}"
            if known
            else "a recipe (the file has none)",
            fix=f"{pick}; or {add}",
        )


#: keys a user of another engine writes to choose it: a recipe has none (it is a ``vllm serve`` command line)
_ENGINE_KEYS = ("engine", "backend", "server")


def _invalid_recipe(name: str, source: str, exc: ValidationError) -> ConfigError:
    """The refusal of recipe ``name`` that failed validation: its first error, a key that is no field with the
    closest field (or, for an engine key, what serves other engines), a bad value with pydantic's words."""
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err["loc"]) or "recipe"
    fix = f"edit [recipes.{name}] in {source}"
    if err["type"] != "extra_forbidden":
        return ConfigError(
            f"invalid recipe {name!r}",
            found=f"{source}: {where}: {err['msg']}",
            expected="fields of specscope.launch.recipes.Recipe",
            fix=fix,
        )
    fields = sorted(set(Recipe.model_fields) - {"name"})
    expected = f"one of the recipe fields: {', '.join(fields)}"
    if where in _ENGINE_KEYS:
        expected = (
            "no engine key: a recipe is a `vllm serve` command line; for SGLang, llama.cpp or any server you start "
            "yourself, run `specscope bench --server NAME=URL` (or `gate --server`) against it and read its log with "
            "`specscope serve --parse-log LOG`"
        )
        fix = f"remove {where} from [recipes.{name}] in {source}"
    else:
        hint = did_you_mean(where, fields)
        fix = f"{hint} ({fix})" if hint else fix
    return ConfigError(
        f"invalid recipe {name!r}", found=f"{source}: {where}: not a recipe field", expected=expected, fix=fix
    )


def parse_recipes(text: str, *, source: str = "<string>") -> RecipeBook:
    """Parse recipe TOML (see the module docstring) into a RecipeBook.

    Raises:
        ConfigError: invalid TOML, unknown keys, a top-level key other than ``defaults`` / ``recipes``, or a
            recipe that fails validation (the message names the recipe and the field).
    """
    try:
        doc = toml_loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(
            "recipe file is not valid TOML",
            found=f"{source}: {exc}",
            expected="TOML",
            fix="fix the syntax at the line named",
        ) from None
    fix = "add [recipes.NAME] tables, or leave --recipes out for the recipes shipped with specscope"
    settings_or_refuse(doc, source, "the recipe file", fix)
    unknown = sorted(set(doc) - {"defaults", "recipes"})
    if unknown:
        raise ConfigError(
            "unknown top-level table in recipe file",
            found=f"{source}: {', '.join(unknown)}",
            expected="[defaults] and [recipes.NAME] tables",
            fix="move those keys under [recipes.NAME]",
        )
    defaults = doc.get("defaults", {})
    recipes: dict[str, Recipe] = {}
    for name, body in doc.get("recipes", {}).items():
        if not isinstance(body, dict):
            raise ConfigError(
                "recipe is not a table",
                found=f"{source}: recipes.{name} = {body!r}",
                expected=f"[recipes.{name}] with keys",
                fix="write it as a TOML table",
            )
        body = dict(body)
        inherit = body.pop("inherit_defaults", True)
        if not isinstance(inherit, bool):
            raise ConfigError(
                "inherit_defaults must be true or false",
                found=f"{source}: recipes.{name}",
                expected="a boolean",
                fix="write inherit_defaults = false",
            )
        merged = {**(defaults if inherit else {}), **body, "name": name}
        if body.get("method", "base") == "base":  # spec defaults must not leak into a base recipe
            for key in ("num_speculative_tokens", "draft_model", "prompt_lookup_min", "prompt_lookup_max"):
                if key not in body:
                    merged.pop(key, None)
        try:
            recipes[name] = Recipe.model_validate(merged)
        except ValidationError as exc:
            raise _invalid_recipe(name, source, exc) from None
    return RecipeBook(source=source, recipes=recipes)


def default_recipes_path() -> Path:
    """Path of the recipes.toml shipped in the package (read-only; copy it to edit)."""
    return Path(str(resources.files("specscope.launch").joinpath("recipes.toml")))


def load_recipes(path: str | Path | None = None) -> RecipeBook:
    """Load recipes from ``path``, or the shipped default file when None.

    Raises:
        ConfigError: the file is missing or invalid (see :func:`parse_recipes`).
    """
    fix = "pass --recipes PATH, or leave it out for the recipes shipped with specscope (`specscope serve --list`)"
    p = Path(path if path is not None else default_recipes_path())
    if not p.exists():
        raise ConfigError("recipe file not found", found=str(p), expected="a TOML recipe file", fix=fix)
    try:  # only a regular file, within the settings files' limit (a FIFO, a device, Latin-1 bytes: refused by name)
        text = read_text_limited(p, SETTINGS_FILE_MAX_BYTES)
    except (OSError, UnicodeDecodeError, FileTooLarge) as exc:
        why = exc.found_text if isinstance(exc, FileTooLarge) else read_error_text(exc)
        raise ConfigError(
            "cannot read the recipe file", found=f"{p}: {why}", expected="a UTF-8 TOML recipe file", fix=fix
        ) from None
    return parse_recipes(text, source=str(p))
