"""Notebook 03's checks accept right answers, written several ways, and name the typical mistakes."""

import dataclasses
import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn

from helpers import activations, capacity
from helpers.checks import nb03_ffn_forward as checks
from helpers.checks.nb03_ffn_forward import ex2_gpt2_mlp, ex4_backward_cases

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

    reference = ex2_gpt2_mlp._reference()
    config = transformers.GPT2Config(n_embd=checks.D_MODEL, n_inner=checks.D_FF, resid_pdrop=0.0)
    hf = GPT2MLP(checks.D_FF, config).double().eval()
    hf.load_state_dict(reference.state_dict())     # the same keys and (in, out) shapes: no transpose
    x = ex2_gpt2_mlp._tokens()
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
    (256, "but so do more"),
    (16, "the smallest N of the sweep"),
    (64, "twice d_model"),
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
    (lambda f, k, v: train(f, k, v, zero_grad=False, lr=0.05), "gradient piles up"),
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


# ---- Exercise 3: least squares is not gradient descent ----------------------------------------------


def least_squares(solve):
    def learn_values(ffn, keys, values):
        with torch.no_grad():
            hidden = ffn.act(ffn.c_fc(keys))
            ffn.c_proj.weight.copy_(solve(hidden, values).T)
            ffn.c_proj.bias.zero_()
        return ffn
    return learn_values


@pytest.mark.parametrize("learn, words", [
    (least_squares(lambda A, B: torch.linalg.lstsq(A, B).solution), "linalg_lstsq"),
    (least_squares(lambda A, B: torch.linalg.pinv(A) @ B), "linalg_pinv"),
    (least_squares(lambda A, B: torch.from_numpy(np.linalg.lstsq(A.numpy(), B.numpy(), rcond=None)[0])), "lstsq"),
    (lambda f, k, v: capacity.fit_down_proj(f, k, v), "linalg_lstsq"),
])
def test_least_squares_is_named_in_the_gradient_descent_exercise(learn, words):
    fb = checks.check_learned_memory(learn)
    assert not fb and words in fb.message and "that is least squares" in fb.message, fb.message
    assert "Gradient descent, step by step" not in fb.message


def test_a_missing_zero_grad_is_named_not_told_to_train_longer():
    fb = checks.check_learned_memory(lambda f, k, v: train(f, k, v, zero_grad=False, lr=0.02, steps=300))
    assert not fb and "gradient piles up" in fb.message and "opt.zero_grad()" in fb.message, fb.message
    assert "Train for more steps" not in fb.message


# ---- Exercise 4: the backward pass by hand ----------------------------------------------------------


def by_hand(**slip):
    """A learner's ffn_backward, written out, with one slip switched on (see ex4_backward_cases._by_hand)."""
    def ffn_backward(x, W1, b1, W2, b2, grad_out):
        return ex4_backward_cases._by_hand(x, W1, b1, W2, b2, grad_out, **slip)
    return ffn_backward


def right_backward(x, W1, b1, W2, b2, grad_out):
    h = x @ W1 + b1                                   # pre-activation (T, d_ff)
    a = F.gelu(h)
    dW2, db2 = a.T @ grad_out, grad_out.sum(0)
    dh = (grad_out @ W2.T) * activations.gelu_grad(h)
    return x.T @ dh, dh.sum(0), dW2, db2, dh @ W1.T


def test_the_backward_reference_is_autograd_and_a_right_answer_is_accepted():
    case = ex4_backward_cases._backward_case(*ex4_backward_cases._BACKWARD_CASES[0])
    for mine, theirs in zip(right_backward(*case), checks.autograd_backward(*case), strict=True):
        assert torch.allclose(mine, theirs, rtol=1e-12, atol=1e-13)
    assert checks.check_ffn_backward(right_backward)
    assert checks.check_ffn_backward(lambda *case: tuple(g.numpy() for g in right_backward(*case)))   # numpy is fine
    assert checks.check_ffn_backward(lambda x, W1, b1, W2, b2, g: None).status == "not attempted"


def transposed_dW1(*case):
    grads = right_backward(*case)
    return (grads[0].T,) + grads[1:]


def bias_per_token(*case):
    x, W1, b1, W2, b2, g = case
    dh = (g @ W2.T) * activations.gelu_grad(x @ W1 + b1)
    grads = right_backward(*case)
    return grads[0], dh, grads[2], grads[3], grads[4]


def dx_at_h(*case):
    x, W1, b1, W2, b2, g = case
    dh = (g @ W2.T) * activations.gelu_grad(x @ W1 + b1)
    return right_backward(*case)[:4] + (dh,)


def missing_transpose(x, W1, b1, W2, b2, grad_out):
    h = x @ W1 + b1
    dh = (grad_out @ W2) * activations.gelu_grad(h)          # W2, not W2.T: a shape error on a wide layer
    return x.T @ dh, dh.sum(0), F.gelu(h).T @ grad_out, grad_out.sum(0), dh @ W1.T


@pytest.mark.parametrize("learn, words", [
    (by_hand(slope="none"), "GELU's derivative is left out"),
    (by_hand(at="a"), "the post-activation"),
    (by_hand(slope="value"), "multiplied by GELU(h), the activation's value"),
    (by_hand(slope="tanh"), "derivative of GELU's tanh formula"),
    (by_hand(slope="relu"), "that is ReLU's derivative"),
    (by_hand(a_for_dW2="h"), "dW2 uses h, the pre-activation"),
    (by_hand(bias="mean"), "the mean over the tokens"),
    (missing_transpose, "a transpose is missing or extra"),
    (transposed_dW1, "the transpose of W1's (6, 10)"),
    (bias_per_token, "one row per token"),
    (dx_at_h, "the gradient at the hidden layer"),
    (lambda *c: right_backward(*c)[:4] + (c[5],), "dx equals grad_out"),
    (lambda *c: right_backward(*c)[:4] + (c[5] @ c[3].T,), "dx is da"),
    (lambda *c: tuple(reversed(right_backward(*c))), "in another order"),
    (lambda *c: tuple(-g for g in right_backward(*c)), "has the wrong sign"),
    (lambda *c: tuple(g / c[0].shape[0] for g in right_backward(*c)), "divided by the number of tokens"),
    (lambda *c: right_backward(*c)[:4], "return five tensors"),
])
def test_backward_mistakes_are_named(learn, words):
    fb = checks.check_ffn_backward(learn)
    assert not fb and fb.status == "wrong", fb
    assert words in fb.message, (words, fb.message)


@pytest.mark.parametrize("variant, words", [({"W2_T": False}, "da = grad_out @ W2 is missing a transpose"),
                                            ({"W1_T": False}, "dx = dh @ W1 is missing a transpose")])
def test_a_missing_transpose_that_runs_on_the_square_layer_is_named(monkeypatch, variant, words):
    square = dataclasses.replace(checks.check_ffn_backward, cases=checks.check_ffn_backward.cases[1:])
    fb = square(by_hand(**variant))   # the square layer alone
    assert not fb and words in fb.message, fb.message


def test_autograd_is_not_the_backward_pass_by_hand():
    def with_backward(x, W1, b1, W2, b2, grad_out):
        for t in (x, W1, b1, W2, b2):
            t.requires_grad_(True)
        (F.gelu(x @ W1 + b1) @ W2 + b2).backward(grad_out)
        return W1.grad, b1.grad, W2.grad, b2.grad, x.grad

    def with_grad(x, W1, b1, W2, b2, grad_out):
        leaves = [t.clone().requires_grad_(True) for t in (x, W1, b1, W2, b2)]
        out = F.gelu(leaves[0] @ leaves[1] + leaves[2]) @ leaves[3] + leaves[4]
        dx, dW1, db1, dW2, db2 = torch.autograd.grad(out, leaves, grad_out)
        return dW1, db1, dW2, db2, dx

    for learn in (with_backward, with_grad, lambda *c: checks.autograd_backward(*c)):
        fb = checks.check_ffn_backward(learn)
        assert not fb and "calls autograd" in fb.message and "by hand" in fb.message, fb.message


@pytest.mark.parametrize("name", ["x", "W1", "b1", "W2", "b2", "grad_out"])
def test_an_input_changed_in_place_is_named(name):
    def changes_one(*case):
        grads = tuple(g.clone() for g in right_backward(*case))
        dict(zip(ex4_backward_cases._INPUT_NAMES, case, strict=True))[name].mul_(2)   # e.g. `W1 *= 2` after the work
        return grads

    fb = checks.check_ffn_backward(changes_one)
    assert not fb and f"changed its input {name} in place" in fb.message, fb.message


def test_the_backward_check_leaves_the_learner_s_state_alone():
    before = torch.get_rng_state(), torch.is_grad_enabled()
    checks.check_ffn_backward(right_backward)
    checks.check_ffn_backward(by_hand(slope="none"))
    assert torch.equal(before[0], torch.get_rng_state()) and before[1] == torch.is_grad_enabled()


class _SwappedSizes(nn.Module):
    """c_fc right, c_proj built as Conv1D(d_model, d_ff): the two sizes handed over in the wrong order."""

    def __init__(self, d_model, d_ff):
        super().__init__()
        conv = make_conv1d()
        self.c_fc, self.act, self.c_proj = conv(d_model, d_ff), nn.GELU(approximate="tanh"), conv(d_model, d_ff)

    def forward(self, x):
        return self.act(self.c_fc(x)) @ self.c_proj.weight.T


def test_a_layer_built_with_its_sizes_swapped_is_named_as_such():
    fb = checks.check_gpt2_mlp(_SwappedSizes)
    assert not fb and "c_proj was built with its two sizes swapped" in fb.message, fb.message
    assert "n_in = 64 first" in fb.message and "nn.Linear" not in fb.message


def test_half_written_work_says_which_part_still_raises():
    class Conv1D(nn.Module):
        def __init__(self, n_in, n_out):
            super().__init__()
            self.weight, self.bias = nn.Parameter(torch.zeros(n_in, n_out)), nn.Parameter(torch.zeros(n_out))

        def forward(self, x):
            raise NotImplementedError

    class InitOnly(nn.Module):
        def __init__(self, d_model, d_ff):
            super().__init__()
            self.c_fc, self.act, self.c_proj = Conv1D(d_model, d_ff), nn.GELU(approximate="tanh"), Conv1D(d_ff, d_model)

        def forward(self, x):
            raise NotImplementedError

    class LayerUnwritten(InitOnly):
        def forward(self, x):
            return self.c_proj(self.act(self.c_fc(x)))

    fb = checks.check_gpt2_mlp(InitOnly)
    assert fb.status == "wrong" and "but forward still raises NotImplementedError" in fb.message, fb
    fb = checks.check_gpt2_mlp(LayerUnwritten)
    assert fb.status == "wrong" and "but Conv1D.forward still raises" in fb.message, fb


def test_training_under_no_grad_is_named():
    def under_no_grad(ffn, keys, values):
        with torch.no_grad():
            return train(ffn, keys, values, steps=5)

    fb = checks.check_learned_memory(under_no_grad)
    assert not fb and "inside `with torch.no_grad()`" in fb.message, fb.message
    assert "does not have a grad_fn" not in fb.message


def test_a_gradient_that_fits_no_named_slip_is_told_as_the_array_it_is():
    def doubled_db2(*case):
        dW1, db1, dW2, db2, dx = right_backward(*case)
        return dW1, db1, dW2, 2 * db2, dx

    fb = checks.check_ffn_backward(doubled_db2)
    assert not fb and "gives a db2 that, set beside autograd's, is the expected array times 2" in fb.message, fb
    assert "the other gradients agree with autograd's" in fb.message, fb
