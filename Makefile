# Every target creates .venv and installs the project first, so each works on a fresh machine.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
SERVER_STAMP := $(VENV)/.installed-server

# The engine's hot modules are compiled to C by mypyc when the project is installed (setup.py,
# src/duyun/_build.py); a change to one of them reinstalls, so tests never run stale code.
COMPILED := $(shell $(PYTHON) -c "import runpy; print(' '.join('src/' + m.replace('.', '/') + '.py' for m in runpy.run_path('src/duyun/_build.py')['COMPILED_MODULES']))")

.PHONY: run test bench lint clean build pure

# `make test` (and bench, lint) install every extra; `make run` only what the game needs
# (`.[server]`), so a fresh clone is at the table within a minute: Ray, RLCard, matplotlib,
# scikit-learn and the test tools are not downloaded to play (issue 31 item 9). A full install
# serves `run` too.
$(STAMP): pyproject.toml setup.py $(COMPILED)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev,sim,rl,server,train]'
	touch $(STAMP) $(SERVER_STAMP)

$(SERVER_STAMP): pyproject.toml setup.py $(COMPILED)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[server]'
	touch $(SERVER_STAMP)

# recompile the engine's modules after editing them (make test and make run do it themselves)
build: $(STAMP)

# pure Python: remove the compiled modules; the source runs until the next install, which
# compiles again unless DUYUN_PURE_PYTHON=1 is set
pure:
	find src -name '*.so' -delete
	rm -f src/duyun/_compiled_sources.json

# the browser game: the server on SQLite (./duyun.db), bots fill empty seats; `duyun play` is
# the terminal game
HOST ?= 127.0.0.1
PORT ?= 8000
run: $(SERVER_STAMP)
	@echo "Open http://$(HOST):$(PORT)/ in a browser (Ctrl-C stops the server)"
	$(BIN)/duyun serve --host $(HOST) --port $(PORT) --database-url sqlite:///duyun.db

# Four workers on two cores: the suite mostly waits (timers, servers, browsers, PostgreSQL) and
# uses half the CPU with two; every test waits on readiness, never on a guess of the time.
# The ten slowest tests are listed at the end: where the suite's time goes, in every CI log.
test: $(STAMP)
	$(BIN)/pytest -n 4 -q --durations=10

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py
	$(BIN)/python benchmarks/pace.py --hands 2

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks tools setup.py
	$(BIN)/ruff format --check src tests benchmarks tools setup.py
	$(BIN)/mypy

clean:
	rm -rf $(VENV) build dist *.egg-info src/*.egg-info .pytest_cache .mypy_cache .ruff_cache .hypothesis
	find src -name '*.so' -delete
	rm -f src/duyun/_compiled_sources.json
