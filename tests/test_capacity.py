"""The capacity experiment: exact fits up to d_ff pairs, a clear definition of memorised."""

import numpy as np
import pytest
import torch

from helpers import capacity
from helpers.ffn import FFN


def test_random_pairs_are_seeded_and_shaped():
    keys, values = capacity.random_pairs(10, 4, seed=1)
    again, _ = capacity.random_pairs(10, 4, seed=1)
    assert keys.shape == values.shape == (10, 4) and keys.dtype == torch.float64
    assert torch.equal(keys, again) and not torch.equal(keys, values)
    with pytest.raises(ValueError, match="n_pairs must be a positive integer"):
        capacity.random_pairs(0, 4)


def test_retrieval_accuracy_counts_nearest_own_value():
    values = torch.tensor([[0.0, 0.0], [10.0, 0.0], [0.0, 10.0]], dtype=torch.float64)
    outputs = torch.tensor([[1.0, 1.0], [9.0, 0.0], [9.0, 1.0]], dtype=torch.float64)
    assert capacity.retrieval_accuracy(outputs, values) == pytest.approx(2 / 3)
    assert capacity.retrieval_accuracy(values, values) == 1.0
    with pytest.raises(ValueError, match=r"outputs has shape \(3, 1\)"):
        capacity.retrieval_accuracy(outputs[:, :1], values)


def test_fit_down_proj_is_the_least_squares_solution():
    keys, values = capacity.random_pairs(40, 6, seed=2)
    torch.manual_seed(0)
    ffn = FFN(6, 12).double()
    capacity.fit_down_proj(ffn, keys, values)
    hidden = torch.nn.functional.gelu(ffn.c_fc(keys)).detach().numpy()
    W2, *_ = np.linalg.lstsq(hidden, values.numpy(), rcond=None)      # numpy's reference fit
    np.testing.assert_allclose(ffn.c_proj.weight.detach().numpy().T, W2, atol=1e-8)
    assert torch.count_nonzero(ffn.c_proj.bias) == 0
    with pytest.raises(ValueError, match="d_model=6"):
        capacity.fit_down_proj(ffn, keys[:, :5], values[:, :5])


def test_exact_recall_up_to_d_ff_then_not():
    assert capacity.memorised_fraction(16, 32, 32) == 1.0          # N = d_ff: solved exactly
    assert capacity.memorised_fraction(16, 32, 128) < 0.5          # N = 4 d_ff: mostly lost
    assert capacity.memorised_fraction(16, 128, 128) == 1.0        # 4x wider holds 4x more


def test_one_thread_restores_the_thread_count():
    before = torch.get_num_threads()
    with capacity.one_thread():
        assert torch.get_num_threads() == 1
    assert torch.get_num_threads() == before


def test_capacity_is_the_largest_fully_recalled_size():
    assert capacity.capacity([16, 32, 64], [1.0, 1.0, 0.9]) == 32
    assert capacity.capacity([16, 32], [0.5, 0.2]) == 0
    with pytest.raises(ValueError):
        capacity.capacity([16, 32], [1.0])


def test_seeded_ffn_draws_from_its_own_generator():
    before = torch.get_rng_state()
    a, b = capacity.seeded_ffn(6, 12, seed=4), capacity.seeded_ffn(6, 12, seed=4)
    assert torch.equal(torch.get_rng_state(), before), "the global generator is neither drawn from nor reseeded"
    assert all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters(), strict=True))
    assert not torch.equal(a.c_fc.weight, capacity.seeded_ffn(6, 12, seed=5).c_fc.weight)
    assert a.c_fc.weight.dtype == torch.float64
    for layer in (a.c_fc, a.c_proj):                     # nn.Linear's range: +-1/sqrt(fan-in)
        bound = 1 / np.sqrt(layer.in_features)
        assert layer.weight.abs().max() <= bound and layer.bias.abs().max() <= bound
        assert layer.weight.abs().max() > 0.8 * bound    # the whole range is used, not a narrower one


def test_memorised_fraction_leaves_the_global_generator_alone():
    before = torch.get_rng_state()
    assert capacity.memorised_fraction(16, 32, 32, seed=3) == 1.0
    assert torch.equal(torch.get_rng_state(), before)


def test_training_the_up_projection_too_retrieves_more():
    """At 2 pairs per neuron a fixed W1 loses pairs; trained keys hold them all (notebook 03, section 6)."""
    before = torch.get_rng_state()
    fixed = capacity.memorised_fraction(32, 32, 64, seed=0)
    trained = capacity.trained_fraction(32, 32, 64, seed=0)
    assert fixed < 0.95 and trained == 1.0, (fixed, trained)
    assert torch.equal(torch.get_rng_state(), before)


def test_adam_steps_follow_torch_optim_adam():
    keys, values = capacity.random_pairs(20, 6, seed=3)
    ours, theirs = capacity.seeded_ffn(6, 12, seed=3), capacity.seeded_ffn(6, 12, seed=3)
    capacity.adam_steps(ours.parameters(), lambda: torch.nn.functional.mse_loss(ours(keys), values), 40, lr=0.03)
    opt = torch.optim.Adam(theirs.parameters(), lr=0.03)
    for _ in range(40):
        opt.zero_grad()
        torch.nn.functional.mse_loss(theirs(keys), values).backward()
        opt.step()
    for p, q in zip(ours.parameters(), theirs.parameters(), strict=True):
        torch.testing.assert_close(p, q, rtol=0, atol=1e-12)    # the same update, float64 rounding apart
