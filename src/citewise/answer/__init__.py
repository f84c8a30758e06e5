"""The answer stages: grounding gate (:mod:`~citewise.answer.gate`, :mod:`~citewise.answer.salient`)
and its calibration (:mod:`~citewise.answer.calibrate`, :mod:`~citewise.answer.calibration`,
:mod:`~citewise.answer.synthesize`), follow-up rewriting (:mod:`~citewise.answer.rewrite`),
context (:mod:`~citewise.answer.context`), prompt (:mod:`~citewise.answer.prompt`), generation
time budget (:mod:`~citewise.answer.budget`), conflicts (:mod:`~citewise.answer.conflicts`),
citations (:mod:`~citewise.answer.citations`) and the pipeline that runs them
(:func:`citewise.answer.ask.ask`). The generators themselves live in :mod:`citewise.generate`.
"""
