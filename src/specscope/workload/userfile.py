"""A user's own prompts: ``--workload NAME=FILE``.

Accepted line shapes (UTF-8, one record per line; blank lines are skipped):

* a JSON object with ``messages``: OpenAI chat messages, ``[{"role": "system"|"user"|"assistant", "content": str}]``;
* a JSON object with ``conversations``: ShareGPT form, ``[{"from": "human"|"gpt"|"system", "value": str}]``
  (``human`` -> ``user``, ``gpt`` -> ``assistant``); a trailing assistant turn is dropped (it is the answer);
* a JSON object with ``prompt`` (a non-empty string), or any line that is not a JSON object: one prompt per line.

Optional fields of a JSON object: ``max_tokens`` (int >= 1, this prompt's cap in tokens, overrides
``--max-tokens``) and ``category`` (str, kept in ``Prompt.meta["category"]``).

A malformed line is a :class:`~specscope.errors.ConfigError` naming the file and the 1-based line number.

Reading (issue 29): the file is a regular UTF-8 file of at most :data:`MAX_FILE_BYTES` (a leading byte-order mark
is dropped, not sent as part of the first prompt); records are split at line feeds only (JSON Lines' rule, a
``\r`` before the ``\n`` removed), so U+2028, U+2029, U+0085, form feed and the other Unicode line separators
stay inside the prompt they belong to (``str.splitlines`` would split there). JSON nested deeper than Python's
parser allows, an integer of more than :data:`MAX_INT_DIGITS` digits, or a ``max_tokens`` above
:data:`MAX_TOKENS_CAP` is a line error, never a crash.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from specscope.errors import ConfigError
from specscope.readfile import FileTooLarge, read_error_text, read_text_limited, split_lines
from specscope.workload.prompt import Prompt, is_int_in

__all__ = ["load_prompt_file", "parse_workload_specs", "file_fingerprint", "MAX_FILE_BYTES", "MAX_TOKENS_CAP"]

#: the largest prompt file read (bytes).
MAX_FILE_BYTES = 1 << 30
#: the largest ``max_tokens`` a record may ask for (engines keep it in a 32-bit integer).
MAX_TOKENS_CAP = 2**31 - 1
#: the longest integer literal parsed (Python refuses past 4,300 digits with a ValueError).
MAX_INT_DIGITS = 40


class _HugeInt(str):
    """An integer literal of more than :data:`MAX_INT_DIGITS` digits, kept as text (never a valid field value)."""

    def __repr__(self) -> str:
        return f"an integer of {len(self.lstrip('-')):,} digits"


def _parse_int(text: str) -> int | _HugeInt:
    return int(text) if len(text) <= MAX_INT_DIGITS else _HugeInt(text)


_SHAREGPT_ROLES = {"human": "user", "user": "user", "gpt": "assistant", "assistant": "assistant", "system": "system"}
_CHAT_ROLES = ("system", "user", "assistant")


def parse_workload_specs(specs: list[str]) -> dict[str, str]:
    """``["mine=prompts.jsonl"]`` -> ``{"mine": "/abs/prompts.jsonl"}``.

    Raises:
        ConfigError: a spec without ``=``, an empty or repeated name, a name of a built-in pack, or a missing file.
    """
    from specscope.workload.packs import PACK_NAMES

    out: dict[str, str] = {}
    for spec in specs:
        name, sep, path = spec.partition("=")
        name = name.strip()
        if not sep or not name or not path:
            raise ConfigError(
                "--workload takes NAME=FILE", found=spec, expected="e.g. mine=prompts.jsonl", fix="name the file"
            )
        if name in out or name in PACK_NAMES or "/" in name or "@" in name:
            raise ConfigError(
                f"workload name {name!r} is taken or invalid",
                found=name,
                expected=f"a new name without '/' or '@', not one of {', '.join(PACK_NAMES)}",
                fix="pick another name, e.g. --workload mine=prompts.jsonl",
            )
        file = Path(path).expanduser()
        if not file.is_file():
            raise ConfigError(
                f"workload file not found: {path}", found=path, expected="a JSONL or text file", fix="check the path"
            )
        out[name] = str(file.resolve())
    return out


def file_fingerprint(path: str | Path) -> str:
    """SHA-256 (hex) of the file's bytes, recorded in the run manifest."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def load_prompt_file(name: str, path: str | Path) -> list[Prompt]:
    """The prompts of a user's file, in file order; ids are ``"<name>-<line number, 4 digits>"``.

    Raises:
        ConfigError: a malformed line (the message names the file and line number), or no prompt at all.
    """
    path = Path(path)
    try:
        lines = split_lines(read_text_limited(path, MAX_FILE_BYTES))
    except FileTooLarge as exc:
        raise ConfigError(
            f"workload file {path} is larger than the limit",
            found=f"{exc.size_bytes:,} bytes",
            expected=f"at most {MAX_FILE_BYTES:,} bytes",
            fix="split the file into several --workload files",
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(
            f"cannot read workload file {path}",
            found=read_error_text(exc)[:300],
            expected="a regular UTF-8 text file",
            fix="check the file",
        ) from None
    prompts = [_prompt(name, path, no, line) for no, line in enumerate(lines, start=1) if line.strip()]
    if not prompts:
        raise ConfigError(
            f"workload file {path} holds no prompt", found="0 prompts", expected="at least one line", fix="add prompts"
        )
    return prompts


def _bad(path: Path, no: int, what: str, expected: str) -> ConfigError:
    return ConfigError(
        f"{path}:{no}: {what}",
        found=what,
        expected=expected,
        fix=f"fix line {no} of {path.name} (chat `messages`, ShareGPT `conversations`, `prompt`, or plain text)",
    )


def _prompt(name: str, path: Path, no: int, line: str) -> Prompt:
    stripped = line.strip()
    record: Any = None
    if stripped.startswith(("{", "[")):
        try:
            record = json.loads(stripped, parse_int=_parse_int)
        except json.JSONDecodeError as exc:
            raise _bad(
                path, no, f"invalid JSON ({exc.msg} at column {exc.colno})", "one JSON object per line"
            ) from None
        except RecursionError:
            raise _bad(path, no, "JSON nested deeper than the parser allows", "a flat JSON object per line") from None
        if not isinstance(record, dict):
            raise _bad(path, no, f"a JSON {type(record).__name__}, not an object", "a JSON object per line")
    meta: dict[str, Any] = {"source": "file", "line": no}
    if record is None:
        messages = [{"role": "user", "content": stripped}]
    else:
        messages = _messages(path, no, record)
        meta.update(_optional(path, no, record))
    if not any(m["role"] == "user" for m in messages):
        raise _bad(path, no, "no user message", "at least one user turn")
    if not any(m["role"] == "user" and m["content"].strip() for m in messages):
        raise _bad(path, no, "every user turn is empty", "a user turn with text")
    return Prompt(prompt_id=f"{name}-{no:04d}", workload=name, messages=messages, meta=meta)


def _messages(path: Path, no: int, record: dict[str, Any]) -> list[dict[str, str]]:
    if "messages" in record:
        raw, role_key, text_key, roles = record["messages"], "role", "content", {r: r for r in _CHAT_ROLES}
    elif "conversations" in record:
        raw, role_key, text_key, roles = record["conversations"], "from", "value", _SHAREGPT_ROLES
    elif "prompt" in record:
        prompt = record["prompt"]
        if not isinstance(prompt, str) or not prompt.strip():
            raise _bad(
                path, no, f"prompt {prompt!r:.60} is not a non-empty string", 'a non-empty string ("prompt": "...")'
            )
        return [{"role": "user", "content": prompt}]
    else:
        raise _bad(
            path, no, f"no messages/conversations/prompt field (keys: {sorted(record)!s:.200})", "one of those fields"
        )
    if not isinstance(raw, list) or not raw:
        raise _bad(
            path, no, f"{'messages' if role_key == 'role' else 'conversations'} is not a list", "a list of turns"
        )
    out: list[dict[str, str]] = []
    for i, turn in enumerate(raw):
        role = roles.get(str(turn.get(role_key))) if isinstance(turn, dict) else None
        text = turn.get(text_key) if isinstance(turn, dict) else None
        if role is None or not isinstance(text, str):
            raise _bad(
                path, no, f"turn {i} is not {{{role_key!r}: role, {text_key!r}: text}}", f"roles {sorted(roles)}"
            )
        out.append({"role": role, "content": text})
    if len(out) > 1 and out[-1]["role"] == "assistant":
        out.pop()  # the recorded answer: the server writes its own
    return out


def _optional(path: Path, no: int, record: dict[str, Any]) -> dict[str, Any]:
    meta: dict[str, Any] = {}
    if "max_tokens" in record:
        if not is_int_in(record["max_tokens"], 1, MAX_TOKENS_CAP):
            raise _bad(path, no, f"max_tokens {record['max_tokens']!r:.60}", f"an integer in 1..{MAX_TOKENS_CAP:,}")
        meta["max_tokens"] = record["max_tokens"]
    if "category" in record:
        if not isinstance(record["category"], str) or not record["category"]:
            raise _bad(path, no, f"category {record['category']!r:.60}", "a non-empty string")
        meta["category"] = record["category"]
    return meta
