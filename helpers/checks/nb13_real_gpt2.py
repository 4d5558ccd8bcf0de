"""Checks for notebook 13's exercises (the course's MLP inside GPT-2).

1. `mlp_from_hf(hf_mlp)`: a course FFN from one block's GPT2MLP, swapped into every block of small
   random GPT-2s (one with a square MLP, where an untransposed weight loads without an error); the
   logits must agree within 1e-4 (float32) and the greedy tokens must be the same.
2. A prediction: do neurons' values promote the token that follows their key's strongest trigger
   more often than chance?
3. `restore(clean, position)`: the restoring hook of causal tracing, checked on a small random GPT-2
   with its subject corrupted, against the reference hook.
4. (stretch) A prediction: how exactly the undo restores the model.

Each check builds its own models from a local torch.Generator and hands the learner copies.
"""

import copy
import inspect
from dataclasses import dataclass
from functools import lru_cache

import torch
from torch.overrides import TorchFunctionMode

from helpers import gpt2, hooks
from helpers.checks.compare import arrays
from helpers.checks.core import correct, explained_calls, names_read, referee, wrong
from helpers.checks.nb12_kv_memory_editing import NamedChoice
from helpers.checks.runner import Check, Mistake
from helpers.checks.show import Text, one_line, say
from helpers.ffn import FFN

EX1 = "Exercise 1 (GPT-2's MLP in your FFN)"
EX3 = "Exercise 3 (the restoring hook)"
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


def _model(seed, n_embd=16, n_inner=None, n_layer=2, vocab=50, std=0.4):
    """A small random GPT-2 (float32, eval) whose weights are large enough for every mistake to
    show."""
    from transformers import GPT2Config, GPT2LMHeadModel

    config = GPT2Config(vocab_size=vocab, n_positions=16, n_embd=n_embd, n_layer=n_layer, n_head=2,
                        n_inner=n_inner, bos_token_id=0, eos_token_id=0)
    with torch.random.fork_rng(devices=[]):
        model = GPT2LMHeadModel(config)
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if ".ln_" not in name:
                p.copy_(torch.randn(p.shape, generator=g) * (std if p.ndim == 2 else 0.5))
    ids = torch.randint(0, vocab, (3, 12), generator=g)
    return model.eval(), ids


# --- Exercise 1 ---

@dataclass(frozen=True)
class Run:
    """What a swapped model gives: last-position logits and greedy tokens; the modules swapped
    in."""

    logits: torch.Tensor
    tokens: torch.Tensor
    modules: tuple = ()


def _run(model, ids, modules=()):
    with torch.no_grad():
        logits = model(ids).logits
    return Run(logits, logits.argmax(-1), tuple(modules))


@lru_cache(maxsize=4)
def _case(square):
    return _model(3 if square else 4, n_inner=16 if square else None)


def _reference(square):
    model, ids = _case(square)
    return _run(model, ids)


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
            for transposed, known in ((False, value), (True, value.T)) if value.ndim == 2 else ((False, value),):
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
    if tuple(weight.shape) == (d_model, d_ff) and torch.equal(weight.detach().cpu().float(), hf_mlp.c_fc.weight.detach()):
        return say(UNTRANSPOSED_SHAPE)
    if getattr(ffn.c_fc, "in_features", None) == d_ff and getattr(ffn.c_fc, "out_features", None) == d_model:
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
                raise RuntimeError(say("{err}. {fix}", err=one_line(err, 200), fix=problem)) from None
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


def _ffn_variant(square, activation="gelu_tanh", bias=True, transpose=("c_fc", "c_proj"), crossed=False):
    """What a typical mistake gives: FFNs built from the right weights with one thing wrong."""
    def build(hf_mlp):
        d_model, d_ff = hf_mlp.c_fc.weight.shape
        ffn = FFN(d_model, d_ff, activation=activation, bias=bias)
        sources = {"c_fc": hf_mlp.c_proj if crossed else hf_mlp.c_fc, "c_proj": hf_mlp.c_fc if crossed else hf_mlp.c_proj}
        with torch.no_grad():
            for name, source in sources.items():
                getattr(ffn, name).weight.copy_(source.weight.T if name in transpose else source.weight)
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
    return all(torch.equal(ffn.c_fc.weight.detach().cpu().float(), block.mlp.c_fc.weight.detach().T)
               and torch.equal(ffn.c_proj.weight.detach().cpu().float(), block.mlp.c_proj.weight.detach().T)
               for ffn, block in zip(got.modules, gpt2.blocks(model), strict=False))


def _nothing_copied(got, square):
    """No FFN holds any of its block's four tensors, in either layout: built, never filled."""
    model, _ = _case(square)
    for ffn, block in zip(got.modules, gpt2.blocks(model), strict=False):
        for name in ("c_fc", "c_proj"):
            for part in ("weight", "bias"):
                mine = getattr(getattr(ffn, name), part, None)
                if isinstance(mine, torch.Tensor) and _which(mine.detach().cpu().float(), block.mlp) is not None:
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
                and torch.equal(ffn.c_proj.bias.detach().cpu().float(), block.mlp.c_proj.bias.detach())):
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
        Mistake("the weights are right but the activation is ReLU: GPT-2's MLP uses GELU, its tanh formula "
                '(activation="gelu_tanh").', answer=lambda square: _ffn_variant(square, activation="relu")),
        Mistake("the weights are right but the activation is SiLU (Llama's); GPT-2's MLP uses GELU, its tanh "
                'formula (activation="gelu_tanh").', answer=lambda square: _ffn_variant(square, activation="silu")),
        Mistake("the weights are right but the activation is exact GELU, x * Phi(x): GPT-2 uses the tanh "
                'formula (activation="gelu_tanh"; FFN\'s default is "gelu", the exact one).',
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


# --- Exercise 2 ---

_VALUE_WHY = ("On trained weights a value tends to promote what follows its key's patterns (Geva "
              "et al. 2021 found this most in the upper layers); random weights store nothing, so "
              "their values agree only by chance.")
_PAIRS = tuple((random, trained) for random in ("yes", "no") for trained in ("yes", "no"))
_VALUE_MISTAKES = [
    Mistake("Both halves are the wrong way round: random weights store nothing, so they agree only "
            "by chance, and trained values learn to promote what follows their keys.",
            when=lambda guess, actual: guess[0] != actual[0] and guess[1] != actual[1]),
    Mistake("Random weights store nothing: a random value vector points at random "
            "tokens, so it promotes the token after its key's trigger only by chance, 10 "
            "in the vocabulary size per neuron.",
            when=lambda guess, actual: guess[0] == "yes" and actual[0] == "no"),
    Mistake("Trained values do promote what follows their keys: training lowers the loss "
            "on the next token, and a value that raises the tokens that usually come after "
            "its key's pattern does just that.",
            when=lambda guess, actual: guess[1] == "no" and actual[1] == "yes"),
]
EX2 = "Exercise 2 (predict what values say)"


def _whole(value):
    """value as an int when it is a whole number (a numpy or torch scalar too), else None."""
    if isinstance(value, torch.Tensor) and value.numel() == 1:
        value = value.item()
    if hasattr(value, "item") and not isinstance(value, (list, tuple, str)):
        value = value.item()
    if isinstance(value, bool):
        return None
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value if isinstance(value, int) else None


def _neuron(value):
    """(block, unit) from a pair, or from text as the table writes it ("neuron 10.5", "10.5", "(10,
    5)")."""
    if isinstance(value, str):
        text = value.strip().casefold().removeprefix("neuron").strip(" ()[]")
        parts = [p for p in text.replace(",", " ").replace(".", " ").split() if p]
        value = [int(p) for p in parts if p.lstrip("-").isdigit()] if len(parts) == 2 else None
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        return None
    block, unit = (_whole(v) for v in value)
    return None if block is None or unit is None else (block, unit)


def neuron_picked(my_neuron, n_layer, d_ff, default):
    """Exercise 2's neuron: my_neuron read as (block, unit); None gives the default silently,
    anything else that is not a neuron of this model prints why and gives the default."""
    if my_neuron is None:
        return default
    picked = _neuron(my_neuron)
    if picked is None:
        problem = say("my_neuron = {got} is not a neuron: write it as (block, unit), two whole "
                      "numbers, as the table names it (neuron 10.5 is (10, 5)).",
                      got=one_line(repr(my_neuron), 80))
    elif not 0 <= picked[0] < n_layer:
        problem = say("my_neuron's block is {block}, but this model's blocks are 0 to {last}.", block=picked[0],
                      last=n_layer - 1)
    elif not 0 <= picked[1] < d_ff:
        problem = say("my_neuron's unit is {unit}, but a block's units are 0 to {last}.", unit=picked[1],
                      last=d_ff - 1)
    else:
        return picked
    print(wrong(EX2, say("{problem} The cells below use neuron {block}.{unit} instead.", problem=problem,
                         block=default[0], unit=default[1])))
    return default


_VALUE = NamedChoice(EX2, why=_VALUE_WHY, choices=_PAIRS,
                     variable="my_value_guess", mistakes=_VALUE_MISTAKES)
_MEASURED = "on the model running now the answer is"


@referee(_VALUE.exercise)
def check_value_guess(guess, measured, real=False):
    """Exercise 2: guess = (random weights, trained weights), each "yes" or "no"; the run measures
    one half.

    measured: the answer on the model running now (GPT-2 small if real, else random weights), or the
    whole pair. The half the run cannot measure is known without it: random weights agree by chance
    ("no"), and trained ones promote what follows their keys (Geva et al.'s finding, "yes")."""
    if isinstance(measured, (list, tuple)) and len(measured) == 2:
        answer, measured = tuple(measured), measured[1 if real else 0]
    else:
        answer = ("no", measured) if real else (measured, "yes")
    if isinstance(guess, (list, tuple)) and len(guess) == 2 and all(isinstance(g, str) for g in guess):
        guess = tuple(g.strip().casefold() for g in guess)
    elif isinstance(guess, str) and guess.strip().casefold() in ("yes", "no"):
        return wrong(_VALUE.exercise, say(
            "my_value_guess = {guess} is one answer; the question asks for two, one for each kind "
            "of weights: (random weights, trained weights), each \"yes\" or \"no\".",
            guess=repr(guess)))
    feedback = _VALUE(guess, answer)
    said = getattr(feedback.message, "values", {})
    # not attempted, or not one of the pairs
    if "guess" not in said or not isinstance(feedback.message, Text):
        return feedback
    message = say(feedback.message.template, **{**said, "answer": say(_MEASURED), "actual": repr(measured)})
    return (correct if feedback else wrong)(_VALUE.exercise, message)


check_value_guess.choices = _PAIRS   # the pairs a guess is one of, as a Prediction's


# --- Exercise 3 ---

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
    with torch.no_grad(), hooks.attached({block.mlp: _keep(clean, i) for i, block in enumerate(gpt2.blocks(model))}):
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
            raise type(err)(say("{err}. {shapes}", err=one_line(err, 160), shapes=say(_SHAPES))) from None
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
                answer=_variant(lambda out, clean, p: _at(out, slice(None), p, out[:, p] + clean[p]))),
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
                answer=_variant(lambda out, clean, p: _at(out, torch.arange(len(out)), torch.arange(len(out)),
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


# --- Exercise 4 ---

check_undo_guess = NamedChoice(
    "Exercise 4 (predict the undo)",
    why="The cell copies the saved tensor back, bit for bit, so the model is exactly the "
        "one before the edit. Subtracting the update instead, (W + D) - D, rounds in "
        "float32 and can leave entries a last bit off.",
    choices=("A", "B", "C"),
    variable="my_undo_guess",
    answer="the run gives",
    mistakes=[
        Mistake("B is what undoing by arithmetic gives, W - delta, which rounds; copy_ computes "
                "nothing: it writes the saved bits back.",
                when=lambda guess, actual: guess == "B" and actual == "A"),
        Mistake("C assumes the edit leaves a trace in W; copy_ overwrites every entry with the "
                "saved tensor, so nothing of the update is left.",
                when=lambda guess, actual: guess == "C" and actual == "A"),
    ],
)


# Called with the wrong number of arguments, a check says how to call it (not Python's TypeError).
check_mlp_from_hf = explained_calls(EX1, check_mlp_from_hf)
check_restore_hook = explained_calls(EX3, check_restore_hook)
