"""The ``specscope`` command line: a thin typer app over the library API.

Each command lives in its own module here that exposes ``register(app)``. Errors that a user can cause
are :class:`specscope.errors.SpecscopeError`; :func:`main` prints them as one line and exits with the
error's code (2 by default). Set ``SPECSCOPE_DEBUG=1`` for the full traceback too (same exit code).

Exit codes (:data:`EXIT_CODES_HELP`): 0 success; 1 the command ran and found a problem (audit errors, a failed
gate, a draft that is not accepted: :data:`specscope.stats.alarms.PROBLEM_CODES`); 2 bad input or a target that
could not be processed (usage errors too, as one line); 3 an internal error (one line naming a crash log that
holds the traceback); 130 interrupted; 143 terminated (SIGTERM, handled like Ctrl-C); 141 stdout closed by its
reader (| head).
"""

from __future__ import annotations

import importlib
import os
import sys

import typer

from specscope.cli.command_options import VersionOption
from specscope.cli.vocab import VocabCommand, VocabGroup

#: the exit codes, as ``specscope --help`` shows them.
EXIT_CODES_HELP = (
    "Exit codes: 0 ok; 1 the command ran and found a problem (audit errors, a failed gate, a draft that is "
    "(almost) never accepted); "
    "2 bad input or a target that could not be processed; 3 internal error (a bug: one line names a crash log "
    "with the traceback); 130 interrupted; 143 terminated (SIGTERM, handled like Ctrl-C); 141 stdout closed by its "
    "reader (| head)."
)

app = typer.Typer(
    name="specscope",
    help="Benchmark, audit and repair speculative decoding on LLM servers.",
    epilog=EXIT_CODES_HELP,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    cls=VocabGroup,
)


def package_version() -> str:
    """The installed distribution's version (importlib.metadata), else the package's ``__version__``."""
    import importlib.metadata

    try:
        return importlib.metadata.version("specscope")
    except importlib.metadata.PackageNotFoundError:
        from specscope import __version__

        return __version__


@app.callback()
def _root(
    version: VersionOption = False,
) -> None:
    """Benchmark, audit and repair speculative decoding on LLM servers."""


@app.command("version", cls=VocabCommand)
def version() -> None:
    """Print the specscope version (same as specscope --version)."""
    typer.echo(f"specscope {package_version()}")


# One module per command; each defines register(app).
COMMAND_MODULES = [
    "bench",
    "report",
    "audit",
    "surgery",
    "serve",
    "gate",
    "advise",
    "predict",
    "truth_server",
    "counters",
    "import_",
    "export",
]

for _name in COMMAND_MODULES:
    importlib.import_module(f"specscope.cli.{_name}").register(app)


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``specscope`` script: run the app, map every outcome to one stderr line and an exit code.

    :class:`SpecscopeError` -> its one line, exit 2 (or the error's code); a click usage error -> one line with
    the fix, exit 2; KeyboardInterrupt -> ``interrupted``, exit 130; any other exception -> one line naming a crash
    log (:func:`specscope.cli.crash.write_crash_log`), exit 3. ``SPECSCOPE_DEBUG=1`` prints the traceback as well.
    """
    from specscope.cli.crash import run_guarded

    debug = os.environ.get("SPECSCOPE_DEBUG", "") not in ("", "0")
    sys.exit(run_guarded(lambda: app(args=argv, standalone_mode=False, prog_name="specscope"), debug=debug, argv=argv))
