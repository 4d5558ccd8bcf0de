"""Notebook 13, exercise 3: the restoring hook of causal tracing, checked on a small random GPT-2
with its subject corrupted, against the reference hook restore."""

from functools import lru_cache

import torch

from helpers import gpt2, hooks
from helpers.checks.compare import arrays
from helpers.checks.core import explained_calls
from helpers.checks.nb13_real_gpt2.models import _model
from helpers.checks.runner import Check, Mistake
from helpers.checks.show import one_line, say

EX3 = "Exercise 3 (the restoring hook)"


@lru_cache(maxsize=1)
def _trace_case():
    """A small random GPT-2 with the course's FFNs, a prompt, and the noise that corrupts its
    subject."""
    model, ids = _model(5, n_layer=3)
    model = gpt2.replace_mlps(model, gpt2.mlp_from_hf)
    prompt = ids[:1]                                               # (1, 12)
    g = torch.Generator().manual_seed(6)
    # 4 corrupted runs, subject = tokens 0-2
    noise = torch.randn(4, 3, model.config.n_embd, generator=g)
    clean = {}
    keeping = {block.mlp: _keep(clean, i) for i, block in enumerate(gpt2.blocks(model))}
    with torch.no_grad(), hooks.attached(keeping):
        model(prompt)
    return model, prompt, noise, clean


def _keep(store, layer):
    def hook(module, inputs, output):
        store[layer] = output[0].detach().clone()                 # (T, d_model)
    return hook


def _corrupt(noise):
    def hook(module, inputs, output):
        output = output.clone()
        output[:, : noise.shape[1]] += noise
        return output
    return hook


class _WroteClean:
    """The logits of a run whose hook changed `clean`, the clean run's saved output."""

    def __init__(self, logits):
        self.logits = logits


_SHAPES = ("`clean` is one run's output, (T, d_model): clean[position] is the "
           "(d_model,) vector at `position`. `output` is (runs, T, d_model): output[:, "
           "position] is that position in every run.")


def _guarded(hook):
    """The learner's hook, with a shape error or a wrong-shaped return value put into words."""
    def run(module, inputs, output):
        try:
            got = hook(module, inputs, output)
        except (RuntimeError, IndexError) as err:
            raise type(err)(say("{err}. {shapes}", err=one_line(err, 160),
                                shapes=say(_SHAPES))) from None
        if isinstance(got, torch.Tensor) and got.shape != output.shape:
            raise ValueError(say("your hook returned a tensor of shape {got}; what a forward hook "
                                 "returns replaces the module's whole output, {shape}: return all "
                                 "of `output`, with one position changed.",
                                 got=str(tuple(got.shape)), shape=str(tuple(output.shape))))
        return got
    return run


def _traced(make_hook):
    """(layer, position) -> last-position logits (4, V) of the corrupted runs with make_hook(clean,
    position)."""
    def run(layer, position):
        model, prompt, noise, clean = _trace_case()
        given = clean[layer].clone()
        hook = make_hook(given, position)
        if hook is None:
            return None
        if not callable(hook):
            raise TypeError(say("restore returned a {kind}, not a hook(module, inputs, output)",
                                kind=type(hook).__name__))
        batch = prompt.repeat(len(noise), 1)
        with torch.no_grad(), hooks.attached({model.transformer.wte: _corrupt(noise),
                                                gpt2.blocks(model)[layer].mlp: _guarded(hook)}):
            logits = model(batch).logits[:, -1]
        return logits if torch.equal(given, clean[layer]) else _WroteClean(logits)
    run.__wrapped__ = make_hook   # the runner reads the learner's stub through the wrapper
    return run


def restore(clean, position):
    """The reference: a hook for block.mlp putting the clean run's output back at `position`, every
    run."""
    def hook(module, inputs, output):
        output = output.clone()
        output[:, position] = clean[position]
        return output
    return hook


def _variant(change):
    def make(clean, position):
        def hook(module, inputs, output):
            return change(output.clone(), clean, position)
        return hook
    return _traced(make)


def _at(output, rows, positions, values):
    output[rows, positions] = values
    return output


_RESTORE = Check(
    EX3,
    reference=_traced(restore),
    cases=[(1, 2), (0, 2), (2, 5)],
    mistakes=[
        Mistake("nothing was restored: a forward hook must return the new output (or change "
                "`output` in place) for the model to use it.",
                answer=_variant(lambda out, clean, p: out)),
        Mistake("every position was restored; only `position` should be (the clean output at the "
                "other positions is not what this site carries).",
                answer=_variant(lambda out, clean, p: _at(out, slice(None), slice(None), clean))),
        Mistake("only the first run of the batch was restored: every row is a corrupted run, so "
                "restore output[:, position] in all of them.",
                answer=_variant(lambda out, clean, p: _at(out, 0, p, clean[p]))),
        Mistake("the clean output was added to the corrupted one; restoring replaces it.",
                answer=_variant(lambda out, clean, p:
                                _at(out, slice(None), p, out[:, p] + clean[p]))),
        Mistake("your hook wrote into `clean`, the clean run's saved output, instead of into "
                "`output`, the corrupted run's: copy `output`, set its position from clean, and "
                "return the copy; `clean` is only read.",
                when=lambda got, *case: isinstance(got, _WroteClean)),
        Mistake("the last position was restored instead of `position`.",
                answer=_variant(lambda out, clean, p: _at(out, slice(None), -1, clean[-1]))),
        Mistake("you restored position + 1, the token after the site: positions count from 0, and "
                "the site is output[:, position] itself.",
                answer=_variant(lambda out, clean, p: _at(out, slice(None), p + 1, clean[p + 1]))),
        Mistake("output[position] picks run `position` of the batch: the first "
                "dimension of `output` is the runs. The position is the second: "
                "output[:, position] = clean[position].",
                answer=_variant(lambda out, clean, p: _at(out, p, slice(None), clean[p]))),
        Mistake("each run got the clean output at the position of its own number (output[i, i]); "
                "every run gets the same site, output[:, position].",
                answer=_variant(lambda out, clean, p: _at(out, torch.arange(len(out)),
                                                          torch.arange(len(out)),
                                                          clean[:len(out)]))),
    ],
    compare=arrays(atol=1e-5, rtol=1e-5),
    success="your hook puts the clean MLP output back at exactly one "
            "position, in every corrupted run.",
    name="the corrupted runs with your hook",
)


def check_restore_hook(fn):
    """Exercise 3: restore(clean, position) -> a forward hook for block.mlp that restores that
    position."""
    return _RESTORE(None if fn is None else _traced(fn))


# Called with the wrong number of arguments, a check says how to call it (not Python's TypeError).
check_restore_hook = explained_calls(EX3, check_restore_hook)
