"""The one secret redaction, applied to everything specscope writes (manifest, run.sqlite, server logs copied into
a run, reports, crash logs) and prints (``specscope.cli.crash`` passes stdout and stderr through
:func:`redact_text`): issue 17 part 5, issue 29.

What counts as a secret (each rule names the source of its shape):

- URL userinfo (RFC 3986 3.2.1, ``scheme://user:password@host`` or a token as the user): the whole userinfo;
- URL query parameters whose name is a credential (``key`` and ``sig`` as Google and Azure SAS use them,
  ``apikey``, ``api_key``, ``token``, ``access_token``, ``pass``, ``password``, S3 presigned URLs'
  ``X-Amz-Signature`` / ``X-Amz-Credential`` / ``X-Amz-Security-Token``): the value;
- HTTP authorization headers (RFC 7617 ``Basic``, RFC 6750 ``Bearer``, ``X-Api-Key``, Azure's ``api-key``) and a
  bare ``Bearer ...`` / ``Basic ...`` credential: the credential;
- ``NAME=VALUE`` / ``NAME: VALUE`` pairs whose name is a credential (:func:`is_secret_name`): environment
  assignments (``HF_TOKEN=..``), Python reprs as servers log them (argparse's ``Namespace(api_key='..')``, vLLM's
  ``non-default args: {'api_key': ['..']}``), JSON (``"password": ".."``), INI (``aws_secret_access_key = ..``);
  the value whatever its form (quoted string, list, bare word); ``None`` / ``null`` / empty values are kept;
- the argument of a command-line flag that carries a credential (``--api-key``, ``--hf-token``, ``--token``,
  ``--password``, ``--*-key``, ``--*-secret``), in an argv list, in a command line and in an argv list's repr
  (``'--api-key', 'VALUE'``);
- a userinfo typed without a scheme (``user:pw@host:8000``): the password; a cookie header (``Cookie:``,
  ``Set-Cookie:``, RFC 6265): its whole value; camelCase credential names (``accessToken``) as query names and keys;
- a secret this process was given (:func:`remember_secret`: the API key), whatever its shape;
- strings that are credentials by their prefix: NVIDIA ``nvapi-``, Groq ``gsk_``, Google OAuth ``ya29.``, OpenAI
  ``sk-``, Hugging Face ``hf_``, GitHub ``ghp_`` ``gho_`` ``ghu_`` ``ghs_`` ``ghr_`` ``github_pat_``, GitLab
  ``glpat-``, Slack ``xox?-``, AWS access key ids ``AKIA`` / ``ASIA``, Google ``AIza``, npm ``npm_``, JSON Web
  Tokens (``eyJ..``.``..``.``..``), PEM private key blocks; hosted inference APIs users compare against: xAI ``xai-``,
  Replicate ``r8_``, Perplexity ``pplx-``, Fireworks ``fw_``.

In a JSON-like value (:func:`redact`) a mapping key that is a credential name masks its value whatever its type
(a string, a list of keys, an object), except numbers, booleans and None (``cost_ns_per_token`` is a measurement,
and a rate ``per_token`` is never a credential name).

A redacted secret becomes :data:`MASK`. This module has no dependencies (a low layer beside
:mod:`specscope.fsio`), so the store, the log writers and the CLI's output call it.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["MASK", "redact", "redact_text", "redact_argv", "is_secret_name", "remember_secret"]

MASK = "***"

# a credential name, as a whole mapping key / assignment name (``api_key``, ``HF_TOKEN``, ``X-Amz-Signature``)
_NAME_WORDS = r"token|secret|password|passwd|passphrase|pwd|credentials?|authorization|apikey|signature|api[_-]?key"
# a name that ends in password / passwd / passphrase is one whatever precedes it (libpq's ``PGPASSWORD``)
_SECRET_NAME = re.compile(rf"(?i)(?:^|[_.-])(?:{_NAME_WORDS})$|[_.-](?:key|sig|pass|auth)$|pass(?:word|wd|phrase)$")
_CAMEL_SECRET_NAME = re.compile(r"[a-z0-9](?:Token|Secret|Password|Passwd|ApiKey|Key|Signature|Credentials?|Auth)$")
_NOT_SECRET_NAME = re.compile(r"(?i)per[_-]token$|^num[_-]|^max[_-]|^n[_-]")  # rates and counts of tokens
# query parameters that are credentials even as bare words (Google ``key``, Azure SAS ``sig``)
_BARE_QUERY_NAMES = frozenset({"key", "sig", "pass", "pwd", "auth", "code_verifier"})

# the userinfo runs to the authority's last '@' (a password may hold a raw '@', a quote or '<' as users type it)
_URL_CREDS = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)[^/\s\">]*@")
# a userinfo with no scheme, as typed into --server (``user:pw@host:8000``): the password, before a host and port
_BARE_CREDS = re.compile(
    r"(?:(?<=^)|(?<=[\s='\"]))(?P<user>[A-Za-z0-9._~%+-]+):[^\s\"/]+@(?P<host>[A-Za-z0-9.-]+|\[[0-9a-fA-F:]+\]):(?=\d)"
)
_QUERY = re.compile(r"(?P<sep>[?&;#])(?P<name>[A-Za-z0-9_.\-]+)=(?P<value>[^&#\s'\"<>]+)")
_HEADER = re.compile(
    r"(?i)\b(?P<name>(?:proxy-)?authorization|x-api-key|api-key)(?P<sep>['\"]?\s*:\s*['\"]?)"
    r"(?P<scheme>(?:basic|bearer|token|digest)\s+)?(?P<value>[^\s'\",}]+)"
)
# RFC 6750 bearer tokens; RFC 7617 basic credentials are base64 (a digit, '+', '/' or '=' in them: not a word)
_AUTH_SCHEME = re.compile(
    r"\b(?:(?P<scheme>Bearer)\s+(?P<value>[A-Za-z0-9._~+/=-]{6,})|(?P<basic>Basic)\s+(?=[A-Za-z]*[0-9+/=])[A-Za-z0-9+/]{6,}=*)"
)
# NAME=VALUE, NAME: VALUE, 'NAME': VALUE, "NAME": VALUE, NAME = VALUE; the value quoted, a list (over lines too, as
# indented JSON writes it), or a bare word (never an opening bracket alone). The name is read once (possessive, at
# most 128 characters: trying a name at each dot of "a.a.a. ... =" and re-reading the rest was quadratic, 75 s for
# 80 KB), and the value only after a credential name: another name's value is read on for pairs of its own
# (``Environment=API_KEY=V``, ``env: HF_TOKEN=V``, ``--env=API_KEY=V``)
_PAIR = re.compile(r"(?P<q>['\"]?)(?P<name>\b[A-Za-z][A-Za-z0-9_.\-]{0,127}+)(?P=q)(?P<sep>\s*+[:=]\s*+)")
_PAIR_VALUE = re.compile(r"'[^'\n]*'|\"[^\"\n]*\"|\[[^\]]{0,4096}\]|[^\s,;)}\[\]'\"&]+")
_NUMBER = re.compile(r"-?[0-9][0-9_.eE+-]*")
_KEEP_VALUES = frozenset({"none", "null", "true", "false", "''", '""', "[]", ""})
_FLAG_NAME = r"--?(?:[a-z0-9]+[-_])*(?:token|key|secret|password|passwd|api[-_]key)"
_SECRET_FLAG = re.compile(rf"(?i)^{_FLAG_NAME}$")
_FLAG_ASSIGN = re.compile(rf"(?i)^({_FLAG_NAME})=(.*)$", re.S)
# the value bare, quoted as an argv repr lists it (``'--api-key', 'V'``) or in shell quotes (``--api-key 'V'``)
_FLAG_IN_TEXT = re.compile(rf"(?i)(?<![\w-])({_FLAG_NAME})(['\"]?,\s*['\"]|\s+['\"]?|=)(?!-)([^\s\"',\]]+)")
# what a credential flag is followed by in help and examples: KEY, NEW_TOKEN, $OPENAI_API_KEY, ${HF_TOKEN}
# A placeholder a person reads in help or docs: a capitals name that says what it stands for (KEY, API_KEY,
# NEW_TOKEN, HF_TOKEN), or a shell variable (a recorded argv holds the expanded value, never the ``$NAME``). Any
# other capitals-only value is masked: a secret could be one.
_PLACEHOLDER = re.compile(
    r"(?:[A-Z]+_){0,3}(?:KEY|TOKEN|SECRET|PASSWORD)(?:_[A-Z]+){0,2}|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?"
)
_PREFIXED = re.compile(
    r"\b(?:sk-[A-Za-z0-9_-]{6,}|hf_[A-Za-z0-9]{8,}|gh[pousr]_[A-Za-z0-9]{8,}|github_pat_[A-Za-z0-9_]{8,}"
    r"|glpat-[A-Za-z0-9_-]{8,}|xox[abposr]-[A-Za-z0-9-]{6,}|(?:AKIA|ASIA)[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{20,}"
    r"|npm_[A-Za-z0-9]{16,}|nvapi-[A-Za-z0-9_-]{16,}|gsk_[A-Za-z0-9]{16,}|ya29\.[A-Za-z0-9_-]{16,}|xai-[A-Za-z0-9]{16,}|r8_[A-Za-z0-9]{16,}|pplx-[A-Za-z0-9]{16,}|fw_[A-Za-z0-9]{16,}|eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,})"
)
# a cookie header's whole value (``Cookie: a=b; c=d``, RFC 6265): any of its pairs may be a session credential
_COOKIE = re.compile(r"(?im)\b(?P<name>(?:set-)?cookie)(?P<sep>\s*:\s*)[^\r\n'\"]+")
_PEM = re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(?:-----END [A-Z ]*PRIVATE KEY-----|\Z)", re.S)


_KNOWN_SECRETS: set[str] = set()  # secrets this process was given (remember_secret), masked whatever their shape
_KNOWN_MIN_CHARS = 4  # shorter values would mask ordinary words


def remember_secret(value: str) -> None:
    """Mask ``value`` wherever this process writes or prints it from now on: a secret it was given (``--api-key``,
    ``OPENAI_API_KEY``) that a server may echo back (an error event, its log) in a shape no rule here knows."""
    if len(value) >= _KNOWN_MIN_CHARS:
        _KNOWN_SECRETS.add(value)


def is_secret_name(name: str) -> bool:
    """True for a mapping key, assignment or environment variable name that holds a credential (``HF_TOKEN``,
    ``api_key``, ``X-Amz-Signature``, ``client_secret``); False for counts and rates of tokens
    (``max_tokens``, ``num_speculative_tokens``, ``cost_ns_per_token``) and for a bare ``key``."""
    found = _SECRET_NAME.search(name) or _CAMEL_SECRET_NAME.search(name)  # camelCase: ``accessToken``
    return bool(found) and not _NOT_SECRET_NAME.search(name)


def _query(m: re.Match[str]) -> str:
    name = m.group("name")
    if is_secret_name(name) or name.lower() in _BARE_QUERY_NAMES:
        return f"{m.group('sep')}{name}={MASK}"
    return m.group(0)


def _masked_pair_value(value: str) -> str | None:
    """What a credential name's ``value`` becomes: None when it is kept (None, null, booleans, empty, a number,
    already masked)."""
    if value.lower() in _KEEP_VALUES or value == MASK:
        return None
    if value[0] == "[":  # a list of keys: one masked item, quoted as the list quoted its items (JSON stays JSON)
        quote = next((c for c in value if c in "'\""), "")
        return f"[{quote}{MASK}{quote}]"
    if value[0] in "'\"":
        return f"{value[0]}{MASK}{value[0]}"
    if _NUMBER.fullmatch(value):  # a bare number is a JSON number (a count), not a credential
        return None
    return MASK


def _pairs(text: str) -> str:
    """``text`` with the value of each ``NAME=VALUE`` / ``NAME: VALUE`` pair whose name is a credential masked; each
    character is read a bounded number of times (see ``_PAIR``)."""
    out: list[str] = []
    pos = last = 0
    while (m := _PAIR.search(text, pos)) is not None:
        pos = m.end()
        if not is_secret_name(m.group("name")):
            continue
        value = _PAIR_VALUE.match(text, pos)
        masked = None if value is None else _masked_pair_value(value.group(0))
        if value is None or masked is None:
            continue
        out += (text[last:pos], masked)
        last = pos = value.end()
    return "".join(out) + text[last:] if out else text


def _flag_value(m: re.Match[str]) -> str:
    """A credential flag's value masked, unless it is a placeholder a person reads (``--api-key KEY`` in ``--help``,
    ``--api-key $OPENAI_API_KEY`` in an example): see ``_PLACEHOLDER``."""
    if _PLACEHOLDER.fullmatch(m.group(3)):
        return m.group(0)
    return f"{m.group(1)}{m.group(2)}{MASK}"


def redact_text(text: str) -> str:
    """``text`` with every secret of the module's rules masked (one pass per rule, linear in the text; a rule whose
    marker substring is absent is skipped)."""
    if not text:
        return text
    for known in _KNOWN_SECRETS:
        if known in text:
            text = text.replace(known, MASK)
    if "-----BEGIN" in text:
        text = _PEM.sub(MASK, text)
    if "@" in text:
        if "://" in text:
            text = _URL_CREDS.sub(lambda m: f"{m.group('scheme')}{MASK}@", text)
        text = _BARE_CREDS.sub(lambda m: f"{m.group('user')}:{MASK}@{m.group('host')}:", text)
    if "ookie" in text or "OOKIE" in text:
        text = _COOKIE.sub(lambda m: f"{m.group('name')}{m.group('sep')}{MASK}", text)
    if "=" in text:
        text = _QUERY.sub(_query, text)
    if ":" in text:
        text = _HEADER.sub(lambda m: f"{m.group('name')}{m.group('sep')}{m.group('scheme') or ''}{MASK}", text)
    if "Bearer" in text or "Basic" in text:
        text = _AUTH_SCHEME.sub(lambda m: f"{m.group('scheme') or m.group('basic')} {MASK}", text)
    if "-" in text:
        text = _FLAG_IN_TEXT.sub(_flag_value, text)
    if "=" in text or ":" in text:
        text = _pairs(text)
    return _PREFIXED.sub(MASK, text)


def redact_argv(argv: list[Any]) -> list[Any]:
    """A command line with the values of credential flags (``--api-key sk-..``, ``--hf-token=..``) masked, and
    every argument's text redacted (:func:`redact_text`)."""
    out: list[Any] = []
    mask_next = False
    for arg in argv:
        if not isinstance(arg, str):
            out.append(redact(arg))
            mask_next = False
            continue
        if mask_next:
            out.append(MASK)
            mask_next = False
            continue
        m = _FLAG_ASSIGN.match(arg)
        if m:
            out.append(f"{m.group(1)}={MASK}")
            continue
        mask_next = bool(_SECRET_FLAG.match(arg))
        out.append(redact_text(arg))
    return out


def _masked_value(value: Any) -> bool:
    """A value under a credential name that is masked: a non-empty string, list, tuple or mapping."""
    return isinstance(value, str | list | tuple | dict) and bool(value) and value != MASK


def redact(value: Any) -> Any:
    """A copy of a JSON-like ``value`` (dicts, lists, tuples, strings, numbers) with every secret masked."""
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, dict):
        return {
            k: (MASK if isinstance(k, str) and is_secret_name(k) and _masked_value(v) else redact(v))
            for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        items = redact_argv(list(value)) if any(isinstance(x, str) and x.startswith("-") for x in value) else value
        return type(value)(redact(x) if not isinstance(x, str) else redact_text(x) for x in items)
    return value
