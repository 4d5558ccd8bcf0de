"""Notebook 12, exercise 3: trace_mlp, causal tracing of one site, compared with the reference at
several sites; a corruption, restore or measure done wrongly is named."""

import copy
from functools import lru_cache

import torch

from helpers import hooks, kv_memory
from helpers.checks.compare import number
from helpers.checks.core import correct, explained_calls
from helpers.checks.nb12_kv_memory_editing.shipped import (
    _first_run,
    _fresh,
    _on_one_thread,
    _shipped,
)
from helpers.checks.runner import Check, Mistake
from helpers.checks.show import say

EX3 = "Exercise 3 (causal tracing)"


@lru_cache(maxsize=1)
def _tracing_case():
    """"the capital of {} is" for all 118 facts, and the notebook's noise for each subject."""
    model, vocab, _ = _shipped()
    prompts = kv_memory.make_prompts(vocab, ["the capital of {} is"])
    return prompts, kv_memory.subject_noise(model, prompts)            # the notebook's noise


def _p_answer(model, prompts, mods, top=False):
    """Mean p(answer) at the last word (or of the top word), the {module: hook} mods in place."""
    rows = torch.arange(len(prompts.last))
    with torch.no_grad(), hooks.attached(mods):
        probs = kv_memory.answer_logits(model(prompts.idx), prompts).softmax(-1)
    return (probs.max(-1).values if top else probs[rows, prompts.answer]).mean().item()


def _clean_mlp(model, prompts, layer, mods=None):
    """MLP `layer`'s output (N, T, d_model) in a run with the hooks `mods` (none: the clean run)."""
    seen = {}

    def save(module, inputs, output):
        seen["out"] = output.detach()
    with torch.no_grad(), hooks.attached({**(mods or {}), model.blocks[layer].mlp: save}):
        model(prompts.idx)
    return seen["out"]


def _noise_at(prompts, noise, everywhere=False):
    """A hook adding `noise` to the embedding at each prompt's subject (or at every word)."""
    rows = torch.arange(len(prompts.last))

    def hook(module, inputs, output):
        output = output.clone()
        if everywhere:
            output += noise[:, None]
        else:
            output[rows, prompts.subject] += noise
        return output
    return hook


def _restore(clean, position):
    """A hook putting the clean run's output back at `position` (a word, or a slice of them)."""
    def hook(module, inputs, output):
        output = output.clone()
        output[:, position] = clean[:, position]
        return output
    return hook


def _restore_subject(clean, prompts):
    """A hook putting the clean run's output back at each prompt's subject."""
    rows = torch.arange(len(prompts.last))

    def hook(module, inputs, output):
        output = output.clone()
        output[rows, prompts.subject] = clean[rows, prompts.subject]
        return output
    return hook


def _traced(corrupt=True, restore=True, everywhere=False, all_positions=False, top=False,
            clean_from_noisy=False, shift=0, at_subject=False, total=False):
    """trace_mlp and its mistakes: (model, prompts, noise, layer, position) -> mean p(answer)."""
    def answer(model, prompts, noise, layer, position):
        noisy = {model.wte: _noise_at(prompts, noise, everywhere)}
        clean = _clean_mlp(model, prompts, layer, noisy if clean_from_noisy else None)
        mods = dict(noisy) if corrupt else {}
        if restore:
            where = slice(None) if all_positions else position + shift
            mods[model.blocks[layer].mlp] = (_restore_subject(clean, prompts) if at_subject
                                             else _restore(clean, where))
        p = _p_answer(model, prompts, mods, top=top)
        return p * len(prompts.last) if total else p
    return answer


trace_mlp = _traced()


def _case_args(layer, position):
    """A fresh model, and copies of the cached prompts and noise: no call sees another's changes."""
    prompts, noise = _tracing_case()
    return _fresh(), copy.deepcopy(prompts), noise.clone(), layer, position


_TRACING = Check(
    EX3,
    reference=lambda layer, position: trace_mlp(*_case_args(layer, position)),
    cases=[(0, 3), (1, 4), (0, 4)],
    mistakes=[
        Mistake("your run is not corrupted: p(answer) is what restoring gives in the clean run. "
                "Add the noise to the subject's embedding (a hook on model.wte) as well as "
                "restoring the MLP output.",
                answer=lambda lay, pos: _traced(corrupt=False)(*_case_args(lay, pos))),
        Mistake("you restored each prompt's subject (prompts.subject) whatever `position` says; "
                "the site to restore is word `position`, the same in every prompt.",
                answer=lambda lay, pos: _traced(at_subject=True)(*_case_args(lay, pos))),
        # Restoring an output saved in a run with the noise on gives the same numbers: the sentence
        # names both.
        Mistake("nothing was restored: p(answer) is the corrupted run's. The hook on "
                "model.blocks[layer].mlp must return its output with word `position` set to the "
                "clean run's value (saved in a run without the noise).",
                answer=lambda lay, pos: _traced(restore=False)(*_case_args(lay, pos))),
        Mistake("you restored MLP `layer`'s output at every word; causal tracing restores one "
                "site: word `position` only, output[:, position].",
                answer=lambda lay, pos: _traced(all_positions=True)(*_case_args(lay, pos))),
        Mistake("the noise went onto every word; ROME corrupts the subject only: add noise[b] at "
                "prompts.subject[b] in prompt b.",
                answer=lambda lay, pos: _traced(everywhere=True)(*_case_args(lay, pos))),
        Mistake("that is the mean probability of each prompt's top word; causal tracing measures p "
                "of the right answer, prompts.answer, at the last word.",
                answer=lambda lay, pos: _traced(top=True)(*_case_args(lay, pos))),

        Mistake("you restored word position + 1, the word after the site: positions count from 0, "
                "and the site is output[:, position] itself.",
                answer=lambda lay, pos: _traced(shift=1)(*_case_args(lay, pos))),
        Mistake("that is the sum of p(answer) over the prompts; return their mean (.mean(), as "
                "p_answer does).",
                answer=lambda lay, pos: _traced(total=True)(*_case_args(lay, pos))),
    ],
    compare=number(rel=1e-4, abs=1e-6),   # float32 rounding of a mean of 118 p's
    success="",
    name="trace_mlp",
)


def _through_tracing_copy(fn):
    return lambda layer, position: fn(*_case_args(layer, position))


def _check_tracing(fn):
    """Exercise 3: trace_mlp(model, prompts, noise, layer, position) -> mean p(answer)."""
    if fn is None or not callable(fn):
        return _TRACING(fn)
    found = _first_run(EX3, fn, _case_args(*_TRACING.cases[0])[1:])
    if found is not None:
        return found
    result = _TRACING(_through_tracing_copy(fn))
    if not result:
        return result
    model = _shipped()[0]
    prompts, noise = _tracing_case()
    p_clean = _p_answer(model, prompts, {})
    p_noisy = _p_answer(model, prompts, {model.wte: _noise_at(prompts, noise)})
    late, subject = (trace_mlp(model, prompts, noise, layer, pos)
                     for layer, pos in [(1, 4), (0, 3)])
    return correct(EX3, say("your trace matches at every site tried. p(answer) is {clean:.2f} "
                            "clean and {noisy:.2f} with the subject corrupted; restoring MLP 1 at "
                            "the last word brings it back to {late:.2f}, MLP 0 at the subject only "
                            "to {subject:.2f}.", clean=p_clean,
                            noisy=p_noisy, late=late, subject=subject))


check_tracing = _on_one_thread(_check_tracing, _TRACING.exercise)
# Called with the wrong number of arguments, a check says how to call it (not Python's TypeError).
check_tracing = explained_calls(_TRACING.exercise, check_tracing)
