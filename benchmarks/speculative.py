"""Would llama.cpp's n-gram speculative decoding make the local model answer faster here?

An answer often copies its source's words, and n-gram drafting (prompt lookup) proposes the
next tokens from text already in the prompt, so the model checks several at once. Measured
on this 2-core machine it does not pay: each mode is loaded in a fresh process (no prompt
cache shared between modes) and answers the same three questions about two httpx pages
(greedy, 200 tokens at most); the first question includes the prompt evaluation.

    .venv/bin/python benchmarks/speculative.py [--modes none,ngram_simple,ngram_mod] \\
        [--docs ../shared/data/docs-httpx/docs] [--threads 2]

Measured 2026-12-04 (Qwen2.5-Coder-1.5B Q4_K_M, 2 threads, idle): seconds per answer
none 15.5 / 6.8 / 6.9 (again 15.8 / 6.8 / 7.0), ngram_simple 16.8 / 7.1 / 6.9 (17.0 / 7.1 /
6.9), ngram_map_k 16.7 / 7.1 / 7.0, ngram_mod 15.7 / 6.6 / 7.2, ngram_cache 18.3 / 10.6 /
13.0; ngram_simple, ngram_map_k and ngram_cache also changed the text (152 or 125 tokens
instead of 153). Not used: ``citewise.generate.local`` loads the model without it.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

QUESTIONS = ("How do I limit the number of connections a client keeps open?",
             "What does the timeout setting control, and how do I disable it?",
             "How do I send a file with a multipart upload?")
SYSTEM = ("Answer only from the sources. Cite [S1]. Quote the sources' own words where you "
          "can.")


def run_mode(mode: str, source: str, threads: int) -> None:
    """Answer :data:`QUESTIONS` with ``mode`` in this process, printing one line each."""
    import xllamacpp

    import citewise.generate.local as local
    from citewise.models import resolve

    path = str(resolve("qwen2.5-coder-1.5b-instruct"))
    params = xllamacpp.CommonParams()
    params.model.path = path
    params.n_ctx, params.n_parallel, params.verbosity, params.warmup = 4096, 1, -1, False
    params.cpuparams.n_threads = params.cpuparams_batch.n_threads = threads
    if mode != "none":
        kind = getattr(xllamacpp.common_speculative_type,
                       "COMMON_SPECULATIVE_TYPE_" + mode.upper())
        params.speculative.types = [kind]
    local._start_server = lambda *_: xllamacpp.Server(params)  # this mode's server
    server = local.load_server(path, threads, 4096)
    for question in QUESTIONS:
        messages = [{"role": "system", "content": SYSTEM},
                    {"role": "user", "content": f'<source id="S1">\n{source}\n</source>\n\n'
                                                f"Question: {question}"}]
        start = time.perf_counter()
        text, usage, _ = local.chat(server, messages, max_tokens=200, timeout_s=300)
        print(f"{mode:<13} {time.perf_counter() - start:6.2f} s "
              f"{usage.get('completion_tokens')} tokens {json.dumps(text[:60])}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--modes", default="none,ngram_simple,ngram_map_k,ngram_mod")
    ap.add_argument("--docs", default=str(Path(__file__).resolve().parents[1].parent
                                          / "shared/data/docs-httpx/docs"))
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--one", help=argparse.SUPPRESS)  # a child process runs one mode
    args = ap.parse_args()
    pages = ("advanced/resource-limits.md", "advanced/timeouts.md")
    source = "".join(Path(args.docs, p).read_text(encoding="utf-8") for p in pages)[:3000]
    if args.one:
        run_mode(args.one, source, args.threads)
        return
    for mode in args.modes.split(","):
        subprocess.run([sys.executable, __file__, "--one", mode, "--docs", args.docs,
                        "--threads", str(args.threads)], check=True)


if __name__ == "__main__":
    main()
