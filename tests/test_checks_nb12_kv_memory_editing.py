"""Notebook 12's exercise checks: accept the solutions, explain typical mistakes."""

import torch

from helpers.checks import nb12_kv_memory_editing as checks


def contributions(h, W_down, u):
    return h * (u @ W_down)


def promoted_words(w, unembed, words, n):
    return [words[j] for j in (unembed @ w).argsort(descending=True)[:n]]


def rank_one_edit(W, k, v, C):
    C_inv_k = torch.linalg.solve(C, k)
    return W + torch.outer(v - W @ k, C_inv_k) / (k @ C_inv_k)


def test_not_attempted_does_not_raise():
    for fb in [checks.check_contributions(lambda h, W, u: None),
               checks.check_promoted_words(lambda *a: None),
               checks.check_rank_one_edit(lambda *a: None)]:
        assert fb.status == "not attempted" and not fb
        assert "not attempted yet" in str(fb)


def test_contributions():
    assert checks.check_contributions(contributions)
    fb = checks.check_contributions(lambda h, W, u: W @ h)
    assert not fb and "expected (8,)" in fb.message and "MLP output" in fb.message
    fb = checks.check_contributions(lambda h, W, u: u @ W)
    assert not fb and "multiply by h_i" in fb.message
    fb = checks.check_contributions(lambda h, W, u: h * (W.T @ u) + 1)
    assert not fb and "differs" in fb.message


def test_promoted_words():
    assert checks.check_promoted_words(promoted_words)
    fb = checks.check_promoted_words(lambda w, U, words, n: [words[j] for j in (U @ w).argsort()[:n]])
    assert not fb and "lowest scores" in fb.message
    fb = checks.check_promoted_words(lambda w, U, words, n: (U @ w).argsort(descending=True)[:n].tolist())
    assert not fb and "numbers, not words" in fb.message
    fb = checks.check_promoted_words(lambda w, U, words, n: words[:n])
    assert not fb and "expected" in fb.message


def test_rank_one_edit():
    assert checks.check_rank_one_edit(rank_one_edit)
    fb = checks.check_rank_one_edit(lambda W, k, v, C: W + torch.outer(v - W @ k, k) / (k @ k))
    assert not fb and "key covariance" in fb.message
    fb = checks.check_rank_one_edit(
        lambda W, k, v, C: W + torch.outer(v, torch.linalg.solve(C, k)) / (k @ torch.linalg.solve(C, k)))
    assert not fb and "not v itself" in fb.message
    fb = checks.check_rank_one_edit(lambda W, k, v, C: W.T)
    assert not fb and "shape (6, 4)" in fb.message
