# ember: `make test` and `make train` do all set-up on a fresh Debian 12 machine:
# Debian packages, a .venv with pinned PyPI packages, the build, then the job.
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
# g++ and OpenMP come with build-essential; OpenBLAS's OpenMP build shares ember's thread pool.
DEB_PKGS := build-essential libopenblas-openmp-dev libgtest-dev libhwy-dev zlib1g-dev dataset-fashion-mnist
BUILD_DIR := build/wheel
STAMP := build/.stamps

.PHONY: all deps venv build test test-cpp test-python train train-cpp bench clean

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

# The main job: Fashion-MNIST. MODEL=mlp|cnn, EPOCHS, THREADS (default: every core).
MODEL ?= mlp
EPOCHS ?= 10
THREADS ?= $(shell nproc)
train: build
	$(PY) -m ember.examples.fashion_mnist --model $(MODEL) --epochs $(EPOCHS) --threads $(THREADS) \
	  --plot fashion_mnist_$(MODEL).png

# The same MLP trained by the C++ frontend alone (examples/cpp/fashion_mnist.cpp).
train-cpp: build
	$(BUILD_DIR)/ember_fashion_mnist --epochs $(EPOCHS) --threads $(THREADS)

bench: build
	$(PY) bench/run.py

clean:
	rm -rf build
