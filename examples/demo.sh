#!/usr/bin/env bash
# `make demo`: index the bundled Northwind Robotics corpus and search it as two users.
# Offline: the embedding model comes from an installed package, nothing is downloaded.
set -euo pipefail
cd "$(dirname "$0")/.."
CW=.venv/bin/citewise
DB=$(mktemp -d)/demo.db
trap 'rm -rf "$(dirname "$DB")"' EXIT

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

say "Ingest examples/corpus (tenant northwind, default group staff; the sidecar restricts compensation-bands.md to hr)"
$CW ingest examples/corpus --db "$DB" --tenant northwind --groups staff --meta examples/corpus.meta.jsonl --no-progress

say "Re-ingest: unchanged files embed nothing"
$CW ingest examples/corpus --db "$DB" --tenant northwind --groups staff --meta examples/corpus.meta.jsonl --no-progress

say "A staff member asks: How many days of parental leave do employees get?"
$CW search "How many days of parental leave do employees get?" --db "$DB" --tenant northwind --groups staff --top-k 3 --explain

say "A staff member asks: What does error code E42 mean?"
$CW search "What does error code E42 mean?" --db "$DB" --tenant northwind --groups staff --top-k 2

say "A staff member searches the restricted salary bands (they are not in the staff group's view)"
$CW search "What is the salary band for level L4?" --db "$DB" --tenant northwind --groups staff --top-k 3 --json \
  | .venv/bin/python -c 'import json,sys; hits=json.load(sys.stdin); print("documents returned:", sorted({h["doc_id"] for h in hits})); print("restricted compensation bands visible to staff:", any("compensation-bands" in h["source"] for h in hits))'

say "An HR member runs the same search"
$CW search "What is the salary band for level L4?" --db "$DB" --tenant northwind --groups hr --top-k 2

say "Index status"
$CW status --db "$DB"
