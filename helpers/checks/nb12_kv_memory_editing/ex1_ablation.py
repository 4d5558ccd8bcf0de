"""Notebook 12, exercise 1: ablated_logits with a forward hook, compared with the same ablation done
on the weights; a hook on the wrong module, or one that zeroes too much or too little, is named."""


import torch

from helpers import hooks
from helpers.checks import language
from helpers.checks.compare import arrays
from helpers.checks.core import explained_calls
from helpers.checks.nb12_kv_memory_editing.shipped import (
    LAYER,
    _first_run,
    _fresh,
    _on_one_thread,
    _shipped,
)
from helpers.checks.runner import Check, Mistake
from helpers.checks.show import say

EX1 = "Exercise 1 (an ablation hook)"


def _logits(model):
    return model(_shipped()[2].idx)                                      # (B, T, vocab)


def _without(neurons, layer=LAYER):
    """The ablation without a hook: delete the neurons' value columns of c_proj."""
    model = _fresh()
    with torch.no_grad():
        model.blocks[layer].mlp.c_proj.weight[:, neurons] = 0.0
        return _logits(model)


def _hooked(module_of, edit):
    """neurons -> logits with a hook on module_of(model) that applies edit(output, neurons)."""
    def answer(neurons):
        model = _fresh()

        def hook(module, inputs, output):
            return edit(output.clone(), neurons)
        with torch.no_grad(), hooks.attached({module_of(model): hook}):
            return _logits(model)
    return answer


def _zero(output, neurons):
    output[..., neurons] = 0.0
    return output


def _zero_last(output, neurons):
    output[:, -1, neurons] = 0.0
    return output


def _every_neuron():
    return list(range(_shipped()[0].config.d_ff))


def _all_but(neurons):
    chosen = set(torch.as_tensor(neurons).tolist())
    return [i for i in _every_neuron() if i not in chosen]


def _act(model):
    return model.blocks[LAYER].mlp.act


_D_MODEL_SPACE = ("a hook on the wrong module: its output has d_model = 64 entries (the MLP's "
                  "output after c_proj, or the block's residual stream), so you zeroed directions "
                  "of the residual stream, not neurons. The d_ff = 256 neurons are the output of "
                  "model.blocks[1].mlp.act, (B, T, 256).")

_ABLATION = Check(
    EX1,
    reference=_without,
    # The first case keeps every id below d_model = 64, so that zeroing d_model entries runs (and
    # is named).
    cases=[([3, 17, 40, 60],), ([0, 5, 66, 184, 250],), (torch.tensor([70, 101]),)],
    mistakes=[
        Mistake("your hook changed nothing: a forward hook must return the new tensor (or change "
                "`output` in place) for the model to use it.", answer=lambda n: _without([])),
        Mistake("every neuron was zeroed; only the chosen `neurons` should be.",
                answer=lambda n: _without(_every_neuron())),
        Mistake("the chosen neurons were kept and all the others zeroed: it is the other way "
                "round.",
                answer=lambda n: _without(_all_but(n))),
        Mistake("you zeroed the neurons at the last position only. An ablated neuron is cut out of "
                "the model, so it is 0 at every position: output[..., neurons] = 0 on the (B, T, "
                "d_ff) output.",
                answer=_hooked(_act, _zero_last)),
        Mistake("a hook on the wrong module: you zeroed MLP 0's neurons (model.blocks[0]); this "
                "exercise ablates MLP 1's, model.blocks[1].mlp.act.",
                answer=lambda n: _without(n, layer=0)),
        Mistake(_D_MODEL_SPACE, answer=_hooked(lambda m: m.blocks[LAYER].mlp, _zero)),
        Mistake(_D_MODEL_SPACE, answer=_hooked(lambda m: m.blocks[LAYER], _zero)),
    ],
    compare=arrays(atol=1e-4, rtol=1e-4),
    success="your hook on mlp.act gives what deleting those neurons' value columns from c_proj "
            "gives (a neuron that outputs 0 writes nothing), and it is gone after the run.",
    name="ablated_logits",
)


def _through_a_copy(fn):
    """neurons -> fn(a fresh model copy, the check's prompts, neurons), index errors explained."""
    def run(neurons):
        try:
            return fn(_fresh(), _shipped()[2].idx, neurons)
        except IndexError as err:
            hint = say("{err}. The neurons are the last dimension of the output of mlp.act, "
                       "(B, T, d_ff): index it as output[..., neurons]", err=str(err))
            # an exception's message is a plain str
            raise IndexError(language.translate(hint)) from None
        except TypeError as err:
            if "missing 3 required positional arguments" not in str(err):
                raise
            said = say("you called your hook yourself, with nothing to hand it. PyTorch calls a "
                       "forward hook during the run, with (module, inputs, output): register it on "
                       "model.blocks[1].mlp.act, run the model, remove the hook and return the "
                       "logits")
            raise TypeError(language.translate(said)) from None
    run.__wrapped__ = fn   # the learner's code, read when it returns None
    return run


def _check_ablation(fn):
    """Exercise 1: ablated_logits(model, idx, neurons) -> (B, T, vocab), MLP 1's neurons zeroed."""
    if fn is None or not callable(fn):
        return _ABLATION(fn)
    found = _first_run(EX1, fn, (_shipped()[2].idx, list(_ABLATION.cases[0][0])))
    return found if found is not None else _ABLATION(_through_a_copy(fn))


check_ablation = _on_one_thread(_check_ablation, _ABLATION.exercise)
# Called with the wrong number of arguments, a check says how to call it (not Python's TypeError).
check_ablation = explained_calls(_ABLATION.exercise, check_ablation)
