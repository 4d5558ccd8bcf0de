"""helpers.superposition: the toy model's formula, its sampling, more features stored as they get
sparser, its own random generator, and bad inputs refused with the argument named."""

import time

import pytest
import torch

from helpers import device, superposition, validate


@pytest.fixture(scope="module", autouse=True)
def one_thread():
    """Small matmuls: one thread is quicker, and on a shared CPU much quicker."""
    with device.cpu_threads(1):
        yield


@pytest.fixture(scope="module")
def trained():
    return superposition.train_toy(seed=0)                           # p = 1, 0.3, 0.1, 0.03, 0.01


def test_more_features_stored_as_they_get_sparser(trained):
    # Seed 0 stores 5, 10, 13, 16 and 18 of 20 features (seeds 0-2 alike); the asserts leave room.
    model, losses = trained
    stored = superposition.features_stored(model).tolist()
    assert stored == sorted(stored), f"features stored should not fall as p falls: {stored}"
    assert stored[0] <= 7, f"dense features: about m = 5 stored, got {stored[0]}"
    assert stored[-1] >= 14, f"at p = 0.01 most of the 20 features should be stored, got {stored[-1]}"
    assert (losses[-100:].mean(0) < losses[:10].mean(0)).all()


def test_dense_model_keeps_the_most_important_features_orthogonal(trained):
    model, _ = trained
    norms = superposition.feature_norms(model)[0]
    assert (norms[:4] > 0.9).all(), f"the 4 most important dense features should be stored: {norms}"
    directions = superposition.feature_directions(model, instance=0)   # (20, 5)
    assert directions.shape == (20, 5)
    torch.testing.assert_close(directions, model.W.detach()[0].T)
    assert (superposition.interference(model)[0, :4] < 0.1).all()       # at right angles to the others


def test_forward_written_out():
    g = torch.Generator().manual_seed(1)
    model = superposition.ToyModel(6, 2, n_instances=3, generator=g)
    with torch.no_grad():
        model.b.copy_(torch.randn(3, 6, generator=g, dtype=torch.float64))
    x = torch.rand(3, 4, 6, generator=g, dtype=torch.float64)
    for k in range(3):
        W = model.W.detach()[k]                                       # (m, n)
        torch.testing.assert_close(model(x)[k], torch.relu(x[k] @ W.T @ W + model.b[k]))


def test_sample_features_presence_and_values():
    g = torch.Generator().manual_seed(2)
    p = torch.tensor([1.0, 0.1], dtype=torch.float64)
    x = superposition.sample_features(20_000, 5, p, g)
    assert x.shape == (2, 20_000, 5) and x.min() >= 0 and x.max() <= 1
    present = (x > 0).double().mean((1, 2))
    assert present[0] == 1.0
    assert abs(present[1] - 0.1) < 5 * (0.1 * 0.9 / 100_000) ** 0.5     # 5 binomial standard errors
    torch.testing.assert_close(superposition.importance(3, 0.5), torch.tensor([1.0, 0.5, 0.25], dtype=torch.float64))


def test_interference_zero_for_orthogonal_directions():
    model = superposition.ToyModel(3, 2)
    with torch.no_grad():
        model.W.copy_(torch.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]], dtype=torch.float64))
    assert superposition.interference(model).tolist() == [[0.0, 0.0, 0.0]]
    assert superposition.features_stored(model).tolist() == [2]


def test_no_global_random_state_touched():
    before = torch.random.get_rng_state()
    a, _ = superposition.train_toy(n_features=6, n_hidden=2, p=0.5, steps=5, seed=3)
    b, _ = superposition.train_toy(n_features=6, n_hidden=2, p=0.5, steps=5, seed=3)
    assert torch.equal(torch.random.get_rng_state(), before)
    assert torch.equal(a.W, b.W)


@pytest.mark.parametrize("call, error, words", [
    (lambda: superposition.train_toy(p=0.0), ValueError, r"p\[0\] must be a probability in \(0, 1\], got 0.0"),
    (lambda: superposition.train_toy(p=(0.5, 1.5)), ValueError, r"p\[1\] must be a probability"),
    (lambda: superposition.train_toy(p="dense"), TypeError, "p must be a probability or a list"),
    (lambda: superposition.train_toy(n_features=5, n_hidden=5), ValueError, "n_hidden must be below n_features"),
    (lambda: superposition.train_toy(steps=0), ValueError, "steps must be a positive integer"),
    (lambda: superposition.train_toy(seed=1.5), ValueError, "seed must be a whole number"),
    (lambda: superposition.ToyModel(0, 2), ValueError, "n_features must be a positive integer"),
    (lambda: superposition.ToyModel(5, 2)(torch.zeros(1, 3, 4)), ValueError,
     r"x must have shape \(n_instances=1, N, n_features=5\), got \(1, 3, 4\)"),
    (lambda: superposition.ToyModel(5, 2)(torch.zeros(3, 5)), ValueError, "x must be 3-D"),
    (lambda: superposition.sample_features(10, 5, [0.5], torch.Generator()), TypeError, "p must be a torch tensor"),
    (lambda: superposition.sample_features(10, 5, torch.tensor([0.5]), None), TypeError, "generator must be"),
    (lambda: superposition.features_stored(superposition.ToyModel(5, 2), threshold=0), ValueError,
     "threshold must be a finite number > 0"),
    (lambda: superposition.feature_directions(superposition.ToyModel(5, 2), instance=1), ValueError,
     "instance must be a whole number from 0 to 0"),
    (lambda: superposition.interference(torch.zeros(2, 5)), TypeError, "model must be"),
])
def test_bad_inputs_name_the_argument(call, error, words):
    with pytest.raises(error, match=words):
        call()


@pytest.mark.parametrize("p, words", [
    (torch.tensor([0.5, 1.5], dtype=torch.float64), r"probabilities in \(0, 1\], got 1\.5 at index 1"),
    (torch.tensor([0.0], dtype=torch.float64), r"probabilities in \(0, 1\], got 0\.0 at index 0"),
    (torch.tensor([-0.1], dtype=torch.float64), r"got -0\.1 at index 0"),
    (torch.tensor([0.3, float("nan")], dtype=torch.float64), r"got nan at index 1"),
    (torch.tensor([], dtype=torch.float64), r"one probability per instance, got an empty tensor"),
])
def test_sample_features_refuses_what_train_toy_refuses(p, words):
    with pytest.raises(ValueError, match=words):
        superposition.sample_features(4, 3, p, torch.Generator().manual_seed(0))


def test_sample_features_refuses_whole_number_probabilities():
    with pytest.raises(TypeError, match="floating-point numbers, got dtype torch.int64"):
        superposition.sample_features(4, 3, torch.tensor([1]), torch.Generator().manual_seed(0))


def test_toy_model_names_the_dtype_it_expects():
    model = superposition.ToyModel(3, 2)
    with pytest.raises(TypeError, match=r"x has dtype torch.float32 but this ToyModel's weights are torch.float64"):
        model(torch.zeros(1, 4, 3))


@pytest.fixture()
def sixteen_gib(monkeypatch):
    """A 16 GiB machine, whatever this one is, so that the sizes refused are the same everywhere."""
    monkeypatch.setattr(validate, "memory_bytes", lambda: 16 * 2**30)


@pytest.mark.parametrize("call, words", [
    (lambda: superposition.train_toy(n_features=10**6), r"training 5 toy models .* GiB of memory, more than half of "
                                                        r"this machine's 16 GiB; choose smaller sizes"),
    (lambda: superposition.ToyModel(10**6, 10**4), r"a ToyModel of 1 x 10000 x 1000000 weights would need"),
    (lambda: superposition.sample_features(10**6, 10**4, torch.tensor([0.5], dtype=torch.float64),
                                           torch.Generator()), r"sampling \(1, 1000000, 10000\) features"),
])
def test_huge_sizes_refused_before_allocating(sixteen_gib, call, words):
    start = time.perf_counter()
    with pytest.raises(ValueError, match=words):
        call()
    assert time.perf_counter() - start < 1, "refused at once, before any tensor of that size"
