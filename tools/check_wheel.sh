#!/usr/bin/env bash
# `make wheel-check`: install the wheel from dist/ into a new venv (outside the source tree, so
# nothing is imported from python/ember) and run, from that venv: the environment report, one
# epoch of the Fashion-MNIST example, and a quick subset of the tests (torch is the oracle, so
# the venv gets the pinned torch and pytest too). Needs the Debian runtime libraries the README
# lists; exits non-zero at the first failure.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
wheel=$(ls -t "$repo"/dist/ember-*.whl | head -1)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "wheel-check: $wheel in a new venv at $work"
python3 -m venv "$work/venv"
pip="$work/venv/bin/pip"
"$pip" install -q --upgrade pip
"$pip" install -q "$wheel"
pins=$(grep -E '^(torch|pytest|hypothesis|cmake)==' "$repo/requirements-dev.txt")
"$pip" install -q $pins
cd "$work"
py="$work/venv/bin/python"
"$py" -c "import ember, sys; assert ember.__file__.startswith('$work'), ember.__file__; print('ember', ember.__version__, 'from', ember.__file__)"
"$py" -m ember.utils.collect_env
"$py" -m ember.examples.fashion_mnist --epochs 1 --threads 2 --no-progress
# The quick subset: tensors, autograd, nn, optim, data, serialization; the C++ library as the
# wheel ships it (a consumer project through ember.utils.cmake_prefix_path, C++ extensions).
"$py" -m pytest -q -p no:cacheprovider --rootdir "$work" \
  "$repo/tests/python/test_smoke.py" "$repo/tests/python/test_autograd.py" \
  "$repo/tests/python/test_nn_layers.py" "$repo/tests/python/test_optim.py" \
  "$repo/tests/python/test_data.py" "$repo/tests/python/test_serialization.py" \
  "$repo/tests/python/test_cpp_install.py" "$repo/tests/python/test_cpp_consumer.py" \
  "$repo/tests/python/test_cpp_extension.py"
echo "wheel-check: passed"
