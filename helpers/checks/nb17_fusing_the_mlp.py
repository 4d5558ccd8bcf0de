"""Checks for notebook 17's exercises (TODO: the notebook's subject).

1. `scale(x, factor)`: TODO, the build exercise.
2. (stretch) A prediction: TODO.
"""

import torch

from helpers.checks.compare import arrays
from helpers.checks.runner import Check, Mistake, Prediction

check_scale = Check(
    "Exercise 1 (TODO)",
    reference=lambda x, factor: x * factor,
    cases=[(torch.arange(6.0).reshape(2, 3), 2.0), (torch.ones(4), -0.5)],
    mistakes=[Mistake("you added factor instead of multiplying by it.", answer=lambda x, factor: x + factor)],
    compare=arrays(atol=1e-12, rtol=1e-12),
    success="x times factor, for every shape tried.",
    name="scale",
)

check_guess = Prediction(
    "Exercise 2 (TODO)",
    why="TODO: why the answer is what it is.",
    rel=0.0,
    variable="my_guess",
)
