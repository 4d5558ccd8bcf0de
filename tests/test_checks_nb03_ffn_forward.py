"""Notebook 03's checks accept a right answer and name typical mistakes."""

import torch
import torch.nn.functional as F
from torch import nn

from helpers.checks import nb03_ffn_forward as checks


def make_mlp(act=None, bias=True, swap=False, names=("c_fc", "c_proj"), skip_down=False, act_after=False):
    class MLP(nn.Module):
        def __init__(self, d_model, d_ff):
            super().__init__()
            up = nn.Linear(d_ff, d_model, bias=bias) if swap else nn.Linear(d_model, d_ff, bias=bias)
            setattr(self, names[0], up)
            self.gelu = act or nn.GELU()
            setattr(self, names[1], nn.Linear(d_ff, d_model, bias=bias))

        def forward(self, x):
            up, down = getattr(self, names[0]), getattr(self, names[1])
            if skip_down:
                return self.gelu(up(x))
            if act_after:
                return self.gelu(down(up(x)))
            return down(self.gelu(up(x)))

    return MLP


class Stub(nn.Module):
    def __init__(self, d_model, d_ff):
        super().__init__()

    def forward(self, x):
        raise NotImplementedError


def test_the_untouched_stub_is_not_attempted():
    for answer in (None, Stub):
        fb = checks.check_mlp(answer)
        assert fb.status == "not attempted" and str(fb).startswith("[not attempted yet] Exercise 2")
        assert "Hint" not in str(fb)


def test_a_nanogpt_mlp_is_correct():
    fb = checks.check_mlp(make_mlp())
    assert fb and str(fb).startswith("[correct] Exercise 2")


def test_mlp_mistakes_are_named():
    cases = [
        (make_mlp(act=nn.ReLU()), "that is ReLU"),
        (make_mlp(act=nn.Identity()), "there is no activation"),
        (make_mlp(act=nn.GELU(approximate="tanh")), "tanh approximation"),
        (make_mlp(bias=False), "did you pass bias=False"),
        (make_mlp(swap=True), "did you swap the two sizes"),
        (make_mlp(names=("fc1", "fc2")), "name your layers the same"),
        (make_mlp(skip_down=True), "forget the down-projection"),
        (make_mlp(act_after=True), "the GELU comes after c_proj"),
    ]
    for cls, words in cases:
        fb = checks.check_mlp(cls)
        assert not fb and fb.status == "wrong", cls
        assert words in fb.message, (words, fb.message)


def test_a_module_that_is_not_a_module_or_breaks():
    class NotAModule:
        def __init__(self, d_model, d_ff):
            pass

    assert "not an nn.Module" in checks.check_mlp(NotAModule).message

    class Broken(nn.Module):
        def __init__(self, d_model, d_ff):
            raise ValueError("oops")

    assert "raised ValueError: oops" in checks.check_mlp(Broken).message


def test_capacity_prediction():
    assert checks.check_capacity_guess(None, 512).status == "not attempted"
    fb = checks.check_capacity_guess(512, 512)
    assert fb and "512 for d_ff = 512" in fb.message
    fb = checks.check_capacity_guess(128, 512)
    assert not fb and "you predicted 128, the run gives 512" in fb.message
    assert "is not one of" in checks.check_capacity_guess(500, 512).message


def train(ffn, keys, values, steps=300, lr=0.05, params=None):
    opt = torch.optim.Adam(params if params is not None else ffn.c_proj.parameters(), lr=lr)
    for _ in range(steps):
        opt.zero_grad()
        F.mse_loss(ffn(keys), values).backward()
        opt.step()
    return ffn


def test_learned_memory():
    assert checks.check_learned_memory(lambda f, k, v: None).status == "not attempted"
    assert checks.check_learned_memory(train)
    fb = checks.check_learned_memory(lambda f, k, v: train(f, k, v, params=f.parameters()))
    assert not fb and "c_fc changed" in fb.message
    fb = checks.check_learned_memory(lambda f, k, v: train(f, k, v, steps=2, lr=1e-4))
    assert not fb and "Train for more steps" in fb.message
