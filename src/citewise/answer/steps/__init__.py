"""The steps of ``ask`` (answer/pipeline.py), in the order the runner calls them.

analyse → recall → assemble → judge → recover → conditions → compose → review → finish:
each step takes the frozen :class:`~citewise.answer.steps.state.AskState` and returns a
new one; a step that settles the answer sets ``answer`` and the runner stops there
(:mod:`citewise.answer.steps.runner`).
"""
