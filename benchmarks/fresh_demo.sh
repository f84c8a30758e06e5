#!/usr/bin/env bash
# A new user's `make demo`: a fresh clone of this checkout's HEAD, an empty pip cache and an
# empty models folder. Prints each output line with the seconds since start, then the time
# to the first cited answer, to the end of the model pull, and in total.
#   bash benchmarks/fresh_demo.sh [WORKDIR]      (downloads the 1.1 GB model: run it rarely)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$(mktemp -d /tmp/citewise-fresh-demo.XXXXXX)}
git clone --quiet "$repo" "$work/clone"
mkdir -p "$work/pip-cache" "$work/models"
log="$work/demo.log"
start=$(date +%s)
(cd "$work/clone" && PIP_CACHE_DIR="$work/pip-cache" CITEWISE_MODELS_DIR="$work/models" \
    make demo 2>&1) | while IFS= read -r line; do
  printf '%4ds %s\n' $(( $(date +%s) - start )) "$line"
done | tee "$log"
total=$(( $(date +%s) - start ))
first=$(awk '/asks a question the documents answer/ {on=1} on && /s \[1\] / {print $1; exit}' "$log")
pulled=$(grep -m1 -E '^ *[0-9]+s /.*\.gguf$' "$log" | awk '{print $1}' || true)
echo
echo "first cited answer after ${first:-?}; model pulled after ${pulled:-?}; total ${total}s"
echo "(load average at the end: $(cut -d' ' -f1-3 /proc/loadavg); log: $log)"
