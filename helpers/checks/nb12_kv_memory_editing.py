"""Checks for notebook 12's exercises (key-value memory and editing).

1. `ablated_logits(model, idx, neurons)`: the learner registers a forward hook on MLP 1's activation
   submodule, runs the model and removes the hook; compared with the same ablation done on the
   weights (a neuron that outputs 0 writes nothing, so its value column might as well be deleted).
2. A prediction: what zeroing france's top 30 neurons does to paris and to the other facts.
3. `trace_mlp(model, prompts, noise, layer, position)`: causal tracing of one site (corrupt the
   subject, restore one MLP output, measure p(answer)).
4. (stretch) `memit_update(W, K, V, C, lam)`: MEMIT's one-layer least-squares edit of r facts.

Every run of the learner's code gets its own copy of the shipped model, and the check looks at the
copy afterwards: a hook left registered, or a weight changed, is named.
"""

import copy
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import torch
from torch.overrides import TorchFunctionMode

from helpers import facts, hooks, kv_memory
from helpers.capacity import one_thread
from helpers.checks import language
from helpers.checks.compare import arrays, number
from helpers.checks.core import (
    MISSING,
    WRONG,
    attempt,
    correct,
    explained_calls,
    judge,
    not_attempted,
    wrong,
)
from helpers.checks.runner import Check, Mistake, Prediction, _answer, _choice
from helpers.checks.show import _listed, one_line, say

LAYER = 1
EX1 = "Exercise 1 (an ablation hook)"
EX3 = "Exercise 3 (causal tracing)"
EX4 = "Exercise 4 (MEMIT: edit several facts at once)"

# Prediction's "you predicted {guess}, {answer} {actual}. {why}", with the mistake's sentence
# before the why.
_NAMED = "you predicted {guess}, {answer} {actual}. {mistake} {why}"


@dataclass(frozen=True)
class NamedChoice(Prediction):
    """A Prediction among `choices` whose `mistakes` name a wrong choice.

    The mistakes are Mistake rows, when(choice, actual).
    """

    mistakes: Sequence[Mistake] = ()

    def _judge(self, guess, actual):
        feedback = super()._judge(guess, actual)
        said = getattr(feedback.message, "values", {})
        if (feedback.status != WRONG or "guess" not in said
                or not feedback.message.endswith(self.why)):
            return feedback  # right, not attempted, or not one of the choices
        choice, actual = _choice(_answer(guess), self.choices), _answer(actual)
        for mistake in self.mistakes:
            if mistake.when(choice, actual):
                return wrong(self.exercise,
                             say(_NAMED, **{**said, "mistake": say(mistake.message)}))
        return feedback


check_ablation_guess = NamedChoice(
    "Exercise 2 (predict the ablation)",
    why="The top 30 neurons are the ones whose keys fire for france and whose values push paris "
        "up, so removing them takes most of paris away; the other facts lean on other neurons, and "
        "30 random neurons rarely matter to paris. That is the key-value reading at work.",
    choices=("A", "B", "C"),
    variable="my_ablation_guess",
    mistakes=[
        Mistake("A assumes the 30 neurons that carry paris carry the other facts too. Each neuron "
                "serves a handful of facts (section 6), so the 30 chosen for paris are a small "
                "part of any other fact's support.",
                when=lambda guess, actual: guess == "A" and actual == "B"),
        Mistake("C assumes a fact is spread thinly over all 256 neurons. Section 5 found it "
                "concentrated: a few neurons hold most of what MLP 1 adds to paris's logit, and "
                "the top 30 include them.",
                when=lambda guess, actual: guess == "C" and actual == "B"),
    ],
)


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


# ---- Exercise 1: an ablation hook -------------------------------------------------------------

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


# ---- Exercise 3: causal tracing ---------------------------------------------------------------

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


# ---- Exercise 4: MEMIT ------------------------------------------------------------------------

def memit_update(W, K, V, C, lam):
    """MEMIT's one-layer edit (Meng et al. 2022, arXiv 2210.07229).

    W + R K^T (lam C + K K^T)^-1, with R = V - W K:

    The W' that minimises lam * (the old keys' error, weighted by C) + |W' K - V|^2.
    """
    A = lam * C + K @ K.T                                               # (d_ff, d_ff), symmetric
    return W + (V - W @ K) @ torch.linalg.solve(A, K).T


def _one_after_another(W, K, V, C, lam):
    for i in range(K.shape[1]):
        W = memit_update(W, K[:, i:i + 1], V[:, i:i + 1], C, lam)
    return W


def _edit_case(seed, r, lam, d_model=5, d_ff=8):
    """(W, K, V, C, lam) for r new facts, drawn from `seed`, C a key covariance."""
    g = torch.Generator().manual_seed(seed)
    W = torch.randn(d_model, d_ff, generator=g, dtype=torch.float64)
    A = torch.randn(d_ff, d_ff, generator=g, dtype=torch.float64)
    # a key covariance, not diagonal
    C = A @ A.T / d_ff + 0.5 * torch.eye(d_ff, dtype=torch.float64)
    K = torch.randn(d_ff, r, generator=g, dtype=torch.float64)
    V = torch.randn(d_model, r, generator=g, dtype=torch.float64)
    return W, K, V, C, lam


def _per_fact(denominator, c_inv=True):
    """r rank-one updates, one per fact, each on its own, added.

    W + sum_i r_i (C^-1 k_i)^T / denominator(k_i).
    """
    def answer(W, K, V, C, lam):
        out = W.clone()
        for i in range(K.shape[1]):
            k, r = K[:, i], V[:, i] - W @ K[:, i]
            u = torch.linalg.solve(C, k) if c_inv else k
            out = out + torch.outer(r, u) / denominator(k, C, lam)
        return out
    return answer


def _with_inverse(of):
    """W + R (of(K, C, lam)^-1 K)^T: the update with another matrix in the inverse's place."""
    return lambda W, K, V, C, lam: W + (V - W @ K) @ torch.linalg.solve(of(K, C, lam), K).T


def _without_covariance(W, K, V, C, lam):
    """MEMIT with an identity where the old keys' covariance C belongs."""
    return memit_update(W, K, V, torch.eye(len(C), dtype=C.dtype), lam)


_PER_FACT = ("each fact got its own rank-one update, as ROME makes one, and the r updates were "
             "added: that ignores how the new keys overlap. MEMIT solves for all r at once, R K^T "
             "(lam C + K K^T)^-1 (for one fact alone that equals the rank-one update with "
             "normaliser lam + k^T C^-1 k, so r = 1 comes out right).")

_MEMIT = Check(
    EX4,
    reference=memit_update,
    cases=[_edit_case(0, 3, 0.5), _edit_case(1, 1, 4.0), _edit_case(2, 4, 10.0)],
    mistakes=[
        Mistake("that is the hard-constrained edit, W' K = V exactly: ROME's update for r facts at "
                "once (kv_memory.rome_update), which is MEMIT's limit as lam -> 0. MEMIT solves a "
                "least-squares problem instead: W + R K^T (lam C + K K^T)^-1, so each new fact "
                "gives a little to the old keys.",
                answer=lambda W, K, V, C, lam: kv_memory.rome_update(W, K, V, C)),
        Mistake("you multiplied by lam C + K K^T instead of by its inverse (C in place of C^-1, as "
                "it were): solve with it, torch.linalg.solve(lam * C + K @ K.T, K), as section 8 "
                "solved with C.",
                answer=lambda W, K, V, C, lam: W + (V - W @ K) @ K.T @ (lam * C + K @ K.T)),
        Mistake("one edit after another: each later edit moves the facts set before it. MEMIT "
                "solves for all r facts at once, with the whole K K^T in one inverse.",
                answer=_one_after_another),
        Mistake("lam was left out: it weights the old keys' covariance C against the r new facts, "
                "lam * C + K @ K.T.", answer=lambda W, K, V, C, lam: memit_update(W, K, V, C, 1.0)),
        Mistake("lam multiplies K K^T here; in MEMIT it weights C, the old keys: lam * C + K @ "
                "K.T.",
                answer=_with_inverse(lambda K, C, lam: C + lam * K @ K.T)),
        Mistake("the update adds V itself; it adds the residual R = V - W K, what the facts still "
                "lack.",
                answer=lambda W, K, V, C, lam: memit_update(W, K, V + W @ K, C, lam)),
        Mistake("the covariance C was left out (an identity in its place): the update must weigh "
                "the old keys by C, so that directions ordinary keys use move least.",
                answer=_without_covariance),
        Mistake("C^-1 stands where (lam C + K K^T)^-1 belongs: that is ROME's direction C^-1 k "
                "without its normaliser, and without the new keys. MEMIT inverts the whole "
                "lam * C + K @ K.T.",
                answer=_with_inverse(lambda K, C, lam: C)),
        Mistake("the inverse holds lam C^-1 + K K^T: ROME's formula has C^-1, but MEMIT's normal "
                "equations have C itself, weighted by lam, inside the one inverse: "
                "lam * C + K @ K.T.",
                answer=_with_inverse(lambda K, C, lam: lam * torch.linalg.inv(C) + K @ K.T)),
        Mistake("the residual has the wrong sign: R = V - W K, what the new facts still lack, "
                "added to W (W K - V, or W minus the update, moves every key away from its new "
                "value).",
                answer=lambda W, K, V, C, lam: memit_update(W, K, 2 * W @ K - V, C, lam)),
        Mistake("there is no inverse: R K^T is the update's direction before the least-squares "
                "weighting. Multiply by (lam C + K K^T)^-1, with "
                "torch.linalg.solve(lam * C + K @ K.T, K).T.",
                answer=lambda W, K, V, C, lam: W + (V - W @ K) @ K.T),
        Mistake(_PER_FACT, answer=_per_fact(lambda k, C, lam: lam + k @ torch.linalg.solve(C, k))),
        Mistake(_PER_FACT, answer=_per_fact(lambda k, C, lam: k @ torch.linalg.solve(C, k))),
        Mistake("a rank-one update per fact whose normaliser is lam + k^T k: the direction has "
                "C^-1, so the normaliser needs it too, lam + k^T C^-1 k; and with r facts, solve "
                "for all of them at once: R K^T (lam C + K K^T)^-1.",
                answer=_per_fact(lambda k, C, lam: lam + k @ k)),
        Mistake("a rank-one update per fact with neither C^-1 in its direction nor in its "
                "normaliser, k / (lam + k^T k): the old keys' covariance is what keeps their "
                "outputs; use R K^T (lam C + K K^T)^-1.",
                answer=_per_fact(lambda k, C, lam: lam + k @ k, c_inv=False)),
    ],
    compare=arrays(atol=1e-8, rtol=1e-8),
    success="W + R K^T (lam C + K K^T)^-1: MEMIT's least-squares edit at one layer. As lam -> 0 it "
            "tends to the hard-constrained W' K = V (ROME's update for r facts); a larger lam "
            "keeps the old keys closer and meets the new facts less exactly.",
    name="memit_update",
)


class _Ops(TorchFunctionMode):
    """Records each torch call's name and tensor arguments: a shape error traced to its product."""

    def __init__(self):
        super().__init__()
        self.calls = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        name = getattr(func, "__name__", "")
        self.calls.append((name, [a for a in args if isinstance(a, torch.Tensor)]))
        return func(*args, **(kwargs or {}))


def _named(tensor, W, K, V, C):
    """'K', 'K^T', 'V', ... when `tensor` is one of the inputs (or its transpose), else None."""
    for name, known in (("W", W), ("K", K), ("V", V), ("C", C)):
        for suffix, value in (("", known), ("^T", known.T)):
            if tensor.shape == value.shape and torch.equal(tensor.detach(), value):
                return name + suffix
    return None


_SOLVES = ("solve", "linalg_solve")


def _memit_shape_problem(calls, W, K, V, C):
    """A sentence naming the product that mixed up keys and values (or K and K^T), or None."""
    for name, tensors in calls:
        names = [_named(t, W, K, V, C) for t in tensors]
        if name in ("matmul", "__matmul__", "mm") and names[:2] == ["K^T", "K"]:
            return say("K^T K is (r, r), one number per pair of new facts; the inverse needs K "
                       "K^T, (d_ff, d_ff), a d_ff x d_ff matrix like C: lam * C + K @ K.T.")
        if name in ("matmul", "__matmul__", "mm") and names[:2] == ["W", "V"]:
            return say("W @ V: W maps keys (d_ff) to values (d_model), so it multiplies the keys "
                       "K: R = V - W @ K.")
        if name in _SOLVES and len(names) > 1 and names[1] in ("V", "V^T"):
            return say("the values V went into the solve; the keys K do: R K^T (lam C + K K^T)^-1, "
                       "with torch.linalg.solve(lam * C + K @ K.T, K).T, and V only in "
                       "R = V - W @ K.")
    name, tensors = calls[-1] if calls else ("", [])
    shapes = [tuple(t.shape) for t in tensors]
    d_model, d_ff, r = W.shape[0], W.shape[1], K.shape[1]
    if name in ("matmul", "__matmul__", "mm") and shapes[:2] == [(d_model, r), (d_ff, r)]:
        return say("R (d_model, r) met a (d_ff, r) matrix: A^-1 K from torch.linalg.solve(A, K) "
                   "needs its transpose, (r, d_ff), so that R (A^-1 K)^T is (d_model, d_ff).")
    if name in _SOLVES and shapes[1:2] == [(r, d_ff)]:
        return say("torch.linalg.solve(A, B) wants B with d_ff rows: pass K, (d_ff, r), and "
                   "transpose the result, not K^T.")
    return None


def _diagnosed(fn):
    """fn, with a shape error it raises turned into a sentence about the product that caused it."""
    def run(W, K, V, C, lam):
        inputs = [t.clone() for t in (W, K, V, C)]
        try:
            with _Ops() as ops:
                return fn(W, K, V, C, lam)
        except RuntimeError as err:
            problem = _memit_shape_problem(ops.calls, *inputs)
            if problem is None:
                raise
            raise RuntimeError(say("{err}. {problem}",
                                   err=one_line(err, 160), problem=problem)) from None
    run.__wrapped__ = fn   # the runner reads the learner's stub through the wrapper
    return run


def _check_memit(fn):
    """Exercise 4: memit_update(W, K, V, C, lam) -> W' (d_model, d_ff), the inputs unchanged."""
    if fn is None or not callable(fn):
        return _MEMIT(fn)
    return _MEMIT(_diagnosed(fn))   # the runner hands the learner copies


def _on_one_thread(check, exercise):
    """The check, on one thread (tiny matmuls; the count is restored), through the referee."""
    def run(fn):
        with one_thread():
            return judge(exercise, check, fn)
    run.__doc__ = check.__doc__
    return run


check_ablation = _on_one_thread(_check_ablation, _ABLATION.exercise)
check_tracing = _on_one_thread(_check_tracing, _TRACING.exercise)
check_memit = _on_one_thread(_check_memit, _MEMIT.exercise)


# Called with the wrong number of arguments, a check says how to call it (not Python's TypeError).
check_ablation = explained_calls(_ABLATION.exercise, check_ablation)
check_tracing = explained_calls(_TRACING.exercise, check_tracing)
check_memit = explained_calls(_MEMIT.exercise, check_memit)
