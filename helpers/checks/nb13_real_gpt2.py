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
from dataclasses import dataclass
from functools import lru_cache

import torch

from helpers import gpt2, kv_memory
from helpers.checks.compare import arrays
from helpers.checks.runner import Check, Mistake, Prediction
from helpers.checks.show import say
from helpers.ffn import FFN

EX1 = "Exercise 1 (GPT-2's MLP in your FFN)"
EX3 = "Exercise 3 (the restoring hook)"
CONV1D = ("GPT-2's Conv1D stores its weight as (in, out): c_fc.weight is (d_model, d_ff); nn.Linear, and so "
          "the FFN, stores (out, in): copy the transpose, hf_mlp.c_fc.weight.T (and c_proj's too).")
UNTRANSPOSED = ("in this square MLP (d_ff = d_model) nothing complained, yet the logits are wrong: you copied "
                "Conv1D's weight as it is. " + CONV1D + " GPT-2 small's 768 x 3072 MLP refuses that copy, but "
                "its square attention projection attn.c_proj (768 x 768) would load either way.")


def _model(seed, n_embd=16, n_inner=None, n_layer=2, vocab=50, std=0.4):
    """A small random GPT-2 (float32, eval) whose weights are large enough for every mistake to show."""
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
    """What a swapped model gives: last-position logits and greedy tokens; the modules swapped in."""

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


def _swapped(square, build):
    """The case's model with build(block.mlp) in every block (the learner gets a copy of each MLP)."""
    model, ids = _case(square)
    model = copy.deepcopy(model)
    made = []

    def one(hf_mlp):
        try:
            ffn = build(copy.deepcopy(hf_mlp))
        except RuntimeError as err:
            if "size" in str(err) or "shape" in str(err):
                raise RuntimeError(say("{err}. {fix}", err=str(err), fix=say(CONV1D))) from None
            raise
        made.append(ffn)
        return ffn if ffn is not None else torch.nn.Identity()

    gpt2.replace_mlps(model, one)
    if any(m is None for m in made):
        return None
    for m in made:
        if not isinstance(m, FFN):
            raise TypeError(say("mlp_from_hf returned a {kind}; expected a course FFN (helpers.ffn.FFN) "
                                "holding the block's weights", kind=type(m).__name__))
    try:
        return _run(model, ids, made)
    except RuntimeError as err:
        raise RuntimeError(say("the model with your FFNs raised: {err}. {fix}", err=str(err),
                               fix=say(CONV1D))) from None


def _ffn_variant(square, activation="gelu_tanh", bias=True, transpose=True):
    """What a typical mistake gives: FFNs built from the right weights with one thing wrong."""
    def build(hf_mlp):
        d_model, d_ff = hf_mlp.c_fc.weight.shape
        ffn = FFN(d_model, d_ff, activation=activation, bias=bias)
        with torch.no_grad():
            ffn.c_fc.weight.copy_(hf_mlp.c_fc.weight.T if transpose else hf_mlp.c_fc.weight)
            ffn.c_proj.weight.copy_(hf_mlp.c_proj.weight.T if transpose else hf_mlp.c_proj.weight)
            if bias:
                ffn.c_fc.bias.copy_(hf_mlp.c_fc.bias)
                ffn.c_proj.bias.copy_(hf_mlp.c_proj.bias)
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


def _biases_left_out(got, square):
    """The FFNs have no biases, or biases that are not the block's (left at nn.Linear's random start)."""
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
        Mistake(UNTRANSPOSED, answer=lambda square: _ffn_variant(square, transpose=False)),
        Mistake("the weights are right but the activation is exact GELU, x * Phi(x): GPT-2 uses the tanh "
                'formula (activation="gelu_tanh"; FFN\'s default is "gelu", the exact one).',
                answer=lambda square: _ffn_variant(square, activation="gelu")),
        Mistake("the weights are right but the biases are not: GPT-2's Conv1D has a bias in c_fc and in "
                "c_proj; copy both (hf_mlp.c_fc.bias, hf_mlp.c_proj.bias).",
                when=lambda got, square: isinstance(got, Run) and _biases_left_out(got, square)),
    ],
    compare=_logits_and_tokens,
    success="your FFN holds GPT-2's weights: swapped into every block, the logits agree within 1e-4 and "
            "the greedy tokens are the same, with a square MLP and with GPT-2's 4x one.",
    name="the model with your FFNs",
)


def check_mlp_from_hf(fn):
    """Exercise 1: mlp_from_hf(hf_mlp) -> a course FFN with that block's weights and GPT-2's tanh GELU."""
    if fn is None:
        return _MLP_FROM_HF(None)

    def swapped(square):
        return _swapped(square, fn)
    swapped.__wrapped__ = fn   # the runner reads the learner's stub through the wrapper
    return _MLP_FROM_HF(swapped)


# --- Exercise 2 ---

check_value_guess = Prediction(
    "Exercise 2 (predict what values say)",
    why="On trained weights a value tends to promote what follows its key's patterns (Geva et al. 2021 "
        "found this most in the upper layers); random weights store nothing, so their values agree only "
        "by chance.",
    choices=("yes", "no"),
    variable="my_value_guess",
    answer="on the model running now the answer is",
)


# --- Exercise 3 ---

@lru_cache(maxsize=1)
def _trace_case():
    """A small random GPT-2 with the course's FFNs, a prompt, and the noise that corrupts its subject."""
    model, ids = _model(5, n_layer=3)
    model = gpt2.replace_mlps(model, gpt2.mlp_from_hf)
    prompt = ids[:1]                                               # (1, 12)
    g = torch.Generator().manual_seed(6)
    noise = torch.randn(4, 3, model.config.n_embd, generator=g)   # 4 corrupted runs, subject = tokens 0-2
    clean = {}
    with torch.no_grad(), kv_memory.hooks({block.mlp: _keep(clean, i) for i, block in enumerate(gpt2.blocks(model))}):
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


def _traced(make_hook):
    """(layer, position) -> last-position logits (4, V) of the corrupted runs with make_hook(clean, position)."""
    def run(layer, position):
        model, prompt, noise, clean = _trace_case()
        hook = make_hook(clean[layer].clone(), position)
        if hook is None:
            return None
        if not callable(hook):
            raise TypeError(say("restore returned a {kind}, not a hook(module, inputs, output)",
                                kind=type(hook).__name__))
        batch = prompt.repeat(len(noise), 1)
        with torch.no_grad(), kv_memory.hooks({model.transformer.wte: _corrupt(noise),
                                                gpt2.blocks(model)[layer].mlp: hook}):
            return model(batch).logits[:, -1]
    run.__wrapped__ = make_hook   # the runner reads the learner's stub through the wrapper
    return run


def restore(clean, position):
    """The reference: a hook for block.mlp putting the clean run's output back at `position`, every run."""
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
        Mistake("nothing was restored: a forward hook must return the new output (or change `output` in "
                "place) for the model to use it.", answer=_variant(lambda out, clean, p: out)),
        Mistake("every position was restored; only `position` should be (the clean output at the other "
                "positions is not what this site carries).",
                answer=_variant(lambda out, clean, p: _at(out, slice(None), slice(None), clean))),
        Mistake("only the first run of the batch was restored: every row is a corrupted run, so restore "
                "output[:, position] in all of them.",
                answer=_variant(lambda out, clean, p: _at(out, 0, p, clean[p]))),
        Mistake("the clean output was added to the corrupted one; restoring replaces it.",
                answer=_variant(lambda out, clean, p: _at(out, slice(None), p, out[:, p] + clean[p]))),
        Mistake("the last position was restored instead of `position`.",
                answer=_variant(lambda out, clean, p: _at(out, slice(None), -1, clean[-1]))),
    ],
    compare=arrays(atol=1e-5, rtol=1e-5),
    success="your hook puts the clean MLP output back at exactly one position, in every corrupted run.",
    name="the corrupted runs with your hook",
)


def check_restore_hook(fn):
    """Exercise 3: restore(clean, position) -> a forward hook for block.mlp that restores that position."""
    return _RESTORE(None if fn is None else _traced(fn))


# --- Exercise 4 ---

check_undo_guess = Prediction(
    "Exercise 4 (predict the undo)",
    why="The cell copies the saved tensor back, bit for bit, so the model is exactly the one before the "
        "edit. Subtracting the update instead, (W + D) - D, rounds in float32 and can leave entries a "
        "last bit off.",
    choices=("A", "B", "C"),
    variable="my_undo_guess",
    answer="the run gives",
)
