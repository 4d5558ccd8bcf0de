"""Notebook 03's exercise checks: accept the solutions, explain typical mistakes."""

import numpy as np
import torch
from scipy.special import erf

from helpers.checks import nb03_ffn_forward as checks


def gelu(h):
    return 0.5 * h * (1 + erf(h / np.sqrt(2)))


def test_not_attempted_does_not_raise():
    for fb in [checks.check_ffn_forward(lambda *a: None), checks.check_ffn_params(None),
               checks.check_retrieval_accuracy(lambda o, v: None)]:
        assert fb.status == "not attempted" and not fb
        assert "not attempted yet" in str(fb)


def test_ffn_forward_accepts_numpy_and_torch():
    assert checks.check_ffn_forward(lambda x, W1, b1, W2, b2: gelu(x @ W1 + b1) @ W2 + b2)
    as_torch = lambda x, W1, b1, W2, b2: torch.nn.functional.gelu(  # noqa: E731
        torch.from_numpy(x @ W1 + b1)) @ torch.from_numpy(W2) + torch.from_numpy(b2)
    assert checks.check_ffn_forward(as_torch)


def test_ffn_forward_names_the_mistake():
    fb = checks.check_ffn_forward(lambda x, W1, b1, W2, b2: gelu(x @ W1 + b1))
    assert not fb and "(4, 2048); expected (4, 512)" in fb.message
    assert "forget the down-projection" in fb.message
    fb = checks.check_ffn_forward(lambda x, W1, b1, W2, b2: (x @ W1 + b1) @ W2 + b2)
    assert not fb and "forget the GELU" in fb.message
    fb = checks.check_ffn_forward(lambda x, W1, b1, W2, b2: np.maximum(x @ W1 + b1, 0) @ W2 + b2)
    assert not fb and "ReLU" in fb.message
    fb = checks.check_ffn_forward(lambda x, W1, b1, W2, b2: gelu(x @ W1) @ W2 + b2)
    assert not fb and "b1 is missing" in fb.message
    fb = checks.check_ffn_forward(lambda x, W1, b1, W2, b2: gelu(x @ W1 + b1) @ W2 + 2 * b2)
    assert not fb and "differs in" in fb.message
    fb = checks.check_ffn_forward(lambda x, W1, b1, W2, b2: x @ W1 @ W2.T)
    assert not fb and "raised ValueError" in fb.message


def test_ffn_params():
    solution = lambda d, f, bias=True: 2 * d * f + ((d + f) if bias else 0)  # noqa: E731
    fb = checks.check_ffn_params(solution)
    assert fb and "4,722,432" in fb.message
    fb = checks.check_ffn_params(lambda d, f, bias=True: 2 * d * f)
    assert not fb and "left out the biases" in fb.message
    fb = checks.check_ffn_params(lambda d, f, bias=True: d * f + f)
    assert not fb and "one matrix" in fb.message
    fb = checks.check_ffn_params(lambda d, f, bias=True: 8 * d * d + (5 * d if bias else 0))
    assert not fb and "assumed d_ff = 4 * d_model" in fb.message
    fb = checks.check_ffn_params(lambda d, f, bias=True: 2 * d * f + d + f)
    assert not fb and "bias=False there are no biases" in fb.message


def test_retrieval_accuracy():
    def solution(outputs, values):
        nearest = torch.cdist(outputs, values).argmin(dim=1)
        return (nearest == torch.arange(len(values))).double().mean()

    fb = checks.check_retrieval_accuracy(solution)
    assert fb and "accuracy" in fb.message
    numpy_way = lambda o, v: float(np.mean(  # noqa: E731
        np.linalg.norm(o.numpy()[:, None] - v.numpy()[None], axis=-1).argmin(1) == np.arange(len(v))))
    assert checks.check_retrieval_accuracy(numpy_way)

    def count(outputs, values):
        return (torch.cdist(outputs, values).argmin(dim=1) == torch.arange(len(values))).sum()

    fb = checks.check_retrieval_accuracy(count)
    assert not fb and "number of memorised pairs" in fb.message

    def wrong_axis(outputs, values):
        nearest = torch.cdist(outputs, values).argmin(dim=0)
        return (nearest == torch.arange(len(values))).double().mean()

    fb = checks.check_retrieval_accuracy(wrong_axis)
    assert not fb and "dim 0" in fb.message

    def farthest(outputs, values):
        nearest = torch.cdist(outputs, values).argmax(dim=1)
        return (nearest == torch.arange(len(values))).double().mean()

    fb = checks.check_retrieval_accuracy(farthest)
    assert not fb and "argmin" in fb.message
    fb = checks.check_retrieval_accuracy(lambda o, v: torch.cdist(o, v).argmin(dim=1))
    assert not fb and "expected one number" in fb.message
