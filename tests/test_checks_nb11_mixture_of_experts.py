"""Notebook 11's exercise checks: accept the solutions, explain typical mistakes."""

import torch

from helpers.checks import nb11_mixture_of_experts as checks


def gates(logits, k):
    top, idx = logits.topk(k, dim=-1)
    return torch.zeros_like(logits).scatter(1, idx, torch.softmax(top, dim=-1))


def test_not_attempted_does_not_raise():
    for fb in [checks.check_top_k_gates(lambda *a: None), checks.check_moe_params(lambda *a: None),
               checks.check_expert_load(lambda *a: None)]:
        assert fb.status == "not attempted" and not fb
        assert "not attempted yet" in str(fb)


def test_top_k_gates():
    assert checks.check_top_k_gates(gates)
    fb = checks.check_top_k_gates(lambda logits, k: torch.softmax(logits, dim=-1))
    assert not fb and "every expert has a non-zero gate" in fb.message

    def ones(logits, k):
        _, idx = logits.topk(k, dim=-1)
        return torch.zeros_like(logits).scatter(1, idx, 1.0)

    fb = checks.check_top_k_gates(ones)
    assert not fb and "not 1 each" in fb.message

    def not_renormalised(logits, k):     # softmax over all E, keep the top k as they are
        probs = torch.softmax(logits, dim=-1)
        top, idx = probs.topk(k, dim=-1)
        return torch.zeros_like(logits).scatter(1, idx, top)

    fb = checks.check_top_k_gates(not_renormalised)
    assert not fb and "not 1" in fb.message and "renormalise" in fb.message

    fb = checks.check_top_k_gates(lambda logits, k: gates(-logits, k))
    assert not fb and "smallest" in fb.message
    fb = checks.check_top_k_gates(lambda logits, k: gates(logits, k).T)
    assert not fb and "has shape (5, 6)" in fb.message


def test_moe_params():
    def solution(d, f, E, k):
        return d * E + E * 3 * d * f, d * E + k * 3 * d * f

    assert checks.check_moe_params(solution)
    fb = checks.check_moe_params(lambda d, f, E, k: (E * 3 * d * f, k * 3 * d * f))
    assert not fb and "forgot the router" in fb.message
    fb = checks.check_moe_params(lambda d, f, E, k: (d * E + E * 2 * d * f, d * E + k * 2 * d * f))
    assert not fb and "three matrices" in fb.message
    fb = checks.check_moe_params(lambda d, f, E, k: (solution(d, f, E, k)[0],) * 2)
    assert not fb and "active equals total" in fb.message
    fb = checks.check_moe_params(lambda d, f, E, k: solution(d, f, E, k)[0])
    assert not fb and "must return a pair" in fb.message


def test_expert_load():
    assert checks.check_expert_load(lambda c, E: torch.bincount(c.flatten(), minlength=E))
    fb = checks.check_expert_load(lambda c, E: torch.bincount(c.flatten()))
    assert not fb and "minlength" in fb.message
    fb = checks.check_expert_load(lambda c, E: torch.bincount(c[:, 0], minlength=E))
    assert not fb and "first choice" in fb.message
    fb = checks.check_expert_load(lambda c, E: torch.bincount(c.flatten(), minlength=E) + 1)
    assert not fb and "differs" in fb.message
