# ember: `make test` and `make train` do all set-up on a fresh Debian 12 machine:
# Debian packages, a .venv with pinned PyPI packages, the build, then the job.
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
# g++ and OpenMP come with build-essential; OpenBLAS's OpenMP build shares ember's thread pool.
# libboost-dev: Boost.Math (header-only) computes the special functions (src/kernels/cpu/special_functions.cpp).
# libkissfft-dev: KISS FFT (BSD; its header-only C++ template) computes ember.fft's transforms.
# pkgconf: the consumer test builds a project with `pkg-config --cflags --libs ember` (docs/cpp.md).
# libdnnl-dev: oneDNN, bfloat16 matmul (src/kernels/cpu/blas_half.cpp; optional in CMake).
# iproute2: `ip netns` and veth pairs for the network-fault tests (tests/python/test_distributed_faults.py).
DEB_PKGS := build-essential libopenblas-openmp-dev libgtest-dev libhwy-dev libdnnl-dev libboost-dev zlib1g-dev dataset-fashion-mnist \
  libgloo-dev redis-server libkissfft-dev pkgconf clang-format iproute2
BUILD_DIR := build/wheel
STAMP := build/.stamps

.PHONY: all deps venv build test test-cpp test-python train train-cpp bench clean test-asan asan-configure fuzz fuzz-deps fuzz-torch-format compat wheel wheel-check \
  format format-check docs

all: build

$(STAMP):
	@mkdir -p $(STAMP)

# Install the Debian packages that are missing (root, or sudo when available).
deps: | $(STAMP)
	@missing=$$(for p in $(DEB_PKGS); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q "ok installed" || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages: $$missing"; \
	  SUDO=$$([ "$$(id -u)" = 0 ] || echo sudo); \
	  $$SUDO apt-get update -q && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -q $$missing; \
	fi

$(STAMP)/venv: requirements-dev.txt | $(STAMP)
	test -x $(PY) || python3 -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	$(PIP) install -q -r requirements-dev.txt
	touch $@

venv: $(STAMP)/venv

# pip builds the C++ library, its tests and the extension with CMake into $(BUILD_DIR)
# (kept between runs, so a rebuild compiles only what changed) and installs the package.
build: deps venv
	$(PIP) install -q --no-build-isolation --no-deps \
	  --config-settings=cmake.define.EMBER_BUILD_TESTS=ON .

test-cpp: build
	ctest --test-dir $(BUILD_DIR) --output-on-failure -j2

test-python: build
	cd tests/python && ../../$(PY) -m pytest -q -p no:cacheprovider

test: test-cpp test-python

# The main job: Fashion-MNIST. MODEL=mlp|cnn, EPOCHS, THREADS (default: every core),
# NPROC=N: data-parallel on N processes (DistributedDataParallel; THREADS is then per process,
# default: the cores divided among the processes).
MODEL ?= mlp
EPOCHS ?= 10
NPROC ?= 1
THREADS ?= $(shell echo $$(( $$(nproc) / $(NPROC) > 0 ? $$(nproc) / $(NPROC) : 1 )))
train: build
	$(PY) -m ember.examples.fashion_mnist --model $(MODEL) --epochs $(EPOCHS) --threads $(THREADS) \
	  --nproc $(NPROC) --plot fashion_mnist_$(MODEL).png $(if $(AUTOCAST),--autocast $(AUTOCAST))

# The same MLP trained by the C++ frontend alone (examples/cpp/fashion_mnist.cpp).
train-cpp: build
	$(BUILD_DIR)/ember_fashion_mnist --epochs $(EPOCHS) --threads $(THREADS)

# The full table with every library on one thread (the figures docs/performance.md judges
# by), then the big-work rows again with every library on all cores: on this 2-core guest
# three libraries' thread pools in one process make 2-thread medians swing (docs/performance.md).
BENCH_SCALING := --only sgemm --only "copy bandwidth" --only "add, 1M" --only "exp, 1M" \
  --only "sin(x)" --only "d=3000"
# The training rows issue 17 judges at all cores, each library timed in a process of its own.
BENCH_ALONE := --only "GPT train step" --only "Fashion-MNIST epoch, CNN (2"
bench: build
	$(PY) bench/run.py --threads 1
	$(PY) bench/run.py --threads $$(nproc) $(BENCH_SCALING) \
	  --json bench/results_threads.json --png bench/results_threads.png
	$(PY) bench/run.py --threads $$(nproc) --alone $(BENCH_ALONE) \
	  --json bench/results_alone.json --png bench/results_alone.png

# The C++ tests built with AddressSanitizer + UndefinedBehaviorSanitizer (clang) in build/asan;
# any sanitizer report fails the test that triggered it. Sanitizer builds are Debug at -O0
# (asserts on; clang + ASan compiles the kernels' templates 4.5-5x faster than at -O1). The same build holds the libFuzzer target
# (EMBER_FUZZ: coverage instrumentation on src/io only), so `make fuzz` after it compiles one
# file: CI paid for two sanitizer builds of the library (gcc's and clang's, ~6 min) before.
SAN_FLAGS := -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O0 -g1"
ASAN_DIR := build/asan
FUZZ_DEB_PKGS := clang libclang-rt-14-dev libomp-14-dev
fuzz-deps:
	@$(MAKE) --no-print-directory deps DEB_PKGS="$(DEB_PKGS) $(FUZZ_DEB_PKGS)"

asan-configure: fuzz-deps venv
	PATH=$(CURDIR)/$(VENV)/bin:$$PATH CC=clang CXX=clang++ cmake -S . -B $(ASAN_DIR) -G Ninja \
	  $(SAN_FLAGS) -DEMBER_SANITIZE=ON -DEMBER_FUZZ=ON -DEMBER_BUILD_TESTS=ON \
	  -DEMBER_BUILD_PYTHON=OFF >/dev/null

test-asan: asan-configure
	PATH=$(CURDIR)/$(VENV)/bin:$$PATH cmake --build $(ASAN_DIR)
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --test-dir $(ASAN_DIR) --output-on-failure -j2

# libFuzzer on the safetensors loader (tests/fuzz), clang + ASan + UBSan, in build/asan,
# and beside it (one core each) fuzz-torch-format (below) for as long.
# New inputs go to build/asan/corpus; the seed corpus tests/fuzz/corpus is only read.
# A crash is saved as build/asan/crash-* and fails the run (either fuzzer's).
FUZZ_SECONDS ?= 60
FUZZ_DIR := $(ASAN_DIR)

fuzz: asan-configure
	PATH=$(CURDIR)/$(VENV)/bin:$$PATH cmake --build $(FUZZ_DIR) --target fuzz_safetensors
	mkdir -p $(FUZZ_DIR)/corpus
	$(FUZZ_DIR)/fuzz_safetensors $(FUZZ_DIR)/corpus tests/fuzz/corpus -max_total_time=$(FUZZ_SECONDS) \
	  -max_len=65536 -timeout=10 -rss_limit_mb=2048 -artifact_prefix=$(FUZZ_DIR)/ -print_final_stats=1 & \
	  pid=$$!; $(MAKE) --no-print-directory fuzz-torch-format; rc=$$?; wait $$pid && exit $$rc

# atheris (libFuzzer for Python) on ember.load of PyTorch-format files, from the seed corpus
# tests/fuzz/torch_corpus; a finding is saved as build/asan/crash-* and fails the run.
fuzz-torch-format: build
	mkdir -p $(FUZZ_DIR)/torch_corpus
	$(PY) tests/fuzz/fuzz_torch_format.py $(FUZZ_DIR)/torch_corpus tests/fuzz/torch_corpus \
	  -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
	  -artifact_prefix=$(FUZZ_DIR)/ -print_final_stats=1

# A wheel in dist/ (built in its own build/dist, beside the editable/test build), and its
# check: a new venv outside the tree installs it and runs the example and a quick test subset.
wheel: deps venv
	$(PIP) wheel -q --no-build-isolation --no-deps -w dist --config-settings=build-dir=build/dist .

wheel-check: wheel
	bash tools/check_wheel.sh

# docs/compatibility.md: which of PyTorch's public names ember has, namespace by namespace
# (tools/compat_table.py). It measures the ember already built (no build step here); a Python
# test fails while the committed page is out of date with the code.
compat:
	$(PY) tools/compat_table.py

# The reference site in build/docs/html (Sphinx, requirements-dev.txt): the guides of docs/ and
# docs/compatibility.md beside an API page per namespace that tools/api_pages.py writes from the
# built package (every public name, its signature and docstring; the count of names without a
# docstring or an example is printed). Warnings are errors.
DOCS_SRC := build/docs/src
docs: build
	rm -rf $(DOCS_SRC) && mkdir -p $(DOCS_SRC)/guides
	cp docs/sphinx/conf.py docs/sphinx/index.rst docs/compatibility.md $(DOCS_SRC)/
	for f in docs/*.md; do [ "$$(basename $$f)" = compatibility.md ] || cp $$f $(DOCS_SRC)/guides/; done
	$(PY) tools/api_pages.py $(DOCS_SRC)
	$(PY) -m sphinx -W --keep-going -q -b html $(DOCS_SRC) build/docs/html

# The C++ style is .clang-format (clang-format 14, Debian's). format-check: the lines changed
# since FORMAT_BASE (default main; git clang-format), so a branch keeps its new code formatted;
# FORMAT_BASE= (empty) checks every file. format: rewrites every C++ file in place.
FORMAT_BASE ?= main
CXX_FILES = $$(git ls-files '*.cpp' '*.h')
format-check:
	@if [ -n "$(FORMAT_BASE)" ]; then \
	  out=$$(git clang-format --diff $(FORMAT_BASE) -- '*.cpp' '*.h'); \
	  if [ -n "$$out" ] && [ "$$out" != "no modified files to format" ] && \
	     [ "$$out" != "clang-format did not modify any files" ]; then \
	    echo "$$out"; echo "format-check: run git clang-format $(FORMAT_BASE)"; exit 1; fi; \
	else clang-format --dry-run --Werror $(CXX_FILES); fi

format:
	clang-format -i $(CXX_FILES)

clean:
	rm -rf build dist
