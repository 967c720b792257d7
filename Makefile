# Pagoda's entry points. Every target runs the set-up it needs first.
BUILD_DIR ?= build
ASAN_DIR ?= build-asan
JOBS ?= 2
PROMPT ?= Write a haiku about paged memory.
PAGODA = $(BUILD_DIR)/src/pagoda/apps/pagoda
# ccache (scripts/setup.sh installs it) lets `make test`'s `pip install .`
# reuse the objects of `make build`, and rebuilds after a clean go fast.
CCACHE = $(if $(shell command -v ccache),-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)

.PHONY: setup build serve generate test test-unit test-python test-sanitize fuzz bench clean

setup:
	@scripts/setup.sh

build: setup
	@cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Release -DPython_EXECUTABLE=$(CURDIR)/.venv/bin/python $(CCACHE) >/dev/null
	@cmake --build $(BUILD_DIR) -j$(JOBS)
	@# `from pagoda import LLM` in .venv/bin/python with no PYTHONPATH: a .pth
	@# file puts the build tree's package on the venv's path (after
	@# site-packages, so a pip-installed pagoda still wins).
	@echo "$(abspath $(BUILD_DIR))/python" > "$$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/pagoda-build.pth"

serve: build
	@$(PAGODA) serve $(SERVE_ARGS)

generate: build
	@$(PAGODA) generate --prompt "$(PROMPT)"

test: build
	@ctest --test-dir $(BUILD_DIR) -j$(JOBS) --output-on-failure
	@PAGODA_BIN=$(PAGODA) PAGODA_PYTHON_DIR=$(BUILD_DIR)/python .venv/bin/python -m pytest -q tests/python
	@PAGODA_BIN=$(PAGODA) .venv/bin/python -m pytest -q tests/e2e
	@scripts/fuzz.sh 20
	@JOBS=$(JOBS) scripts/cuda_compile_check.sh

test-sanitize: setup
	@cmake -S . -B $(ASAN_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPAGODA_SANITIZE=ON >/dev/null
	@cmake --build $(ASAN_DIR) -j$(JOBS)
	@ctest --test-dir $(ASAN_DIR) -j$(JOBS) --output-on-failure

fuzz: setup
	@scripts/fuzz.sh

bench: build
	@$(BUILD_DIR)/bench/pagoda_bench_kernels

clean:
	rm -rf $(BUILD_DIR) $(ASAN_DIR) build-fuzz build-pip
