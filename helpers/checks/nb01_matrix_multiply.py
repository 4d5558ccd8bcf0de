"""Checks for notebook 01's exercises (matrix multiply).

1. A prediction: how many rows of Z = X @ W move when row 3 of X changes.
2. X @ W written from dot products, with a count of the FLOPs it takes.
3. A prediction: how the time per token changes as the number of tokens grows.
4. (stretch) Two layers with biases and nothing in between, folded into one.
"""

import dis
from dataclasses import dataclass

import numpy as np

from helpers import ffn
from helpers.checks.compare import arrays, exact
from helpers.checks.core import attempt, referee, wrong
from helpers.checks.runner import Check, Mistake, Prediction, _choice
from helpers.checks.show import Text, plain, say


def matmul_flops(T, d, m):
    """FLOPs of X (T, d) @ W (d, m): one of the FFN's two projections, 2 * T * d * m."""
    return ffn.flops(T, d, m) // 2


def _without_returned(problem):
    """A comparer's "returned X; expected Y" as "X; expected Y", still a sentence said in the checks' language."""
    if isinstance(problem, Text) and problem.template.startswith("returned "):
        return say(problem.template[len("returned "):], *problem.args, **problem.values)
    return problem[len("returned "):]


def _pair(first, second, compare_first, compare_second):
    """Compare an answer (a, b) part by part; say which part differs and how."""

    def compare(got, expected):
        if not (isinstance(got, tuple) and len(got) == 2):
            return say("returned a {kind}; return two things, `return {first}, {second}`",
                       kind=type(got).__name__, first=first, second=second)
        for name, cmp, mine, want in ((first, compare_first, got[0], expected[0]),
                                      (second, compare_second, got[1], expected[1])):
            problem = cmp(mine, want)
            if problem is None:
                continue
            if problem.startswith("="):
                return say("gives {name} {problem}", name=name, problem=problem)
            if problem.startswith("returned "):
                return say("gives {name} as {problem}", name=name, problem=_without_returned(problem))
            return say("gives a {name} that {problem}", name=name, problem=problem)
        return None

    return compare


def _part(got, index, expected, compare):
    """True when part `index` of the learner's pair equals `expected` (for Mistake rows)."""
    return isinstance(got, tuple) and len(got) == 2 and compare(got[index], expected) is None


# Exercise 1 ----------------------------------------------------------------------------

_rows_prediction = Prediction(
    "Exercise 1 (which rows move?)",
    why="Z[t, j] is the dot product of row t of X with column j of W: row t of Z reads row t of "
        "X and the shared W, nothing else. Changing token 3 moves output row 3 alone; batching "
        "tokens into one matrix mixes nothing between them.",
    choices=(0, 1, 2, 3, 4, 5),
    variable="my_rows_guess",
    fmt="{}",
)

EX1 = "Exercise 1 (which rows move?)"
_ROWS_GUESSES = {
    0: "0 rows would mean nothing moves, but row 3 of X changed, and every entry Z[3, j] multiplies that row "
       "with a column of W: output row 3 must move.",
    5: "5 rows would mean every output row reads token 3. Z[t, j] multiplies row t of X with column j of W: "
       "the other rows of X never enter it, so only output row 3 can move.",
    "some": "{guess} rows: besides row 3, which other output row would read a number of row 3 of X? Z[t, j] "
            "reads row t of X alone (and the shared W), so no other row can move.",
}


def _whole(guess):
    value = plain(guess[0]) if isinstance(guess, (list, tuple)) and len(guess) == 1 else plain(guess)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != int(value):
        return None
    return int(value)


@referee(EX1)
def check_rows_moved(guess, actual):
    """Exercise 1: how many rows of Z move; each wrong count gets what it mixed up."""
    fb = _rows_prediction(guess, actual)
    n = _whole(guess) if fb.status == "wrong" else None
    if n not in (0, 2, 3, 4, 5):
        return fb
    named = say(_ROWS_GUESSES[n]) if n in _ROWS_GUESSES else say(_ROWS_GUESSES["some"], guess=n)
    return wrong(EX1, say("{said} {named}", said=fb.message, named=named))


check_rows_moved.choices = _rows_prediction.choices


# Exercise 2 ----------------------------------------------------------------------------

EX2 = "Exercise 2 (a matmul from dot products)"
_MATMULS = {"matmul", "dot", "vdot", "inner", "einsum", "tensordot", "multi_dot", "mm", "bmm", "mv", "linear",
            "__matmul__", "__rmatmul__"}
_USES_MATMUL = ("your Z is right, but your function uses {what}: the exercise builds the product without @, "
                "from dot products written as loops, so that you see (and count) every multiply and add a "
                "matmul does. Fill Z[t, j] with a sum over i of X[t, i] * W[i, j].")


class _Watched(np.ndarray):
    """An array that notes the matrix products numpy runs on it (`@`, np.dot, np.einsum, ...)."""

    seen = []

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if ufunc.__name__ in _MATMULS:
            _Watched.seen.append(ufunc.__name__)
        plain_inputs = [a.view(np.ndarray) if isinstance(a, _Watched) else a for a in inputs]
        return getattr(ufunc, method)(*plain_inputs, **kwargs)

    def __array_function__(self, func, types, args, kwargs):
        if func.__name__ in _MATMULS:
            _Watched.seen.append(func.__name__)
        return super().__array_function__(func, types, args, kwargs)


def _named_products(code):
    """The matrix products the code object (and the functions inside it) writes: `@`, or a name in _MATMULS."""
    found = {name for name in code.co_names if name in _MATMULS}
    for op in dis.get_instructions(code):
        if op.opname in ("BINARY_MATRIX_MULTIPLY", "INPLACE_MATRIX_MULTIPLY") or (
                op.opname == "BINARY_OP" and op.argrepr in ("@", "@=")):
            found.add("@")
    for const in code.co_consts:
        if hasattr(const, "co_names"):
            found |= _named_products(const)
    return found


def _matmul_used(fn, cases):
    """The matrix products fn runs on the cases' arrays or writes in its code, as a phrase; None when none."""
    _Watched.seen = []
    for X, W in cases:
        attempt(fn, X.copy().view(_Watched), W.copy().view(_Watched), copies=False)
    code = getattr(fn, "__code__", None)
    used = set(_Watched.seen) | (_named_products(code) if code is not None else set())
    _Watched.seen = []
    if not used:
        return None
    return ", ".join(sorted({"@" if u in ("@", "matmul", "__matmul__", "__rmatmul__") else "np." + u for u in used}))


@dataclass(frozen=True)
class _NoMatmulCheck(Check):
    """Exercise 2's check: Z and the FLOP count right, and no matrix product used to get them."""

    def _judge(self, answer):
        fb = super()._judge(answer)
        if fb.status != "correct":
            return fb
        used = _matmul_used(answer, self.cases)
        return wrong(self.exercise, say(_USES_MATMUL, what=used)) if used else fb


_Z = arrays(atol=1e-9, rtol=1e-9)


def _matmul_reference(X, W):
    return X @ W, matmul_flops(X.shape[0], X.shape[1], W.shape[1])


def _z_is(make):
    """A Mistake test: the learner's Z equals make(X, W)."""
    return lambda got, X, W: _part(got, 0, make(X, W), _Z)


def _count_is(make):
    """A Mistake test: Z is right and the FLOP count equals make(T, d, m)."""
    def when(got, X, W):
        (T, d), m = X.shape, W.shape[1]
        return _part(got, 0, X @ W, _Z) and _part(got, 1, make(T, d, m), exact())
    return when


def _running_sum(X, W):
    """Z when the sum is not set back to 0 between entries (t outer, j inner)."""
    return np.cumsum((X @ W).ravel()).reshape(X.shape[0], W.shape[1])


def _running_sum_j_outer(X, W):
    return np.cumsum((X @ W).T.ravel()).reshape(W.shape[1], X.shape[0]).T


_rng = np.random.default_rng(1)
_SQUARE = (_rng.normal(size=(3, 4)), _rng.normal(size=(4, 4)))      # a square W: W[j] runs
_WIDE = (_rng.normal(size=(5, 3)), _rng.normal(size=(3, 7)))        # T, d and m all differ
_ONE_TOKEN = (_rng.normal(size=(1, 6)), _rng.normal(size=(6, 2)))

check_matmul_by_dots = _NoMatmulCheck(
    "Exercise 2 (a matmul from dot products)",
    reference=_matmul_reference,
    cases=[_SQUARE, _WIDE, _ONE_TOKEN],
    compare=_pair("Z", "n_flops", _Z, exact()),
    mistakes=[
        Mistake("Z[t, j] uses row j of W (W[j]) where it needs column j (W[:, j], or W[i, j] term by "
                "term): that computes X @ W.T.", when=_z_is(lambda X, W: X @ W.T)),
        Mistake("your Z is transposed: entry (t, j) landed at Z[j, t]. Rows of Z are tokens "
                "(rows of X), columns are the columns of W.",
                when=_z_is(lambda X, W: (X @ W).T)),
        Mistake("you returned (n_flops, Z): return Z first, then the count, `return Z, n_flops`.",
                when=lambda got, X, W: isinstance(got, tuple) and len(got) == 2 and _Z(got[1], X @ W) is None),
        Mistake("every row of Z is the same: `[[0.0] * m] * T` makes T names for one list, so each "
                "row you fill overwrites them all. Start from `np.zeros((T, m))`.",
                when=lambda got, X, W: X.shape[0] > 1 and _part(got, 0, np.tile((X @ W)[-1], (X.shape[0], 1)), _Z)),
        Mistake("Z holds whole numbers: an integer array (`dtype=int`) cuts off every sum's fraction. "
                "`np.zeros((T, m))` makes floats.",
                when=lambda got, X, W: isinstance(got, tuple) and np.asarray(got[0]).dtype.kind in "iub"),
        Mistake("Z needs shape (T, m): one row per token (row of X), one column per column of W. "
                "Does a loop run over the wrong size?",
                when=lambda got, X, W: isinstance(got, tuple) and np.shape(got[0]) != (X.shape[0], W.shape[1])),
        Mistake("each entry also holds the entries before it: set the sum back to 0 for every "
                "(t, j) before adding up its d products.",
                when=lambda got, X, W: _part(got, 0, _running_sum(X, W), _Z)
                or _part(got, 0, _running_sum_j_outer(X, W), _Z)),
        Mistake("{call}: Z is right, but you counted one FLOP per term (the multiplies only, or the "
                "adds only). Each term of a dot product is a multiply and an add: 2 FLOPs.",
                when=_count_is(lambda T, d, m: T * d * m)),
        Mistake("{call}: Z is right, and T*m*(2d - 1) is an honest count of a sum that starts from "
                "its first product. The exercise (and the usual convention) counts every term as a "
                "multiply-add, as in a sum that starts at 0: count 2 FLOPs for each of the d terms.",
                when=_count_is(lambda T, d, m: T * m * (2 * d - 1))),
        Mistake("{call}: Z is right, but the count covers one output entry per step; each entry "
                "is a sum of d products.",
                when=lambda got, X, W: _count_is(lambda T, d, m: T * m)(got, X, W)
                or _count_is(lambda T, d, m: 2 * T * m)(got, X, W)),
        Mistake("{call}: Z is right, but the count is for one token; X holds T of them.",
                when=lambda got, X, W: X.shape[0] > 1 and _count_is(lambda T, d, m: 2 * d * m)(got, X, W)),
    ],
    success="Z == X @ W entry by entry, and your loop did 2 * T * d * m FLOPs: d multiply-adds for "
            "each of the T * m outputs.",
    name="matmul_by_dots",
)

# Exercise 3 ----------------------------------------------------------------------------

_time_prediction = Prediction(
    "Exercise 3 (time per token)",
    why="X @ W reads all of W once, however many tokens X holds, while each token's arithmetic stays "
        "2 FLOPs per weight. With one token the processor mostly waits for W's 2.4 million weights to "
        "arrive (from the cache in this timing, from main memory in a large model); with many tokens "
        "each weight, once there, serves every token, so the time per token falls until the arithmetic "
        "units are busy. Notebook 09 comes back to this: generating text one token at a time is "
        "limited by reading the weights.",
    choices=("falls", "stays about the same", "grows"),
    variable="my_time_guess",
    answer="the answer is",
)

EX3 = "Exercise 3 (time per token)"
_TIME_GUESSES = {
    "stays about the same": "The arithmetic per token is indeed the same at every T (2 * d * m FLOPs), but it "
                            "is not all the time takes: bringing W's weights in is paid once per product and "
                            "shared by its T tokens, so each token's share of it shrinks as T grows.",
    "grows": "No token's arithmetic gets harder as T grows (each still needs 2 * d * m FLOPs), and W is brought "
             "in once for all T tokens, not once per token: nothing per token grows.",
}


@referee(EX3)
def check_time_guess(guess, actual):
    """Exercise 3: how the time per token changes with T; each wrong choice gets what it leaves out."""
    fb = _time_prediction(guess, actual)
    key = _choice(guess, _time_prediction.choices) if isinstance(guess, str) else None   # "rises" is "grows"
    if fb.status != "wrong" or key not in _TIME_GUESSES or key == actual:
        return fb
    return wrong(EX3, say("{said} {named}", said=fb.message, named=say(_TIME_GUESSES[key])))


check_time_guess.choices = _time_prediction.choices     # the choices, as the Prediction it wraps has them


# Exercise 4 ----------------------------------------------------------------------------


def _fold_reference(W1, b1, W2, b2):
    return W1 @ W2, b1 @ W2 + b2


def _bias_is(make):
    return lambda got, W1, b1, W2, b2: _part(got, 1, make(W1, b1, W2, b2), arrays())


_rng = np.random.default_rng(2)
_SQUARE_LAYERS = (_rng.normal(size=(4, 4)), _rng.normal(size=4), _rng.normal(size=(4, 4)), _rng.normal(size=4))
_LAYERS = (_rng.normal(size=(4, 6)), _rng.normal(size=6), _rng.normal(size=(6, 4)), _rng.normal(size=4))
_NARROW = (_rng.normal(size=(3, 5)), _rng.normal(size=5), _rng.normal(size=(5, 2)), _rng.normal(size=2))

check_fold_layers = Check(
    "Exercise 4 (fold two layers with biases)",
    reference=_fold_reference,
    cases=[_SQUARE_LAYERS, _LAYERS, _NARROW],
    compare=_pair("W", "b", arrays(), arrays()),
    mistakes=[
        Mistake("your W is W2 @ W1, the product in the wrong order: x meets W1 first, so "
                "W = W1 @ W2.",
                when=lambda got, W1, b1, W2, b2: _part(got, 0, W2 @ W1, arrays())),
        Mistake("b1 is added before W2, so it passes through W2 too: the folded bias is not "
                "b1 + b2.", when=_bias_is(lambda W1, b1, W2, b2: b1 + b2)),
        Mistake("you returned (b, W): return the matrix first, `return W, b`.",
                when=lambda got, W1, b1, W2, b2: _part(got, 1, W1 @ W2, arrays())),
        Mistake("W2 @ b1 treats b1 as a column; b1 is a row like x, so it meets W2 on the left: b1 @ W2.",
                when=_bias_is(lambda W1, b1, W2, b2: W2 @ b1 + b2)),
        Mistake("your bias leaves out b1, but b1 reaches the output through W2.",
                when=_bias_is(lambda W1, b1, W2, b2: b2)),
        Mistake("your bias leaves out b2, which is added at the very end.",
                when=_bias_is(lambda W1, b1, W2, b2: b1 @ W2)),
    ],
    success="x @ W + b == (x @ W1 + b1) @ W2 + b2: with nothing in between, two layers with "
            "biases are one layer, W = W1 @ W2 and b = b1 @ W2 + b2.",
    name="fold_layers",
)
