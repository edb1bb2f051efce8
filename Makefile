# Every target creates .venv and installs the project first, so each works on a fresh machine.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test bench lint clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev,sim,rl]'
	touch $(STAMP)

# the browser game: the server on SQLite (./duyun.db), bots fill empty seats; `duyun play` is
# the terminal game
HOST ?= 127.0.0.1
PORT ?= 8000
run: $(STAMP)
	@echo "Open http://$(HOST):$(PORT)/ in a browser (Ctrl-C stops the server)"
	$(BIN)/duyun serve --host $(HOST) --port $(PORT) --database-url sqlite:///duyun.db

test: $(STAMP)
	$(BIN)/pytest -n 2 -q

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks
	$(BIN)/mypy

clean:
	rm -rf $(VENV) build dist *.egg-info src/*.egg-info .pytest_cache .mypy_cache .ruff_cache .hypothesis
