"""Write src/specscope/audit/gguf_architectures.toml: every GGUF ``general.architecture`` name the embedded engine
accepts, read from the engine itself.

The names come from the installed xllamacpp wheel's shared library: its exported ``llm_arch_name(llm_arch)`` (the
engine's own name table, ``LLM_ARCH_NAMES`` in llama.cpp ``src/llama-arch.cpp``) is called for every enum value from 0
until it answers ``(unknown)`` (``LLM_ARCH_UNKNOWN``, the last value). ``llm_arch_from_string`` searches the same
table, and the model loader refuses a name it does not find ("unknown model architecture"). Reading the table through
the engine's own function is exact where ``strings`` on the library is not: the linker folds a name that ends
another one (``bert`` into ``modern-bert``), and names of two characters (``t5``) fall under ``strings``' minimum.

The wheel does not say which llama.cpp commit it was built from (its ``LLAMA_COMMIT`` is "unknown"); the file records
the wheel's version and its own git revision (``xllamacpp/_version.py``) instead.

Usage: python scripts/gen_gguf_architectures.py [--check]
    --check: write nothing; exit 1 when the committed file differs from what the installed wheel gives.
"""

from __future__ import annotations

import ctypes
import importlib.metadata
import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from specscope.fsio import write_text_atomic  # noqa: E402

OUT = ROOT / "src" / "specscope" / "audit" / "gguf_architectures.toml"
WHEEL = "xllamacpp"
UNKNOWN = "(unknown)"
SYMBOL = "_Z13llm_arch_name8llm_arch"  # llm_arch_name(llm_arch), C++ mangled
REGENERATE = "python scripts/gen_gguf_architectures.py"


def engine_names() -> tuple[str, str, list[str]]:
    """(wheel version, wheel git revision, architecture names in enum order) from the installed wheel."""
    spec = importlib.util.find_spec(WHEEL)
    if spec is None or spec.origin is None:
        raise SystemExit(f"the {WHEEL} wheel is not installed in this Python: install it (uv sync) and run again")
    folder = Path(spec.origin).parent
    (lib,) = sorted(folder.glob(f"{WHEEL}*.so"))
    version = importlib.metadata.version(WHEEL)
    namespace: dict[str, object] = {}
    exec((folder / "_version.py").read_text("utf-8"), namespace)  # the wheel's own versioneer file
    get_versions = namespace["get_versions"]
    assert callable(get_versions)
    revision = str(get_versions()["full-revisionid"])
    fn = getattr(ctypes.CDLL(str(lib)), SYMBOL)
    fn.restype, fn.argtypes = ctypes.c_char_p, [ctypes.c_int]
    names: list[str] = []
    for i in range(100_000):
        name = fn(i).decode("utf-8")
        if name == UNKNOWN:
            return version, revision, names
        names.append(name)
    raise SystemExit(f"{lib}: llm_arch_name never answered {UNKNOWN!r}")


def render(version: str, revision: str, names: list[str]) -> str:
    lines = [
        "# Every GGUF general.architecture the embedded engine accepts (generated: do not edit).",
        f"# Regenerate: {REGENERATE} (with the engine's wheel installed); --check compares.",
        "# Read by specscope/audit/rules_llamacpp.py (GGUF_ARCH_UNKNOWN) and rendered into docs/architectures.md.",
        "#",
        "# Source: the installed xllamacpp wheel's shared library, its exported llm_arch_name(llm_arch)",
        "# called for every enum value from 0 until it answers '(unknown)' (LLM_ARCH_UNKNOWN, the last value):",
        "# the engine's own LLM_ARCH_NAMES table (llama.cpp src/llama-arch.cpp), which llm_arch_from_string",
        "# searches; the model loader throws \"unknown model architecture: '...'\" for a name outside it. The",
        "# wheel's LLAMA_COMMIT is 'unknown', so the llama.cpp commit is not named; the stored copy of",
        "# ggml-org/llama.cpp src/llama-arch.cpp @00395eb2 lacks names this table holds (e.g. k2-horizon,",
        "# qwen4exp, kimi-k3): the list is read from the binary, not from a source release.",
        "",
        "names = [",
        *(f'    "{n}",' for n in names),
        "]",
        "",
        "[source]",
        f'engine = "xllamacpp {version}"',
        f'revision = "{revision}"',
        "read = \"llm_arch_name(i) for i = 0, 1, ... until '(unknown)' in the wheel's shared library\"",
        'table = "LLM_ARCH_NAMES (ggml-org/llama.cpp src/llama-arch.cpp)"',
        f'regenerate = "{REGENERATE}"',
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    text = render(*engine_names())
    if "--check" in argv:
        if OUT.read_text("utf-8") != text:
            print(f"{OUT} differs from the installed engine's table: run {REGENERATE}", file=sys.stderr)
            return 1
        return 0
    write_text_atomic(OUT, text)
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
