"""Notebook 11, exercise 4 (stretch): within_capacity, which assignments fit in each expert's
capacity, with the wrong layouts and an unstable sort named."""

import torch
import torch.nn.functional as F

from helpers.checks.core import attempt, referee, wrong
from helpers.checks.nb11_mixture_of_experts.ex3_moe_layer import _Calls
from helpers.checks.runner import Check, Mistake
from helpers.checks.show import say


def within_capacity(experts, n_experts, capacity):
    """(T, k) bool: assignment kept when it is among its expert's first `capacity`, in (T, k)
    order."""
    one_hot = F.one_hot(experts.flatten(), n_experts)             # (T*k, E), row-major: token order
    # 0-based place in its expert's queue
    place = (one_hot.cumsum(0) * one_hot).sum(-1) - 1
    return (place < capacity).view_as(experts)


def _slot_major(experts, n_experts, capacity):
    """GShard's priority: every token's first choice before any second choice."""
    return within_capacity(experts.T.contiguous(), n_experts, capacity).T


def _same_mask():
    def compare(got, expected):
        if not isinstance(got, torch.Tensor) or got.dtype != torch.bool:
            return say("returned {kind}; expected a bool tensor of shape {shape}",
                       kind=type(got).__name__, shape=str(tuple(expected.shape)))
        if got.shape != expected.shape:
            return say("has shape {shape}; expected {expected}", shape=str(tuple(got.shape)),
                       expected=str(tuple(expected.shape)))
        if torch.equal(got, expected):
            return None
        return say("keeps {got} assignments; expected {expected} ({mask})", got=int(got.sum()),
                   expected=int(expected.sum()), mask=str(expected.int().tolist()))
    return compare


_ROUTES = [
    (torch.tensor([[0, 2], [2, 1], [0, 2], [1, 0], [2, 0], [0, 1]]), 4, 2),
    (torch.tensor([[3, 1], [3, 0], [1, 3], [3, 2], [1, 0]]), 4, 1),
    (torch.tensor([[0, 1], [1, 0], [0, 1]]), 2, 3),                 # nothing over capacity
]


def _many_ties(T=40, n_experts=4, k=2, seed=4):
    """T tokens' top-k routes over few experts: 80 assignments, about 20 per expert, where torch's
    argsort without stable=True returns the ties of one expert out of token order (it does from
    about 48 on)."""
    g = torch.Generator().manual_seed(seed)
    return torch.stack([torch.randperm(n_experts, generator=g)[:k] for _ in range(T)])


_ROUTES.append((_many_ties(), 4, 12))


def _by_unstable_sort(experts, n_experts, capacity):
    """Places in each expert's queue read off an argsort that was not asked to be stable."""
    flat = experts.flatten()
    order = flat.argsort()
    ranked = flat[order]
    place = torch.empty_like(flat)
    place[order] = torch.arange(len(flat)) - torch.searchsorted(ranked, ranked)
    return (place < capacity).view_as(experts)


_UNSTABLE = ("your places in the queue come from a sort that was not asked to be stable: "
             "torch.sort and argsort return equal keys (assignments to the same expert) in any "
             "order unless you pass stable=True, so the first `capacity` of an expert are not its "
             "first in token order. Pass stable=True, or count with a running sum.")

class _ChangedInPlace:
    """What the learner's function returned, when it also changed the `experts` it was given."""

    def __init__(self, got):
        self.got = got


_SORTED_LAYOUT = ("your mask lines up with the experts sorted (within each row, or all together), "
                  "not with `experts` as given: True must sit where that assignment sits in the "
                  "(T, k) table. If you sort to group by expert, sort a copy (argsort) and scatter "
                  "the result back to the original places.")

_CAPACITY = Check(
    "Exercise 4 (keep what fits)",
    reference=within_capacity,
    cases=_ROUTES,
    compare=_same_mask(),
    mistakes=[
        Mistake("your function changed `experts`, the routing table it was given, in place (sorted "
                "it?). The layer still needs that table to send the outputs back: work on a copy, "
                "or with argsort, and leave the caller's tensor as it came.",
                when=lambda got, *case: isinstance(got, _ChangedInPlace)),
        Mistake(_SORTED_LAYOUT,
                answer=lambda e, n, c: within_capacity(e.sort(dim=-1).values, n, c)),
        Mistake(_SORTED_LAYOUT,
                answer=lambda e, n, c:
                    within_capacity(e.flatten().sort().values.view_as(e), n, c)),
        Mistake(_UNSTABLE, answer=_by_unstable_sort),
        Mistake("each expert keeps one assignment too many: with a 0-based place in the queue, "
                "keep place < capacity (or a 1-based count <= capacity).",
                answer=lambda e, n, c: within_capacity(e, n, c + 1)),
        Mistake("every token's first choice went before any second choice (GShard's "
                "priority); this exercise keeps (T, k) order: row by row, a token's "
                "first choice before its second.",
                answer=_slot_major),
        Mistake("each expert kept its last assignments; capacity goes to the "
                "first ones, in token order.",
                answer=lambda e, n, c: within_capacity(e.flip(0, 1), n, c).flip(0, 1)),
        Mistake("the capacity was counted over all experts together; each "
                "expert has its own queue.",
                answer=lambda e, n, c: (torch.arange(e.numel()) < c).view_as(e)),
        Mistake("an expert over capacity lost all its assignments (its total count compared with "
                "the capacity); it keeps its first `capacity` and drops only the rest: each "
                "assignment needs its own place in its expert's queue.",
                answer=lambda e, n, c: torch.bincount(e.flatten(), minlength=n)[e] <= c),
        Mistake("an expert over capacity kept all its assignments and the others lost theirs: True "
                "marks what fits, the assignments among each expert's first `capacity`.",
                answer=lambda e, n, c: ~within_capacity(e, n, c)),
    ],
    success="each expert keeps its first `capacity` assignments in token order; the rest are "
            "dropped. A dropped assignment adds nothing; a token skips the layer (the residual "
            "carries it unchanged) only when all its top_k assignments are dropped.",
    name="within_capacity",
)


@referee(_CAPACITY.exercise)
def check_capacity(fn):
    """Exercise 4: within_capacity(experts, n_experts, capacity) -> (T, k) bool; `experts` left as
    it came."""
    if fn is None or not callable(fn):
        return _CAPACITY(fn)

    def guarded(experts, n_experts, capacity):
        mine = experts.clone()
        got = fn(mine, n_experts, capacity)
        return got if got is None or torch.equal(mine, experts) else _ChangedInPlace(got)
    guarded.__wrapped__ = fn   # the runner reads the learner's stub through the wrapper
    fb = _CAPACITY(guarded)
    if fb.status != "correct":
        return fb
    with _Calls() as calls:
        attempt(fn, *_ROUTES[-1])
    if calls.unstable:
        return wrong(_CAPACITY.exercise, say(_UNSTABLE))
    return fb
