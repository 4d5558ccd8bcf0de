"""Exercise 1: a prediction, the residual stream's mean token length after 24 pre-LN blocks;
each wrong model of the stream (lengths added in a line, one update per block, the input left
out...) is named."""

import math

from helpers.checks.core import referee
from helpers.checks.prediction import Prediction
from helpers.checks.show import plain, say
from helpers.checks.verdict import WRONG, wrong

# Pythagoras with the run's own update lengths lands within 10% of the stream (section 4 asserts
# it): the updates are nearly, not exactly, at right angles to the stream. So 10% separates that
# model from the wrong ones below.
STREAM_REL = 0.1

_STREAM = Prediction(
    "Exercise 1 (predict the stream's length)",
    why="Each update points in a direction almost unrelated to the stream, so lengths add like the "
        "sides of a right triangle: |x_24|^2 is about |x_0|^2 plus the sum of the 48 squared "
        "update lengths (the dashed line), far less than |x_0| plus the sum of the lengths.",
    rel=STREAM_REL,
    variable="my_stream_guess",
    fmt="{:.1f}",
)


def stream_models(lengths):
    """{model: the final length it predicts} for the right model and each likely wrong one.

    lengths: stream_norms' record, {"stream": [|x_0|, ..., |x_24|], "attn":
    [...], "mlp": [...]} (24 each).
    """
    x0 = lengths["stream"][0]
    updates = [u for pair in zip(lengths["attn"], lengths["mlp"], strict=True) for u in pair]
    squares = sum(u * u for u in updates)
    rms = math.sqrt(squares / len(updates))
    blocks = len(lengths["attn"])
    return {
        "right angles": math.sqrt(x0 ** 2 + squares),
        "in a line": x0 + sum(updates),
        "one update per block": math.sqrt(x0 ** 2 + blocks * rms ** 2),
        "input left out": math.sqrt(squares),
        "block 1's updates": math.sqrt(x0 ** 2 + blocks * (lengths["attn"][0] ** 2
                                                           + lengths["mlp"][0] ** 2)),
        "input in a line": x0 + math.sqrt(squares),
        "lengths not squared": math.sqrt(x0 ** 2 + sum(updates)),
    }


# What each wrong model assumed, in a sentence.
_STREAM_SENTENCES = {
    "in a line": "You added the lengths in a line, as if every update pointed "
                 "the way the stream does.",
    "one update per block": "You counted 24 updates, one per block; each block adds two, "
                            "attention's and the MLP's: 48 in all.",
    "input left out": "You added up the updates' squares but left out the input's: |x_24|^2 is "
                      "about |x_0|^2 plus the 48 squared updates.",
    "block 1's updates": "You gave every block block 1's updates; take the typical (root mean "
                         "square) update length of all 48, printed above.",
    "input in a line": "You combined the updates at right angles but added the result to the "
                       "input in a line: the updates are at right angles to the input too, "
                       "so square it with them.",
    "lengths not squared": "You added the updates' lengths under the square root; right angles add "
                           "their squares: |x_0|^2 + 48 x (update length)^2.",
}
# a guess within 6% of a wrong model is that model (rounding the printed lengths moves it ~3%)
_STREAM_NEAR = 0.06
_STREAM_BANDS = [
    (lambda guess, actual: guess >= 3 * actual, _STREAM_SENTENCES["in a line"]),
    (lambda guess, actual: guess < 2, "That is about one update's length, the stream without "
                                      "residuals: with residuals each sublayer adds to the stream "
                                      "instead of replacing it."),
    (lambda guess, actual: guess <= 0.65 * actual,
     "You kept the stream near its input's length, as if a norm rescaled it: in a pre-LN stack the "
     "norms only feed the branches, and the stream itself is never normalised."),
    (lambda guess, actual: abs(guess - actual) <= 0.2 * actual,
     "Close, but outside the 10% the check allows: a guess in round numbers lands this near, and "
     "the right model of how the lengths combine lands within 10%."),
    (lambda guess, actual: guess < actual,
     "That is short: the stream grows by more than that, since every one of the 48 updates, two "
     "per block, adds its own squared length to the stream's."),
    (lambda guess, actual: guess > actual,
     "That is long for updates at right angles to the stream: their squared lengths add, not their "
     "lengths, so the stream grows far less than the updates' lengths summed."),
]


def _stream_mistake(value, lengths):
    """The sentence naming the model behind a wrong guess, or None."""
    actual = lengths["stream"][-1]
    models = {name: v for name, v in stream_models(lengths).items() if name in _STREAM_SENTENCES}
    name, nearest = min(models.items(), key=lambda item: abs(value - item[1]) / item[1])
    # a round 10 or 15 is an estimate, not a wrong formula
    near = 0.01 if value % 5 == 0 else _STREAM_NEAR
    if abs(value - nearest) <= near * nearest:
        return _STREAM_SENTENCES[name]
    for assumed, sentence in _STREAM_BANDS:
        if assumed(value, actual):
            return sentence
    return None


@referee(_STREAM.exercise)
def check_stream_guess(guess, lengths):
    """Exercise 1: the stream's mean token length after 24 blocks (a number), against the run's.

    lengths: stream_norms' record with residuals (the answer is its last stream length); a bare
    number is read as the answer alone (no model named then but the bands).
    """
    if not isinstance(lengths, dict):
        lengths = {"stream": [plain(lengths)], "attn": [], "mlp": []}
    actual = lengths["stream"][-1]
    feedback = _STREAM(guess, actual)
    value = plain(guess)
    if feedback.status != WRONG or isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not math.isfinite(value):
        return feedback
    if lengths["attn"]:
        sentence = _stream_mistake(float(value), lengths)
    else:
        sentence = next((s for assumed, s in _STREAM_BANDS if assumed(value, actual)), None)
    if sentence is None:
        return feedback
    return wrong(_STREAM.exercise, say("{said} {message}", said=sentence, message=feedback.message))
