"""Notebook 13, exercise 1's reading of how the learner built the FFN: which weights it created and
copied, and the untransposed or swapped Conv1D weights that follow, each in a sentence."""

import copy

import torch
from torch.overrides import TorchFunctionMode

from helpers import gpt2
from helpers.checks.nb13_real_gpt2.models import _case, _run
from helpers.checks.show import one_line, say
from helpers.ffn import FFN

CONV1D = ("GPT-2's Conv1D stores its weight as (in, out): c_fc.weight is (d_model, d_ff); "
          "nn.Linear, and so the FFN, stores (out, in): copy the transpose, "
          "hf_mlp.c_fc.weight.T (and c_proj's too).")
UNTRANSPOSED_SHAPE = ("your FFN's c_fc.weight is Conv1D's weight as stored, (in, out) = "
                      "(d_model, d_ff); nn.Linear holds (out, in): copy the transpose, "
                      "hf_mlp.c_fc.weight.T (and c_proj's too).")
UNTRANSPOSED = ("in this square MLP (d_ff = d_model) nothing complained, "
                "yet the logits are wrong: you copied Conv1D's weight as "
                "it is. " + CONV1D + " GPT-2 small's 768 x 3072 MLP refuses that copy, but "
                "its square attention projection attn.c_proj (768 x 768) would load either way.")


class _Calls(TorchFunctionMode):
    """Records, while the learner builds an FFN, each new 2-D weight's shape and each copy_ (into,
    from)."""

    def __init__(self):
        super().__init__()
        self.created, self.copies = [], []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        name = getattr(func, "__name__", "")
        if name == "copy_" and len(args) > 1 and isinstance(args[1], torch.Tensor):
            self.copies.append((tuple(args[0].shape), args[1].detach().clone()))
        result = func(*args, **(kwargs or {}))
        if name == "empty" and isinstance(result, torch.Tensor) and result.ndim == 2:
            self.created.append(tuple(result.shape))
        return result


def _which(tensor, hf_mlp):
    """('c_fc', 'weight', transposed) when tensor equals one of the block's tensors (or a weight's
    .T), else None."""
    for layer in ("c_fc", "c_proj"):
        for part in ("weight", "bias"):
            value = getattr(getattr(hf_mlp, layer), part).detach()
            layouts = ((False, value), (True, value.T)) if value.ndim == 2 else ((False, value),)
            for transposed, known in layouts:
                if tensor.shape == known.shape and torch.equal(tensor, known):
                    return layer, part, transposed
    return None


def _swapped_sizes(d_model, d_ff):
    return say("your FFN was built with d_model and d_ff swapped, as FFN({d_ff}, "
               "{d_model}): Conv1D's c_fc.weight is stored (in, out) = (d_model, d_ff), so "
               "d_model, d_ff = hf_mlp.c_fc.weight.shape, in that order (nn.Linear's own "
               ".weight.shape would be (out, in)).",
               d_ff=d_ff, d_model=d_model)


def _build_problem(calls, hf_mlp):
    """A sentence for the copy that failed while the learner built the FFN, or None."""
    d_model, d_ff = hf_mlp.c_fc.weight.shape
    if d_model != d_ff and calls.created[:1] == [(d_model, d_ff)]:
        return _swapped_sizes(d_model, d_ff)
    if not calls.copies:
        return None
    into, source = calls.copies[-1]
    found = _which(source, hf_mlp)
    if found is None:
        return None
    layer, part, transposed = found
    if part == "weight" and not transposed:
        others = [_which(s, hf_mlp) for _, s in calls.copies[:-1]]
        half = any(o is not None and o[1] == "weight" and o[2] for o in others)
        return say("hf_mlp.{layer}.weight went in as Conv1D stores it, (in, out) = {shape}; "
                   "nn.Linear holds (out, in): copy hf_mlp.{layer}.weight.T.{half}",
                   layer=layer, shape=str(tuple(source.shape)),
                   half=say(" You transposed the other weight: both need it.") if half else "")
    if part == "weight":
        return say("hf_mlp.{layer}.weight.T is {shape}, the (out, in) shape of GPT-2's "
                   "{layer}, but it went into an FFN weight of shape {into}: into the other "
                   "projection? c_fc.weight takes hf_mlp.c_fc.weight.T and c_proj.weight "
                   "takes hf_mlp.c_proj.weight.T.",
                   layer=layer, shape=str(tuple(source.shape)),
                   into=str(into))
    return say("hf_mlp.{layer}.bias has {n} entries but went into a bias of {into}: c_fc's bias "
               "has d_ff entries and c_proj's d_model; copy each into its own projection.",
               layer=layer, n=len(source), into=str(into))


def _made_problem(ffn, hf_mlp):
    """A sentence when the FFN the learner returned holds weights of the wrong shape, or None."""
    d_model, d_ff = hf_mlp.c_fc.weight.shape
    weight = getattr(getattr(ffn, "c_fc", None), "weight", None)
    if not isinstance(weight, torch.Tensor) or tuple(weight.shape) == (d_ff, d_model):
        return None
    if tuple(weight.shape) == (d_model, d_ff) \
            and torch.equal(weight.detach().cpu().float(), hf_mlp.c_fc.weight.detach()):
        return say(UNTRANSPOSED_SHAPE)
    if getattr(ffn.c_fc, "in_features", None) == d_ff \
            and getattr(ffn.c_fc, "out_features", None) == d_model:
        return _swapped_sizes(d_model, d_ff)
    return None


def _swapped(square, build):
    """The case's model with build(block.mlp) in every block (the learner gets a copy of each
    MLP)."""
    model, ids = _case(square)
    model = copy.deepcopy(model)
    made = []

    def one(hf_mlp):
        mine = copy.deepcopy(hf_mlp)
        try:
            with _Calls() as calls:
                ffn = build(mine)
        except RuntimeError as err:
            problem = _build_problem(calls, hf_mlp)
            if problem is None and ("size" in str(err) or "shape" in str(err)):
                problem = say(CONV1D)
            if problem is not None:
                raise RuntimeError(say("{err}. {fix}", err=one_line(err, 200),
                                       fix=problem)) from None
            raise
        problem = _made_problem(ffn, hf_mlp) if isinstance(ffn, FFN) else None
        if problem is not None:
            raise ValueError(problem)
        made.append(ffn)
        return ffn if ffn is not None else torch.nn.Identity()

    gpt2.replace_mlps(model, one)
    if any(m is None for m in made):
        return None
    for m in made:
        if not isinstance(m, FFN):
            raise TypeError(say("mlp_from_hf returned a {kind}; expected a course FFN "
                                "(helpers.ffn.FFN) holding the block's weights",
                                kind=type(m).__name__))
    try:
        return _run(model, ids, made)
    except RuntimeError as err:
        raise RuntimeError(say("the model with your FFNs raised: {err}. {fix}", err=str(err),
                               fix=say(CONV1D))) from None
