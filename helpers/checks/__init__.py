"""Exercise checks: one module per notebook (`helpers.checks.nb03_ffn_forward`, ...).

A check takes what the learner wrote and returns a `Feedback`, shown as one
line: not attempted yet, correct, or what is wrong in words. Every check is a
table run by one of three runners: `Check` (a function or a value),
`ModuleCheck` (an nn.Module, loaded with the reference's weights) and
`Prediction` (a guess written down before the answer is revealed).

Each runner is a referee the learner can neither fool nor break: the learner's
code gets copies of the cases, the reference works on its own; anything the
learner's code raises or returns becomes a sentence; and the learner's random
state and torch settings are left as they were (`helpers.checks.state`). A
check written as a function does the same with `core.referee` (the decorator),
`calling.attempt` (the call) and `calling.outcome` (not attempted, None, an error);
a reference module is built inside `state.seeded(seed)`.

Each verdict is also recorded, one line in course-progress.jsonl beside the notebooks
(`helpers.checks.recording`): `record(False)` or COURSE_RECORD=0 turns that off, and
`download_progress()` downloads the file in Colab.
"""

from helpers.checks.core import Feedback
from helpers.checks.module import ModuleCheck
from helpers.checks.recording import download_progress, record
from helpers.checks.runner import Check, Mistake, Prediction

__all__ = ["Check", "Feedback", "Mistake", "ModuleCheck", "Prediction", "download_progress",
           "record"]
