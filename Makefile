# Each target does its own set-up: a fresh clone needs only python3 (3.11+).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: play test bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

play: $(STAMP)
	$(BIN)/quackbox play side-effects

test: $(STAMP)
	$(BIN)/python -m pytest -q -n auto

bench: $(STAMP)
	$(BIN)/python -m bench.rules --game side-effects

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
