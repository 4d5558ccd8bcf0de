"""helpers.gptq: GPTQ's column-by-column rounding beats round-to-nearest on the output, and is it when H is diagonal."""

import pytest
import torch

from helpers import gptq as G
from helpers import quantize as Q


def data(seed=0, d_out=24, d_in=16, tokens=400):
    g = torch.Generator().manual_seed(seed)
    mix = torch.randn(d_in, d_in, generator=g, dtype=torch.float64)      # correlated input features
    X = torch.randn(tokens, d_in, generator=g, dtype=torch.float64) @ mix
    return torch.randn(d_out, d_in, generator=g, dtype=torch.float64), X


def output_error(W_hat, W, X):
    return Q.relative_error(X @ W_hat.T, X @ W.T)


@pytest.mark.parametrize("bits", [3, 4])
def test_gptq_errs_less_than_round_to_nearest_on_correlated_inputs(bits):
    W, X = data()
    rtn = Q.dequantize(*Q.quantize(W, bits, "row"))
    q, scale = G.gptq(W, X, bits)
    assert q.dtype == torch.int8 and q.abs().max() <= Q.levels(bits) and scale.shape == (24, 1)
    assert output_error(Q.dequantize(q, scale), W, X) < 0.8 * output_error(rtn, W, X)


def test_gptq_is_round_to_nearest_when_the_features_are_independent():
    """A diagonal H: no column's error can be absorbed by another, so every decision is the nearest level."""
    W, _ = data(seed=1)
    X = torch.diag(torch.arange(1.0, 17.0, dtype=torch.float64))
    assert torch.equal(G.gptq(W, X, 4, damp=0.0)[0], Q.quantize(W, 4, "row")[0])


def test_a_feature_that_never_varies_is_handled():
    W, X = data(seed=2)
    X[:, 3] = 0
    q, scale = G.gptq(W, X, 4)
    assert torch.isfinite(scale).all() and (q[:, 3] == 0).all()


@pytest.mark.parametrize("call, error, words", [
    (lambda: G.gptq(torch.ones(4, 3, dtype=torch.float64), torch.ones(5, 4), 4), ValueError, "X has 4 features"),
    (lambda: G.gptq(torch.ones(4, 3), torch.ones(0, 3), 4), ValueError, "at least one token"),
    (lambda: G.gptq(torch.ones(4, 3), torch.full((2, 3), float("nan")), 4), ValueError, "X holds"),
    (lambda: G.gptq(torch.ones(4, 3), torch.ones(2, 3), 12), ValueError, "at most 8"),
    (lambda: G.gptq(torch.ones(4, 3), torch.ones(2, 3), 4, damp=2), ValueError, "damp must be"),
    (lambda: G.gptq(torch.ones(4, 3, dtype=torch.int64), torch.ones(2, 3), 4), ValueError, "floating-point"),
])
def test_bad_inputs_are_refused_by_name(call, error, words):
    with pytest.raises(error, match=words):
        call()
