# The two set-up commands of the README: `make play` and `make test`.
# Both create .venv and install what they need by themselves.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PIP := $(BIN)/python -m pip --quiet

PLAY_EXTRAS := tui
TEST_EXTRAS := dev,tui,web,rl,plot,ray

.PHONY: play test lint typecheck unit bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --upgrade pip

# The C kernel is compiled by pip install (setup.py); a change to its
# sources re-runs the install.
KERNEL_SOURCES := setup.py $(wildcard src/marjolet/_kernel/*.c src/marjolet/_kernel/*.h)

$(VENV)/.play-installed: pyproject.toml $(KERNEL_SOURCES) | $(BIN)/python
	$(PIP) install -e '.[$(PLAY_EXTRAS)]'
	touch $@

$(VENV)/.test-installed: pyproject.toml $(KERNEL_SOURCES) | $(BIN)/python
	$(PIP) install -e '.[$(TEST_EXTRAS)]'
	touch $@ $(VENV)/.play-installed

## Play a match in the terminal against the computer.
play: $(VENV)/.play-installed
	$(BIN)/marjolet play $(ARGS)

## ruff, mypy --strict and the whole pytest suite (browser tests use
## Debian's chromium, which scripts/install-chromium.sh installs if missing).
test: $(VENV)/.test-installed
	sh scripts/install-chromium.sh
	$(BIN)/ruff check src tests benchmarks examples
	$(BIN)/mypy
	$(BIN)/pytest $(PYTEST_ARGS)

lint: $(VENV)/.test-installed
	$(BIN)/ruff check src tests benchmarks examples

typecheck: $(VENV)/.test-installed
	$(BIN)/mypy

unit: $(VENV)/.test-installed
	$(BIN)/pytest $(PYTEST_ARGS)

bench: $(VENV)/.play-installed
	$(BIN)/marjolet bench

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis
