"""Every public function refuses bad input with an error naming the argument."""

import numpy as np
import pytest
import torch

from helpers import activations, data, device, ffn, gated, moe, timing, validate
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


# Found by probing the public API: each once gave a wrong number or a foreign traceback.
PROBED = [
    (lambda: ffn.flops(1, -5, 3), ValueError, ["d_model must be a positive integer, got -5"]),
    (lambda: ffn.flops(1, 8, 2.5), ValueError, ["d_ff must be a positive integer, got 2.5"]),
    (lambda: ffn.flops(0, 8, 3), ValueError, ["n_tokens must be a positive integer, got 0"]),
    (lambda: ffn.ffn_forward(x.astype(complex), W1, b1, W2, b2), TypeError,
     ["x holds complex numbers (dtype complex128)", "real numbers"]),
    (lambda: ffn.ffn_forward(x, W1, b1.astype(complex), W2, b2), TypeError, ["b1 holds complex numbers"]),
    (lambda: activations.gelu(np.array([1 + 2j])), TypeError, ["x holds complex numbers"]),
    (lambda: activations.gelu(torch.tensor([1 + 2j])), TypeError, ["x holds complex numbers (dtype torch.complex64)"]),
    (lambda: moe.route(torch.tensor([[0.1, float("nan"), 0.3]]), 2), ValueError, ["logits holds 1 non-finite"]),
    (lambda: moe.route(np.zeros((2, 4)), 1), TypeError,
     ["logits must be a torch tensor (T, n_experts), got ndarray", "torch.from_numpy"]),
    (lambda: moe.route(torch.zeros(2, 4, dtype=torch.int64), 1), TypeError,
     ["logits must be floating point", "torch.int64"]),
    (lambda: ffn.FFN(8)(torch.tensor(1.0)), ValueError, ["shape (..., d_model=8)", "0-d tensor"]),
    (lambda: gated.GatedMLP(8, 16)(torch.tensor(1.0)), ValueError, ["0-d tensor"]),
    (lambda: ffn.FFN(8)(torch.zeros(2, 8, dtype=torch.int64)), TypeError, ["floating-point", "torch.int64"]),
    (lambda: device.pick_device("cpu:7"), ValueError, ["device 'cpu:7'", "no cpu device 7"]),
    (lambda: device.pick_device("cuda:x"), ValueError, ["unknown device 'cuda:x'"]),
]


@pytest.mark.parametrize("call, kind, words", PROBED, ids=[f"probed{i:02d}" for i in range(len(PROBED))])
def test_probed_bad_input_is_refused(call, kind, words):
    test_bad_input_is_refused_with_a_clear_message(call, kind, words)


def test_good_input_still_works():
    assert ffn.flops(2, 8, 32) == 4 * 2 * 8 * 32
    routing = moe.route(torch.tensor([[0.1, 2.0, 0.3]], dtype=torch.float64), 2)
    assert routing.experts.tolist() == [[1, 2]]
    assert ffn.FFN(8)(torch.zeros(1, 8)).shape == (1, 8)
    assert device.pick_device("cpu:0") == torch.device("cpu:0") and device.pick_device("cpu").type == "cpu"


def test_cuda_asked_for_where_there_is_none(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(RuntimeError, match="device 'cuda' was asked for but is not available here"):
        device.synchronize("cuda")
    with pytest.raises(RuntimeError, match="device 'cuda:0' was asked for but is not available here"):
        timing.benchmark(lambda: None, device="cuda:0")
    monkeypatch.setenv(device.ENV_VAR, "cuda")
    with pytest.raises(RuntimeError, match="device 'cuda' was asked for by COURSE_DEVICE but is not "
                                           "available here(: [^;]*)?; unset COURSE_DEVICE or set it to one of"):
        device.pick_device()


def test_a_gpu_index_that_does_not_exist(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    with pytest.raises(ValueError, match=r"device 'cuda:3' was asked for but there is no cuda device 3 "
                                         r"\(cuda has 1 here, numbered from 0\)"):
        device.pick_device("cuda:3")
    assert device.pick_device("cuda:0") == torch.device("cuda:0")
