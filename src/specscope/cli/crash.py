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
143    terminated (SIGTERM, as ``kill PID``, ``timeout`` or a job scheduler sends it): handled like Ctrl-C, so a
       command ends the same clean way (bench: the finished cells kept, the manifest written, ``--resume`` named)
=====  ==========================================================================================

Crash logs go to ``$SPECSCOPE_CRASH_DIR`` when set, else the system temp folder (``tempfile.gettempdir()``),
named ``specscope-crash-YYYYmmdd-HHMMSS-<pid>.log``.
"""

from __future__ import annotations

import difflib
import errno
import os
import platform
import re
import shlex
import signal
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from pathlib import Path

import click
import typer

from specscope.cli.options import NotAChoice
from specscope.errors import ConfigError, SpecscopeError, plain_bound, value_fix
from specscope.readfile import NotRegularFile
from specscope.redact import redact_argv, redact_text
from specscope.textsafe import StdoutClosed, clip, escape_controls, safe_output

__all__ = [
    "EXIT_OK",
    "EXIT_PROBLEM",
    "EXIT_BAD_INPUT",
    "EXIT_INTERNAL",
    "EXIT_INTERRUPTED",
    "EXIT_TERMINATED",
    "Interrupted",
    "Terminated",
    "error_line",
    "run_guarded",
]

EXIT_OK = 0
EXIT_PROBLEM = 1
EXIT_BAD_INPUT = 2
EXIT_INTERNAL = 3
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 128 + signal.SIGTERM
EXIT_OUTPUT_CLOSED = 128 + signal.SIGPIPE  # stdout's reader closed it (`specscope report RUN | head`): 141


class OutputClosed(Exception):
    """Raised where rich found stdout's reader gone (``| head`` read what it wanted); ends the command with
    :data:`EXIT_OUTPUT_CLOSED` and nothing on stderr, as a tool killed by SIGPIPE would (rich's own handler exits 1,
    the code of a finding)."""


def _stdout_to_devnull() -> None:
    """Point the process's stdout at /dev/null, so the interpreter's last flush cannot fail on a closed pipe again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.__stdout__.fileno() if sys.__stdout__ is not None else 1)
    except (OSError, ValueError):
        pass
    finally:
        os.close(devnull)


def _output_closed(_console: object) -> None:
    """``rich.console.Console.on_broken_pipe`` while a command runs: stdout goes to /dev/null and
    :class:`OutputClosed` ends the command."""
    _stdout_to_devnull()
    raise OutputClosed


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread by :func:`run_guarded`'s handler: a KeyboardInterrupt, so every
    ``finally`` and every handler of Ctrl-C runs (a bench run keeps its cells and writes its manifest); exit 143."""


class Interrupted(Exception):
    """Raised by a command interrupted with more to say than ``interrupted`` (bench: how to resume the run);
    :func:`run_guarded` prints ``line`` on stderr and exits with ``code`` (130 for Ctrl-C, 143 for SIGTERM)."""

    def __init__(self, line: str, code: int = EXIT_INTERRUPTED) -> None:
        super().__init__(line)
        self.line = line
        self.code = code

    @classmethod
    def of(cls, exc: KeyboardInterrupt, line: str) -> Interrupted:
        """``line`` for the interruption ``exc``: exit 143 and ``(SIGTERM)`` after its first word for a
        :class:`Terminated`, else 130."""
        if isinstance(exc, Terminated):
            head, sep, rest = line.partition(":")
            return cls(f"{head} (SIGTERM){sep}{rest}", EXIT_TERMINATED)
        return cls(line)


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


def _usage_error(exc: typer.TyperException | click.ClickException, argv: list[str] | None) -> int:
    """One ``error: WHAT; found: X; expected: Y; fix: Z`` line for a click usage error (:func:`usage_parts`)."""
    if type(exc).__name__ == "NoArgsIsHelpError":
        return EXIT_BAD_INPUT  # typer printed the help while building the exception
    what, found, expected, fix = usage_parts(exc, list(sys.argv[1:] if argv is None else argv))
    _error_line(SpecscopeError(what, found=found, expected=expected, fix=fix).one_line())
    return exc.exit_code


def usage_parts(exc: typer.TyperException | click.ClickException, argv: list[str]) -> tuple[str, str, str, str]:
    """``(what, found, expected, fix)`` of a usage error, from its kind (click's exception classes, matched by name:
    typer vendors its own click): an unknown option (the closest one named), an option without its value, a value
    an option refuses (the value typed, read back from ``argv``), a missing argument, an unknown command."""
    ctx = getattr(exc, "ctx", None)
    where = ctx.command_path if ctx is not None else "specscope"
    if where == "specscope" and argv and not argv[0].startswith("-") and type(exc).__name__ == "BadOptionUsage":
        where = f"specscope {argv[0]}"  # click reports an option's missing value from the group's context
    helps = f"`{where} --help` lists them"
    message = exc.format_message().rstrip(".")
    kind = type(exc).__name__
    if kind == "NoSuchOption":
        name = str(getattr(exc, "option_name", "") or "")
        close = difflib.get_close_matches(name, list(getattr(exc, "possibilities", None) or []), n=1, cutoff=0.6)
        fix = f"did you mean {close[0]}? ({helps})" if close else f"drop it ({helps})"
        return f"no such option {name}", name, f"an option of `{where}`", fix
    if kind == "BadOptionUsage":
        name = str(getattr(exc, "option_name", "") or "")
        return message, f"{name} with no value", f"{name} VALUE", f"give {name} its value (`{where} --help` says which)"
    param = getattr(exc, "param", None)
    if kind == "MissingParameter" and param is not None:
        name = (param.metavar or param.name or "ARG").upper() if param.param_type_name == "argument" else param.opts[0]
        usage = ctx.get_usage().removeprefix("Usage:").strip() if ctx is not None else f"{where} {name}"
        what = (getattr(param, "help", "") or "").rstrip(".")
        return message, f"no {name}", usage, f"add {name}" + (f" ({what})" if what else "")
    if (kind == "BadParameter" or isinstance(exc, typer.BadParameter)) and param is not None:
        flags = list(getattr(param, "opts", []) or [])
        typed = _typed_value(argv, flags)
        detail = plain_bound(message.split(": ", 1)[-1])  # typer checks min= / max= with pydantic: its words
        flag = flags[0] if flags else where
        # click's "'yaml' is not one of text, json": the expected is the list, not the sentence about the value
        detail = re.sub(r"^'[^']*' is not one of ", "one of ", detail)
        fallback = f"`{where} --help` says what {flag} takes"
        choices: tuple[str, ...] = exc.choices if isinstance(exc, NotAChoice) else ()
        if not flags:  # an argument: click's own "Invalid value for 'RUN'"
            return message.split(": ", 1)[0], typed, detail, value_fix(flag, detail, fallback, choices)
        error = ConfigError.invalid_value(flag, typed, detail, choices=choices, fallback=fallback)
        return error.message, typed, detail, str(error.fix)
    if m := re.match(r"No such command '([^']*)'", message):
        name = m.group(1)
        names = sorted(getattr(getattr(ctx, "command", None), "commands", {}) or [])
        close = difflib.get_close_matches(name, names, n=1, cutoff=0.6)
        fix = f"did you mean `{where} {close[0]}`?" if close else f"`{where} --help` lists the commands"
        return message, name, f"one of {', '.join(names)}" if names else "a command", fix
    return message, " ".join(argv) or "(nothing)", f"a command line `{where}` accepts", f"`{where} --help` shows one"


def _typed_value(argv: list[str], flags: list[str]) -> str:
    """The value given to one of ``flags`` in ``argv`` (``--x V`` or ``--x=V``; the last one wins), else "?"."""
    found = "?"
    for i, word in enumerate(argv):
        name, eq, inline = word.partition("=")
        if name in flags:
            found = inline if eq else (argv[i + 1] if i + 1 < len(argv) else "?")
    return found


def _traceback(exc: BaseException) -> None:
    """The full traceback of ``exc`` on stderr (``SPECSCOPE_DEBUG=1``), secrets redacted as in crash logs."""
    sys.stderr.write(redact_text("".join(traceback.format_exception(type(exc), exc, exc.__traceback__))))
    sys.stderr.flush()


def _stdout_gone() -> bool:
    """Whether stdout's reader closed it (a flush fails with EPIPE); stdout then goes to /dev/null."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        _stdout_to_devnull()
        return True
    return False


def run_guarded(call: Callable[[], object], *, debug: bool = False, argv: list[str] | None = None) -> int:
    """Run ``call`` (the click app in non-standalone mode) and return the exit code for its outcome.

    ``debug`` (``SPECSCOPE_DEBUG=1``) prints the full traceback on stderr before the usual line and keeps the
    exit code: 2 stays 2, an internal error stays 3 (a re-raised exception would exit 1, the code of a finding).
    Everything the command prints goes through :func:`specscope.textsafe.safe_output` (secrets masked, control
    characters escaped).
    """
    import rich.console

    with safe_output(), _sigterm_as_interrupt():
        rich_handler = rich.console.Console.on_broken_pipe
        rich.console.Console.on_broken_pipe = _output_closed  # type: ignore[method-assign,assignment]
        try:
            return _run(call, debug=debug, argv=argv)
        finally:
            rich.console.Console.on_broken_pipe = rich_handler  # type: ignore[method-assign]


#: pathlib's words for a symlink loop met by ``Path.resolve()`` (Python 3.11 and 3.12 raise RuntimeError; later
#: versions resolve it as far as it goes)
_SYMLINK_LOOP = re.compile(r"^Symlink loop from (.+)$")


def _path_refusal(exc: OSError | RuntimeError) -> ConfigError | None:
    """The user error of a path the system refuses wherever it was first touched (an argument, a name read from a
    file the user gave; never a path specscope makes up), else None: too long (``ENAMETOOLONG``: a name over
    ``NAME_MAX``, 255 bytes on Linux and macOS, or the whole path over ``PATH_MAX``, 4096) or a symlink loop
    (``ELOOP``, or pathlib's RuntimeError). ``found`` names the path cut to 80 characters."""
    if isinstance(exc, NotRegularFile):  # a writer's last guard (fsio.AtomicFile); -o paths are refused before
        return ConfigError(
            "a path to write is not a regular file",
            found=f"{_cut(str(exc.path))}: {exc.kind}",
            expected="a regular file, or a name where nothing is yet",
            fix="write to a file and copy it there, or let the shell write it (> PATH)",
        )
    loop = _SYMLINK_LOOP.match(str(exc)) if isinstance(exc, RuntimeError) else None
    if loop is not None:
        return _loop_refusal(loop.group(1).strip("'\""))
    if not isinstance(exc, OSError) or exc.errno not in (errno.ENAMETOOLONG, errno.ELOOP):
        return None
    path = os.fsdecode(exc.filename) if isinstance(exc.filename, (str, bytes)) else ""
    if exc.errno == errno.ELOOP:
        return _loop_refusal(path)
    longest = max((len(os.fsencode(part)) for part in path.split("/")), default=0)
    return ConfigError(
        "a path is too long for the file system",
        found=f"{_cut(path)}; its longest name is {longest:,} bytes, the whole path {len(os.fsencode(path)):,}",
        expected="a path whose every folder or file name is at most 255 bytes, 4096 in all",
        fix="shorten the path (a value pasted where a path belongs? a variable holding more than a path?)",
    )


def _loop_refusal(path: str) -> ConfigError:
    return ConfigError(
        "a path is a symlink loop",
        found=f"{_cut(path)}: a symbolic link that leads back to itself (Too many levels of symbolic links)",
        expected="a path to a file or a folder, or a symlink to one",
        fix=f"replace the link (ls -l {shlex.quote(path)} shows where it points) or pass another path",
    )


def _cut(path: str) -> str:
    """``path``, or (longer than 80 characters) its first 63 and last 17 with how many were cut between
    (:func:`specscope.textsafe.clip`: the end names the file)."""
    return clip(path, 80, tail=17)


def _raise_terminated(_signum: int, _frame: object) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a second SIGTERM during the clean-up ends the process
    raise Terminated


class _sigterm_as_interrupt:  # noqa: N801 - a context manager used like a function
    """While the command runs, SIGTERM raises :class:`Terminated` in the main thread (elsewhere: unchanged)."""

    def __enter__(self) -> None:
        try:
            self._old: object = signal.signal(signal.SIGTERM, _raise_terminated)
        except ValueError:  # not the main thread: signals cannot be handled here
            self._old = None

    def __exit__(self, *_exc: object) -> None:
        if self._old is not None:
            signal.signal(signal.SIGTERM, self._old)  # type: ignore[arg-type]


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
        return _usage_error(exc, argv)
    except OutputClosed:  # the reader of stdout is gone: nothing left to say, nowhere to say it
        return EXIT_OUTPUT_CLOSED
    except StdoutClosed:  # the same, met by a plain write (typer.echo) rather than rich
        _stdout_to_devnull()
        return EXIT_OUTPUT_CLOSED
    except BrokenPipeError as exc:  # a plain write to stdout (not through rich) whose reader is gone; else a bug
        if _stdout_gone():
            return EXIT_OUTPUT_CLOSED
        if debug:
            _traceback(exc)
        return _internal_error(exc, argv)
    except (OSError, RuntimeError) as exc:
        if debug:
            _traceback(exc)
        refusal = _path_refusal(exc)  # a path too long or a symlink loop is the user's; else a bug
        if refusal is None:
            return _internal_error(exc, argv)
        _error_line(refusal.one_line())
        return EXIT_BAD_INPUT
    except Terminated:
        click.secho("interrupted (SIGTERM)", err=True)
        return EXIT_TERMINATED
    except (KeyboardInterrupt, typer.Abort, click.exceptions.Abort):
        click.secho("interrupted", err=True)
        return EXIT_INTERRUPTED
    except Interrupted as exc:
        click.secho(exc.line, err=True)
        return exc.code
    except Exception as exc:  # noqa: BLE001 - the one place every bug is caught, logged and turned into exit 3
        if debug:
            _traceback(exc)
        return _internal_error(exc, argv)
    if rv == EXIT_INTERRUPTED:  # typer turns a KeyboardInterrupt into Exit(130), returned in non-standalone mode
        click.secho("interrupted", err=True)
    return rv if isinstance(rv, int) and not isinstance(rv, bool) else EXIT_OK
