"""Checks for notebook 07's exercises (position-wise: attention vs MLP).

1. A prediction: which input tokens output token 3 of causal attention uses.
2. A prediction: is attention linear in V (weights fixed), in X, in both?
3. `class SelfAttention(nn.Module)`: helpers.attention.CausalSelfAttention's weights load into it.
4. (stretch) A sliding-window mask, against helpers.attention.causal_mask.
"""

import math

import torch

from helpers.attention import CausalSelfAttention, causal_mask
from helpers.checks.compare import arrays
from helpers.checks.core import WRONG, explained_calls, referee, wrong
from helpers.checks.module import ModuleCheck
from helpers.checks.runner import Check, Mistake, Prediction, _choice
from helpers.checks.runner import _words as _read_words
from helpers.checks.show import say
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


def _one_too(message, more):
    return Mistake(message,
                   answer=lambda T, window: causal_mask(T, window=window + (1 if more else -1)))


check_window_mask = Check(
    "Exercise 4 (a sliding window)",
    reference=lambda T, window: causal_mask(T, window=window),
    cases=[(7, 3), (6, 1), (5, 9)],
    mistakes=[
        Mistake("{call} is transposed: rows are the tokens that look (i), columns the tokens they "
                "look at (j), so the allowed entries sit on and below the diagonal.",
                answer=lambda T, window: causal_mask(T, window=window).T),
        Mistake("{call} lets a token see a later token (True above the diagonal): a causal window "
                "never looks ahead.",
                when=lambda got, T, window: tuple(torch.as_tensor(got).shape) == (T, T)
                and bool(torch.as_tensor(got).bool().triu(1).any())),
        _one_too("in {call} each token sees one token too many: check the window's edge (itself "
                 "and the window - 1 tokens before it).", more=True),
        _one_too("in {call} each token sees one token too few: check the window's edge (itself and "
                 "the window - 1 tokens before it).", more=False),
    ],
    compare=arrays(atol=0, rtol=0),
    success="each token sees itself and the window - 1 tokens before it; with window >= T it is "
            "the causal mask.",
    name="window_mask",
)


def _named(prediction, key, sentences):
    """A Prediction whose likeliest wrong choices each get a sentence first: what that guess
    assumed."""
    @referee(prediction.exercise)
    def check(guess, actual):
        feedback = prediction(guess, actual)
        try:
            said = sentences.get((key(guess), key(actual)))
        # a guess of another kind altogether: the Prediction said what it is
        except Exception:  # noqa: BLE001
            said = None
        if feedback.status != WRONG or said is None:
            return feedback
        return wrong(prediction.exercise,
                     say("{said} {message}", said=said, message=feedback.message))
    check.choices = prediction.choices   # what a guess may be, as on the Prediction itself
    return check


def _tokens(value):
    """A guess of token numbers (a list, tuple, range, array or tensor) as a tuple of ints."""
    value = value.tolist() if hasattr(value, "tolist") else value
    return tuple(int(v) for v in value)


def _words(value):
    return value.strip().casefold()


_TOKEN3 = Prediction(
    "Exercise 1 (predict token 3's inputs)",
    why="Causal attention gives output 3 a weighted average of the V rows of tokens 1, 2 and 3 "
        "(the mask hides 4 and later); the MLP reads token 3 alone. Source post 2 draws exactly "
        "this picture.",
    choices=([3], [1, 2, 3], [3, 4, 5, 6], [1, 2, 3, 4, 5, 6]),
    variable="my_token3_inputs",
    fmt="{}",
)
_TOKEN3_GUESSES = {
    ((1, 2, 3, 4, 5, 6), (1, 2, 3)): "That is attention without a mask (an encoder such as BERT): "
                                     "the causal mask hides tokens 4, 5 and 6 from token 3.",
    ((3,), (1, 2, 3)): "That is the MLP's answer: attention's output 3 mixes the V rows of every "
                       "token it may see, its own and the earlier ones.",
    ((0, 1, 2), (1, 2, 3)): "The tokens are numbered from 1 here, as in the picture: token 3 is "
                            "the third token, and its inputs are numbered from 1 too.",
    ((2, 3), (1, 2, 3)): "Causal attention does not stop at the token just before: output 3 may "
                         "read every earlier token, the first one too, and itself.",
    ((1, 2), (1, 2, 3)): "The causal mask hides the tokens after token 3, not token 3 itself: each "
                         "output reads its own V row too.",
    ((3, 4, 5, 6), (1, 2, 3)): "That is the mask upside down: a causal token reads the past and "
                               "itself (j <= i), never the future.",
}
_check_token3 = _named(_TOKEN3, _tokens, _TOKEN3_GUESSES)


def check_token3_inputs(guess, actual):
    """Exercise 1: the input tokens (1-based) that output token 3 of causal attention uses."""
    guess = list(guess) if isinstance(guess, (tuple, range)) else guess
    if isinstance(guess, (set, frozenset)) or (isinstance(guess, list)
                                               and sorted(guess) in _TOKEN3.choices
                                               and all(isinstance(g, int) for g in guess)):
        guess = sorted(guess)   # the tokens a token reads, in any order
    return _check_token3(guess, list(actual))


_LINEARITY = Prediction(
    "Exercise 2 (predict where attention is linear)",
    why="With the weights A fixed, V -> A @ V @ W_O is a product of matrices: linear. The weights "
        "themselves are a softmax of X's scores, so doubling X changes the ratios, not just the "
        "scale: as a function of X the layer is not linear.",
    choices=("linear in V and in X", "linear in V only", "linear in X only", "linear in neither"),
    variable="my_linearity_guess",
    fmt="{!r}",
)
_NOT_IN_X = "The softmax acts on X's scores, so X sets the ratios: attention is not linear in X."
_IN_V = ("The softmax never touches V: with the ratios fixed, V -> A @ V @ W_O is a product of "
         "matrices.")
_LINEARITY_GUESSES = {
    ("linear in v and in x", "linear in v only"): _NOT_IN_X,
    ("linear in neither", "linear in v only"): _IN_V,
    ("linear in x only", "linear in v only"): say("{} {}", _IN_V, _NOT_IN_X),
}
def _chosen(guess):
    """The choice a guess names, as words ("V only" reads "linear in v only"); the guess's own words
    if none."""
    choice = _choice(guess, _LINEARITY.choices)
    return _read_words(guess if choice is None else choice)


check_linearity_guess = _named(_LINEARITY, _chosen, _LINEARITY_GUESSES)


# Called with the wrong number of arguments, a check says how to call it (not Python's TypeError).
check_token3_inputs = explained_calls(_TOKEN3.exercise, check_token3_inputs)
