"""Notebook 10, exercise 2's first check: split_llama's shards, read for their layout (gate and up
by columns, down by rows, the same hidden units in each) before their values."""

import torch

from helpers import tensor_parallel
from helpers.checks.core import shape_str
from helpers.checks.nb10_tensor_parallel.ex2_cases import EX2, GATED, SPLIT_CASES
from helpers.checks.runner import Check, Mistake
from helpers.checks.show import say


def _shapes(shards):
    return [{k: tuple(torch.as_tensor(s[k]).shape) for k in GATED} for s in shards]


def _layout(got, expected):
    """None when `got` is a list of shards splitting the hidden units consistently, else how not."""
    n = len(expected)
    if not isinstance(got, (list, tuple)):
        return say("returned a {kind}; expected a list of {n} dicts", kind=type(got).__name__, n=n)
    if len(got) != n:
        return say("returned {got} shards; expected one per worker, {n}", got=len(got), n=n)
    for rank, shard in enumerate(got):
        if not isinstance(shard, dict) or any(k not in shard for k in GATED):
            return say("gives shard {rank} as {kind}; expected a dict with keys {keys}", rank=rank,
                       kind=type(shard).__name__, keys=str(list(GATED)))
    want = _shapes(expected)
    for rank, (mine, theirs) in enumerate(zip(_shapes(got), want, strict=True)):
        for key in GATED:
            if mine[key] != theirs[key]:
                return say("gives shard {rank}['{key}'] shape {shape}; expected {expected}",
                           rank=rank, key=key,
                           shape=shape_str(mine[key]), expected=shape_str(theirs[key]))
    full = {k: torch.cat([s[k] for s in expected], dim=1 if k != "W_down" else 0) for k in GATED}
    units = []
    for shard in got:
        mine = {k: torch.as_tensor(shard[k]).double() for k in GATED}
        ids = [_unit_ids(mine["W_gate"], full["W_gate"]), _unit_ids(mine["W_up"], full["W_up"]),
               _unit_ids(mine["W_down"].T, full["W_down"].T)]
        if any(i is None for i in ids):
            return say("holds numbers that are not slices of the MLP's weights")
        if not (ids[0] == ids[1] == ids[2]):
            return say("gives a worker W_gate, W_up and W_down for different hidden units")
        units += ids[0]
    return None if sorted(units) == list(range(full["W_up"].shape[1])) else \
        say("does not give every hidden unit to exactly one worker")


def _unit_ids(columns, full):
    """Which column of `full` each column of `columns` is (None if one matches none)."""
    ids = []
    for j in range(columns.shape[1]):
        match = (full - columns[:, j:j + 1]).abs().amax(dim=0) < 1e-12
        if not match.any():
            return None
        ids.append(int(match.nonzero()[0]))
    return ids


def _is(key, shape):
    """A Mistake test: shard 0's `key` has the shape shape(mlp, n)."""
    def when(got, mlp, n):
        return tuple(torch.as_tensor(got[0][key]).shape) == shape(mlp, n)
    return when


_STORED = ("nn.Linear stores its weight as (out, in) (notebook 03's note on storage): take "
           "mlp.{}.weight.T for the math layout x @ W.")

check_split = Check(
    EX2,
    reference=tensor_parallel.split_gated,
    cases=SPLIT_CASES,
    compare=_layout,
    name="split_llama",
    mistakes=[
        Mistake("W_gate has shape (d_ff / N, d_model): " + _STORED.format("gate_proj"),
                when=_is("W_gate", lambda m, n: (m.d_ff // n, m.d_model))),
        Mistake("W_gate has shape (d_model / N, d_ff): you split it by rows. Split by columns, so "
                "each worker owns whole hidden units: W_gate[:, units].",
                when=_is("W_gate", lambda m, n: (m.d_model // n, m.d_ff))),
        Mistake("W_up has shape (d_ff / N, d_model): " + _STORED.format("up_proj"),
                when=_is("W_up", lambda m, n: (m.d_ff // n, m.d_model))),
        Mistake("W_down has shape (d_model, d_ff / N): " + _STORED.format("down_proj"),
                when=_is("W_down", lambda m, n: (m.d_model, m.d_ff // n))),
        Mistake("W_down has shape (d_ff, d_model / N): you split it by columns. Split it by rows, "
                "the rows of the worker's own hidden units: W_down[units, :].",
                when=_is("W_down", lambda m, n: (m.d_ff, m.d_model // n))),
    ],
)
