"""Text that cannot hurt a terminal: control characters from files escaped, secrets masked, on every print.

A name read from a file (a tensor name in an index's ``weight_map``, a metric label, a config name in a
hand-edited run) may hold terminal escape sequences: OSC ``ESC ] 0 ; title BEL`` sets the window title, OSC 52
writes the clipboard, ``ESC [ 2 J`` clears the screen, a C1 ``CSI`` (U+009B) does the same on some terminals, and
the bidirectional overrides (U+202A-U+202E, U+2066-U+2069) reorder what is shown. :func:`escape_controls` writes
each such character as a Python-style escape (``\\x1b``, ``\\u202e``), keeping newlines and tabs.

:class:`SafeStream` wraps ``sys.stdout`` / ``sys.stderr`` for the CLI (:func:`safe_output`): every write is
redacted (:func:`specscope.redact.redact_text`) and escaped. The escape sequences specscope's own renderers emit
on a terminal pass: SGR colours (``ESC [ ... m``) and, on stderr, the cursor moves of rich's live progress line
(hide / show cursor, erase line, cursor moves, carriage return). Nothing passes when the stream is not a terminal,
where rich emits none.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import sys
from collections.abc import Iterable, Iterator
from typing import TextIO

from specscope.redact import redact_text

__all__ = ["clip", "clip_words", "escape_controls", "shell_word", "SafeStream", "StdoutClosed", "safe_output"]

# C0 controls but tab and newline, DEL, C1 controls, the bidi embeddings / overrides / isolates, and lone UTF-16
# surrogates (a JSON "\ud800" decodes to one; no UTF-8 stream can write it: exit 3 on bench --dry-run, attack50)
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_SGR = r"\x1b\[[0-9;]*m"
_CURSOR = r"\x1b\[\?25[lh]|\x1b\[[0-9]*[ABCDGK]|\r"
_ALLOWED = {False: None, True: re.compile(_SGR), "stderr": re.compile(f"{_SGR}|{_CURSOR}")}


#: the longest run of characters without a space that a text table shows whole (:func:`clip_words`)
WORD_LIMIT = 200


def shell_word(path: str | os.PathLike[str]) -> str:
    """``path`` as one word of a command the user can paste into a shell (quoted when it holds a space, a quote or
    another shell character): every ``specscope ...`` command specscope prints with a path in it uses this."""
    return shlex.quote(os.fspath(path))


def clip(text: str, limit: int, *, tail: int = 0) -> str:
    """``text`` when at most ``limit`` characters; else ``limit`` of them and how many more, marked where they were
    cut: the first ``limit`` (``nnn…(+99,936 characters)``), or with ``tail`` the first ``limit - tail`` and the last
    ``tail`` (a path, whose end names the file: ``/tmp/aaa…(+4,934 characters)aaa/run.json``). A name read from a
    file may be 100,000 characters long, and an error line, a table or a printed prompt that showed it whole would
    bury what it says. The one clipping of text for display (the crash handler's paths, ``--dry-run``'s prompts)."""
    if len(text) <= limit:
        return text
    tail = min(max(tail, 0), limit)
    end = text[len(text) - tail :] if tail else ""
    return f"{text[: limit - tail]}…(+{len(text) - limit:,} characters){end}"


def clip_words(text: str, limit: int = WORD_LIMIT) -> str:
    """``text`` with every run of more than ``limit`` characters without a space :func:`clip` ped (a config name, a
    path): the sentence around it and its figures stay whole. Linear in ``len(text)``."""
    if len(text) <= limit:
        return text
    return re.sub(rf"\S{{{limit + 1},}}", lambda m: clip(m[0], limit), text)


def _escape(ch: str) -> str:
    code = ord(ch)  # \xNN for C0 (JSON text never holds them raw), \uNNNN above (a valid escape inside JSON too)
    return f"\\x{code:02x}" if code < 0x20 else f"\\u{code:04x}"


def escape_controls(text: str) -> str:
    """``text`` with every control character but ``\\n`` and ``\\t`` (and every bidi override and lone
    surrogate) written as an escape: ``"a\\x1b[2Jb"`` -> ``"a\\\\x1b[2Jb"``."""
    return _CONTROL.sub(lambda m: _escape(m.group(0)), text)


def _escape_keeping(text: str, allowed: re.Pattern[str] | None) -> str:
    """:func:`escape_controls`, keeping the sequences ``allowed`` matches (specscope's own colours / cursor moves)."""
    if allowed is None:
        return escape_controls(text)
    out: list[str] = []
    last = 0
    for m in allowed.finditer(text):
        out.append(escape_controls(text[last : m.start()]))
        out.append(m.group(0))
        last = m.end()
    out.append(escape_controls(text[last:]))
    return "".join(out)


class StdoutClosed(Exception):
    """Stdout's reader is gone (``specscope ... | head``): raised by the stdout :class:`SafeStream` in place of the
    ``BrokenPipeError`` of its target. Not an ``OSError``, so typer does not turn it into ``sys.exit(1)`` (the exit
    code of a finding) on its way out; :func:`specscope.cli.crash.run_guarded` ends the command with 141."""


class SafeStream(io.TextIOBase):
    """A text stream that writes to ``target`` with secrets masked and control characters escaped.

    Args:
        target: the stream written to (``sys.stdout`` / ``sys.stderr``).
        stderr: True for the error stream (rich's progress line may move its cursor there).
    """

    def __init__(self, target: TextIO, *, stderr: bool = False) -> None:
        super().__init__()
        self.target = target
        self._stderr = stderr

    def _allowed(self) -> re.Pattern[str] | None:
        if not self.isatty():
            return None
        return _ALLOWED["stderr" if self._stderr else True]

    def write(self, s: str) -> int:
        try:
            self.target.write(_escape_keeping(redact_text(s), self._allowed()))
        except BrokenPipeError:
            if self._stderr:
                raise
            raise StdoutClosed from None
        return len(s)

    def writelines(self, lines: Iterable[str]) -> None:  # type: ignore[override]
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        try:
            self.target.flush()
        except BrokenPipeError:
            if self._stderr:
                raise
            raise StdoutClosed from None

    def isatty(self) -> bool:
        return bool(getattr(self.target, "isatty", lambda: False)())

    def fileno(self) -> int:
        return self.target.fileno()

    def writable(self) -> bool:
        return True

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self.target, "encoding", None) or "utf-8"

    @property
    def errors(self) -> str | None:  # type: ignore[override]
        return getattr(self.target, "errors", None)


@contextlib.contextmanager
def safe_output() -> Iterator[None]:
    """Within the block, ``sys.stdout`` and ``sys.stderr`` are :class:`SafeStream` s over the current ones."""
    out, err = sys.stdout, sys.stderr
    sys.stdout = SafeStream(out)
    sys.stderr = SafeStream(err, stderr=True)
    try:
        yield
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        sys.stdout, sys.stderr = out, err
