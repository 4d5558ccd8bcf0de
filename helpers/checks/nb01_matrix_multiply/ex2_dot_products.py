"""Exercise 2: X @ W written from dot products (no @, no np.dot), with a count of the FLOPs it
takes; a product the function calls instead of writing is named."""

import dis
from dataclasses import dataclass

import numpy as np

from helpers.checks.calling import attempt
from helpers.checks.compare import arrays, exact
from helpers.checks.nb01_matrix_multiply.shared import _pair, _part, matmul_flops
from helpers.checks.runner import Check, Mistake
from helpers.checks.show import say
from helpers.checks.verdict import wrong

EX2 = "Exercise 2 (a matmul from dot products)"
_MATMULS = {"matmul", "dot", "vdot", "inner", "einsum", "tensordot", "multi_dot", "mm", "bmm", "mv",
            "linear", "__matmul__", "__rmatmul__"}
_USES_MATMUL = ("your Z is right, but your function uses {what}: the exercise builds the product "
                "without @, from dot products written as loops, so that you see (and count) every "
                "multiply and add a matmul does. Fill Z[t, j] with a sum over i of "
                "X[t, i] * W[i, j].")


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
    """The matrix products the code object (and the functions inside it) writes: `@`, or a name in
    _MATMULS."""
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
    """The matrix products fn runs on the cases' arrays or writes in its code, as a phrase; None
    when none."""
    _Watched.seen = []
    for X, W in cases:
        attempt(fn, X.copy().view(_Watched), W.copy().view(_Watched), copies=False)
    code = getattr(fn, "__code__", None)
    used = set(_Watched.seen) | (_named_products(code) if code is not None else set())
    _Watched.seen = []
    if not used:
        return None
    return ", ".join(sorted({"@" if u in ("@", "matmul", "__matmul__", "__rmatmul__")
                             else "np." + u for u in used}))


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
        Mistake("Z[t, j] uses row j of W (W[j]) where it needs column j (W[:, j], or W[i, j] term "
                "by term): that computes X @ W.T.", when=_z_is(lambda X, W: X @ W.T)),
        Mistake("your Z is transposed: entry (t, j) landed at Z[j, t]. Rows of Z are tokens "
                "(rows of X), columns are the columns of W.",
                when=_z_is(lambda X, W: (X @ W).T)),
        Mistake("you returned (n_flops, Z): return Z first, then the count, `return Z, n_flops`.",
                when=lambda got, X, W: isinstance(got, tuple) and len(got) == 2
                    and _Z(got[1], X @ W) is None),
        Mistake("every row of Z is the same: `[[0.0] * m] * T` makes T names for one list, so each "
                "row you fill overwrites them all. Start from `np.zeros((T, m))`.",
                when=lambda got, X, W: X.shape[0] > 1
                    and _part(got, 0, np.tile((X @ W)[-1], (X.shape[0], 1)), _Z)),
        Mistake("Z holds whole numbers: an integer array (`dtype=int`) cuts off every sum's "
                "fraction. `np.zeros((T, m))` makes floats.",
                when=lambda got, X, W: isinstance(got, tuple)
                    and np.asarray(got[0]).dtype.kind in "iub"),
        Mistake("Z needs shape (T, m): one row per token (row of X), one column per column of W. "
                "Does a loop run over the wrong size?",
                when=lambda got, X, W: isinstance(got, tuple)
                    and np.shape(got[0]) != (X.shape[0], W.shape[1])),
        Mistake("each entry also holds the entries before it: set the sum back to 0 for every "
                "(t, j) before adding up its d products.",
                when=lambda got, X, W: _part(got, 0, _running_sum(X, W), _Z)
                or _part(got, 0, _running_sum_j_outer(X, W), _Z)),
        Mistake("{call}: Z is right, but you counted one FLOP per term (the multiplies only, or "
                "the adds only). Each term of a dot product is a multiply and an add: 2 FLOPs.",
                when=_count_is(lambda T, d, m: T * d * m)),
        Mistake("{call}: Z is right, and T*m*(2d - 1) is an honest count of a sum that starts from "
                "its first product. The exercise (and the usual convention) counts every term as a "
                "multiply-add, as in a sum that starts at 0: count 2 FLOPs for each of the d "
                "terms.",
                when=_count_is(lambda T, d, m: T * m * (2 * d - 1))),
        Mistake("{call}: Z is right, but the count covers one output entry per step; each entry "
                "is a sum of d products.",
                when=lambda got, X, W: _count_is(lambda T, d, m: T * m)(got, X, W)
                or _count_is(lambda T, d, m: 2 * T * m)(got, X, W)),
        Mistake("{call}: Z is right, but the count is for one token; X holds T of them.",
                when=lambda got, X, W: X.shape[0] > 1
                    and _count_is(lambda T, d, m: 2 * d * m)(got, X, W)),
    ],
    success="Z == X @ W entry by entry, and your loop did 2 * T * d * m FLOPs: d multiply-adds for "
            "each of the T * m outputs.",
    name="matmul_by_dots",
)
