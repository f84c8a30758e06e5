"""citewise.eval: measuring retrieval and answers.

``questions`` (eval sets, personas) → ``harness.run_eval`` (an ``EvalRun`` of per-question
``record``s) → ``scoring`` (per-question figures: ``metrics``, ``answer_metrics``, section
``matching``) → ``bootstrap`` (intervals, slices) → ``compare`` / ``report`` / ``sweep``.
``beir``, ``runs``, ``interop`` and ``squad`` read and write other tools' formats.
"""
