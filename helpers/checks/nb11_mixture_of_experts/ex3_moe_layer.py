"""Notebook 11, exercise 3: check_moe_layer, which compares the learner's MoELayer with the
reference and then watches its dispatch (each expert's calls and rows, and whether anything was
sorted)."""

import torch
from torch import nn
from torch.overrides import TorchFunctionMode

from helpers.checks.core import MISSING, attempt, correct, referee, wrong
from helpers.checks.module import ModuleCheck
from helpers.checks.nb11_mixture_of_experts.ex3_reference import (
    _FIRST_ONLY,
    _SORT_INDEX,
    D_FF,
    D_MODEL,
    N_EXPERTS,
    TOP_K,
    _dispatched,
    _mixed,
    _Reference,
    _reference,
    _smallest,
    _tokens,
)
from helpers.checks.runner import Mistake
from helpers.checks.show import describe, say
from helpers.checks.state import seeded
from helpers.moe import MoE

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
    if isinstance(got, torch.Tensor) and got.shape == want.shape \
            and torch.allclose(got, want, atol=1e-9):
        return None
    with torch.no_grad():
        two = _Reference(D_MODEL, D_FF, N_EXPERTS, TOP_K).double()
        two.load_state_dict(reference.state_dict())
        as_two = (isinstance(got, torch.Tensor) and got.shape == want.shape
                  and torch.allclose(got, two(_tokens()), atol=1e-9))
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
    except Exception as err:  # noqa: BLE001 - a layer that passed once and fails now is described
        problem = say("running your layer a second time raised {kind}: {said}",
                      kind=type(err).__name__, said=str(err))
    if problem:
        return wrong(_module_check.exercise, say("your layer's output is right; {problem}",
                                                 problem=problem))
    return correct(_module_check.exercise, result.message)
