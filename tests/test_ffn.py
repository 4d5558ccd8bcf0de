"""The numpy reference FFN and the torch module agree; shapes and counts."""

import numpy as np
import pytest
import torch

from helpers.ffn import FFN, ffn_forward, flops, param_count


def weights(d_model=8, d_ff=32, seed=0, bias=True):
    rng = np.random.default_rng(seed)
    W1, W2 = rng.normal(size=(d_model, d_ff)), rng.normal(size=(d_ff, d_model))
    b1 = rng.normal(size=d_ff) if bias else None
    b2 = rng.normal(size=d_model) if bias else None
    return W1, b1, W2, b2


@pytest.mark.parametrize("activation", ["relu", "gelu", "gelu_tanh", "silu"])
@pytest.mark.parametrize("bias", [True, False])
def test_numpy_and_torch_agree_in_float64(activation, bias):
    W1, b1, W2, b2 = weights(bias=bias)
    x = np.random.default_rng(1).normal(size=(5, 8))
    ref = ffn_forward(x, W1, b1, W2, b2, activation=activation)
    module = FFN.from_numpy(W1, b1, W2, b2, activation=activation)
    got = module(torch.from_numpy(x)).detach().numpy()
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12)


def test_matches_a_plain_torch_mlp():
    torch.manual_seed(0)
    ffn = FFN(16, activation="gelu").double()
    x = torch.randn(3, 7, 16, dtype=torch.float64)
    plain = torch.nn.functional.linear(
        torch.nn.functional.gelu(torch.nn.functional.linear(x, ffn.c_fc.weight, ffn.c_fc.bias)),
        ffn.c_proj.weight,
        ffn.c_proj.bias,
    )
    torch.testing.assert_close(ffn(x), plain)
    assert ffn(x).shape == (3, 7, 16)


def test_llama_names_are_the_same_matrices():
    ffn = FFN(12)
    assert ffn.up_proj is ffn.c_fc and ffn.down_proj is ffn.c_proj
    assert (ffn.d_model, ffn.d_ff) == (12, 48)


def test_gpt2_small_param_count_is_8d2_plus_biases():
    d = 768
    assert param_count(d, 4 * d) == 8 * d * d + 4 * d + d == 4_722_432
    assert sum(p.numel() for p in FFN(d).parameters()) == param_count(d, 4 * d)
    assert sum(p.numel() for p in FFN(d, bias=False).parameters()) == 8 * d * d


def test_flops_count_both_projections():
    assert flops(1, 768, 3072) == 2 * (2 * 768 * 3072)


def test_position_wise_each_row_independent():
    W1, b1, W2, b2 = weights()
    x = np.random.default_rng(2).normal(size=(6, 8))
    y = ffn_forward(x, W1, b1, W2, b2)
    x2 = x.copy()
    x2[4] += 3
    y2 = ffn_forward(x2, W1, b1, W2, b2)
    changed = [t for t in range(6) if not np.allclose(y[t], y2[t])]
    assert changed == [4]


def test_forward_checks_x_only_after_torch_refuses_it_and_keeps_other_errors():
    ffn = FFN(8)
    with pytest.raises(ValueError, match="x has last dimension 3 but this FFN expects d_model=8") as caught:
        ffn(torch.zeros(2, 3))
    assert caught.value.__cause__ is None and caught.value.__suppress_context__  # one sentence, no torch trace

    def broken(module, inputs, output):
        raise RuntimeError("a hook of the learner's failed")

    handle = ffn.act.register_forward_hook(broken)
    try:
        with pytest.raises(RuntimeError, match="a hook of the learner's failed"):
            ffn(torch.zeros(2, 8))   # x is fine: the hook's own error comes through
    finally:
        handle.remove()


def test_the_forward_without_hooks_is_the_modules_forward_and_every_hook_still_runs():
    """FFN skips calling its three modules where no hook would run (decode's T = 1 costs what the
    plain functions cost): the result is the same, and a hook on any of them, or on every module,
    still sees the hidden neurons; a layer swapped in for c_fc is called as a module."""
    torch.manual_seed(0)
    ffn, x = FFN(8, 32).eval(), torch.randn(3, 8)
    by_modules = ffn.c_proj(ffn.act(ffn.c_fc(x)))
    assert torch.equal(ffn(x), by_modules)
    seen = []
    for module in (ffn.c_fc, ffn.act, ffn.c_proj):
        handle = module.register_forward_hook(lambda m, args, out: seen.append(tuple(out.shape)))
        assert torch.equal(ffn(x), by_modules)
        handle.remove()
    assert seen == [(3, 32), (3, 32), (3, 8)]
    handle = torch.nn.modules.module.register_module_forward_hook(lambda m, args, out: seen.append(type(m).__name__))
    try:
        ffn(x)
    finally:
        handle.remove()
    assert seen[3:] == ["Linear", "GELU", "Linear", "FFN"]

    class Doubled(torch.nn.Linear):
        def forward(self, x):
            return 2 * super().forward(x)

    doubled = Doubled(8, 32)
    doubled.load_state_dict(ffn.c_fc.state_dict())
    ffn.c_fc = doubled
    assert torch.equal(ffn(x), ffn.c_proj(ffn.act(doubled(x))))
