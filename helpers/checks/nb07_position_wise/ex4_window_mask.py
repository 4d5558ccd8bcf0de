"""Exercise 4 (stretch): a sliding-window mask, against helpers.attention.causal_mask; a window
one too wide or too narrow, a transposed mask or one that looks ahead is named."""

import torch

from helpers.attention import causal_mask
from helpers.checks.compare import arrays
from helpers.checks.runner import Check, Mistake


def _one_too(message, more):
    return Mistake(message,
                   answer=lambda T, window: causal_mask(T, window=window + (1 if more else -1)))


check_window_mask = Check(
    "Exercise 4 (a sliding window)",
    reference=lambda T, window: causal_mask(T, window=window),
    cases=[(7, 3), (6, 1), (5, 9)],
    mistakes=[
        Mistake("{call} is transposed: rows are the tokens that look (i), columns the tokens they "
                "look at (j), so the allowed entries sit on and below the diagonal.",
                answer=lambda T, window: causal_mask(T, window=window).T),
        Mistake("{call} lets a token see a later token (True above the diagonal): a causal window "
                "never looks ahead.",
                when=lambda got, T, window: tuple(torch.as_tensor(got).shape) == (T, T)
                and bool(torch.as_tensor(got).bool().triu(1).any())),
        _one_too("in {call} each token sees one token too many: check the window's edge (itself "
                 "and the window - 1 tokens before it).", more=True),
        _one_too("in {call} each token sees one token too few: check the window's edge (itself and "
                 "the window - 1 tokens before it).", more=False),
    ],
    compare=arrays(atol=0, rtol=0),
    success="each token sees itself and the window - 1 tokens before it; with window >= T it is "
            "the causal mask.",
    name="window_mask",
)
