"""Notebook 07's checks accept a right answer and name typical mistakes."""

import math

import numpy as np
import pytest
import torch
from torch import nn

from helpers.attention import CausalSelfAttention
from helpers.checks import nb07_position_wise as checks


def make_attention(scale="d_head", mask="causal", dim=-1, heads=True, project=True, bias=True,
                   names=("c_attn", "c_proj"), mask_buffer=False, split="transpose", merge="transpose"):
    class SelfAttention(nn.Module):
        def __init__(self, d_model, n_head):
            super().__init__()
            self.n_head = n_head if heads else 1
            setattr(self, names[0], nn.Linear(d_model, 3 * d_model, bias=bias))
            setattr(self, names[1], nn.Linear(d_model, d_model, bias=bias))
            if mask_buffer:   # nanoGPT's persistent "bias" buffer, (1, 1, block_size, block_size): not a parameter
                self.register_buffer("bias", torch.tril(torch.ones(8, 8)).view(1, 1, 8, 8))

        def forward(self, x):
            B, T, C = x.shape
            nh, hs = self.n_head, C // self.n_head
            q, k, v = getattr(self, names[0])(x).split(C, dim=2)
            if split == "transpose":
                q, k, v = (t.view(B, T, nh, hs).transpose(1, 2) for t in (q, k, v))
            elif split == "reshape":          # no transpose: (B, T, C) read as (B, nh, T, hs)
                q, k, v = (t.reshape(B, nh, T, hs) for t in (q, k, v))
            else:                             # .view on the split's non-contiguous slices: torch refuses
                q, k, v = (t.view(B, nh, T, hs) for t in (q, k, v))
            scores = q @ k.transpose(-2, -1)
            if scale == "d_head":
                scores = scores / math.sqrt(hs)
            elif scale == "d_model":
                scores = scores / math.sqrt(C)
            future = torch.ones(T, T, dtype=torch.bool).triu(1)
            if mask_buffer:
                scores = scores.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
            elif mask == "causal":
                scores = scores.masked_fill(future, float("-inf"))
            elif mask == "zero":
                scores = scores.masked_fill(future, 0.0)
            elif mask == "upside-down":
                scores = scores.masked_fill(future.T, float("-inf"))
            elif mask == "diagonal too":
                scores = scores.masked_fill(~future, float("-inf"))
            weights = torch.softmax(scores, dim=dim)
            if mask == "after softmax":
                weights = weights.masked_fill(future, 0.0)
            elif mask == "-inf after softmax":
                weights = weights.masked_fill(future, float("-inf"))
            y = weights @ v
            y = y.transpose(1, 2).reshape(B, T, C) if merge == "transpose" else y.reshape(B, T, C)
            return getattr(self, names[1])(y) if project else y

    return SelfAttention


class SdpaAttention(nn.Module):
    """A right answer written with torch's fused attention."""

    def __init__(self, d_model, n_head):
        super().__init__()
        self.n_head = n_head
        self.c_attn = nn.Linear(d_model, 3 * d_model)
        self.c_proj = nn.Linear(d_model, d_model)

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = (t.view(B, T, self.n_head, C // self.n_head).transpose(1, 2) for t in self.c_attn(x).split(C, 2))
        y = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.c_proj(y.transpose(1, 2).contiguous().view(B, T, C))


class Stub(nn.Module):
    def __init__(self, d_model, n_head):
        super().__init__()

    def forward(self, x):
        raise NotImplementedError


def test_the_untouched_stubs_are_not_attempted():
    for fb in [checks.check_attention(Stub), checks.check_attention(None),
               checks.check_window_mask(lambda T, window: None),
               checks.check_token3_inputs(None, [1, 2, 3]), checks.check_linearity_guess(None, "linear in V only")]:
        assert fb.status == "not attempted" and str(fb).startswith("[not attempted yet] Exercise")
        assert "Hint" not in str(fb)


def test_a_nanogpt_attention_is_correct():
    fb = checks.check_attention(make_attention())
    assert fb and str(fb).startswith("[correct] Exercise 3")
    fb = checks.check_attention(make_attention(mask_buffer=True))   # nanoGPT's mask, a buffer named bias, used
    assert fb, fb
    fb = checks.check_attention(SdpaAttention)                      # torch's fused attention, is_causal=True
    assert fb, fb


def test_the_reference_and_its_subclasses_are_refused():
    class Mine(CausalSelfAttention):
        pass

    fb = checks.check_attention(CausalSelfAttention)
    assert not fb and "that is the reference, helpers.attention.CausalSelfAttention, itself" in fb.message, fb
    fb = checks.check_attention(Mine)
    assert not fb and "your class subclasses the reference CausalSelfAttention" in fb.message, fb


def test_attention_mistakes_are_named():
    cases = [
        (make_attention(scale="none"), "not scaled"),
        (make_attention(scale="d_model"), "divided by sqrt(d_model)"),
        (make_attention(heads=False, scale="d_model"), "one head of d_model numbers"),
        (make_attention(mask="none"), "no causal mask"),
        (make_attention(mask="zero"), "masked with 0"),
        (make_attention(mask="upside-down"), "upside down"),
        (make_attention(mask="diagonal too"), "holds NaN"),
        (make_attention(dim=-2), "down the columns"),
        (make_attention(project=False), "output projection is missing"),
        (make_attention(mask="after softmax"), "masked after the softmax: zeroing"),
        (make_attention(mask="-inf after softmax"), "masked after the softmax, with -inf"),
        (make_attention(split="reshape", merge="reshape"), "heads were made without the transpose"),
        (make_attention(split="reshape"), "heads were made without the transpose"),
        (make_attention(merge="reshape"), "put back without the transpose"),
        (make_attention(split="view"), "raised RuntimeError"),
        (make_attention(bias=False), "did you pass bias=False"),
        (make_attention(names=("qkv", "out")), "name your layers the same"),
    ]
    for cls, words in cases:
        fb = checks.check_attention(cls)
        assert not fb and fb.status == "wrong", words
        assert words in fb.message, (words, fb.message)


def make_attention_variant(variant):
    """A learner's attention with one typical mistake (named by `variant`) in an otherwise right forward."""
    class SelfAttention(nn.Module):
        def __init__(self, d_model, n_head):
            super().__init__()
            self.n_head = n_head
            self.c_attn = nn.Linear(d_model, 3 * d_model)
            self.c_proj = nn.Linear(d_model, d_model)

        def forward(self, x):
            B, T, C = x.shape
            nh, hs = self.n_head, C // self.n_head
            batch = x[:1] if variant in ("x[0] for all", "one sequence") else x
            b = batch.shape[0]
            q, k, v = self.c_attn(batch).split(C, dim=2)
            if variant.startswith("order "):
                q, k, v = {"kqv": (k, q, v), "qvk": (q, v, k), "vkq": (v, k, q), "kvq": (k, v, q),
                           "vqk": (v, q, k)}[variant[6:]]
            if variant == "interleaved":
                q, k, v = (t.view(b, T, hs, nh).permute(0, 3, 1, 2) for t in (q, k, v))
            elif variant == "transpose(0, 2)":
                q, k, v = (t.view(b, T, nh, hs).transpose(0, 2) for t in (q, k, v))
            else:
                q, k, v = (t.view(b, T, nh, hs).transpose(1, 2) for t in (q, k, v))
            scale = {"/ d_head": 1 / hs, "/ d_model": 1 / C}.get(variant, 1 / math.sqrt(hs))
            scores = q @ k.transpose(-2, -1) * scale
            future = torch.ones(scores.shape[-1], scores.shape[-1], dtype=torch.bool).triu(1)
            weights = torch.softmax(scores.masked_fill(future, float("-inf")),
                                    dim={"softmax over heads": 1, "softmax over batch": 0}.get(variant, -1))
            y = weights @ v
            y = y.transpose(0, 2) if variant == "transpose(0, 2)" else \
                y.permute(0, 2, 3, 1) if variant == "interleaved" else y.transpose(1, 2)
            out = self.c_proj(y.reshape(b, T, C))
            if variant == "x[0] for all":
                return out.expand(B, T, C)
            return out[0] if variant == "one sequence" else out

    return SelfAttention


VARIANTS = [
    ("/ d_head", "divided the scores by d_head, not by its square root"),
    ("/ d_model", "you divided the scores by d_model"),
    *[("order " + order, "you unpacked c_attn's output in another order") for order in ("kqv", "qvk", "vkq",
                                                                                          "kvq", "vqk")],
    ("interleaved", "your heads take every n_head-th number"),
    ("transpose(0, 2)", "you swapped dimensions 0 and 2"),
    ("softmax over heads", "your softmax runs over the heads (dim=1)"),
    ("softmax over batch", "your softmax runs over the batch (dim=0)"),
    ("x[0] for all", "every sequence got the first sequence's output"),
    ("one sequence", "your module returns the output of one sequence"),
]


@pytest.mark.parametrize(("variant", "words"), VARIANTS, ids=[v for v, _ in VARIANTS])
def test_more_attention_mistakes_are_named(variant, words):
    fb = checks.check_attention(make_attention_variant(variant))
    assert not fb and fb.status == "wrong", variant
    assert words in fb.message, (variant, fb.message)
    assert "masked after the softmax" not in fb.message, "a softmax over heads is not a mask after the softmax"


def test_the_variant_factory_is_right_without_a_mistake():
    assert checks.check_attention(make_attention_variant("right"))


def solution_window(T, window):
    i, j = torch.arange(T)[:, None], torch.arange(T)[None, :]
    return (j <= i) & (j > i - window)


def test_window_mask():
    assert checks.check_window_mask(solution_window)
    fb = checks.check_window_mask(lambda T, w: solution_window(T, w).T)
    assert not fb and "transposed" in fb.message
    fb = checks.check_window_mask(lambda T, w: solution_window(T, w + 1))
    assert not fb and "one token too many" in fb.message and "window_mask(7, 3)" in fb.message
    fb = checks.check_window_mask(lambda T, w: solution_window(T, w - 1))
    assert not fb and "one token too few" in fb.message
    fb = checks.check_window_mask(lambda T, w: (torch.arange(T)[:, None] - torch.arange(T)[None, :]).abs() < w)
    assert not fb and "later token" in fb.message
    fb = checks.check_window_mask(lambda T, w: torch.ones(T - 1, T, dtype=torch.bool))
    assert not fb and "shape (6, 7)" in fb.message


def test_predictions():
    fb = checks.check_token3_inputs([1, 2, 3], [1, 2, 3])
    assert fb and "tokens 1, 2 and 3" in fb.message
    assert checks.check_token3_inputs((1, 2, 3), [1, 2, 3])          # a tuple is the same guess
    fb = checks.check_token3_inputs([3], [1, 2, 3])
    assert not fb and "you predicted [3], the run gives [1, 2, 3]" in fb.message
    assert "is not one of" in checks.check_token3_inputs([2, 3], [1, 2, 3]).message
    assert checks.check_linearity_guess("linear in V only", "linear in V only")
    fb = checks.check_linearity_guess("linear in V and in X", "linear in V only")
    assert not fb and "not linear" in fb.message
    assert fb.message.startswith("The softmax acts on X's scores"), fb.message


NAMED_GUESSES = [
    (checks.check_token3_inputs, [1, 2, 3, 4, 5, 6], [1, 2, 3], "That is attention without a mask"),
    (checks.check_token3_inputs, np.arange(1, 7), [1, 2, 3], "That is attention without a mask"),
    (checks.check_token3_inputs, [3], [1, 2, 3], "That is the MLP's answer"),
    (checks.check_token3_inputs, (3, 4, 5, 6), [1, 2, 3], "That is the mask upside down"),
    (checks.check_linearity_guess, "linear in neither", "linear in V only", "The softmax never touches V"),
    (checks.check_linearity_guess, " Linear in X only", "linear in V only", "The softmax never touches V"),
    (checks.check_linearity_guess, "linear in V and in X", "linear in V only", "The softmax acts on X"),
]


@pytest.mark.parametrize(("check", "guess", "actual", "words"), NAMED_GUESSES)
def test_the_likeliest_wrong_guesses_are_named(check, guess, actual, words):
    fb = check(guess, actual)
    assert not fb and fb.message.startswith(words) and "you predicted" in fb.message, fb
    assert check(actual, actual), "the right guess is still right"
