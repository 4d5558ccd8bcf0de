"""Checks for notebook 05's exercises (the SwiGLU gate).

1. A prediction: the share of gate values above 1 (the gate enlarges its up value) for 256 tokens.
2. `split_gate_up(state_dict)`: a fused checkpoint (gate_up_proj, as Phi-3 stores it) split into
   the state_dict of helpers.gated.GatedMLP.
3. `class FusedSwiGLU(nn.Module)`: one gate_up_proj; fuse_gate_up(GatedMLP)'s weights are loaded
   into it.
4. `multiplier_range(d_model, multiple_of, intermediate_size)`: Llama's width rule run backwards,
   checked against helpers.gated.llama_d_ff.
5. (stretch) `gate_preactivation(g)`: the z on SiLU's rising branch with SiLU(z) = g.
6. (stretch) `gated_mlp_backward(x, W_gate, W_up, W_down, grad_out)`: the gated MLP's backward
   pass by hand, the gradients of its three weights and of x, compared with autograd.
"""

import functools
import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import scipy.optimize
import torch
import torch.nn.functional as F

from helpers import activations
from helpers.checks.autograd_watch import AutogradWatch
from helpers.checks.cases import Named, pair
from helpers.checks.compare import number
from helpers.checks.core import attempt, correct, fresh, outcome, referee, unchanged, wrong
from helpers.checks.guesses import NamedPrediction
from helpers.checks.module import ModuleCheck
from helpers.checks.runner import Check, Mistake
from helpers.checks.show import call_str, describe, one_line, say, shape_str
from helpers.checks.state import seeded
from helpers.gated import GatedMLP, fuse_gate_up

D_MODEL, D_FF = 8, 24
# SiLU's minimum sits at -a where a * sigmoid(a) = 1, i.e. where SiLU(a) = 1.
SILU_ONE = scipy.optimize.brentq(  # 1.278465
    lambda z: float(activations.silu(z)) - 1.0, 0.0, 5.0, xtol=1e-13
)
SILU_ARGMIN = -SILU_ONE
SILU_MIN = float(activations.silu(SILU_ARGMIN))  # -0.278465

# ---- Exercise 1: a prediction ----------------------------------------------------------------

# What a share near 10% means: z of standard deviation 1, of which 10% lie beyond SILU_ONE.
check_gates_above_one = NamedPrediction(
    "Exercise 1 (predict the gates above 1)",
    why="A gate is above 1 exactly where z > 1.278 (section 3: SiLU(1.278) = 1). z = x @ W_gate "
        "sums 64 inputs of rms 1 times weights that nn.Linear draws uniformly in ±1/√64 (a "
        "variance of 1/(3 · 64)), so std(z) = √(64 / 192) ≈ 0.58 and 1.278 lies 2.2 standard "
        "deviations out, where a normal distribution keeps about 1.4%. Few, but each of them "
        "enlarges its up value, which a switch never does.",
    rel=0.6,
    variable="my_above_share",
    fmt="{:.3f}",
    mistakes=[
        Mistake("A share is a number between 0 and 1: a guess of {got:g} reads as a percent "
                "(2% is 0.02).",
                when=lambda guess, actual: 1 < guess <= 100),
        Mistake("None above 1 would be a switch's answer (a sigmoid gate stays inside (0, 1)); "
                "SiLU(z) = z · sigmoid(z) passes 1 for every z > 1.278, as section 3 found.",
                when=lambda guess, actual: guess <= 0.001),
        Mistake("About half of the z are positive, but a positive gate stays between 0 and 1 "
                "unless z > 1.278: half is the share of positive (or of negative) gates, not of "
                "gates above 1.",
                when=lambda guess, actual: 0.3 <= guess <= 0.7),
        Mistake("More than half cannot be: a gate above 1 needs z > 1.278, and only about half of "
                "the z are even positive.", when=lambda guess, actual: 0.7 < guess <= 1),
        Mistake("That many would fit pre-activations z of standard deviation about 1 (then 10% lie "
                "above 1.278). Here z is narrower: 64 inputs of rms 1 times weights of variance "
                "1/(3 · 64) give std(z) ≈ 0.58.", when=lambda guess, actual: 0.05 <= guess < 0.3),
        Mistake("The right idea, the wrong tail: 1.278 / 0.58 ≈ 2.2 standard deviations, and a "
                "normal distribution keeps about 1.4% of its values beyond that.",
                when=lambda guess, actual: 0.001 < guess < 0.05),
    ],
)

# ---- Exercise 2: split a fused checkpoint ---------------------------------------------------


def _fused_state(d_model, d_ff, seed):
    """The state_dict of a fused gated MLP: gate_up_proj.weight (2*d_ff, d_model), down_proj.weight.

    Drawn from the check's own generator as nn.Linear draws its weights (uniform in
    ±1/√in_features), so that building it touches neither torch's global generator nor anything
    else of the learner's.
    """
    g = torch.Generator().manual_seed(seed)

    def linear(d_in, d_out):
        bound = 1 / math.sqrt(d_in)
        return (torch.rand(d_out, d_in, generator=g, dtype=torch.float64) * 2 - 1) * bound

    gate, up, down = linear(d_model, d_ff), linear(d_model, d_ff), linear(d_ff, d_model)
    tensors = {"gate_up_proj.weight": torch.cat([gate, up]), "down_proj.weight": down}
    return Named(tensors, say("fused state_dict, d_model={d_model}, d_ff={d_ff}",
                              d_model=d_model, d_ff=d_ff))


class _Lazy(Sequence):
    """A check's cases, built on first use (not at import): make() -> a list of argument tuples."""

    def __init__(self, make):
        self._make = make

    @functools.cached_property
    def _cases(self):
        return self._make()

    def __getitem__(self, i):
        return self._cases[i]

    def __len__(self):
        return len(self._cases)


def _split(state):
    """The reference: gate rows first, then up (fuse_gate_up's order); down_proj as it is."""
    gate_up = state["gate_up_proj.weight"]
    d_ff = gate_up.shape[0] // 2
    return {"gate_proj.weight": gate_up[:d_ff], "up_proj.weight": gate_up[d_ff:],
            "down_proj.weight": state["down_proj.weight"]}


def _state_dicts():
    """Compare two {name: tensor} dicts: keys, then kind, shape, dtype and values of each tensor."""

    def compare(got, expected):
        if not isinstance(got, Mapping):
            return say("returned {got}; expected a dict with the keys {keys}", got=describe(got),
                       keys=", ".join(expected))
        missing = ", ".join(repr(k) for k in expected if k not in got)
        extra = ", ".join(repr(k) for k in got if k not in expected)
        names = {"missing": missing, "extra": extra, "expected": ", ".join(expected)}
        if missing and extra:
            return say("has no {missing} and has {extra}, which GatedMLP does not: GatedMLP's "
                       "state_dict has exactly {expected}", **names)
        if missing:
            return say("has no {missing}: GatedMLP's state_dict has exactly {expected}", **names)
        if extra:
            return say("has {extra}, which GatedMLP does not: GatedMLP's state_dict has exactly "
                       "{expected}", **names)
        for key, want in expected.items():
            value = got[key]
            if not isinstance(value, torch.Tensor):
                return say("holds {got} under {key}; expected a tensor of shape {shape}",
                           got=describe(value), key=repr(key), shape=shape_str(want.shape))
            if value.device.type == "meta":
                return say("holds a meta tensor under {key}, which has no numbers: keep the "
                           "checkpoint's tensors",
                           key=repr(key))
            if tuple(value.shape) != tuple(want.shape):
                return say("gives {key} the shape {shape}; GatedMLP's {key} is {expected}", key=key,
                           shape=shape_str(value.shape), expected=shape_str(want.shape))
            if value.dtype != want.dtype:
                return say("gives {key} the dtype {dtype}; the checkpoint's tensors are "
                           "{expected}: keep their dtype",
                           key=key, dtype=str(value.dtype).removeprefix("torch."),
                           expected=str(want.dtype).removeprefix("torch."))
            if not torch.equal(value.detach().cpu(), want):
                return say("gives {key} other numbers than the checkpoint holds for it", key=key)
        return None

    return compare


def _swapped(state):
    split = _split(state)
    return {**split,
            "gate_proj.weight": split["up_proj.weight"],
            "up_proj.weight": split["gate_proj.weight"]}


def _by_columns(state):
    gate, up = state["gate_up_proj.weight"].chunk(2, dim=1)
    return {"gate_proj.weight": gate, "up_proj.weight": up,
            "down_proj.weight": state["down_proj.weight"]}


def _keys(got):
    return set(got) if isinstance(got, Mapping) else set()


def _transposed(got, state):
    split = _split(state)
    return isinstance(got, Mapping) and any(
        isinstance(got.get(k), torch.Tensor) and tuple(got[k].shape) == tuple(split[k].shape[::-1])
        and split[k].shape[0] != split[k].shape[1] for k in split)


@dataclass(frozen=True)
class _KeepsCheckpoint(Check):
    """Exercise 2's check: right on every case, and the caller's checkpoint left as it was.

    Even when the answer is that same dict, changed in place: keys popped out, new ones put in.
    """

    def _judge(self, split):
        fb = super()._judge(split)
        if fb.status != "correct" or not callable(split):
            return fb
        for (state,) in self.cases:
            given = fresh(state)
            attempt(split, given, copies=False)
            if not unchanged(state, given):
                now = ", ".join(repr(k) for k in given)
                return wrong(self.exercise, say(
                    "{call} changed the checkpoint it was given (its keys are now {now}): popping "
                    "keys out of the caller's state_dict, or putting new ones in, leaves the "
                    "caller with a checkpoint that no longer loads into the fused model. Build a "
                    "new dict and leave `state` as it was.",
                    call=call_str(self.name, (state,)), now=now))
        return fb


_SPLIT_CASES = _Lazy(lambda: [(_fused_state(D_MODEL, D_FF, seed=5),),
                               (_fused_state(6, 16, seed=6),)])

check_split_gate_up = _KeepsCheckpoint(
    "Exercise 2 (load a fused checkpoint)",
    reference=_split,
    cases=_SPLIT_CASES,
    compare=_state_dicts(),
    mistakes=[
        Mistake("{call} keeps gate_up_proj.weight: GatedMLP has no such parameter, and "
                "load_state_dict (strict, as it is by default) refuses an unexpected key. Return "
                "gate_proj, up_proj and down_proj only.",
                when=lambda got, state: "gate_up_proj.weight" in _keys(got)),
        Mistake("{call} names the layers, not their parameters: a state_dict's keys are "
                "'gate_proj.weight', 'up_proj.weight' and 'down_proj.weight'.",
                when=lambda got, state: {"gate_proj", "up_proj"} <= _keys(got)),
        Mistake("{call} has no 'down_proj.weight': GatedMLP needs it too. It is not fused, so pass "
                "it on as it is.",
                when=lambda got, state: {"gate_proj.weight", "up_proj.weight"} <= _keys(got)
                and "down_proj.weight" not in _keys(got)),
        Mistake("{call} gives gate_proj the second half of gate_up_proj's rows. fuse_gate_up "
                "(section 5) stacks the gate's rows first, then up's, and so does Phi-3: the first "
                "d_ff rows are the gate.",
                answer=_swapped),
        Mistake("{call} splits gate_up_proj.weight along its columns (dim=1), which are the "
                "d_model inputs. nn.Linear stores a weight as (out_features, in_features): the "
                "2 * d_ff outputs are its rows, dim=0.", answer=_by_columns),
        Mistake("{call} transposes a weight: a state_dict stores each nn.Linear weight as "
                "(out_features, in_features), the layout the checkpoint already has. Keep the rows "
                "as they are, no .T.",
                when=_transposed),
    ],
    success="both fused checkpoints split into gate_proj, up_proj and down_proj that load into "
            "GatedMLP: the gate's rows first, then up's, each (d_ff, d_model) as nn.Linear stores "
            "it.",
    name="split_gate_up",
)

# ---- Exercise 3: the fused module -----------------------------------------------------------

_NO_BIAS = "Llama's projections have no bias: pass bias=False to each nn.Linear."
_NO_DOWN = ("your output has d_ff numbers per token: did you forget the down-projection "
            "self.down_proj at the end of forward?")
_STILL_SEPARATE = ("your module still has separate gate_proj and up_proj: the fused version has "
                   "one gate_up_proj = nn.Linear(d_model, 2 * d_ff, bias=False) in their place.")


def _fused_reference():
    with seeded(5):
        return fuse_gate_up(GatedMLP(D_MODEL, D_FF).double())


def _tokens():
    g = torch.Generator().manual_seed(5)
    return torch.randn(2, 5, D_MODEL, generator=g, dtype=torch.float64)


def _fused_with(act=F.silu, on="gate", combine=torch.mul, act_after=False, halves="gate first"):
    """The output a typical mistake gives, from the fused reference: (reference, x) -> tensor."""
    def answer(ref, x):
        both = ref.gate_up_proj(x)
        if halves == "interleaved":
            g, u = both[..., 0::2], both[..., 1::2]
        else:
            g, u = both.split(ref.d_ff, dim=-1)
            g, u = (g, u) if halves == "gate first" else (u, g)
        if act_after:
            return ref.down_proj(act(combine(g, u)))
        g, u = (act(g), act(u)) if on == "both" else (act(g), u)
        return ref.down_proj(combine(g, u))
    return answer


EX3 = "Exercise 3 (fuse gate and up)"
_fused_swiglu_check = ModuleCheck(
    EX3,
    reference=_fused_reference,
    build=lambda cls: cls(D_MODEL, D_FF),
    inputs=_tokens,
    mistakes=[
        Mistake(_NO_DOWN, when=lambda got, ref, x: got.shape[-1] == ref.d_ff),
        Mistake("SiLU went on the second half of gate_up_proj's output, which is up: the weights "
                "hold the gate's rows first (as vLLM's and Phi-3's gate_up_proj), then up's. The "
                "first half is the gate.",
                answer=_fused_with(halves="up first")),
        Mistake("you took every other output as the gate (0::2) and the rest as up; the weights "
                "hold the gate's d_ff rows as one block, then up's: split into two halves.",
                answer=_fused_with(halves="interleaved")),
        Mistake("you applied SiLU to both halves; only the gate goes through SiLU: "
                "act_fn(gate) * up.",
                answer=_fused_with(on="both")),
        Mistake("that is GELU on the gate (GEGLU, another of Shazeer's variants); SwiGLU's gate "
                "uses SiLU: nn.SiLU().", answer=_fused_with(act=F.gelu)),
        Mistake("that is ReLU on the gate (ReGLU); SwiGLU's gate uses SiLU: nn.SiLU().",
                answer=_fused_with(act=F.relu)),
        Mistake("that is sigmoid on the gate, the original GLU of Dauphin et al., which stays in "
                "(0, 1); SwiGLU's gate is SiLU(z) = z * sigmoid(z): nn.SiLU().",
                answer=_fused_with(act=torch.sigmoid)),
        Mistake("there is no activation on the gate: apply self.act_fn (nn.SiLU()) to the gate "
                "half.",
                answer=_fused_with(act=lambda t: t)),
        Mistake("you added the two halves; SwiGLU multiplies them entry by entry: "
                "act_fn(gate) * up.",
                answer=_fused_with(combine=torch.add)),
        Mistake("SiLU comes after the product here; it goes on the gate alone, before the product: "
                "act_fn(gate) * up.", answer=_fused_with(act_after=True)),
    ],
    key_hints={"gate_proj.weight": _STILL_SEPARATE, "up_proj.weight": _STILL_SEPARATE,
               "gate_up_proj.bias": _NO_BIAS, "down_proj.bias": _NO_BIAS,
               "down_proj": "your module has no down_proj: the fused version keeps it, "
                            "nn.Linear(d_ff, d_model, bias=False)."},
    success="fuse_gate_up(GatedMLP)'s weights load into your module and give GatedMLP's output: "
            "one GEMM for gate and up, then a split, the same numbers.",
    name="your FusedSwiGLU",
)


def _split_over_tokens(cls):
    """The sentence for a forward that splits gate_up_proj's output along the tokens; else None."""
    module = attempt(lambda: cls(D_MODEL, D_FF), copies=False)
    if not isinstance(module, torch.nn.Module):
        return None
    x = _tokens()
    with torch.no_grad():
        got = attempt(module.to(x.dtype), x)
    shapes = "x" + str(2 * D_FF) + " and " + str(D_FF) + "x"  # torch's "(AxB and CxD)"
    if isinstance(got, RuntimeError) and shapes in str(got):
        return say("your forward split gate_up_proj's output along the tokens (dim 0), so each "
                   "half still holds 2 * d_ff = {n} numbers per token and down_proj cannot take "
                   "them. The gate and up halves lie along the last dimension, the features: split "
                   "there (dim=-1).", n=2 * D_FF)
    return None


@referee(EX3)
def check_fused_swiglu(cls):
    """Exercise 3: FusedSwiGLU(d_model, d_ff), one GEMM then a split, gives GatedMLP's output."""
    said = _split_over_tokens(cls) if isinstance(cls, type) else None
    return wrong(EX3, said) if said else _fused_swiglu_check(cls)

# ---- Exercise 4: Llama's width rule, backwards ------------------------------------------------


def _step1(d_model):
    """Step 1 of the rule: 2/3 of 4 * d_model, rounded down."""
    return int(2 * (4 * d_model) / 3)


def _multiplier_range(d_model, multiple_of, intermediate_size):
    """(low, high): llama_d_ff(d_model, multiple_of, m) == intermediate_size for low <= m < high.

    Step 3 rounds a whole width v up to intermediate_size N when N - multiple_of < v <= N, and
    step 2 gives v = int(m * w) (w from step 1), which is k when k <= m * w < k + 1.
    """
    w = _step1(d_model)
    return (intermediate_size - multiple_of + 1) / w, (intermediate_size + 1) / w


def _pair_of_numbers(rel=1e-9):
    """Compare a (low, high) pair of real numbers."""
    return pair(("low", "high"), number(rel=rel, abs=0.0))


def _bounds(low_width, high_width, width=_step1):
    """A mistake's (low, high): widths at each end divided by the step-1 width it uses."""
    def answer(d, m, n):
        w = width(d)
        return low_width(n, m) / w, high_width(n, m) / w
    return answer


def _near_any(*answers):
    """A `when` test: the learner's pair is one of several wrong pairs."""
    compare = _pair_of_numbers()

    def when(got, *case):
        return any(compare(got, answer(*case)) is None for answer in answers)
    return when


def _reversed_pair(got, d, m, n):
    """A `when` test: the learner's pair is the right one, high bound first."""
    return _pair_of_numbers()(tuple(got)[::-1], _multiplier_range(d, m, n)) is None


def _near_bounds(got, d, m, n):
    """A `when` test: the learner's pair is within 1e-4 of the right one (a search's answer)."""
    return _pair_of_numbers(rel=1e-4)(got, _multiplier_range(d, m, n)) is None


_WIDTH_CASES = [(4096, 1024, 14336), (8192, 4096, 28672), (4096, 256, 11008), (16384, 4096, 53248)]

check_multiplier_range = Check(
    "Exercise 4 (Llama's width rule, backwards)",
    reference=_multiplier_range,
    cases=_WIDTH_CASES,
    compare=_pair_of_numbers(),
    mistakes=[
        Mistake("{call} returned (high, low); return the smaller bound first: (low, high).",
                when=_reversed_pair),
        Mistake("{call} returned widths, not multipliers: divide them by step 1's width, "
                "int(2 * 4 * d_model / 3).",
                when=lambda got, d, m, n: isinstance(got, (tuple, list)) and len(got) == 2
                and all(isinstance(g, (int, float)) and g > 100 for g in got)),
        Mistake("{call}: step 3 rounds UP to a multiple. The widths that round up to "
                "intermediate_size N are N - multiple_of + 1 to N; yours are those that round down "
                "to it.",
                when=_near_any(_bounds(lambda n, m: n, lambda n, m: n + m),
                               _bounds(lambda n, m: n + 1, lambda n, m: n + m + 1))),
        Mistake("{call}: your high bound is one short. Step 2 rounds m * w down, so int(m * w) = "
                "intermediate_size holds for every m * w below intermediate_size + 1: high is "
                "(intermediate_size + 1) / w.",
                when=_near_any(_bounds(lambda n, m: n - m + 1, lambda n, m: n))),
        Mistake("{call}: your low bound lets in the width intermediate_size - multiple_of, which "
                "is a multiple itself: step 3 leaves it as it is instead of rounding it up. The "
                "smallest whole width that rounds up to intermediate_size is "
                "intermediate_size - multiple_of + 1.",
                when=_near_any(_bounds(lambda n, m: n - m, lambda n, m: n + 1))),
        Mistake("{call}: both bounds are one off. At the low end, step 3 leaves "
                "intermediate_size - multiple_of as it is (it is a multiple), so the smallest "
                "width is one more; at the high end, step 2 rounds m * w down, so "
                "int(m * w) = intermediate_size holds up to m * w < intermediate_size + 1.",
                when=_near_any(_bounds(lambda n, m: n - m, lambda n, m: n))),
        Mistake("{call}: step 1 rounds 8 * d_model / 3 DOWN to a whole number (int: 10922 for "
                "d_model = 4096); round() gives 10923.",
                answer=_bounds(lambda n, m: n - m + 1, lambda n, m: n + 1,
                               width=lambda d: round(8 * d / 3))),
        Mistake("{call}: you divided by 8 * d_model / 3 itself; step 1 rounds it down to a whole "
                "number first (10922 for d_model = 4096), and the multiplier acts on that.",
                answer=_bounds(lambda n, m: n - m + 1, lambda n, m: n + 1,
                               width=lambda d: 8 * d / 3)),
        Mistake("{call}: you divided by 4 * d_model; the multiplier acts on 2/3 of it (step 1).",
                answer=_bounds(lambda n, m: n - m + 1, lambda n, m: n + 1, width=lambda d: 4 * d)),
        Mistake("{call} is close to the bounds but not on them: a search stops near a bound. Each "
                "bound is a whole width divided by step 1's width; compute the two fractions.",
                when=_near_bounds),
    ],
    success=say("every multiplier in [{:.4f}, {:.4f}) gives Llama-3-8B's 14336, so its 1.3 is one "
                "choice of many; Llama-2-7B's range holds 1.0 (no multiplier), and "
                "Llama-3.1-405B's holds its 1.2.",
                *_multiplier_range(*_WIDTH_CASES[0])),
    name="multiplier_range",
)

# ---- Exercise 5 (stretch): invert SiLU on its rising branch ----------------------------------


def _inverse_silu(g):
    """The z >= SILU_ARGMIN with SiLU(z) = g (SiLU rises there)."""
    return scipy.optimize.brentq(lambda z: float(activations.silu(z)) - g,
                                 SILU_ARGMIN, max(g, 0.0) + 1.0, xtol=1e-14)


def _left_branch(g):
    return scipy.optimize.brentq(lambda z: float(activations.silu(z)) - g, -40.0, SILU_ARGMIN)


def _roughly(got, g):
    """True for an answer within 1e-3 of the right z, but not within the check's 1e-6."""
    try:
        return 1e-6 < abs(float(got) - _inverse_silu(g)) < 1e-3
    except (TypeError, ValueError):
        return False


check_gate_preactivation = Check(
    "Exercise 5 (which pre-activation gives this gate?)",
    reference=_inverse_silu,
    cases=[(0.1,), (1.5,), (0.0,), (2.0,), (-0.2,)],
    compare=number(rel=1e-6, abs=1e-6),
    mistakes=[
        Mistake("{call} returned the gate itself: the gate value is what comes OUT of SiLU; find "
                "the z that goes in.", answer=lambda g: g),
        Mistake("{call} = {got}: that is SiLU(g), SiLU applied to the gate. The question goes the "
                "other way: which z has SiLU(z) = g?", answer=lambda g: float(activations.silu(g))),
        Mistake("{call} = {got}: that inverts sigmoid, log(g / (1 - g)); the gate is SiLU(z) = "
                "z * sigmoid(z).", answer=lambda g: math.log(g / (1 - g))),
        Mistake("{call} = {got} is left of SiLU's minimum at -1.278465: it gives the same gate, "
                "but take the solution on the rising branch (z >= -1.278465).",
                answer=_left_branch),
        Mistake("{call} = {got} is close, but not within 1e-6 of the answer: each halving of the "
                "interval gains one binary digit, so halve it more times (or pass a smaller xtol).",
                when=_roughly),
    ],
    success="the gates 0.1, 1.5, 0 and 2 of source post 2 come from pre-activations of about "
            "0.183, 1.758, 0 and 2.218.",
    name="gate_preactivation",
)

# ---- Exercise 6 (stretch): the gated MLP's backward pass by hand -----------------------------

EX6 = "Exercise 6 (the gated MLP's backward pass)"
_GRADS = ("dW_gate", "dW_up", "dW_down", "dx")
def _silu_slope(z):
    """SiLU'(z) = sigmoid(z) * (1 + z * (1 - sigmoid(z)))."""
    s = torch.sigmoid(z)
    return s * (1 + z * (1 - s))


def _sigmoid_slope(z):
    """sigmoid'(z) = sigmoid(z) * (1 - sigmoid(z)), a mistake's slope for SiLU."""
    return torch.sigmoid(z) * (1 - torch.sigmoid(z))


def _backward(x, W_gate, W_up, W_down, grad_out, slope=_silu_slope, gate_term=True, up_term=True,
              dx_paths=("gate", "up"), per_token=False):
    """The gated MLP's gradients, or a typical mistake's (the keywords turn one step wrong)."""
    z, u = x @ W_gate, x @ W_up
    g = F.silu(z)
    h = g * u
    dW_down = h.T @ grad_out
    dh = grad_out @ W_down.T
    # the product rule: each factor's gradient is dh times the other
    dg = dh * u if gate_term else dh
    du = dh * g if up_term else dh
    dz = dg * slope(z)
    dW_gate, dW_up = x.T @ dz, x.T @ du
    dx = sum(d @ W.T for path, d, W in (("gate", dz, W_gate), ("up", du, W_up)) if path in dx_paths)
    grads = (dW_gate, dW_up, dW_down, dx)
    if per_token:
        grads = tuple(t / len(x) for t in grads[:3]) + (dx,)
    return grads


def _autograd(x, W_gate, W_up, W_down, grad_out):
    """The reference: autograd through the forward pass, on the check's own copies."""
    leaves = [t.detach().clone().requires_grad_() for t in (x, W_gate, W_up, W_down)]
    xx, wg, wu, wd = leaves
    with torch.enable_grad():
        out = (F.silu(xx @ wg) * (xx @ wu)) @ wd
        grads = torch.autograd.grad(out, leaves, grad_out)
    d_x, d_gate, d_up, d_down = (t.detach() for t in grads)
    return d_gate, d_up, d_down, d_x


def _backward_cases():
    """Two cases (x, W_gate, W_up, W_down, grad_out), drawn from the check's own generator."""
    g = torch.Generator().manual_seed(6)

    def case(T, d_model, d_ff):
        def draw(*shape, scale=1.0):
            return torch.randn(*shape, generator=g, dtype=torch.float64) * scale

        return (draw(T, d_model), draw(d_model, d_ff, scale=d_model ** -0.5),
                draw(d_model, d_ff, scale=d_model ** -0.5), draw(d_ff, d_model, scale=d_ff ** -0.5),
                draw(T, d_model))

    return [case(5, 6, 16), case(3, 8, 24)]


_BACKWARD_CASES = _Lazy(_backward_cases)
_INPUTS = ("x", "W_gate", "W_up", "W_down", "grad_out")


def _swapped_gate_up(*case):
    d_gate, d_up, d_down, d_x = _backward(*case)
    return d_up, d_gate, d_down, d_x


_BACKWARD_MISTAKES = [
    Mistake("SiLU's slope is missing: the gate is g = SiLU(z), so dz = dg * SiLU'(z), with "
            "SiLU'(z) = sigmoid(z) * (1 + z * (1 - sigmoid(z))).",
            answer=lambda *c: _backward(*c, slope=torch.ones_like)),
    Mistake("you took sigmoid(z) as SiLU's slope, as if SiLU(z) were z times a constant: the "
            "product rule on z * sigmoid(z) adds z * sigmoid'(z), so "
            "SiLU'(z) = sigmoid(z) * (1 + z * (1 - sigmoid(z))).",
            answer=lambda *c: _backward(*c, slope=torch.sigmoid)),
    Mistake("you took sigmoid's slope, sigmoid(z) * (1 - sigmoid(z)), for SiLU's: "
            "SiLU(z) = z * sigmoid(z), so its slope is sigmoid(z) * (1 + z * (1 - sigmoid(z))).",
            answer=lambda *c: _backward(*c, slope=_sigmoid_slope)),
    Mistake("you differentiated SiLU at its output g instead of at its input z: SiLU'(z), with "
            "z = x @ W_gate.",
            answer=lambda *c: _backward(*c, slope=lambda z: _silu_slope(F.silu(z)))),
    Mistake("the product rule is missing a term on the gate side: h = g * u, so dg = dh * u (the "
            "up value), not dh alone.", answer=lambda *c: _backward(*c, gate_term=False)),
    Mistake("the product rule is missing a term on the up side: h = g * u, so du = dh * g (the "
            "gate), not dh alone.", answer=lambda *c: _backward(*c, up_term=False)),
    Mistake("dx has only the gate's path: x feeds both branches, so "
            "dx = dz @ W_gate.T + du @ W_up.T.",
            answer=lambda *c: _backward(*c, dx_paths=("gate",))),
    Mistake("dx has only the up branch's path: x feeds both branches, so "
            "dx = dz @ W_gate.T + du @ W_up.T.",
            answer=lambda *c: _backward(*c, dx_paths=("up",))),
    Mistake("dW_gate and dW_up are swapped: SiLU's slope belongs to the gate branch "
            "(z = x @ W_gate); the up branch's gradient is x.T @ (dh * g). Return (dW_gate, dW_up, "
            "dW_down, dx) in that order.",
            answer=_swapped_gate_up),
    Mistake("you divided the weight gradients by the number of tokens: grad_out already holds each "
            "token's gradient, and a weight's gradient is the sum over the tokens, x.T @ dz.",
            answer=lambda *c: _backward(*c, per_token=True)),
    Mistake("you ignored grad_out (as if it were all ones): the backward pass starts from the "
            "upstream gradient, dh = grad_out @ W_down.T and dW_down = h.T @ grad_out.",
            answer=lambda *c: _backward(*c[:4], torch.ones_like(c[4]))),
]


def _close(got, expected):
    """True when got is a tensor of expected's shape within float64 rounding of it."""
    return (isinstance(got, torch.Tensor) and tuple(got.shape) == tuple(expected.shape)
            and torch.allclose(got.detach().double(), expected, rtol=1e-9, atol=1e-10))


def _same_all(got, expected):
    return all(_close(g, e) for g, e in zip(got, expected, strict=True))


def _order_problem(got, expected):
    """A sentence when the four gradients are right but returned in another order, else None."""
    for order in itertools.permutations(range(4)):
        if order != (0, 1, 2, 3) and all(_close(got[i], expected[j]) for i, j in enumerate(order)):
            return say("your four gradients are right, but in another order: you returned ({got}); "
                       "return them as (dW_gate, dW_up, dW_down, dx)",
                       got=", ".join(_GRADS[j] for j in order))
    return None


def _shape_problem(got, expected, case):
    """A sentence when one of the four has the wrong shape (naming a missing transpose), or None."""
    sizes = {"T": case[0].shape[0], "d_model": case[0].shape[1], "d_ff": case[1].shape[1]}
    for name, g, e in zip(_GRADS, got, expected, strict=True):
        if not isinstance(g, torch.Tensor):
            return say("{name} is {got}; expected a tensor of shape {shape}",
                       name=name, got=describe(g), shape=shape_str(e.shape))
        if tuple(g.shape) != tuple(e.shape):
            if tuple(g.shape) == tuple(e.shape)[::-1]:
                return say("{name} has shape {shape}, the transpose of the expected {expected}: a "
                           "missing transpose. For y = a @ W the weight's gradient is a.T @ dy, "
                           "shaped like W (here (in, out), as in the formulas of section 1), and "
                           "the input's is dy @ W.T",
                           name=name, shape=shape_str(g.shape), expected=shape_str(e.shape))
            return say("{name} has shape {shape}; expected {expected} (T={T}, d_model={d_model}, "
                       "d_ff={d_ff})",
                       name=name, shape=shape_str(g.shape), expected=shape_str(e.shape), **sizes)
    return None


def _raised(call, err):
    """A sentence for an error in the learner's code; a matmul's shape error names a transpose."""
    said = str(err)
    if isinstance(err, RuntimeError) and "cannot be multiplied" in said:
        return say("{call} raised RuntimeError ({said}): a matrix product of mismatched shapes, "
                   "the sign of a missing transpose. In the backward pass each weight appears "
                   "transposed: dh = grad_out @ W_down.T, dx = dz @ W_gate.T + du @ W_up.T, and "
                   "dW = (its input).T @ (its output's gradient).",
                   call=call, said=one_line(err, 120))
    return None


@referee(EX6)
def check_gated_mlp_backward(fn):
    """Exercise 6: the four gradients against autograd's; autograd and in-place edits refused."""
    for i, case in enumerate(_BACKWARD_CASES):
        call = call_str("gated_mlp_backward", case)
        given = tuple(t.clone() for t in case)
        recorder = AutogradWatch()
        with recorder:
            got = attempt(fn, *given, copies=False)
        if isinstance(got, BaseException) and _raised(call, got) is not None:
            return wrong(EX6, _raised(call, got))
        early = outcome(EX6, call, got, first=i == 0)
        if early is not None:
            return early
        used = recorder.used()
        if used or any(isinstance(t, torch.Tensor) and (t.requires_grad or t.grad_fn is not None)
                       for t in (got if isinstance(got, (tuple, list)) else ())):
            return wrong(EX6, say("{call} used autograd ({what}): the exercise is the backward "
                                  "pass by hand, from the chain rule alone. Autograd is what the "
                                  "check compares you with.",
                                  call=call, what=", ".join(used) or "requires_grad"))
        edited = [name for name, mine, theirs in zip(_INPUTS, given, case, strict=True)
                  if not torch.equal(mine, theirs)]
        if edited:
            return wrong(EX6, say("{call} changed {names} in place (an operation such as `+=`, "
                                  "`*=` or a method ending in _ on the input): the caller's "
                                  "tensors must stay as they were, and in a real backward pass the "
                                  "forward's values are still needed. Compute into new tensors.",
                                  call=call, names=", ".join(edited)))
        if not isinstance(got, (tuple, list)) or len(got) != 4:
            return wrong(EX6, say("{call} returned {got}; return the four gradients as a tuple "
                                  "(dW_gate, dW_up, dW_down, dx).", call=call, got=describe(got)))
        expected = _autograd(*case)
        if _same_all(got, expected):
            continue
        for mistake in _BACKWARD_MISTAKES:
            if _same_all(got, mistake.answer(*case)):
                return wrong(EX6, say("{call}: {mistake}", call=call, mistake=say(mistake.message)))
        problem = _order_problem(got, expected) or _shape_problem(got, expected, case)
        if problem is not None:
            return wrong(EX6, say("{call}: {problem}.", call=call, problem=problem))
        right = [name for name, g, e in zip(_GRADS, got, expected, strict=True) if _close(g, e)]
        differ = [name for name in _GRADS if name not in right]
        return wrong(EX6, say("{call}: {differ} differ from autograd's, {right} agree. Follow the "
                              "forward pass backwards one line at a time and compare each "
                              "intermediate gradient's shape with its value's.",
                              call=call, differ=", ".join(differ),
                              right=", ".join(right) or "none"))
    return correct(EX6, "your four gradients equal autograd's for two sizes: the chain rule "
                        "through down_proj, the product g * u (one term for each factor), SiLU's "
                        "slope and the two paths back to x.")
