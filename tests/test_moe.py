"""The MoE layer against a dense loop over every expert, and its routing against Mixtral's recipe."""

import pytest
import torch

from helpers.moe import MoE, route


@pytest.fixture
def layer():
    torch.manual_seed(0)
    return MoE(d_model=12, d_ff=20, n_experts=6, top_k=2).double()


def dense_reference(moe, x):
    """Every token through every expert, weighted by a softmax over its top-k logits, else 0."""
    logits = x @ moe.router.weight.T
    top, idx = logits.topk(moe.top_k, dim=-1)
    gates = torch.zeros_like(logits).scatter(1, idx, torch.softmax(top, dim=-1))
    return sum(gates[:, e:e + 1] * expert(x) for e, expert in enumerate(moe.experts))


def test_moe_equals_the_dense_loop(layer):
    x = torch.randn(40, 12, dtype=torch.float64)
    with torch.no_grad():
        out, routing = layer(x)
        torch.testing.assert_close(out, dense_reference(layer, x), rtol=0, atol=1e-12)
    assert routing.experts.shape == (40, 2) and routing.weights.shape == (40, 2)
    assert int(routing.counts.sum()) == 80
    torch.testing.assert_close(routing.gates().sum(-1), torch.ones(40, dtype=torch.float64))


def test_routing_matches_mixtral_softmax_then_topk_renormalised():
    logits = torch.randn(50, 8, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    r = route(logits, 2)
    probs = torch.softmax(logits, dim=-1)
    kept, idx = probs.topk(2, dim=-1)
    assert torch.equal(r.experts, idx)
    torch.testing.assert_close(r.weights, kept / kept.sum(-1, keepdim=True), rtol=0, atol=1e-14)
    assert torch.equal(r.counts, torch.bincount(idx.flatten(), minlength=8))


def test_top_k_equal_to_n_experts_is_a_dense_softmax_mixture(layer):
    full = MoE(12, 20, n_experts=3, top_k=3).double()
    x = torch.randn(7, 12, dtype=torch.float64)
    with torch.no_grad():
        out, _ = full(x)
        probs = torch.softmax(full.router(x), dim=-1)
        expected = sum(probs[:, e:e + 1] * full.experts[e](x) for e in range(3))
    torch.testing.assert_close(out, expected, rtol=0, atol=1e-12)


def test_unchosen_experts_do_not_change_the_output(layer):
    x = torch.randn(2, 12, dtype=torch.float64)      # 2 tokens x 2 experts: 2+ of 6 unused
    with torch.no_grad():
        out, routing = layer(x)
        unused = set(range(6)) - set(routing.experts.flatten().tolist())
        for e in unused:
            for p in layer.experts[e].parameters():
                p.add_(1.0)
        again, _ = layer(x)
    assert torch.equal(out, again)


def test_parameter_counts(layer):
    per_expert = 3 * 12 * 20
    assert sum(p.numel() for p in layer.parameters()) == 12 * 6 + 6 * per_expert
    assert layer.active_params() == 12 * 6 + 2 * per_expert


def test_bad_inputs(layer):
    with pytest.raises(ValueError, match="top_k=3 is more than n_experts=2"):
        MoE(4, 8, n_experts=2, top_k=3)
    with pytest.raises(ValueError, match=r"x must have shape \(T, 12\), got \(3, 5\)"):
        layer(torch.randn(3, 5, dtype=torch.float64))
    with pytest.raises(TypeError, match="torch tensor"):
        layer([[0.0] * 12])
    with pytest.raises(ValueError, match="top_k=5 is more than the 4 experts"):
        route(torch.zeros(2, 4), 5)
    with pytest.raises(ValueError, match="logits must be 2-D"):
        route(torch.zeros(4), 1)
    with pytest.raises(ValueError, match="n_experts must be a positive integer"):
        MoE(4, 8, n_experts=0)
