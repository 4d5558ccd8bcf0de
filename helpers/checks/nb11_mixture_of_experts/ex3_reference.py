"""Notebook 11, exercise 3's reference: helpers.moe.MoE as the learner's layer returns it, the
tokens, and the outputs of the typical wrong layers (weights not renormalised, one choice only,
a dispatch that loses the tokens' order)."""

import torch

from helpers.checks.state import seeded
from helpers.moe import MoE

D_MODEL, D_FF, N_EXPERTS, TOP_K, T = 16, 32, 8, 2, 24


class _Reference(MoE):
    """helpers.moe.MoE returning only its output, as the learner's layer does."""

    def forward(self, x):
        return super().forward(x)[0]


def _reference():
    with seeded(11):   # nn.Linear draws from the global generator: the learner's state is put back
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


def _smallest():
    """The layer's output with each token sent to its k lowest-scoring experts."""
    def answer(ref, x):
        logits = ref.router(x)
        low, ids = logits.topk(TOP_K, dim=-1, largest=False)
        outputs = torch.stack([expert(x) for expert in ref.experts], dim=1)
        picked = outputs[torch.arange(len(x))[:, None], ids]
        return (low.softmax(-1)[..., None] * picked).sum(1)
    return answer


_FIRST_ONLY = ("only each token's first choice counts: every one of its top_k "
               "experts adds its weighted output.")


def _dispatched(token_of=None, sorted_tokens=True, sorted_weights=True, overwrite=False):
    """The output of a sorted dispatch with a typical slip in it (None: the right one)."""
    def answer(ref, x):
        n, k = len(x), TOP_K
        top, ids = ref.router(x).topk(k, dim=-1)
        expert_of, weight_of = ids.flatten(), top.softmax(-1).flatten()
        token_of_ = torch.arange(n).repeat_interleave(k) if token_of is None else token_of(n, k)
        order = expert_of.argsort(stable=True)
        counts = torch.bincount(expert_of, minlength=N_EXPERTS).tolist()
        out = torch.zeros_like(x)
        start = 0
        for e, group in enumerate(order.split(counts)):
            place = torch.arange(start, start + len(group))           # positions in the sorted list
            start += len(group)
            tokens = token_of_[group if sorted_tokens else place]
            weight = weight_of[group if sorted_weights else place, None]
            y = weight * ref.experts[e](x[tokens])
            if overwrite:
                out[tokens] = y
            else:
                out.index_add_(0, tokens, y)
        return out
    return answer


_SORT_INDEX = ("the assignments were sorted by expert, but the tokens or the weights were then "
               "taken in their unsorted order: index both with the positions the sort gave, "
               "token_of[group] and weight_of[group], not with the place in the sorted list.")
