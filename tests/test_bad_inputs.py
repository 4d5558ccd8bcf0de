"""Every public function refuses bad input with an error naming the argument."""

import numpy as np
import pytest
import torch

from helpers import activations, data, device, ffn, timing, validate
from helpers.widgets import LiveFigure

rng = np.random.default_rng(0)
x = rng.normal(size=(3, 8))
W1, b1 = rng.normal(size=(8, 32)), rng.normal(size=32)
W2, b2 = rng.normal(size=(32, 8)), rng.normal(size=8)


def with_nan(a):
    a = a.copy()
    a.flat[0] = np.nan
    return a


BAD = [
    # (call, exception type, words the message must contain)
    (lambda: ffn.ffn_forward(rng.normal(size=(3, 7)), W1, b1, W2, b2), ValueError, ["x has last dimension 7", "d_model=8"]),
    (lambda: ffn.ffn_forward(x, W1, b1, rng.normal(size=(31, 8)), b2), ValueError, ["W2", "32 rows"]),
    (lambda: ffn.ffn_forward(x, W1, rng.normal(size=31), W2, b2), ValueError, ["b1", "(32,)"]),
    (lambda: ffn.ffn_forward(x, W1, b1, W2, rng.normal(size=9)), ValueError, ["b2", "(8,)"]),
    (lambda: ffn.ffn_forward(x, W1.ravel(), b1, W2, b2), ValueError, ["W1 must be 2-D", "1-D"]),
    (lambda: ffn.ffn_forward(rng.normal(size=(2, 2, 2, 8)), W1, b1, W2, b2), ValueError, ["x must be", "4-D"]),
    (lambda: ffn.ffn_forward(x, W1, b1, W2, b2, activation="swish"), ValueError, ["activation", "'swish'", "gelu"]),
    (lambda: ffn.ffn_forward(torch.from_numpy(x), W1, b1, W2, b2), TypeError, ["mixed numpy and torch", "x is torch"]),
    (lambda: ffn.ffn_forward(with_nan(x), W1, b1, W2, b2), ValueError, ["x holds 1 non-finite"]),
    (lambda: ffn.ffn_forward(x, with_nan(W1), b1, W2, b2), ValueError, ["W1 holds 1 non-finite"]),
    (lambda: ffn.ffn_forward([[1.0] * 8], W1, b1, W2, b2), TypeError, ["list"]),
    (lambda: ffn.FFN(0), ValueError, ["d_model must be a positive integer", "0"]),
    (lambda: ffn.FFN(8, d_ff=2.5), ValueError, ["d_ff must be a positive integer"]),
    (lambda: ffn.FFN(8, activation="tanh"), ValueError, ["activation", "'tanh'"]),
    (lambda: ffn.FFN(8)(torch.randn(2, 9)), ValueError, ["last dimension 9", "d_model=8"]),
    (lambda: ffn.FFN(8)(x), TypeError, ["x must be a torch tensor", "ndarray"]),
    (lambda: ffn.FFN.from_numpy(W1, b1, rng.normal(size=(32, 5)), rng.normal(size=5)), ValueError, ["d_model=8"]),
    (lambda: activations.gelu(x, approximate="erf"), ValueError, ["approximate", "'erf'", "tanh"]),
    (lambda: activations.get("Relu"), ValueError, ["activation", "'Relu'", "relu"]),
    (lambda: activations.relu("abc"), TypeError, ["x must be a numpy array"]),
    (lambda: device.pick_device("tpu"), ValueError, ["unknown device 'tpu'", "cuda", "cpu"]),
    (lambda: device.pick_device("cuda") if not torch.cuda.is_available() else device.pick_device("tpu"), (RuntimeError, ValueError), ["not available"] if not torch.cuda.is_available() else ["tpu"]),
    (lambda: timing.benchmark(lambda: None, repeat=0), ValueError, ["repeat must be a positive integer"]),
    (lambda: data.data_path("no_such_file.json"), FileNotFoundError, ["no data file 'no_such_file.json'", "available"]),
    (lambda: data.data_path(""), ValueError, ["name must be a non-empty"]),
    (lambda: validate.kind_of([1, 2]), TypeError, ["numpy array or a torch tensor", "list"]),
    (lambda: LiveFigure("not a function", {"a": None}), TypeError, ["draw must be a function"]),
    (lambda: LiveFigure(lambda fig: None, {}), ValueError, ["controls must name at least one widget"]),
]


@pytest.mark.parametrize("call, kind, words", BAD, ids=[f"bad{i:02d}" for i in range(len(BAD))])
def test_bad_input_is_refused_with_a_clear_message(call, kind, words):
    with pytest.raises(kind) as err:
        call()
    for word in words:
        assert word in str(err.value), f"{word!r} not in {str(err.value)!r}"


def test_environment_variable_choice_is_checked(monkeypatch):
    monkeypatch.setenv(device.ENV_VAR, "quantum")
    with pytest.raises(ValueError, match="unknown COURSE_DEVICE 'quantum'"):
        device.pick_device()


def test_at_least_fifteen_bad_inputs():
    assert len(BAD) >= 15
