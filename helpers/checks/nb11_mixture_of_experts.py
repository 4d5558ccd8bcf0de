"""Checks for notebook 11's exercises (mixture of experts).

1. A prediction: how many of Mixtral 8x7B's parameters one token uses.
2. A prediction: how many of a layer's 8 experts one decode step of 16 tokens reads.
3. `class MoELayer(nn.Module)` with a sorted dispatch: helpers.moe.MoE's weights are loaded into it.
4. (stretch) Which assignments fit within each expert's capacity.
"""

import torch
import torch.nn.functional as F
from torch import nn

from helpers.checks.core import attempt, referee, wrong
from helpers.checks.module import ModuleCheck
from helpers.checks.runner import Check, Mistake, Prediction
from helpers.checks.state import seeded
from helpers.moe import MoE

D_MODEL, D_FF, N_EXPERTS, TOP_K, T = 16, 32, 8, 2, 24

check_active_guess = Prediction(
    "Exercise 1 (predict the active parameters)",
    why="A token runs through 2 of the 8 experts in every layer, but also through everything that is "
        "not an expert (attention, embeddings, norms, the router), which every token uses: more than "
        "2/8 of 46.7B = 11.7B.",
    choices=(5.8, 11.7, 12.9, 23.4, 46.7),
    variable="my_active_guess",
    fmt="{}B",
)

check_experts_guess = Prediction(
    "Exercise 2 (predict the experts a batch reads)",
    why="Each token leaves a given expert out with probability 6/8; all 16 leave it out with "
        "probability (6/8)^16 = 1%, so on average 8 x (1 - 0.75^16) = 7.9 experts are read: almost all.",
    choices=tuple(range(1, N_EXPERTS + 1)),
    variable="my_experts_guess",
    fmt="{}",
)


class _Reference(MoE):
    """helpers.moe.MoE returning only its output, as the learner's layer does."""

    def forward(self, x):
        return super().forward(x)[0]


def _reference():
    with seeded(11):
        return _Reference(D_MODEL, D_FF, N_EXPERTS, TOP_K).double()


def _tokens():
    return torch.randn(T, D_MODEL, generator=torch.Generator().manual_seed(11), dtype=torch.float64)


def _mixed(weights_of, used=TOP_K):
    """The output a typical mistake gives: the first `used` of each token's top-k experts,
    weighted by weights_of(logits, top logits, ids)."""
    def answer(ref, x):
        logits = ref.router(x)                                      # (T, E)
        top, ids = logits.topk(TOP_K, dim=-1)                       # (T, k)
        weights = weights_of(logits, top, ids)[:, :used]            # (T, used)
        outputs = torch.stack([expert(x) for expert in ref.experts], dim=1)   # (T, E, d_model)
        picked = outputs[torch.arange(len(x))[:, None], ids[:, :used]]        # (T, used, d_model)
        return (weights[..., None] * picked).sum(1)
    return answer


_FIRST_ONLY = ("only each token's first choice counts: every one of its top_k experts adds its weighted "
               "output.")


_module_check = ModuleCheck(
    "Exercise 3 (an MoE layer with a sorted dispatch)",
    reference=_reference,
    build=lambda cls: cls(D_MODEL, D_FF, N_EXPERTS, TOP_K),
    inputs=_tokens,
    mistakes=[
        Mistake("your forward returns a tuple; return only the output, a (T, d_model) tensor.",
                when=lambda got, ref, x: isinstance(got, tuple)),
        Mistake("each token's expert outputs are added without weights: multiply each by its router "
                "weight, softmax(top-k logits).", answer=_mixed(lambda lg, top, ids: torch.ones_like(top))),
        Mistake("the experts are weighted by the raw router logits: take the softmax over each "
                "token's k chosen logits first.", answer=_mixed(lambda lg, top, ids: top)),
        Mistake("the weights are the softmax over all E experts, not renormalised over the k chosen: "
                "each token's weights must sum to 1.",
                answer=_mixed(lambda lg, top, ids: lg.softmax(-1).gather(1, ids))),
        Mistake(_FIRST_ONLY, answer=_mixed(lambda lg, top, ids: torch.ones_like(top), used=1)),
        Mistake(_FIRST_ONLY, answer=_mixed(lambda lg, top, ids: top.softmax(-1), used=1)),
    ],
    success="helpers.moe.MoE's router and experts load into your layer and give the same output: the "
            "sorted dispatch equals the per-expert loop.",
    name="your MoE layer",
)


@referee(_module_check.exercise)
def check_moe_layer(cls):
    """Exercise 3: MoELayer(d_model, d_ff, n_experts, top_k) loaded with MoE's state_dict."""
    layer = attempt(lambda c: c(D_MODEL, D_FF, N_EXPERTS, TOP_K), cls, copies=False)   # the module check reports a failure
    if isinstance(getattr(layer, "experts", None), (list, tuple)) and layer.experts:
        return wrong(_module_check.exercise, "self.experts is a Python list, so its parameters are not "
                     "registered and the reference's weights cannot load: wrap it in nn.ModuleList.")
    if isinstance(getattr(layer, "router", None), nn.Linear) and layer.router.bias is not None:
        return wrong(_module_check.exercise, "the router has a bias; Mixtral's router (its 'gate') has "
                     "none: nn.Linear(d_model, n_experts, bias=False).")
    return _module_check(cls)


def within_capacity(experts, n_experts, capacity):
    """(T, k) bool: assignment kept when it is among its expert's first `capacity`, in (T, k) order."""
    one_hot = F.one_hot(experts.flatten(), n_experts)             # (T*k, E), row-major: token order
    place = (one_hot.cumsum(0) * one_hot).sum(-1) - 1             # 0-based place in its expert's queue
    return (place < capacity).view_as(experts)


def _slot_major(experts, n_experts, capacity):
    """GShard's priority: every token's first choice before any second choice."""
    return within_capacity(experts.T.contiguous(), n_experts, capacity).T


def _same_mask():
    def compare(got, expected):
        if not isinstance(got, torch.Tensor) or got.dtype != torch.bool:
            return f"returned {type(got).__name__}; expected a bool tensor of shape {tuple(expected.shape)}"
        if got.shape != expected.shape:
            return f"has shape {tuple(got.shape)}; expected {tuple(expected.shape)}"
        if torch.equal(got, expected):
            return None
        return f"keeps {int(got.sum())} assignments; expected {int(expected.sum())} ({expected.int().tolist()})"
    return compare


_ROUTES = [
    (torch.tensor([[0, 2], [2, 1], [0, 2], [1, 0], [2, 0], [0, 1]]), 4, 2),
    (torch.tensor([[3, 1], [3, 0], [1, 3], [3, 2], [1, 0]]), 4, 1),
    (torch.tensor([[0, 1], [1, 0], [0, 1]]), 2, 3),                 # nothing over capacity
]

check_capacity = Check(
    "Exercise 4 (keep what fits)",
    reference=within_capacity,
    cases=_ROUTES,
    compare=_same_mask(),
    mistakes=[
        Mistake("each expert keeps one assignment too many: with a 0-based place in the queue, keep "
                "place < capacity (or a 1-based count <= capacity).",
                answer=lambda e, n, c: within_capacity(e, n, c + 1)),
        Mistake("every token's first choice went before any second choice (GShard's priority); this "
                "exercise keeps (T, k) order: row by row, a token's first choice before its second.",
                answer=_slot_major),
        Mistake("each expert kept its last assignments; capacity goes to the first ones, in token order.",
                answer=lambda e, n, c: within_capacity(e.flip(0, 1), n, c).flip(0, 1)),
        Mistake("the capacity was counted over all experts together; each expert has its own queue.",
                answer=lambda e, n, c: (torch.arange(e.numel()) < c).view_as(e)),
    ],
    success="each expert keeps its first `capacity` assignments in token order; the rest are dropped "
            "(those tokens skip the layer through the residual).",
    name="within_capacity",
)
