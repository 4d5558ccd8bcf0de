"""Exercise checks. Each notebook has a module here (e.g. `helpers.checks.nb01_matrix_multiply`).

A check takes what the learner wrote and returns a `Feedback`, shown as one
line: not attempted yet, correct, or what is wrong in words plus a hint.
"""

from helpers.checks.core import Feedback, attempt, correct, not_attempted, wrong

__all__ = ["Feedback", "attempt", "correct", "not_attempted", "wrong"]
