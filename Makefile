# Each target does its own set-up: a fresh clone needs only python3 (3.11+).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: play test bench clean

# pip's own chatter (build warnings) goes to a log that is shown only when a step fails.
SETUP_LOG := $(VENV)/setup.log

$(STAMP): pyproject.toml
	@echo "Setting up quackbox in $(VENV) (the first run only; this takes a minute)..."
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@$(BIN)/python -m pip install --quiet --upgrade pip > $(SETUP_LOG) 2>&1 \
		|| { cat $(SETUP_LOG); echo "Could not upgrade pip in $(VENV) (the log is above)."; exit 1; }
	@$(BIN)/python -m pip install --quiet -e '.[test]' >> $(SETUP_LOG) 2>&1 \
		|| { cat $(SETUP_LOG); echo "Could not install quackbox into $(VENV) (the log is above)."; exit 1; }
	@touch $(STAMP)
	@echo "Set up."

play: $(STAMP)
	$(BIN)/quackbox play side-effects

# The lint and the format first (a second each), then the suite. loadgroup: tests marked with
# one xdist_group share a worker (the browser tests, one Chromium). Line coverage is measured
# in the test processes (not in the children tests start) and held to a floor a point under
# the figure reached, as timing decides a few branches.
COVERAGE_FLOOR := 89

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python -m pytest -q -n auto --dist loadgroup --cov --cov-report=term:skip-covered --cov-fail-under=$(COVERAGE_FLOOR)

bench: $(STAMP)
	$(BIN)/python -m bench.rules --game side-effects

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
