"""Notebook 11's checks accept a right answer and name typical mistakes."""

import torch
from torch import nn

from helpers.checks import nb11_mixture_of_experts as checks
from helpers.gated import GatedMLP
from helpers.moe import MoE

WEIGHTS = {
    "softmax-top-k": lambda lg, top, ids: top.softmax(-1),
    "raw": lambda lg, top, ids: top,
    "ones": lambda lg, top, ids: torch.ones_like(top),
    "softmax-all": lambda lg, top, ids: lg.softmax(-1).gather(1, ids),
    "softmax-tokens": lambda lg, top, ids: top.softmax(0),
    "sigmoid": lambda lg, top, ids: top.sigmoid(),
    "double-softmax": lambda lg, top, ids: lg.softmax(-1).gather(1, ids).softmax(-1),
    "renormalised-all": lambda lg, top, ids: (p := lg.softmax(-1).gather(1, ids)) / p.sum(-1, keepdim=True),
    "mean": lambda lg, top, ids: torch.full_like(top, 1 / top.shape[-1]),
}


def make_layer(weights="softmax-top-k", k_used=None, as_list=False, router_bias=False, tuple_out=False,
               router_name="router", dispatch="sorted", sort="argsort", assign="index_add", tokens_by="repeat_interleave",
               unsorted=(), residual=False, largest=True):
    """A learner's MoELayer: right by default, with one typical slip when asked."""
    class MoELayer(nn.Module):
        def __init__(self, d_model, d_ff, n_experts, top_k):
            super().__init__()
            self.top_k = top_k
            setattr(self, router_name, nn.Linear(d_model, n_experts, bias=router_bias))
            experts = [GatedMLP(d_model, d_ff) for _ in range(n_experts)]
            self.experts = experts if as_list else nn.ModuleList(experts)

        def forward(self, x):
            logits = getattr(self, router_name)(x)
            top, ids = logits.topk(self.top_k, dim=-1, largest=largest)
            w = WEIGHTS[weights](logits, top, ids)
            k = k_used or self.top_k
            out = torch.zeros_like(x)
            if dispatch == "per-token":
                for t in range(len(x)):
                    for s in range(k):
                        out[t] += w[t, s] * self.experts[int(ids[t, s])](x[t:t + 1])[0]
            elif dispatch == "dense":
                gates = torch.zeros_like(logits).scatter(1, ids[:, :k], w[:, :k])
                for e, expert in enumerate(self.experts):
                    out += gates[:, e:e + 1] * expert(x)
            elif dispatch == "where":
                for e, expert in enumerate(self.experts):
                    token, slot = torch.where(ids[:, :k] == e)
                    out.index_add_(0, token, w[token, slot, None] * expert(x[token]))
            else:
                slots_expert = ids[:, :k].flatten()                    # sorted dispatch
                n = len(x)
                slots_token = (torch.arange(n).repeat(k) if tokens_by == "repeat"
                               else torch.arange(n).repeat_interleave(k))
                slots_weight = w[:, :k].flatten()
                order = (slots_expert.sort(stable=True).indices if sort == "sort"
                         else torch.argsort(slots_expert) if sort == "torch.argsort"
                         else slots_expert.argsort(stable=True))
                counts = torch.bincount(slots_expert, minlength=len(self.experts)).tolist()
                start = 0
                for e, group in enumerate(order.split(counts)):
                    place = torch.arange(start, start + len(group))
                    start += len(group)
                    if not len(group):
                        continue
                    tokens = slots_token[place if "tokens" in unsorted else group]
                    weight = slots_weight[place if "weights" in unsorted else group]
                    y = weight[:, None] * self.experts[e](x[tokens])
                    if assign == "=":
                        out[tokens] = y
                    elif assign == "+=":
                        out[tokens] += y
                    else:
                        out.index_add_(0, tokens, y)
            out = out + x if residual else out
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


def test_sorted_dispatch_layers_are_correct():
    for cls in (make_layer(), make_layer(sort="sort"), make_layer(sort="torch.argsort"), make_layer(assign="+="),
                make_layer(weights="renormalised-all")):
        fb = checks.check_moe_layer(cls)
        assert fb and str(fb).startswith("[correct] Exercise 3"), fb


def test_moe_layer_mistakes_are_named():
    cases = [
        (make_layer(weights="ones"), "without weights"),
        (make_layer(weights="raw"), "raw router logits"),
        (make_layer(weights="softmax-all"), "not renormalised"),
        (make_layer(weights="softmax-tokens"), "softmax ran over the tokens"),
        (make_layer(weights="sigmoid"), "sigmoid(logit)"),
        (make_layer(weights="double-softmax"), "two softmaxes"),
        (make_layer(assign="="), "overwrites"),
        (make_layer(unsorted=("tokens", "weights")), "unsorted order"),
        (make_layer(unsorted=("weights",)), "unsorted order"),
        (make_layer(unsorted=("tokens",)), "unsorted order"),
        (make_layer(tokens_by="repeat"), "repeat_interleave(k), not .repeat(k)"),
        (make_layer(k_used=1), "only each token's first choice"),
        (make_layer(tuple_out=True), "returns a tuple"),
        (make_layer(as_list=True), "nn.ModuleList"),
        (make_layer(router_bias=True), "has none"),
        (make_layer(router_name="gate"), "name your layers the same"),
        (make_layer(weights="mean"), "averaged (each times 1/k)"),
        (make_layer(residual=True), "the residual connection"),
        (make_layer(largest=False), "k smallest logits"),
    ]
    for cls, words in cases:
        fb = checks.check_moe_layer(cls)
        assert not fb and fb.status == "wrong", (words, fb)
        assert words in fb.message, (words, fb.message)


def test_the_dispatch_itself_is_checked():
    # Right outputs, but not the sorted dispatch the exercise asks for: each is named.
    cases = [(make_layer(dispatch="per-token"), "a loop over tokens"),
             (make_layer(dispatch="dense"), "every token went through every expert"),
             (make_layer(dispatch="where"), "nothing was sorted")]
    for cls, words in cases:
        fb = checks.check_moe_layer(cls)
        assert not fb and fb.message.startswith("your layer's output is right;") and words in fb.message, (words, fb)


def test_a_subclass_of_the_reference_is_refused():
    class MoELayer(MoE):
        def forward(self, x):
            return super().forward(x)[0]

    fb = checks.check_moe_layer(MoELayer)
    assert not fb and "subclasses the reference, helpers.moe.MoE" in fb.message


def test_checks_leave_the_global_generator_alone():
    state = torch.random.get_rng_state()
    checks.check_moe_layer(make_layer())
    checks.check_capacity(checks.within_capacity)
    assert torch.equal(torch.random.get_rng_state(), state)


def test_capacity():
    assert checks.check_capacity(checks.within_capacity)
    loop_answer = _loop_within_capacity
    assert checks.check_capacity(loop_answer), checks.check_capacity(loop_answer)
    assert checks.check_capacity(_keeps_the_layout_with_argsort)
    cases = [
        (lambda e, n, c: checks.within_capacity(e, n, c + 1), "one assignment too many"),
        (lambda e, n, c: checks.within_capacity(e.T.contiguous(), n, c).T, "GShard"),
        (lambda e, n, c: checks.within_capacity(e.flip(0, 1), n, c).flip(0, 1), "last assignments"),
        (lambda e, n, c: (torch.arange(e.numel()) < c).view_as(e), "all experts together"),
        (lambda e, n, c: torch.bincount(e.flatten(), minlength=n), "bool tensor"),
        (lambda e, n, c: checks.within_capacity(e.sort(dim=-1).values, n, c), "experts sorted"),
        (lambda e, n, c: checks.within_capacity(e.flatten().sort().values.view_as(e), n, c), "experts sorted"),
        (_sorts_in_place, "in place"),
        (lambda e, n, c: torch.bincount(e.flatten(), minlength=n)[e] <= c, "lost all its assignments"),
        (lambda e, n, c: ~checks.within_capacity(e, n, c), "True marks what fits"),
    ]
    for fn, words in cases:
        fb = checks.check_capacity(fn)
        assert not fb and words in fb.message, (words, fb.message)


def _sorts_in_place(experts, n_experts, capacity):
    """Sorts each row of the caller's table in place, then masks the sorted table."""
    experts.copy_(experts.sort(dim=-1).values)
    return checks.within_capacity(experts, n_experts, capacity)


def _keeps_the_layout_with_argsort(experts, n_experts, capacity):
    """Groups by expert with a stable argsort of a copy, then puts the answer back in place."""
    flat = experts.flatten()
    order = flat.argsort(stable=True)
    counts = torch.bincount(flat, minlength=n_experts)
    starts = torch.cumsum(counts, 0) - counts
    place = torch.empty_like(flat)
    place[order] = torch.arange(len(flat)) - starts[flat[order]]
    return (place < capacity).view_as(experts)


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


def test_every_wrong_prediction_is_named():
    named = {5.8: "one expert's share", 11.7: "as if every parameter sat in an expert", 23.4: "not a half",
             46.7: "every parameter the model holds"}
    for guess, words in named.items():
        fb = checks.check_active_guess(guess, 12.9)
        assert not fb and words in fb.message, (guess, fb.message)
    named = {1: "share a single expert", 2: "what one token reads", 3: "overlap a lot", 4: "its load",
             5: "overlap a lot", 6: "overlap a lot", 7: "about 1%: 7.9 rounds to 8"}
    for guess, words in named.items():
        fb = checks.check_experts_guess(guess, 8)
        assert not fb and words in fb.message, (guess, fb.message)


def test_a_layer_with_top_k_hard_coded_is_named():
    base = make_layer()

    class Fixed(base):
        def __init__(self, d_model, d_ff, n_experts, top_k):
            super().__init__(d_model, d_ff, n_experts, 2)   # the argument ignored

    fb = checks.check_moe_layer(Fixed)
    assert not fb and "top_k=3" in str(fb) and "fixed in your code" in str(fb), str(fb)


def test_an_argsort_not_asked_to_be_stable_is_named():
    def unstable(experts, n_experts, capacity):
        flat = experts.flatten()
        order = flat.argsort()
        counts = torch.bincount(flat, minlength=n_experts)
        starts = torch.cumsum(counts, 0) - counts
        place = torch.empty_like(flat)
        place[order] = torch.arange(len(flat)) - starts[flat[order]]
        return (place < capacity).view_as(experts)

    fb = checks.check_capacity(unstable)
    assert not fb and "stable=True" in str(fb), str(fb)
