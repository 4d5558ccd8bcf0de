"""Notebook 11's checks accept a right answer and name typical mistakes."""

import torch
from torch import nn

from helpers.checks import nb11_mixture_of_experts as checks
from helpers.gated import GatedMLP


def make_layer(weights="softmax-top-k", k_used=None, as_list=False, router_bias=False, tuple_out=False,
               router_name="router"):
    class MoELayer(nn.Module):
        def __init__(self, d_model, d_ff, n_experts, top_k):
            super().__init__()
            self.top_k = top_k
            setattr(self, router_name, nn.Linear(d_model, n_experts, bias=router_bias))
            experts = [GatedMLP(d_model, d_ff) for _ in range(n_experts)]
            self.experts = experts if as_list else nn.ModuleList(experts)

        def forward(self, x):
            logits = getattr(self, router_name)(x)
            top, ids = logits.topk(self.top_k, dim=-1)
            w = {"softmax-top-k": lambda: top.softmax(-1), "raw": lambda: top, "ones": lambda: torch.ones_like(top),
                 "softmax-all": lambda: logits.softmax(-1).gather(1, ids)}[weights]()
            k = k_used or self.top_k
            slots_expert = ids[:, :k].flatten()                    # sorted dispatch
            slots_token = torch.arange(len(x)).repeat_interleave(k)
            slots_weight = w[:, :k].flatten()
            order = slots_expert.argsort(stable=True)
            counts = torch.bincount(slots_expert, minlength=len(self.experts)).tolist()
            out = torch.zeros_like(x)
            for e, group in enumerate(order.split(counts)):
                if len(group):
                    tokens = slots_token[group]
                    out.index_add_(0, tokens, slots_weight[group, None] * self.experts[e](x[tokens]))
            return (out, None) if tuple_out else out

    return MoELayer


class Stub(nn.Module):
    def __init__(self, d_model, d_ff, n_experts, top_k):
        super().__init__()

    def forward(self, x):
        raise NotImplementedError


def test_not_attempted():
    for fb in [checks.check_moe_layer(None), checks.check_moe_layer(Stub), checks.check_capacity(None),
               checks.check_capacity(lambda e, n, c: None), checks.check_active_guess(None, 12.9),
               checks.check_experts_guess(None, 8)]:
        assert fb.status == "not attempted" and "not attempted yet" in str(fb) and "Hint" not in str(fb)


def test_a_sorted_dispatch_layer_is_correct():
    fb = checks.check_moe_layer(make_layer())
    assert fb and str(fb).startswith("[correct] Exercise 3"), fb


def test_moe_layer_mistakes_are_named():
    cases = [
        (make_layer(weights="ones"), "without weights"),
        (make_layer(weights="raw"), "raw router logits"),
        (make_layer(weights="softmax-all"), "not renormalised"),
        (make_layer(k_used=1), "only each token's first choice"),
        (make_layer(tuple_out=True), "returns a tuple"),
        (make_layer(as_list=True), "nn.ModuleList"),
        (make_layer(router_bias=True), "has none"),
        (make_layer(router_name="gate"), "name your layers the same"),
    ]
    for cls, words in cases:
        fb = checks.check_moe_layer(cls)
        assert not fb and fb.status == "wrong", (words, fb)
        assert words in fb.message, (words, fb.message)


def test_capacity():
    assert checks.check_capacity(checks.within_capacity)
    loop_answer = _loop_within_capacity
    assert checks.check_capacity(loop_answer), checks.check_capacity(loop_answer)
    cases = [
        (lambda e, n, c: checks.within_capacity(e, n, c + 1), "one assignment too many"),
        (lambda e, n, c: checks.within_capacity(e.T.contiguous(), n, c).T, "GShard"),
        (lambda e, n, c: checks.within_capacity(e.flip(0, 1), n, c).flip(0, 1), "last assignments"),
        (lambda e, n, c: (torch.arange(e.numel()) < c).view_as(e), "all experts together"),
        (lambda e, n, c: torch.bincount(e.flatten(), minlength=n), "bool tensor"),
    ]
    for fn, words in cases:
        fb = checks.check_capacity(fn)
        assert not fb and words in fb.message, (words, fb.message)


def _loop_within_capacity(experts, n_experts, capacity):
    seen = [0] * n_experts
    keep = torch.zeros_like(experts, dtype=torch.bool)
    for t in range(experts.shape[0]):
        for s in range(experts.shape[1]):
            e = int(experts[t, s])
            keep[t, s] = seen[e] < capacity
            seen[e] += 1
    return keep


def test_predictions():
    assert checks.check_active_guess(12.9, 12.9)
    fb = checks.check_active_guess(11.7, 12.9)
    assert not fb and "you predicted 11.7B, the run gives 12.9B" in fb.message
    assert "is not one of" in checks.check_active_guess(13, 12.9).message
    assert checks.check_experts_guess(8, 8)
    fb = checks.check_experts_guess(2, 8)
    assert not fb and "almost all" in fb.message
