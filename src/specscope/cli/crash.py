"""How the ``specscope`` script ends: every outcome becomes one stderr line and an exit code a script can trust.

=====  ==========================================================================================
code   meaning
=====  ==========================================================================================
0      ok
1      the command ran and found a problem (audit errors, a failed gate, a log with failures, a bench config
       whose cells all failed)
2      bad input or a target that could not be processed (:class:`SpecscopeError`, usage errors)
3      internal error: a bug in specscope; the line names a crash log holding the traceback
130    interrupted (Ctrl-C)
=====  ==========================================================================================

Crash logs go to ``$SPECSCOPE_CRASH_DIR`` when set, else the system temp folder (``tempfile.gettempdir()``),
named ``specscope-crash-YYYYmmdd-HHMMSS-<pid>.log``.
"""

from __future__ import annotations

import os
import platform
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from pathlib import Path

import click
import typer

from specscope.errors import SpecscopeError
from specscope.redact import redact_argv, redact_text
from specscope.textsafe import escape_controls, safe_output

__all__ = [
    "EXIT_OK",
    "EXIT_PROBLEM",
    "EXIT_BAD_INPUT",
    "EXIT_INTERNAL",
    "EXIT_INTERRUPTED",
    "Interrupted",
    "error_line",
    "run_guarded",
]

EXIT_OK = 0
EXIT_PROBLEM = 1
EXIT_BAD_INPUT = 2
EXIT_INTERNAL = 3
EXIT_INTERRUPTED = 130


class Interrupted(Exception):
    """Raised by a command interrupted with more to say than ``interrupted`` (bench: how to resume the run);
    :func:`run_guarded` prints ``line`` on stderr and exits 130."""

    def __init__(self, line: str) -> None:
        super().__init__(line)
        self.line = line


def _error_line(text: str) -> None:
    """Print ``error: text`` as one line on stderr (newlines in ``text`` folded to ``; ``), secrets masked and
    control characters escaped (a found value may be a name read from a file)."""
    one = "; ".join(part.strip() for part in str(text).split("\n") if part.strip())
    click.secho(f"error: {escape_controls(redact_text(one))}", err=True, fg="red")


#: the one-line error printer, for commands that finish with a problem (exit 1) and say why.
error_line = _error_line


def write_crash_log(exc: BaseException, argv: list[str] | None = None) -> Path:
    """Write the traceback of ``exc`` with the version, argv and platform to a new crash log; return its path."""
    from specscope import __version__

    folder = Path(os.environ.get("SPECSCOPE_CRASH_DIR") or tempfile.gettempdir())
    folder.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    fd, name = tempfile.mkstemp(prefix=f"specscope-crash-{stamp}-{os.getpid()}-", suffix=".log", dir=folder)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(f"specscope {__version__} on Python {platform.python_version()} ({platform.platform()})\n")
        fh.write(f"argv: {redact_argv(list(argv if argv is not None else sys.argv))}\n\n")  # no secrets in logs
        fh.write(redact_text("".join(traceback.format_exception(type(exc), exc, exc.__traceback__))))
    return Path(name)


def _internal_error(exc: BaseException, argv: list[str] | None) -> int:
    try:
        where = f"traceback in {write_crash_log(exc, argv)}"
    except OSError as log_exc:
        where = f"the crash log could not be written ({type(log_exc).__name__}: {log_exc})"
    first = str(exc).splitlines()[0] if str(exc) else ""
    _error_line(
        f"internal error (a bug in specscope): {type(exc).__name__}: {first}; {where}; "
        "fix: report it with that file, or run with SPECSCOPE_DEBUG=1"
    )
    return EXIT_INTERNAL


def _usage_error(exc: typer.TyperException | click.ClickException) -> int:
    if type(exc).__name__ == "NoArgsIsHelpError":
        return EXIT_BAD_INPUT  # typer printed the help while building the exception
    ctx = getattr(exc, "ctx", None)
    where = ctx.command_path if ctx is not None else "specscope"
    _error_line(f"{exc.format_message().rstrip('.')}; fix: see `{where} --help`")
    return exc.exit_code


def _traceback(exc: BaseException) -> None:
    """The full traceback of ``exc`` on stderr (``SPECSCOPE_DEBUG=1``), secrets redacted as in crash logs."""
    sys.stderr.write(redact_text("".join(traceback.format_exception(type(exc), exc, exc.__traceback__))))
    sys.stderr.flush()


def run_guarded(call: Callable[[], object], *, debug: bool = False, argv: list[str] | None = None) -> int:
    """Run ``call`` (the click app in non-standalone mode) and return the exit code for its outcome.

    ``debug`` (``SPECSCOPE_DEBUG=1``) prints the full traceback on stderr before the usual line and keeps the
    exit code: 2 stays 2, an internal error stays 3 (a re-raised exception would exit 1, the code of a finding).
    Everything the command prints goes through :func:`specscope.textsafe.safe_output` (secrets masked, control
    characters escaped).
    """
    with safe_output():
        return _run(call, debug=debug, argv=argv)


def _run(call: Callable[[], object], *, debug: bool, argv: list[str] | None) -> int:
    try:
        rv = call()
    except SpecscopeError as exc:
        if debug:
            _traceback(exc)
        _error_line(exc.one_line())
        return exc.exit_code
    except (typer.TyperException, click.ClickException) as exc:  # typer vendors click: both trees
        if debug:
            _traceback(exc)
        return _usage_error(exc)
    except (KeyboardInterrupt, typer.Abort, click.exceptions.Abort):
        click.secho("interrupted", err=True)
        return EXIT_INTERRUPTED
    except Interrupted as exc:
        click.secho(exc.line, err=True)
        return EXIT_INTERRUPTED
    except Exception as exc:  # noqa: BLE001 - the one place every bug is caught, logged and turned into exit 3
        if debug:
            _traceback(exc)
        return _internal_error(exc, argv)
    if rv == EXIT_INTERRUPTED:  # typer turns a KeyboardInterrupt into Exit(130), returned in non-standalone mode
        click.secho("interrupted", err=True)
    return rv if isinstance(rv, int) and not isinstance(rv, bool) else EXIT_OK
