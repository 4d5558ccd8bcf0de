"""Notebook 12, exercise 4: check_memit, which traces a shape error to the product that made it
before comparing the update with the reference."""


import torch
from torch.overrides import TorchFunctionMode

from helpers.checks.core import explained_calls
from helpers.checks.nb12_kv_memory_editing.ex4_updates import _MEMIT
from helpers.checks.nb12_kv_memory_editing.shipped import _on_one_thread
from helpers.checks.show import one_line, say


class _Ops(TorchFunctionMode):
    """Records each torch call's name and tensor arguments: a shape error traced to its product."""

    def __init__(self):
        super().__init__()
        self.calls = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        name = getattr(func, "__name__", "")
        self.calls.append((name, [a for a in args if isinstance(a, torch.Tensor)]))
        return func(*args, **(kwargs or {}))


def _named(tensor, W, K, V, C):
    """'K', 'K^T', 'V', ... when `tensor` is one of the inputs (or its transpose), else None."""
    for name, known in (("W", W), ("K", K), ("V", V), ("C", C)):
        for suffix, value in (("", known), ("^T", known.T)):
            if tensor.shape == value.shape and torch.equal(tensor.detach(), value):
                return name + suffix
    return None


_SOLVES = ("solve", "linalg_solve")


def _memit_shape_problem(calls, W, K, V, C):
    """A sentence naming the product that mixed up keys and values (or K and K^T), or None."""
    for name, tensors in calls:
        names = [_named(t, W, K, V, C) for t in tensors]
        if name in ("matmul", "__matmul__", "mm") and names[:2] == ["K^T", "K"]:
            return say("K^T K is (r, r), one number per pair of new facts; the inverse needs K "
                       "K^T, (d_ff, d_ff), a d_ff x d_ff matrix like C: lam * C + K @ K.T.")
        if name in ("matmul", "__matmul__", "mm") and names[:2] == ["W", "V"]:
            return say("W @ V: W maps keys (d_ff) to values (d_model), so it multiplies the keys "
                       "K: R = V - W @ K.")
        if name in _SOLVES and len(names) > 1 and names[1] in ("V", "V^T"):
            return say("the values V went into the solve; the keys K do: R K^T (lam C + K K^T)^-1, "
                       "with torch.linalg.solve(lam * C + K @ K.T, K).T, and V only in "
                       "R = V - W @ K.")
    name, tensors = calls[-1] if calls else ("", [])
    shapes = [tuple(t.shape) for t in tensors]
    d_model, d_ff, r = W.shape[0], W.shape[1], K.shape[1]
    if name in ("matmul", "__matmul__", "mm") and shapes[:2] == [(d_model, r), (d_ff, r)]:
        return say("R (d_model, r) met a (d_ff, r) matrix: A^-1 K from torch.linalg.solve(A, K) "
                   "needs its transpose, (r, d_ff), so that R (A^-1 K)^T is (d_model, d_ff).")
    if name in _SOLVES and shapes[1:2] == [(r, d_ff)]:
        return say("torch.linalg.solve(A, B) wants B with d_ff rows: pass K, (d_ff, r), and "
                   "transpose the result, not K^T.")
    return None


def _diagnosed(fn):
    """fn, with a shape error it raises turned into a sentence about the product that caused it."""
    def run(W, K, V, C, lam):
        inputs = [t.clone() for t in (W, K, V, C)]
        try:
            with _Ops() as ops:
                return fn(W, K, V, C, lam)
        except RuntimeError as err:
            problem = _memit_shape_problem(ops.calls, *inputs)
            if problem is None:
                raise
            raise RuntimeError(say("{err}. {problem}",
                                   err=one_line(err, 160), problem=problem)) from None
    run.__wrapped__ = fn   # the runner reads the learner's stub through the wrapper
    return run


def _check_memit(fn):
    """Exercise 4: memit_update(W, K, V, C, lam) -> W' (d_model, d_ff), the inputs unchanged."""
    if fn is None or not callable(fn):
        return _MEMIT(fn)
    return _MEMIT(_diagnosed(fn))   # the runner hands the learner copies


check_memit = _on_one_thread(_check_memit, _MEMIT.exercise)
# Called with the wrong number of arguments, a check says how to call it (not Python's TypeError).
check_memit = explained_calls(_MEMIT.exercise, check_memit)
