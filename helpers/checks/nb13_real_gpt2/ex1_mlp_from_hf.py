"""Notebook 13, exercise 1: check_mlp_from_hf, the learner's FFNs swapped into every block and
compared with GPT-2's own MLPs, with the typical variants (activation, biases, weights) named."""

import copy
import inspect

import torch

from helpers import gpt2
from helpers.checks.compare import arrays
from helpers.checks.core import explained_calls, names_read, wrong
from helpers.checks.nb13_real_gpt2.ex1_build import UNTRANSPOSED, _swapped, _which
from helpers.checks.nb13_real_gpt2.models import Run, _case, _reference
from helpers.checks.runner import Check, Mistake
from helpers.checks.show import say
from helpers.ffn import FFN

EX1 = "Exercise 1 (GPT-2's MLP in your FFN)"


def _ffn_variant(square, activation="gelu_tanh", bias=True, transpose=("c_fc", "c_proj"),
                 crossed=False):
    """What a typical mistake gives: FFNs built from the right weights with one thing wrong."""
    def build(hf_mlp):
        d_model, d_ff = hf_mlp.c_fc.weight.shape
        ffn = FFN(d_model, d_ff, activation=activation, bias=bias)
        sources = {"c_fc": hf_mlp.c_proj if crossed else hf_mlp.c_fc,
                   "c_proj": hf_mlp.c_fc if crossed else hf_mlp.c_proj}
        with torch.no_grad():
            for name, source in sources.items():
                getattr(ffn, name).weight.copy_(source.weight.T if name in transpose
                                                else source.weight)
                if bias:
                    getattr(ffn, name).bias.copy_(getattr(hf_mlp, name).bias)
        return ffn
    with torch.random.fork_rng(devices=[]):
        return _swapped(square, build)


def _logits_and_tokens(got, expected):
    if not isinstance(got, Run):
        return say("gave {kind}; expected the model's logits", kind=type(got).__name__)
    problem = arrays(atol=1e-4, rtol=0)(got.logits, expected.logits)
    if problem is not None:
        return say("gives logits that differ from GPT-2's own: {problem}", problem=problem)
    if not torch.equal(got.tokens, expected.tokens):
        return say("gives logits within 1e-4 but other greedy tokens")
    return None


def _weights_copied(got, square):
    """Every FFN holds its block's two weights (transposed, as nn.Linear stores them)."""
    model, _ = _case(square)
    return all(torch.equal(ffn.c_fc.weight.detach().cpu().float(),
                           block.mlp.c_fc.weight.detach().T)
               and torch.equal(ffn.c_proj.weight.detach().cpu().float(),
                               block.mlp.c_proj.weight.detach().T)
               for ffn, block in zip(got.modules, gpt2.blocks(model), strict=False))


def _nothing_copied(got, square):
    """No FFN holds any of its block's four tensors, in either layout: built, never filled."""
    model, _ = _case(square)
    for ffn, block in zip(got.modules, gpt2.blocks(model), strict=False):
        for name in ("c_fc", "c_proj"):
            for part in ("weight", "bias"):
                mine = getattr(getattr(ffn, name), part, None)
                if isinstance(mine, torch.Tensor) \
                        and _which(mine.detach().cpu().float(), block.mlp) is not None:
                    return False
    return True


def _biases_left_out(got, square):
    """The FFNs have no biases, or biases that are not the block's (left at nn.Linear's random
    start)."""
    model, _ = _case(square)
    for ffn, block in zip(got.modules, gpt2.blocks(model), strict=False):
        if ffn.c_fc.bias is None or ffn.c_proj.bias is None:
            return True
        if not (torch.equal(ffn.c_fc.bias.detach().cpu().float(), block.mlp.c_fc.bias.detach())
                and torch.equal(ffn.c_proj.bias.detach().cpu().float(),
                                block.mlp.c_proj.bias.detach())):
            return True
    return False


_MLP_FROM_HF = Check(
    EX1,
    reference=_reference,
    cases=[(True,), (False,)],        # a square MLP (d_ff = d_model) first, then GPT-2's 4x
    mistakes=[
        Mistake(UNTRANSPOSED, answer=lambda square: _ffn_variant(square, transpose=())),
        Mistake("c_fc's weight was transposed but c_proj's went in as stored: Conv1D keeps "
                "both projections (in, out), so both need .T (this square MLP loads either "
                "way; GPT-2 small's would refuse).",
                answer=lambda square: _ffn_variant(square, transpose=("c_fc",))),
        Mistake("c_proj's weight was transposed but c_fc's went in as stored: Conv1D keeps "
                "both projections (in, out), so both need .T (this square MLP loads either "
                "way; GPT-2 small's would refuse).",
                answer=lambda square: _ffn_variant(square, transpose=("c_proj",))),
        Mistake("the two weights went into each other's projection: hf_mlp.c_proj.weight, (d_ff, "
                "d_model) as Conv1D stores it, has the shape nn.Linear wants for c_fc, but it is "
                "the down-projection. Copy c_fc from c_fc and c_proj from c_proj, each transposed.",
                answer=lambda square: _ffn_variant(square, crossed=True, transpose=())),
        Mistake("the two weights went into each other's projection: c_fc got "
                "hf_mlp.c_proj's weight and c_proj got hf_mlp.c_fc's. Copy c_fc from c_fc "
                "and c_proj from c_proj, each transposed.",
                answer=lambda square: _ffn_variant(square, crossed=True)),
        Mistake("the weights are right but the activation is ReLU: GPT-2's MLP uses GELU, its "
                'tanh formula (activation="gelu_tanh").',
                answer=lambda square: _ffn_variant(square, activation="relu")),
        Mistake("the weights are right but the activation is SiLU (Llama's); GPT-2's MLP uses "
                'GELU, its tanh formula (activation="gelu_tanh").',
                answer=lambda square: _ffn_variant(square, activation="silu")),
        Mistake("the weights are right but the activation is exact GELU, x * Phi(x): GPT-2 uses "
                'the tanh formula (activation="gelu_tanh"; FFN\'s default is "gelu", the exact '
                "one).",
                answer=lambda square: _ffn_variant(square, activation="gelu")),
        Mistake("your FFN holds none of the block's tensors: it was built, but nothing was copied "
                "into it, so it computes with nn.Linear's random start. Copy the block's two "
                "weights (transposed) and two biases into it.",
                when=lambda got, square: isinstance(got, Run) and _nothing_copied(got, square)),
        Mistake("the weights are right but the biases are not: GPT-2's Conv1D has a bias in c_fc "
                "and in c_proj; copy both (hf_mlp.c_fc.bias, hf_mlp.c_proj.bias).",
                when=lambda got, square: isinstance(got, Run) and _weights_copied(got, square)
                and _biases_left_out(got, square)),
    ],
    compare=_logits_and_tokens,
    success="your FFN holds GPT-2's weights: swapped into every block, the logits agree within "
            "1e-4 and the greedy tokens are the same, with a square MLP and with GPT-2's 4x one.",
    name="the model with your FFNs",
)


def _hands_over(fn):
    """True when fn is, or calls, the course's own gpt2.mlp_from_hf."""
    target = inspect.unwrap(fn) if callable(fn) else fn
    if target is gpt2.mlp_from_hf or getattr(target, "__module__", "") == gpt2.__name__:
        return True
    code = getattr(target, "__code__", None)
    return code is not None and "mlp_from_hf" in names_read(code)


def _shared_storage(fn):
    """The FFN tensors that share memory with the GPT2MLP they were built from (a view, not a copy),
    by name."""
    model, _ = _case(False)
    hf_mlp = copy.deepcopy(gpt2.blocks(model)[0].mlp)
    with torch.random.fork_rng(devices=[]):
        ffn = fn(hf_mlp)
    theirs = {t.untyped_storage().data_ptr() for t in hf_mlp.parameters()}
    return [name for name, t in ffn.named_parameters() if t.untyped_storage().data_ptr() in theirs]


_SHARED = ("your FFN's {names} share memory with GPT-2's own tensors (a view such as .T, or the "
           "same Parameter, not a copy): an edit to the FFN would change the GPT-2 model it came "
           "from, and the other way round. Copy the numbers into the FFN's own tensors (copy_ "
           "under torch.no_grad(), or .T.clone()).")


def check_mlp_from_hf(fn):
    """Exercise 1: mlp_from_hf(hf_mlp) -> a course FFN with that block's weights and GPT-2's tanh
    GELU."""
    if fn is None:
        return _MLP_FROM_HF(None)
    if _hands_over(fn):
        return wrong(EX1, say("your mlp_from_hf hands the work to the course's own "
                              "gpt2.mlp_from_hf: the exercise is to write it yourself, reading the "
                              "shapes and copying the four tensors."))

    def swapped(square):
        return _swapped(square, fn)
    swapped.__wrapped__ = fn   # the runner reads the learner's stub through the wrapper
    fb = _MLP_FROM_HF(swapped)
    if fb.status != "correct":
        return fb
    shared = _shared_storage(fn)
    return wrong(EX1, say(_SHARED, names=", ".join(shared))) if shared else fb


# Called with the wrong number of arguments, a check says how to call it (not Python's TypeError).
check_mlp_from_hf = explained_calls(EX1, check_mlp_from_hf)
