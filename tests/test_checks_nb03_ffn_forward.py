"""Notebook 03's checks accept right answers, written several ways, and name the typical mistakes."""

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn

from helpers.checks import nb03_ffn_forward as checks

# ---- Exercise 2: GPT-2's MLP with Conv1D weights (in, out) -------------------------------------------


def make_conv1d(layout="in-out", forward="x@W+b", bias=True, parameter=True):
    """A learner's Conv1D: weight stored (in, out) or (out, in), multiplied one way or another."""
    class Conv1D(nn.Module):
        def __init__(self, n_in, n_out):
            super().__init__()
            shape = (n_in, n_out) if layout == "in-out" else (n_out, n_in)
            weight = torch.empty(shape).normal_(std=0.02, generator=torch.Generator().manual_seed(0))
            self.weight = nn.Parameter(weight) if parameter else weight
            if bias:
                self.bias = nn.Parameter(torch.zeros(n_out)) if parameter else torch.zeros(n_out)

        def forward(self, x):
            if forward == "x@W.T+b":
                return x @ self.weight.T + self.bias
            if forward == "F.linear":
                return F.linear(x, self.weight, self.bias)
            if forward == "F.linear(W.T)":
                return F.linear(x, self.weight.T, self.bias)
            if forward == "addmm":                      # as Hugging Face's Conv1D writes it
                out = torch.addmm(self.bias, x.reshape(-1, x.shape[-1]), self.weight)
                return out.reshape(*x.shape[:-1], -1)
            if forward == "no bias":
                return x @ self.weight
            return x @ self.weight + self.bias
    return Conv1D


def make_mlp(conv=None, act=None, linear=False, skip_down=False, act_after=False, names=("c_fc", "c_proj")):
    conv = conv or make_conv1d()

    class GPT2MLP(nn.Module):
        def __init__(self, d_model, d_ff):
            super().__init__()
            layer = nn.Linear if linear else conv
            setattr(self, names[0], layer(d_model, d_ff))
            self.act = act or nn.GELU(approximate="tanh")
            setattr(self, names[1], layer(d_ff, d_model))

        def forward(self, x):
            up, down = getattr(self, names[0]), getattr(self, names[1])
            if skip_down:
                return self.act(up(x))
            if act_after:
                return self.act(down(up(x)))
            return down(self.act(up(x)))
    return GPT2MLP


class TanhGELU(nn.Module):
    """GELU's tanh formula written out, as GPT-2's code has it."""

    def forward(self, h):
        return 0.5 * h * (1 + torch.tanh(math.sqrt(2 / math.pi) * (h + 0.044715 * h**3)))


class Stub(nn.Module):
    def __init__(self, d_model, d_ff):
        super().__init__()

    def forward(self, x):
        raise NotImplementedError


def test_the_untouched_stub_is_not_attempted():
    for answer in (None, Stub):
        fb = checks.check_gpt2_mlp(answer)
        assert fb.status == "not attempted" and str(fb).startswith("[not attempted yet] Exercise 2"), fb
        assert "Hint" not in str(fb)


def test_the_reference_is_hugging_faces_gpt2_mlp():
    """The check's Conv1DMLP gives what transformers' GPT2MLP gives with the same Conv1D weights."""
    transformers = pytest.importorskip("transformers")
    from transformers.models.gpt2.modeling_gpt2 import GPT2MLP

    reference = checks._reference()
    config = transformers.GPT2Config(n_embd=checks.D_MODEL, n_inner=checks.D_FF, resid_pdrop=0.0)
    hf = GPT2MLP(checks.D_FF, config).double().eval()
    hf.load_state_dict(reference.state_dict())     # the same keys and (in, out) shapes: no transpose
    x = checks._tokens()
    with torch.no_grad():
        torch.testing.assert_close(reference(x), hf(x), rtol=0, atol=1e-12)


@pytest.mark.parametrize("answer", [
    make_mlp(),
    make_mlp(make_conv1d(forward="addmm")),
    make_mlp(make_conv1d(forward="F.linear(W.T)")),
    make_mlp(act=TanhGELU()),
], ids=["x@W+b", "addmm", "F.linear(W.T)", "tanh formula by hand"])
def test_right_gpt2_mlps_are_correct(answer):
    fb = checks.check_gpt2_mlp(answer)
    assert fb and str(fb).startswith("[correct] Exercise 2") and "no transpose" in fb.message, fb


def test_the_transformers_conv1d_is_accepted_too():
    pytorch_utils = pytest.importorskip("transformers.pytorch_utils")

    def conv(n_in, n_out):
        return pytorch_utils.Conv1D(n_out, n_in)       # transformers writes Conv1D(nf=n_out, nx=n_in)

    assert checks.check_gpt2_mlp(make_mlp(conv=conv))


@pytest.mark.parametrize(("answer", "words"), [
    (make_mlp(linear=True), "nn.Linear's layout, (out, in)"),
    (make_mlp(make_conv1d(layout="out-in", forward="x@W.T+b")), "that is (out, in)"),
    (make_mlp(make_conv1d(forward="x@W.T+b")), "multiplies by the transposed weight"),
    (make_mlp(make_conv1d(forward="F.linear")), "multiplies by the transposed weight"),
    (make_mlp(act=nn.GELU()), "that is the exact GELU"),
    (make_mlp(act=nn.ReLU()), "that is ReLU"),
    (make_mlp(act=nn.Identity()), "there is no activation"),
    (make_mlp(make_conv1d(bias=False, forward="no bias")), "has a bias as well as a weight"),
    (make_mlp(make_conv1d(forward="no bias")), "leaves out the biases"),
    (make_mlp(make_conv1d(parameter=False)), "nn.Parameter"),
    (make_mlp(skip_down=True), "forget the down-projection"),
    (make_mlp(act_after=True), "the GELU comes after c_proj"),
    (make_mlp(names=("fc1", "fc2")), "name your layers the same"),
])
def test_gpt2_mlp_mistakes_are_named(answer, words):
    fb = checks.check_gpt2_mlp(answer)
    assert not fb and fb.status == "wrong", fb
    assert words in fb.message, (words, fb.message)


def test_a_module_that_is_not_a_module_or_breaks():
    class NotAModule:
        def __init__(self, d_model, d_ff):
            pass

    assert "not an nn.Module" in checks.check_gpt2_mlp(NotAModule).message

    class Broken(nn.Module):
        def __init__(self, d_model, d_ff):
            raise ValueError("oops")

    assert "raised ValueError: oops" in checks.check_gpt2_mlp(Broken).message
    assert "itself" in checks.check_gpt2_mlp(checks.Conv1DMLP).message


# ---- Exercise 1: the capacity prediction --------------------------------------------------------------


def test_capacity_prediction():
    assert checks.check_capacity_guess(None, 512).status == "not attempted"
    fb = checks.check_capacity_guess(512, 512)
    assert fb and "512 for d_ff = 512" in fb.message
    fb = checks.check_capacity_guess(128, 512)
    assert not fb and "you predicted 128, the run gives 512" in fb.message
    assert "is not one of" in checks.check_capacity_guess(500, 512).message


@pytest.mark.parametrize(("guess", "words"), [
    (32, "32 is d_model"),
    (128, "what the 4x FFN held"),
    (np.int64(2048), "4 pairs per neuron"),
    (1024.0, "2 pairs per neuron"),
    (256, "the run gives 512"),            # a wrong guess with no story of its own: the plain answer
])
def test_the_likeliest_wrong_capacities_are_named(guess, words):
    fb = checks.check_capacity_guess(guess, 512)
    assert not fb and words in fb.message and "you predicted" in fb.message, fb
    assert checks.check_capacity_guess(np.int64(512), 512) and checks.check_capacity_guess(512.0, 512)


# ---- Exercise 3: a memory trained by gradient descent ---------------------------------------------------


def train(ffn, keys, values, steps=300, lr=0.02, params=None, opt=torch.optim.Adam, zero_grad=True, **kwargs):
    opt = opt(params if params is not None else ffn.c_proj.parameters(), lr=lr, **kwargs)
    for _ in range(steps):
        if zero_grad:
            opt.zero_grad()
        F.mse_loss(ffn(keys), values).backward()
        opt.step()
    return ffn


def by_hand(ffn, keys, values, steps=3000, lr=5.0):
    """Plain gradient descent written out, no optimiser object."""
    for _ in range(steps):
        loss = F.mse_loss(ffn(keys), values)
        grads = torch.autograd.grad(loss, list(ffn.c_proj.parameters()))
        with torch.no_grad():
            for p, g in zip(ffn.c_proj.parameters(), grads, strict=True):
                p -= lr * g
    return ffn


def lbfgs(ffn, keys, values):
    opt = torch.optim.LBFGS(ffn.c_proj.parameters(), max_iter=200, line_search_fn="strong_wolfe")

    def closure():
        opt.zero_grad()
        loss = F.mse_loss(ffn(keys), values)
        loss.backward()
        return loss

    opt.step(closure)
    return ffn


@pytest.mark.parametrize("learn", [
    train,
    lambda f, k, v: train(f, k, v, lr=0.05),
    lambda f, k, v: train(f, k, v, steps=500, lr=5.0, opt=torch.optim.SGD, momentum=0.9),
    lbfgs,
    by_hand,
], ids=["adam 0.02", "adam 0.05", "sgd with momentum", "lbfgs", "by hand"])
def test_memories_close_to_least_squares_are_correct(learn):
    fb = checks.check_learned_memory(learn)
    assert fb and "64 of 64 pairs retrieved" in fb.message and "mean squared error is" in fb.message, fb


@pytest.mark.parametrize(("learn", "words"), [
    (lambda f, k, v: train(f, k, v, steps=5, lr=0.05), "at most 1% may be left"),   # MSE 0.42: 42% left
    (lambda f, k, v: train(f, k, v, lr=1e-3), "Train for more steps or with a higher learning rate"),
    (lambda f, k, v: train(f, k, v, steps=300, lr=1.0, opt=torch.optim.SGD), "at most 1% may be left"),
    (lambda f, k, v: train(f, k, v, zero_grad=False, lr=0.05), "opt.zero_grad() is not called"),
    (lambda f, k, v: train(f, k, v, params=f.parameters()), "c_fc changed"),
    (lambda f, k, v: train(f, k, v, lr=100.0, opt=torch.optim.SGD), "holds NaN or infinity"),
    (lambda f, k, v: (train(f, k, v), F.mse_loss(f(k), v).item())[1], "return ffn itself"),
    (lambda f, k, v: (torch.optim.Adam(f.c_proj.parameters()), f)[1], "does your loop call opt.step()"),
    (lambda f, k, v: f.float(), "float32"),
])
def test_memory_mistakes_are_named(learn, words):
    fb = checks.check_learned_memory(learn)
    assert not fb and fb.status == "wrong", fb
    assert words in fb.message, (words, fb.message)


def test_the_mse_is_printed_and_the_tolerance_follows_the_untrained_error():
    fb = checks.check_learned_memory(lambda f, k, v: train(f, k, v, steps=5, lr=0.05))
    assert "against 0.995 untrained (least squares: 0, up to rounding)" in fb.message, fb
    assert "42% of the untrained error" in fb.message, fb
    assert checks.check_learned_memory(lambda f, k, v: None).status == "not attempted"
