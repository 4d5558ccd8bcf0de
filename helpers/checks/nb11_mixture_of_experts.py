"""Checks for notebook 11's exercises (mixture of experts).

1. A prediction: how many of Mixtral 8x7B's parameters one token uses.
2. A prediction: how many of a layer's 8 experts one decode step of 16 tokens reads.
3. `class MoELayer(nn.Module)` with a sorted dispatch: helpers.moe.MoE's weights are loaded into it,
   the outputs are compared, and then the dispatch itself is watched (a hook on each expert counts
   its calls and rows; a TorchFunctionMode sees whether anything was sorted).
4. (stretch) Which assignments fit within each expert's capacity.
"""

import math

import torch
import torch.nn.functional as F
from torch import nn
from torch.overrides import TorchFunctionMode

from helpers.checks.core import MISSING, attempt, correct, referee, wrong
from helpers.checks.guesses import NamedPrediction
from helpers.checks.module import ModuleCheck
from helpers.checks.runner import Check, Mistake
from helpers.checks.show import describe, plain, say
from helpers.checks.state import seeded
from helpers.moe import MoE

D_MODEL, D_FF, N_EXPERTS, TOP_K, T = 16, 32, 8, 2, 24

_active_guess = NamedPrediction(
    "Exercise 1 (predict the active parameters)",
    why="A token runs through 2 of the 8 experts in every layer, but also through everything "
        "that is not an expert (attention, embeddings, norms, the router), which every token "
        "uses: more than 2/8 of 46.7B = 11.7B.",
    choices=(5.8, 11.7, 12.9, 23.4, 46.7),
    variable="my_active_guess",
    fmt="{}B",
    mistakes=[
        Mistake("11.7B is 2/8 of the whole model, as if every parameter sat in an expert; "
                "attention, the embeddings, the norms and the router are not copied 8 times, "
                "and every token uses all of them.",
                when=lambda guess, actual: guess == 11.7),
        Mistake("5.8B is 1/8 of the model: one expert's share. Mixtral sends each "
                "token to 2 experts per layer (num_experts_per_tok = 2), and "
                "through the shared parts besides.",
                when=lambda guess, actual: guess == 5.8),
        Mistake("23.4B is half of 46.7B: 2 of 8 experts is a quarter of the expert weights, not a "
                "half; what a token uses is that quarter plus the shared parts.",
                when=lambda guess, actual: guess == 23.4),
        Mistake("46.7B is every parameter the model holds. They all sit in memory "
                "(section 5), but a token runs only its 2 chosen experts in each layer: "
                "the other 6 do no work for it.",
                when=lambda guess, actual: guess == 46.7),
    ],
)

_experts_guess = NamedPrediction(
    "Exercise 2 (predict the experts a batch reads)",
    why="Each token leaves a given expert out with probability 6/8; all 16 leave "
        "it out with probability (6/8)^16 = 1%, so on average 8 x (1 - 0.75^16) = "
        "7.9 experts are read: almost all.",
    choices=tuple(range(1, N_EXPERTS + 1)),
    variable="my_experts_guess",
    fmt="{}",
    mistakes=[
        Mistake("2 is what one token reads (B = 1). In a batch each of the 16 tokens picks its own "
                "2 experts, and the step must read every expert any of them picked.",
                when=lambda guess, actual: guess == 2),
        Mistake("1 would mean all 16 tokens share a single expert; each token picks 2 different "
                "experts, so a step reads at least 2, and with 16 tokens nearly every one.",
                when=lambda guess, actual: guess == 1),
        Mistake("4 is 16 x 2 / 8, the tokens each expert gets on average (its load), "
                "not the number of experts read.",
                when=lambda guess, actual: guess == 4),
        Mistake("7 leaves one expert unread in every step; for that, all 16 tokens would have to "
                "pass it by, which happens with probability (6/8)^16, about 1%: 7.9 rounds to 8.",
                when=lambda guess, actual: guess == 7),
        Mistake("{got:g} assumes the tokens' picks overlap a lot; with 16 tokens each "
                "picking 2 of 8, an expert stays unread only when all 16 pass it by, "
                "probability (6/8)^16, about 1%.",
                when=lambda guess, actual: guess in (3, 5, 6)),
    ],
)



def _value(guess):
    """The guess as a float when it is one real number that is not one of the choices' kind, else
    None."""
    value = plain(guess)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)


@referee(_active_guess.exercise)
def check_active_guess(guess, actual):
    """Exercise 1: Mixtral's active parameters in billions; a count of parameters is read as
    such."""
    fb, value = _active_guess(guess, actual), _value(guess)
    if fb.status != "wrong" or value is None or value < 1e8:
        return fb
    return wrong(_active_guess.exercise, say(
        "you wrote {value:.3g}, a number of parameters; the choices are in billions: {value:.3g} "
        "is {billions:.3g} billion, so write my_active_guess = {billions:.3g}.",
        value=value, billions=value / 1e9))


@referee(_experts_guess.exercise)
def check_experts_guess(guess, actual):
    """Exercise 2: the experts a step of 16 sequences reads; more than the layer holds is named."""
    fb, value = _experts_guess(guess, actual), _value(guess)
    if fb.status != "wrong" or value is None or value <= N_EXPERTS:
        return fb
    return wrong(_experts_guess.exercise, say(
        "you wrote {value:g}, but a layer holds 8 experts, so a step reads at most 8: "
        "{value:g} counts a read per token or per pick, while tokens that pick the "
        "same expert share one read of it.",
        value=value))


# what a guess may be, as on the Prediction itself
check_active_guess.choices = _active_guess.choices
check_experts_guess.choices = _experts_guess.choices


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


_module_check = ModuleCheck(
    "Exercise 3 (an MoE layer with a sorted dispatch)",
    reference=_reference,
    build=lambda cls: cls(D_MODEL, D_FF, N_EXPERTS, TOP_K),
    inputs=_tokens,
    mistakes=[
        Mistake("your forward returns a tuple; return only the output, a (T, d_model) tensor.",
                when=lambda got, ref, x: isinstance(got, tuple)),
        Mistake("each token's expert outputs are added without weights: multiply each by its "
                "router weight, softmax(top-k logits).",
                answer=_mixed(lambda lg, top, ids: torch.ones_like(top))),
        Mistake("the experts are weighted by the raw router logits: take the softmax over each "
                "token's k chosen logits first.", answer=_mixed(lambda lg, top, ids: top)),
        Mistake("the weights are the softmax over all E experts, not renormalised over the k "
                "chosen: each token's weights must sum to 1.",
                answer=_mixed(lambda lg, top, ids: lg.softmax(-1).gather(1, ids))),
        Mistake("the softmax ran over the tokens (dim=0), so each expert's weights sum to 1 down a "
                "column; it goes over each token's own k chosen logits: softmax(dim=-1).",
                answer=_mixed(lambda lg, top, ids: top.softmax(0))),
        Mistake("the weights are sigmoid(logit), one gate per expert on its own; Mixtral mixes the "
                "k chosen experts with a softmax over their logits, so a token's weights sum to 1.",
                answer=_mixed(lambda lg, top, ids: top.sigmoid())),
        Mistake("two softmaxes: a softmax over all E, then another over the k kept "
                "probabilities. Take one: softmax over the k chosen logits (or softmax over E, "
                "keep the top k, divide by their sum).",
                answer=_mixed(lambda lg, top, ids: lg.softmax(-1).gather(1, ids).softmax(-1))),
        Mistake("each token's output is its last expert's alone: `out[tokens] = ...` "
                "overwrites what an earlier expert wrote for the same token. Add with "
                "out.index_add_(0, tokens, ...) (or +=).",
                answer=_dispatched(overwrite=True)),
        Mistake(_SORT_INDEX, answer=_dispatched(sorted_tokens=False, sorted_weights=False)),
        Mistake(_SORT_INDEX, answer=_dispatched(sorted_weights=False)),
        Mistake(_SORT_INDEX, answer=_dispatched(sorted_tokens=False)),
        Mistake("each assignment got the wrong token: ids.flatten() lists token 0's k choices, "
                "then token 1's, so the token of assignment i is i // k, "
                "torch.arange(T).repeat_interleave(k), not .repeat(k).",
                answer=_dispatched(token_of=lambda n, k: torch.arange(n).repeat(k))),
        Mistake(_FIRST_ONLY, answer=_mixed(lambda lg, top, ids: torch.ones_like(top), used=1)),
        Mistake(_FIRST_ONLY, answer=_mixed(lambda lg, top, ids: top.softmax(-1), used=1)),
        Mistake("each token's k expert outputs are averaged (each times 1/k); weight "
                "each by its router weight, softmax(top-k logits), so a confident "
                "router leans on its first choice.",
                answer=_mixed(lambda lg, top, ids: torch.full_like(top, 1 / TOP_K))),
        Mistake("your layer adds its input x to the experts' sum: that is the residual "
                "connection, the block's job (x + moe(x)). The layer returns only the "
                "weighted sum of its experts.",
                answer=lambda ref, x: ref(x) + x),
        Mistake("the weights are the softmax over the k smallest logits: topk keeps the "
                "largest by default; largest=False, or a sort in ascending order, picks the "
                "experts the router likes least.",
                answer=_smallest()),
    ],
    success="helpers.moe.MoE's router and experts load into your layer and give the same output: "
            "the sorted dispatch equals the per-expert loop.",
    name="your MoE layer",
)


class _Calls(TorchFunctionMode):
    """Records the names of the torch functions and tensor methods called inside it."""

    def __init__(self):
        super().__init__()
        self.names = set()
        self.unstable = False

    def __torch_function__(self, func, types, args=(), kwargs=None):
        name = getattr(func, "__name__", "")
        self.names.add(name)
        if name in ("sort", "argsort") and not (kwargs or {}).get("stable"):
            self.unstable = True   # a sort whose ties come back in any order
        return func(*args, **(kwargs or {}))


_SORTS = {"sort", "argsort", "msort"}


def _watch(layer):
    """Run the layer (loaded with the reference's weights) once: rows per call of each expert, names
    seen."""
    rows = [[] for _ in range(N_EXPERTS)]
    handles = [expert.register_forward_hook(
        lambda module, inputs, output, e=e: rows[e].append(int(inputs[0].shape[:-1].numel())))
        for e, expert in enumerate(layer.experts)]
    try:
        with torch.no_grad(), _Calls() as calls:
            layer(_tokens())
    finally:
        for handle in handles:
            handle.remove()
    return rows, calls.names


def _dispatch_problem(cls):
    """A sentence about how the (correct) layer dispatches, or None when it runs each expert once on
    its own tokens after sorting the assignments."""
    reference = _reference()
    layer = cls(D_MODEL, D_FF, N_EXPERTS, TOP_K).double()
    layer.load_state_dict(reference.state_dict())
    rows, names = _watch(layer)
    if not any(rows):
        return None   # the experts were not called as modules: nothing to count
    with torch.no_grad():
        counts = torch.bincount(reference.router(_tokens()).topk(TOP_K, dim=-1).indices.flatten(),
                                minlength=N_EXPERTS).tolist()
    for e, (ran, n) in enumerate(zip(rows, counts, strict=True)):
        if len([r for r in ran if r]) > 1:
            return say("expert {e} ran {times} times in one forward pass, on {low} to {high} "
                       "token(s) at a time: that is a loop over tokens (or over the k slots). The "
                       "dispatch's point is that each expert runs once, on all its tokens "
                       "together: group the T*k assignments by expert.",
                       e=e, times=len(ran), low=min(ran), high=max(ran))
        if sum(ran) > n:
            return say("expert {e} ran on {got} tokens, but only {n} picked it: every token went "
                       "through every expert (section 3's dense loop, weighted by zeros). Run each "
                       "expert on its own tokens only.",
                       e=e, got=sum(ran), n=n)
    if not names & _SORTS:
        return say("each expert ran once on its own tokens, but nothing was sorted: that is "
                   "section 3's search (torch.where, once per expert). This exercise asks for the "
                   "sorted dispatch: argsort the T*k assignments by expert once, then split the "
                   "sorted list into one group per expert.")
    return None


def _other_k_problem(cls, k=3):
    """A sentence when the layer, built with top_k=k, does not compute MoE(..., top_k=k); else
    None."""
    with seeded(11):
        reference = _Reference(D_MODEL, D_FF, N_EXPERTS, k).double()
    layer = attempt(cls, D_MODEL, D_FF, N_EXPERTS, k)
    if isinstance(layer, BaseException) or layer is MISSING or not isinstance(layer, nn.Module):
        return say("built with top_k={k} it did not make a layer ({got})", k=k, got=describe(layer))
    layer = layer.double()
    layer.load_state_dict(reference.state_dict())
    with torch.no_grad():
        got, want = layer(_tokens()), reference(_tokens())
    if isinstance(got, tuple):
        got = got[0]
    if isinstance(got, torch.Tensor) and got.shape == want.shape and torch.allclose(got, want, atol=1e-9):
        return None
    with torch.no_grad():
        two = _Reference(D_MODEL, D_FF, N_EXPERTS, TOP_K).double()
        two.load_state_dict(reference.state_dict())
        as_two = isinstance(got, torch.Tensor) and got.shape == want.shape and torch.allclose(got, two(_tokens()), atol=1e-9)
    if as_two:
        return say("built with top_k={k} it still mixes {two} experts per token: the number of "
                   "experts is fixed in your code. Keep the top_k your __init__ is given "
                   "(self.top_k) and use it where the router picks the experts.",
                   k=k, two=TOP_K)
    return say("built with top_k={k} its output is not MoE's with top_k={k}: every "
               "place that depends on how many experts a token picks must read the "
               "top_k your __init__ is given", k=k)


@referee(_module_check.exercise)
def check_moe_layer(cls):
    """Exercise 3: MoELayer(d_model, d_ff, n_experts, top_k) loaded with MoE's state_dict, then
    watched."""
    # building the learner's layer draws its initial weights
    with torch.random.fork_rng(devices=[]):
        return _check_moe_layer(cls)


def _check_moe_layer(cls):
    if isinstance(cls, type) and issubclass(cls, MoE):
        what = say("is the reference itself") if cls is MoE else say("subclasses the reference")
        return wrong(_module_check.exercise, say("your layer {what}, helpers.moe.MoE: write the "
                                                 "router and the dispatch yourself, in a "
                                                 "subclass of nn.Module.",
                                                 what=what))
    layer = attempt(cls, D_MODEL, D_FF, N_EXPERTS, TOP_K) if callable(cls) else None
    if layer is MISSING or isinstance(layer, BaseException):
        layer = None   # the module check reports it
    if isinstance(getattr(layer, "experts", None), (list, tuple)) and layer.experts:
        return wrong(_module_check.exercise, "self.experts is a Python list, so its parameters are "
                                             "not registered and the reference's weights cannot "
                                             "load: wrap it in nn.ModuleList.")
    if isinstance(getattr(layer, "router", None), nn.Linear) and layer.router.bias is not None:
        return wrong(_module_check.exercise, "the router has a bias; Mixtral's router (its 'gate') "
                                             "has none: nn.Linear(d_model, n_experts, bias=False).")
    result = _module_check(cls)
    if not result:
        return result
    try:
        problem = _dispatch_problem(cls) or _other_k_problem(cls)
    # noqa: BLE001 - a layer that passed once and fails now is described, not raised
    except Exception as err:
        problem = say("running your layer a second time raised {kind}: {said}", kind=type(err).__name__,
                      said=str(err))
    if problem:
        return wrong(_module_check.exercise, say("your layer's output is right; {problem}", problem=problem))
    return correct(_module_check.exercise, result.message)


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
            return say("returned {kind}; expected a bool tensor of shape {shape}", kind=type(got).__name__,
                       shape=str(tuple(expected.shape)))
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
        Mistake(_SORTED_LAYOUT, answer=lambda e, n, c: within_capacity(e.sort(dim=-1).values, n, c)),
        Mistake(_SORTED_LAYOUT, answer=lambda e, n, c: within_capacity(e.flatten().sort().values.view_as(e), n, c)),
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
