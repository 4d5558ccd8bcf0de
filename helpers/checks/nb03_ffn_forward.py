"""Checks for notebook 03's exercises (the FFN forward pass).

1. A prediction: the largest number of pairs the 16x FFN memorises completely.
2. `class MLP(nn.Module)`, nanoGPT's MLP: helpers.ffn.FFN's weights are loaded into it.
3. (stretch) Memorise by gradient descent instead of least squares.
"""

import torch
import torch.nn.functional as F

from helpers import capacity
from helpers.checks.core import attempt, correct, outcome, referee, wrong
from helpers.checks.module import ModuleCheck
from helpers.checks.runner import Mistake, Prediction
from helpers.checks.state import seeded
from helpers.ffn import FFN

D_MODEL, D_FF = 16, 64


def _reference():
    with seeded(3):
        return FFN(D_MODEL, D_FF).double()


def _tokens():
    return torch.randn(2, 5, D_MODEL, generator=torch.Generator().manual_seed(3), dtype=torch.float64)


def _mlp_with(act, order="act-between"):
    """The output a typical mistake gives: (reference, x) -> tensor."""
    def answer(ref, x):
        if order == "act-after":
            return act(ref.c_proj(ref.c_fc(x)))
        return ref.c_proj(act(ref.c_fc(x)))
    return answer


_NO_BIAS = ("GPT-2's c_fc and c_proj both have a bias: did you pass bias=False? "
            "nn.Linear(in_features, out_features) has one by default.")

check_mlp = ModuleCheck(
    "Exercise 2 (your own MLP)",
    reference=_reference,
    build=lambda cls: cls(D_MODEL, D_FF),
    inputs=_tokens,
    key_hints={"c_fc.bias": _NO_BIAS, "c_proj.bias": _NO_BIAS},
    mistakes=[
        Mistake("your output has d_ff numbers per token: did you forget the down-projection "
                "self.c_proj at the end of forward?", when=lambda got, ref, x: got.shape[-1] == ref.d_ff),
        Mistake("there is no activation between c_fc and c_proj: without it the two matrices fold "
                "into one (notebook 01). Apply self.gelu to c_fc's output.", answer=_mlp_with(lambda h: h)),
        Mistake("that is ReLU; GPT-2's MLP uses GELU (nn.GELU()).", answer=_mlp_with(F.relu)),
        Mistake("that is GELU's tanh approximation (GPT-2's original code); this check, like nanoGPT, "
                "uses the exact nn.GELU().", answer=_mlp_with(lambda h: F.gelu(h, approximate="tanh"))),
        Mistake("the GELU comes after c_proj here; it goes between the two projections: "
                "c_proj(gelu(c_fc(x))).", answer=_mlp_with(F.gelu, order="act-after")),
    ],
    success="helpers.ffn.FFN's weights load into your MLP and give the same output: "
            "c_fc -> GELU -> c_proj, with GPT-2's names.",
    name="your MLP",
)

check_capacity_guess = Prediction(
    "Exercise 1 (predict the capacity)",
    why="Each hidden neuron adds one key (a column of W1) and one value (a row of W2); with d_ff of "
        "them, the least-squares fit reproduces d_ff arbitrary pairs exactly: 512 for d_ff = 512.",
    choices=(16, 32, 64, 128, 256, 512, 1024, 2048),
    variable="my_capacity_guess",
    fmt="{}",
)


def _memory_case(n_pairs=64, d_model=32, d_ff=128):
    keys, values = capacity.random_pairs(n_pairs, d_model, seed=1)
    with seeded(1):
        return FFN(d_model, d_ff).double(), keys, values


EX3 = "Exercise 3 (memorise by gradient descent)"


@referee(EX3)
def check_learned_memory(learn_values):
    """Exercise 3: learn_values(ffn, keys, values) trains c_proj so that 64 pairs are retrieved."""
    name = EX3
    ffn, keys, values = _memory_case()
    up_before = ffn.c_fc.weight.detach().clone()
    with capacity.one_thread():  # small matrices: a second thread only adds waiting
        # ffn is the learner's to train in place; keys and values are copies, the check keeps its own
        got = attempt(learn_values, ffn, keys.clone(), values.clone(), copies=False)
    early = outcome(name, "learn_values(ffn, keys, values)", got)
    if early is not None:
        return early
    if ffn.c_fc.weight.dtype != keys.dtype:
        return wrong(name, f"your function made the FFN {str(ffn.c_fc.weight.dtype).removeprefix('torch.')} "
                           "(ffn.float()?); the keys and values are float64: keep the FFN in float64.")
    if not torch.equal(ffn.c_fc.weight.detach(), up_before):
        return wrong(name, "the up-projection c_fc changed: the experiment keeps it fixed (random keys). "
                           "Give the optimiser only ffn.c_proj.parameters().")
    with torch.no_grad():
        out = ffn(keys)
    if not torch.isfinite(out).all():
        return wrong(name, "after training, the FFN's outputs hold NaN or infinity: the loss diverged. "
                           "Lower the learning rate.")
    accuracy = capacity.retrieval_accuracy(out, values)
    hits = round(accuracy * len(keys))
    if accuracy < 0.95:
        return wrong(name, f"after training, {hits} of {len(keys)} pairs are retrieved; at least "
                           f"{round(0.95 * len(keys))} should be (least squares gets all {len(keys)}). "
                           "Train for more steps, or raise the learning rate.")
    return correct(name, f"{hits} of {len(keys)} pairs retrieved after training c_proj alone: gradient "
                         "descent finds what least squares solves in one step.")
