"""Exercise 3: `class SelfAttention(nn.Module)`, into which
helpers.attention.CausalSelfAttention's weights are loaded; each typical mistake (the scale, the
mask, the heads' split or merge, the order of q, k and v) is named by the output it gives."""

import math

import torch

from helpers.attention import CausalSelfAttention, causal_mask
from helpers.checks.module import ModuleCheck
from helpers.checks.runner import Mistake
from helpers.checks.state import seeded

D_MODEL, N_HEAD = 16, 2


def _reference(seed=7):
    """The module whose weights load into the learner's: d_model 16, 2 heads, biases, float64."""
    with seeded(seed):
        return CausalSelfAttention(D_MODEL, N_HEAD).double()


def _attention_with(scale="d_head", mask="causal", dim=-1, n_head=None, project=True,
                    split="transpose", merge="transpose", order="qkv", first_only=False):
    """The output a typical mistake gives: (reference, x) -> (B, T, d_model).

    scale: "d_head" (right), "d_model", "none", or "d_head no sqrt" / "d_model no sqrt" (divided by
    d, not sqrt(d)). split / merge: "transpose" (right), "view" for heads made (or put back) without
    the transpose, "interleaved" for heads taken as every n_head-th number (view(B, T, d_head,
    n_head)), "batch" for transpose(0, 2).
    mask: "causal", "zero", "none", "upside-down", "after softmax" (weights zeroed after the
    softmax) or "-inf after softmax". order: the order q, k, v were unpacked from c_attn's output
    ("kqv": k first, ...).
    first_only: every sequence gets the first sequence's output.
    """
    def answer(ref, x):
        if first_only:
            return answer_all(ref, x[:1]).expand_as(x)
        return answer_all(ref, x)

    def answer_all(ref, x):
        B, T, C = x.shape
        nh = n_head or ref.n_head
        hs = C // nh
        parts = dict(zip("qkv", ref.c_attn(x).split(C, dim=2), strict=True))
        q, k, v = (parts[name] for name in order)
        if split == "transpose":
            q, k, v = (t.view(B, T, nh, hs).transpose(1, 2) for t in (q, k, v))
        # head h takes numbers h, h + n_head, ...: not the slice the weights made
        elif split == "interleaved":
            q, k, v = (t.reshape(B, T, hs, nh).permute(0, 3, 1, 2) for t in (q, k, v))
        # (B, T, nh, hs).transpose(0, 2): (nh, T, B, hs), attention across sequences
        elif split == "batch":
            q, k, v = (t.reshape(B, T, nh, hs).transpose(0, 2) for t in (q, k, v))
        # (B, T, C) read straight as (B, nh, T, hs): each "head" holds pieces of other tokens
        else:
            q, k, v = (t.reshape(B, nh, T, hs) for t in (q, k, v))
        factor = {"d_head": 1 / math.sqrt(hs), "d_model": 1 / math.sqrt(C), "none": 1.0,
                  "d_head no sqrt": 1 / hs, "d_model no sqrt": 1 / C}[scale]
        scores = q @ k.transpose(-2, -1) * factor
        allowed = causal_mask(scores.shape[-1])
        if mask in ("after softmax", "-inf after softmax"):
            fill = 0.0 if mask == "after softmax" else float("-inf")
            weights = torch.softmax(scores, dim=dim).masked_fill(~allowed, fill)
        else:
            hidden = {"causal": ~allowed, "zero": ~allowed, "none": torch.zeros_like(allowed),
                      "upside-down": ~allowed.T}[mask]
            weights = torch.softmax(
                scores.masked_fill(hidden, 0.0 if mask == "zero" else float("-inf")), dim=dim)
        y = weights @ v
        if split == "batch":
            y = y.transpose(0, 2).reshape(B, T, C) if merge == "transpose" else y.reshape(B, T, C)
        elif split == "interleaved":
            y = y.permute(0, 2, 3, 1).reshape(B, T, C)
        else:
            y = y.transpose(1, 2).reshape(B, T, C) if merge == "transpose" else y.reshape(B, T, C)
        return ref.c_proj(y) if project else y
    return answer


def _same_as(mistake):
    """A Mistake test: the learner's output is the mistake's, NaN and infinities where it has them
    included."""
    def when(got, ref, x):
        got, theirs = torch.as_tensor(got), mistake(ref, x)
        return got.shape == theirs.shape and bool(torch.allclose(got.double(), theirs, rtol=1e-6,
                                                                 atol=1e-6,
                                                                 equal_nan=True))
    return when


def _infinite_but_last_row(got, ref, x):
    """-inf put into the weights after the softmax: every token but the last reads a -inf weight."""
    finite = torch.isfinite(torch.as_tensor(got)).all(dim=-1)          # (B, T)
    return bool((~finite[:, :-1]).all() and finite[:, -1].all())


_NO_TRANSPOSE = ("your heads were made without the transpose: q.reshape(B, n_head, T, d_head) "
                 "reads one token's numbers as if they belonged to several tokens. View q as (B, "
                 "T, n_head, d_head), then .transpose(1, 2) to (B, n_head, T, d_head).")

# Each typical mistake, as the output it gives with the reference's weights, and the sentence that
# names it.
_WRONG_ORDER = ("you unpacked c_attn's output in another order: it holds q, k and v side by side, "
                "in that order (W_q, W_k, W_v), so write q, k, v = self.c_attn(x).split(d_model, "
                "dim=2).")
_ORDERS = ("kqv", "qvk", "vkq", "kvq", "vqk")

_ATTENTION_MISTAKES = [
    Mistake("your softmax runs over the heads (dim=1): each head's weights over the keys must sum "
            "to 1 on their own, so take it over the last dimension. (Over the heads, the masked "
            "entries are -inf in every head at once, and 0/0 gives NaN.)",
            when=_same_as(_attention_with(dim=1))),
    Mistake("your softmax runs over the batch (dim=0): each sequence's weights are its own, over "
            "the keys of its own tokens; take it over the last dimension.",
            when=_same_as(_attention_with(dim=0))),
    Mistake("you masked after the softmax, with -inf: the weights themselves then hold -inf. Fill "
            "the scores with -inf before the softmax, so that the softmax turns them into weights "
            "of exactly 0.",
            when=_same_as(_attention_with(mask="-inf after softmax"))),
    Mistake("you divided the scores by d_head, not by its square root: a dot product of d_head "
            "terms has a standard deviation of sqrt(d_head) (section 1), so divide by "
            "math.sqrt(d_head).",
            answer=_attention_with(scale="d_head no sqrt")),
    Mistake("you divided the scores by d_model: the scale is the square root of each head's width, "
            "math.sqrt(d_head), with d_head = d_model / n_head.",
            answer=_attention_with(scale="d_model no sqrt")),
    *[Mistake(_WRONG_ORDER, answer=_attention_with(order=order)) for order in _ORDERS],
    Mistake("your heads take every n_head-th number (a view as (B, T, d_head, n_head)); a head is "
            "a slice of d_head neighbouring numbers: view as (B, T, n_head, d_head), then "
            ".transpose(1, 2).",
            answer=_attention_with(split="interleaved")),
    Mistake("you swapped dimensions 0 and 2 (transpose(0, 2)): the batch then sits where the "
            "tokens should, and tokens of different sequences attend to each other. Swap "
            "dimensions 1 and 2: (B, n_head, T, d_head).",
            answer=_attention_with(split="batch")),
    Mistake("every sequence got the first sequence's output: your forward uses x[0] (one batch "
            "element) for all. Work on the whole batch: x is (B, T, d_model), and every step keeps "
            "B in front.",
            answer=_attention_with(first_only=True)),
    Mistake("your module returns the output of one sequence: x holds B sequences, (B, T, d_model), "
            "and the output must keep all of them.",
            when=lambda got, ref, x: torch.as_tensor(got).dim() in (2, 3) and
            tuple(torch.as_tensor(got).shape)[-2:] == tuple(x.shape[1:]) and
            (torch.as_tensor(got).dim() == 2 or torch.as_tensor(got).shape[0] == 1)),
    Mistake("you masked after the softmax, with -inf: the weights themselves then hold -inf. Fill "
            "the scores with -inf before the softmax, so that the softmax turns them into weights "
            "of exactly 0.",
            when=_infinite_but_last_row),
    Mistake("your output holds NaN: a whole row of scores is -inf, so some token sees nothing at "
            "all. Hide exactly the future (j > i); every token must at least see itself.",
            when=lambda got, ref, x: bool(torch.isnan(got).any())),
    Mistake("the scores are not scaled: divide q @ k^T by sqrt(d_head) (section 1), or the softmax "
            "saturates as d_head grows.", answer=_attention_with(scale="none")),
    Mistake("you divided by sqrt(d_model); each head's dot product has d_head = d_model / n_head "
            "terms, so divide by sqrt(d_head).", answer=_attention_with(scale="d_model")),
    Mistake("your module uses one head of d_model numbers; split q, k and v into n_head heads of "
            "d_head numbers each (view, then transpose to (B, n_head, T, d_head)).",
            answer=_attention_with(scale="d_model", n_head=1)),
    Mistake("there is no causal mask: every token reads the future too. Fill the scores where j > "
            "i with -inf before the softmax.", answer=_attention_with(mask="none")),
    Mistake("you masked with 0, but exp(0) = 1 still gives the future a weight: mask with -inf.",
            answer=_attention_with(mask="zero")),
    Mistake("the mask is upside down: your tokens read the future and not the past. Hide j > i "
            "(above the diagonal), keep j <= i.", answer=_attention_with(mask="upside-down")),
    Mistake("the softmax runs down the columns (dim=-2): each token's weights over the keys it "
            "reads must sum to 1, so take it over the last dimension.",
            answer=_attention_with(dim=-2)),
    Mistake("you masked after the softmax: zeroing the future's weights leaves each row summing to "
            "less than 1. Fill the scores with -inf before the softmax; it then gives the future "
            "exactly 0 and the rest sums to 1.", answer=_attention_with(mask="after softmax")),
    Mistake(_NO_TRANSPOSE, answer=_attention_with(split="view", merge="view")),
    Mistake(_NO_TRANSPOSE, answer=_attention_with(split="view")),
    Mistake("the heads are put back without the transpose: y is (B, n_head, T, d_head), so "
            "y.reshape(B, T, d_model) mixes tokens. Write y.transpose(1, 2).reshape(B, T, "
            "d_model).",
            answer=_attention_with(merge="view")),
    Mistake("the output projection is missing: the weighted sum of V goes through c_proj (W^O) "
            "before it leaves attention.", answer=_attention_with(project=False)),
]
_NO_BIAS = ("GPT-2's c_attn and c_proj both have a bias: did you pass bias=False? "
            "nn.Linear(in_features, out_features) has one by default.")

check_attention = ModuleCheck(
    "Exercise 3 (causal self-attention as a module)",
    name="your attention",
    reference=_reference,
    inputs=lambda: torch.randn(2, 6, D_MODEL, generator=torch.Generator().manual_seed(7),
                               dtype=torch.float64),
    build=lambda cls: cls(D_MODEL, N_HEAD),
    mistakes=_ATTENTION_MISTAKES,
    key_hints=dict.fromkeys(["c_attn.bias", "c_proj.bias"], _NO_BIAS),
    success="helpers.attention.CausalSelfAttention's weights load into your module and give the "
            "same output: scores / sqrt(d_head), causal mask, softmax over the keys, weighted sum "
            "of V, W^O.",
)
