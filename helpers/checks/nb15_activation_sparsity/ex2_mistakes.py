"""Notebook 15, exercise 2's wrong sparse forwards: what a learner's sparse_mlp computes when it
takes the wrong rows, forgets a bias or the activation, or uses one set for every token."""

import torch

from helpers import sparsity
from helpers.checks.compare import arrays


def _parts(x, mlp, active):
    """(rows of c_fc, their bias, columns of c_proj) for one set of active units."""
    idx = active.nonzero().flatten() if active.dtype == torch.bool else active
    return mlp.c_fc.weight[idx], mlp.c_fc.bias[idx], mlp.c_proj.weight[:, idx], idx


def _per_token(one):
    """Apply one(x_t, mlp, active_t) to each token when active is a set per token."""
    def answer(x, mlp, active):
        if active.ndim == 2:
            return torch.stack([one(x_t, mlp, a_t) for x_t, a_t in zip(x, active, strict=True)])
        return one(x, mlp, active)
    return answer


@_per_token
def _no_down_bias(x, mlp, active):
    w, b, v, _ = _parts(x, mlp, active)
    return mlp.act(x @ w.T + b) @ v.T


@_per_token
def _bias_per_unit(x, mlp, active):
    w, b, v, idx = _parts(x, mlp, active)
    return mlp.act(x @ w.T + b) @ v.T + len(idx) * mlp.c_proj.bias


@_per_token
def _swapped(x, mlp, active):
    _, b, _, idx = _parts(x, mlp, active)
    return mlp.act(x @ mlp.c_fc.weight[:, idx] + b) @ mlp.c_proj.weight[idx] + mlp.c_proj.bias


@_per_token
def _no_activation(x, mlp, active):
    w, b, v, _ = _parts(x, mlp, active)
    return (x @ w.T + b) @ v.T + mlp.c_proj.bias


@_per_token
def _activation_last(x, mlp, active):
    w, b, v, _ = _parts(x, mlp, active)
    return mlp.act((x @ w.T + b) @ v.T + mlp.c_proj.bias)


@_per_token
def _no_up_bias(x, mlp, active):
    w, _, v, _ = _parts(x, mlp, active)
    return mlp.act(x @ w.T) @ v.T + mlp.c_proj.bias


@_per_token
def _up_bias_after(x, mlp, active):
    w, b, v, _ = _parts(x, mlp, active)
    return (mlp.act(x @ w.T) + b) @ v.T + mlp.c_proj.bias


@_per_token
def _relu_for_act(x, mlp, active):
    w, b, v, _ = _parts(x, mlp, active)
    return torch.relu(x @ w.T + b) @ v.T + mlp.c_proj.bias


@_per_token
def _gelu_for_act(x, mlp, active):
    w, b, v, _ = _parts(x, mlp, active)
    return torch.nn.functional.gelu(x @ w.T + b) @ v.T + mlp.c_proj.bias


@_per_token
def _down_not_transposed(x, mlp, active):
    w, b, v, _ = _parts(x, mlp, active)
    return mlp.act(x @ w.T + b) @ v + mlp.c_proj.bias


@_per_token
def _down_rows(x, mlp, active):
    w, b, _, idx = _parts(x, mlp, active)
    return mlp.act(x @ w.T + b) @ mlp.c_proj.weight[idx] + mlp.c_proj.bias


def _flattened_per_token(x, mlp, active):
    """A mask per token (T, d_ff) turned into indices as if it were one set: (token, unit) pairs,
    flattened."""
    idx = active.nonzero().flatten()
    hidden = mlp.act(x @ mlp.c_fc.weight[idx].T + mlp.c_fc.bias[idx])
    return hidden @ mlp.c_proj.weight[:, idx].T + mlp.c_proj.bias


def _only(answer, unlike):
    """A Mistake's `when`: got is answer(*case), where that differs from unlike(*case) (on ReLU's
    own active units torch.relu changes nothing, so there it cannot be told from a missing
    activation)."""
    same = arrays(atol=1e-10, rtol=1e-10)

    def when(got, *case):
        return same(got, answer(*case)) is None and same(answer(*case), unlike(*case)) is not None
    return when


def _hidden_returned(got, x, mlp, active):
    """An answer of k numbers per token, k the active units: the hidden units, not the output."""
    k = int(active.sum(-1).max()) if active.dtype == torch.bool else len(active)
    return (getattr(got, "shape", None) is not None and len(got.shape) > 0
            and got.shape[-1] == k != mlp.d_model)


def _batch_union(x, mlp, active):
    return sparsity.sparse_mlp(x, mlp, active.any(0) if active.ndim == 2 else active)


def _first_token(x, mlp, active):
    return sparsity.sparse_mlp(x, mlp, active[0] if active.ndim == 2 else active)
