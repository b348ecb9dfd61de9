#!/usr/bin/env bash
# The CuPy path on a machine with an NVIDIA GPU: install, test against NumPy, time n in {1024, 8192}.
# Usage (from the repository root): bash bench/gpu_check.sh
set -euo pipefail
python3 -m venv /tmp/gpu-venv
/tmp/gpu-venv/bin/pip install -q -r requirements-dev.txt "cupy-cuda12x>=13"
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader || true
SELF_ATTENTION_BACKEND=cupy /tmp/gpu-venv/bin/python -c "import core; print(core.backend())"
/tmp/gpu-venv/bin/python -m pytest -q -m gpu tests/core
/tmp/gpu-venv/bin/python bench/gpu_timing.py
