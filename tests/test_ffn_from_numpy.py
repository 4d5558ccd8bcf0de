"""FFN.from_numpy refuses weights that would make every output NaN, naming the array."""

import numpy as np
import pytest

from helpers.ffn import FFN


def weights(d_model=4, d_ff=8):
    g = np.random.default_rng(0)
    return g.normal(size=(d_model, d_ff)), np.zeros(d_ff), g.normal(size=(d_ff, d_model)), np.zeros(d_model)


@pytest.mark.parametrize("which, bad, said", [(0, np.nan, "W1 holds 1 non-finite value(s): 1 NaN"),
                                              (3, np.inf, "b2 holds 1 non-finite value(s): 1 infinite"),
                                              (2, np.nan, "W2 holds 1 non-finite value(s): 1 NaN")])
def test_from_numpy_refuses_nan_or_infinite_weights(which, bad, said):
    arrays = list(weights())
    arrays[which] = arrays[which].copy()
    arrays[which].flat[1] = bad
    with pytest.raises(ValueError, match=said.replace("(", r"\(").replace(")", r"\)")):
        FFN.from_numpy(*arrays)


def test_from_numpy_still_builds_from_finite_weights():
    ffn = FFN.from_numpy(*weights())
    assert ffn.d_model == 4 and ffn.d_ff == 8
