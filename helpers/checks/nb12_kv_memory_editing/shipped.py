"""Notebook 12's model for the checks: the shipped fact model, a fresh copy for every run of the
learner's code, what a run left behind (a hook registered, a weight changed), and a check run on
one thread."""

import copy
from functools import lru_cache

import torch

from helpers import facts, kv_memory
from helpers.capacity import one_thread
from helpers.checks.core import MISSING, attempt, judge, not_attempted, wrong
from helpers.checks.show import _listed, say

LAYER = 1


@lru_cache(maxsize=1)
def _shipped():
    """The shipped model, its vocabulary, and a few prompts (two phrasings of every sixth fact)."""
    model, vocab = kv_memory.load()
    for p in model.parameters():
        p.requires_grad_(False)
    prompts = kv_memory.make_prompts(vocab, facts.TRAIN_TEMPLATES[:2],
                                     range(0, len(facts.FACTS), 6))
    return model, vocab, prompts


def _fresh():
    """A copy of the shipped model that the learner's code may change without harm."""
    return copy.deepcopy(_shipped()[0])


def _hooks_left(model):
    """Names of the modules of `model` that still hold a forward (pre-)hook, and global hooks."""
    names = [name or say("the model") for name, m in model.named_modules()
             if m._forward_hooks or m._forward_pre_hooks]
    module = torch.nn.modules.module
    if (getattr(module, "_global_forward_hooks", None)
            or getattr(module, "_global_forward_pre_hooks", None)):
        names.append(say("every module (a global hook)"))
    return names


def _weights_changed(model):
    shipped = _shipped()[0].state_dict()
    return [k for k, v in model.state_dict().items() if not torch.equal(v, shipped[k])]


def _aftermath(exercise, model):
    """What the learner's run left behind in its copy of the model, as a Feedback (or None)."""
    left = _hooks_left(model)
    if left:
        return wrong(exercise, say("your function left a hook registered on {where}: every later "
                                   "run of the model would still be changed by it. Keep the handle "
                                   "that register_forward_hook returns and call handle.remove() "
                                   "once the run is done (in a `finally:`, or use hooks.attached), "
                                   "so that even an error cannot leave it behind.",
                                   where=_listed(left)))
    changed = _weights_changed(model)
    if changed:
        return wrong(exercise, say("your function changed the model's weights ({names}). A hook "
                                   "changes what a module outputs during one run and leaves the "
                                   "weights as they are.",
                                   names=", ".join(changed)))
    return None


def _first_run(exercise, fn, args):
    """Call fn(model copy, *args) once: not attempted, what it left behind, or None to go on."""
    model = _fresh()
    # model is a fresh copy: what the learner leaves on it shows
    got = attempt(fn, model, *args, copies=False)
    if got is MISSING:
        return not_attempted(exercise)
    if isinstance(got, BaseException):
        return None   # the table says what it raised
    return _aftermath(exercise, model)


def _on_one_thread(check, exercise):
    """The check, on one thread (tiny matmuls; the count is restored), through the referee."""
    def run(fn):
        with one_thread():
            return judge(exercise, check, fn)
    run.__doc__ = check.__doc__
    return run
