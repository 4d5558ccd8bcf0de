"""Exercise checks: one module per notebook (`helpers.checks.nb03_ffn_forward`, ...).

A check takes what the learner wrote and returns a `Feedback`, shown as one
line: not attempted yet, correct, or what is wrong in words. Every check is a
table run by one of three runners: `Check` (a function or a value),
`ModuleCheck` (an nn.Module, loaded with the reference's weights) and
`Prediction` (a guess written down before the answer is revealed).
"""

from helpers.checks.core import Feedback
from helpers.checks.module import ModuleCheck
from helpers.checks.runner import Check, Mistake, Prediction

__all__ = ["Check", "Feedback", "Mistake", "ModuleCheck", "Prediction"]
