"""Notebook 13's models for the checks: small random GPT-2s drawn from a local generator (one with
a square MLP), and what a model gives once the learner's FFNs are swapped into it."""

from dataclasses import dataclass
from functools import lru_cache

import torch


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
