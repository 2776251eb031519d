# The two set-up commands of the README: `make play` and `make test`.
# Both create .venv and install what they need by themselves.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PIP := $(BIN)/python -m pip --quiet

# pytest spreads the test files over this many processes (pytest-xdist; auto:
# one a CPU): the suite waits on servers, browsers and clocks as much as it
# computes. One process more is faster but loads the machine past what some
# timing-bound tests bear (docs/install.md). make test TEST_WORKERS=0 runs it
# in one process.
TEST_WORKERS ?= auto
PYTEST := $(BIN)/pytest -n $(TEST_WORKERS) --dist loadfile

PLAY_EXTRAS := tui
TEST_EXTRAS := dev,tui,web,rl,train,plot,ray,dist

.PHONY: play test lint typecheck unit bench clean kernel kernel-check kernel-asan dist

# A venv of an older Python is refused before it is made (it could never
# install marjolet, and would stay in the way).
$(BIN)/python:
	@command -v "$(PYTHON)" >/dev/null 2>&1 || { \
		echo "no Python named '$(PYTHON)': give one, e.g. make play PYTHON=python3.11"; exit 1; }
	@"$(PYTHON)" -c 'import sys; sys.exit(sys.version_info < (3, 11))' || { \
		echo "marjolet needs Python 3.11 or newer; $(PYTHON) is $$("$(PYTHON)" --version 2>&1)."; \
		echo "Give one: make play PYTHON=python3.11"; exit 1; }
	"$(PYTHON)" -m venv $(VENV)
	$(PIP) install --upgrade pip

# Says so when the C kernel could not be built (no C compiler): the game
# works, slower, and the strongest level plays a simpler search.
KERNEL_NOTICE := MARJOLET_KERNEL= $(BIN)/python -c 'import marjolet.kernel as k; k.available() or print( \
	"note: the C kernel was not built (no C compiler?): marjolet runs in pure Python, " \
	"slower, and the strongest bot plays a simpler search. Install a C compiler " \
	"(gcc), then run: make kernel")'

# The C kernel is compiled by pip install (setup.py); a change to its
# sources re-runs the install.
KERNEL_SOURCES := setup.py $(wildcard src/marjolet/_kernel/*.c src/marjolet/_kernel/*.h)

$(VENV)/.play-installed: pyproject.toml $(KERNEL_SOURCES) | $(BIN)/python
	$(PIP) install -e '.[$(PLAY_EXTRAS)]'
	@$(KERNEL_NOTICE)
	touch $@

# --no-compile: the test extras (torch, ray, ...) hold thousands of modules
# the tests never import; Python compiles those they do on first import.
$(VENV)/.test-installed: pyproject.toml $(KERNEL_SOURCES) | $(BIN)/python
	$(PIP) install --no-compile -e '.[$(TEST_EXTRAS)]'
	@$(KERNEL_NOTICE)
	touch $@ $(VENV)/.play-installed

## Build the C kernel again (after installing a C compiler, say).
kernel: $(VENV)/.play-installed
	$(PIP) install --force-reinstall --no-deps -e .
	$(BIN)/python -c 'import marjolet.kernel as k; print("engine:", k.description())'

## Play a match in the terminal against the computer.
play: $(VENV)/.play-installed
	MARJOLET_MAKE_PLAY=1 $(BIN)/marjolet play $(ARGS)

## ruff, mypy --strict and the whole pytest suite (browser tests use
## Debian's chromium, which scripts/install-chromium.sh installs if missing; axe-core
## from npm for the accessibility checks, which scripts/install-axe.sh installs;
## PostgreSQL and redis-server for the multi-process tests, which
## scripts/install-services.sh installs; the tests start their own servers).
test: $(VENV)/.test-installed
	sh scripts/install-chromium.sh
	sh scripts/install-axe.sh
	sh scripts/install-services.sh
	$(BIN)/ruff check src tests benchmarks examples
	@# mypy checks the types while the tests run (the tests wait on servers,
	@# browsers and clocks as much as they compute); both must pass.
	@# (niced, so that the tests' clocks feel it little; stopped with them)
	@echo "nice $(BIN)/mypy (beside the tests; its report follows them)"
	@echo "$(PYTEST) $(PYTEST_ARGS)"
	@nice $(BIN)/mypy > $(VENV)/mypy.log 2>&1 & typing=$$!; \
	trap 'kill $$typing 2>/dev/null; exit 130' INT TERM; \
	$(PYTEST) $(PYTEST_ARGS); tested=$$?; \
	wait $$typing; typed=$$?; cat $(VENV)/mypy.log; \
	[ $$tested -eq 0 ] && [ $$typed -eq 0 ]

lint: $(VENV)/.test-installed
	$(BIN)/ruff check src tests benchmarks examples

typecheck: $(VENV)/.test-installed
	$(BIN)/mypy

unit: $(VENV)/.test-installed
	$(PYTEST) $(PYTEST_ARGS)

bench: $(VENV)/.play-installed
	$(BIN)/marjolet bench

## The C kernel against the Python engine: 100,000 random deals under every
## rule combination, 10,000 endings, late phase-1 positions (docs/kernel.md).
kernel-check: $(VENV)/.test-installed
	$(BIN)/python benchmarks/kernel_check.py $(ARGS)

## The same comparison (smaller counts) on a build of the kernel with
## AddressSanitizer and UndefinedBehaviorSanitizer.
ASAN_CFLAGS := -std=c11 -shared -fPIC -fsanitize=address,undefined \
	-fno-sanitize-recover=undefined -fno-omit-frame-pointer -O1 -g
ASAN_LIB := build/asan/_kernel.so
ASAN_ARGS ?= --deals 5000 --endings 1000 --exact 40

$(ASAN_LIB): $(KERNEL_SOURCES) | $(BIN)/python
	mkdir -p $(dir $@)
	gcc $(ASAN_CFLAGS) -I"$$($(BIN)/python -c 'import sysconfig; print(sysconfig.get_paths()["include"])')" \
		src/marjolet/_kernel/*.c -lm -o $@

kernel-asan: $(ASAN_LIB) $(VENV)/.test-installed
	ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	LD_PRELOAD="$$(gcc -print-file-name=libasan.so) $$(gcc -print-file-name=libubsan.so)" \
	MARJOLET_KERNEL_LIB=$(ASAN_LIB) $(BIN)/python benchmarks/kernel_check.py $(ASAN_ARGS)
	ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 \
	LD_PRELOAD="$$(gcc -print-file-name=libasan.so) $$(gcc -print-file-name=libubsan.so)" \
	MARJOLET_KERNEL_LIB=$(ASAN_LIB) $(BIN)/pytest -q -p no:cacheprovider \
		tests/test_kernel_agreement.py tests/test_kernel_build.py tests/test_kernel_tuned.py \
		tests/test_rl_vector.py
	ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 \
	LD_PRELOAD="$$(gcc -print-file-name=libasan.so) $$(gcc -print-file-name=libubsan.so)" \
	MARJOLET_KERNEL_LIB=$(ASAN_LIB) $(BIN)/pytest -q -p no:cacheprovider \
		tests/test_bots_best.py -k kernel

## An sdist and a manylinux wheel (kernel, web pages, catalogues, the ppo bot's
## weights inside) into dist/ (docs/install.md). The wheel is built from the sdist,
## so a file missing from the sdist fails here; auditwheel names the manylinux
## policy the compiled kernel meets and copies in any library it needs.
$(VENV)/.dist-installed: pyproject.toml | $(BIN)/python
	$(PIP) install -e '.[dist]'
	touch $@

dist: $(VENV)/.dist-installed
	@$(BIN)/python -c 'import marjolet.kernel as k; k.available() or exit( \
		"make dist builds a platform wheel with the C kernel: it needs a C compiler (gcc)")'
	rm -rf dist build/dist-raw
	$(BIN)/python -m build --outdir build/dist-raw .
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/auditwheel repair --wheel-dir dist build/dist-raw/*.whl
	cp build/dist-raw/*.tar.gz dist/
	$(BIN)/python scripts/check_dist.py dist --install --sdist-without-compiler

clean:
	rm -rf dist $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis build
