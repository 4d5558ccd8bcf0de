"""Checks for notebook 05's exercises (the SwiGLU gate).

1. A prediction: the share of gate values below 0 for 256 tokens.
2. `split_gate_up(state_dict)`: a fused checkpoint (gate_up_proj, as Phi-3 stores it) split into
   the state_dict of helpers.gated.GatedMLP.
3. `class FusedSwiGLU(nn.Module)`: one gate_up_proj; fuse_gate_up(GatedMLP)'s weights are loaded into it.
4. `multiplier_range(d_model, multiple_of, intermediate_size)`: Llama's width rule run backwards,
   checked against helpers.gated.llama_d_ff.
5. (stretch) `gate_preactivation(g)`: the z on SiLU's rising branch with SiLU(z) = g.
"""

import math
from collections.abc import Mapping

import scipy.optimize
import torch
import torch.nn.functional as F

from helpers import activations
from helpers.checks.cases import Named, pair
from helpers.checks.compare import number
from helpers.checks.guesses import NamedPrediction
from helpers.checks.module import ModuleCheck
from helpers.checks.runner import Check, Mistake
from helpers.checks.show import describe, say, shape_str
from helpers.checks.state import seeded
from helpers.gated import GatedMLP, fuse_gate_up

D_MODEL, D_FF = 8, 24
# SiLU's minimum sits at -a where a * sigmoid(a) = 1, i.e. where SiLU(a) = 1.
SILU_ONE = scipy.optimize.brentq(lambda z: float(activations.silu(z)) - 1.0, 0.0, 5.0, xtol=1e-13)  # 1.278465
SILU_ARGMIN = -SILU_ONE
SILU_MIN = float(activations.silu(SILU_ARGMIN))                                                     # -0.278465

# ---- Exercise 1: a prediction ----------------------------------------------------------------

check_negative_gates = NamedPrediction(
    "Exercise 1 (predict the negative gates)",
    why="x @ W_gate is centred on 0 for a freshly initialised layer, so about half of the gate "
        "pre-activations are negative, and SiLU maps every negative z to a negative gate (between "
        "-0.278 and 0): those gates flip the sign of their up value and shrink it.",
    rel=0.25,
    variable="my_negative_share",
    fmt="{:.2f}",
    mistakes=[
        Mistake("A share is a number between 0 and 1: a guess of {got:g} reads as a percent (50% is 0.5).",
                when=lambda guess, actual: 1 < guess <= 100),
        Mistake("No negative gates would be ReLU's answer, or a switch's in [0, 1]; SiLU keeps the sign of z, "
                "so every negative z gives a negative gate.", when=lambda guess, actual: guess <= 0.02),
        Mistake("A gate is negative for every negative z, not only in the dip near z = -1.28 where SiLU is "
                "lowest: how many of the z are negative?", when=lambda guess, actual: 0.02 < guess < actual / 1.25),
        Mistake("More than the positive ones? SiLU(z) < 0 exactly when z < 0, and nothing here makes "
                "z lean to one side.", when=lambda guess, actual: actual * 1.25 < guess <= 1),
    ],
)

# ---- Exercise 2: split a fused checkpoint ---------------------------------------------------


def _fused_state(d_model, d_ff, seed):
    """The state_dict of a fused gated MLP: gate_up_proj.weight (2*d_ff, d_model), down_proj.weight."""
    with seeded(seed):
        mlp = GatedMLP(d_model, d_ff).double()
    tensors = {k: v.clone() for k, v in fuse_gate_up(mlp).state_dict().items()}
    return Named(tensors, say("fused state_dict, d_model={d_model}, d_ff={d_ff}", d_model=d_model, d_ff=d_ff))


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
            return say("has no {missing} and has {extra}, which GatedMLP does not: GatedMLP's state_dict has "
                       "exactly {expected}", **names)
        if missing:
            return say("has no {missing}: GatedMLP's state_dict has exactly {expected}", **names)
        if extra:
            return say("has {extra}, which GatedMLP does not: GatedMLP's state_dict has exactly {expected}", **names)
        for key, want in expected.items():
            value = got[key]
            if not isinstance(value, torch.Tensor):
                return say("holds {got} under {key}; expected a tensor of shape {shape}", got=describe(value),
                           key=repr(key), shape=shape_str(want.shape))
            if value.device.type == "meta":
                return say("holds a meta tensor under {key}, which has no numbers: keep the checkpoint's tensors",
                           key=repr(key))
            if tuple(value.shape) != tuple(want.shape):
                return say("gives {key} the shape {shape}; GatedMLP's {key} is {expected}", key=key,
                           shape=shape_str(value.shape), expected=shape_str(want.shape))
            if value.dtype != want.dtype:
                return say("gives {key} the dtype {dtype}; the checkpoint's tensors are {expected}: keep their dtype",
                           key=key, dtype=str(value.dtype).removeprefix("torch."),
                           expected=str(want.dtype).removeprefix("torch."))
            if not torch.equal(value.detach().cpu(), want):
                return say("gives {key} other numbers than the checkpoint holds for it", key=key)
        return None

    return compare


def _swapped(state):
    split = _split(state)
    return {**split, "gate_proj.weight": split["up_proj.weight"], "up_proj.weight": split["gate_proj.weight"]}


def _by_columns(state):
    gate, up = state["gate_up_proj.weight"].chunk(2, dim=1)
    return {"gate_proj.weight": gate, "up_proj.weight": up, "down_proj.weight": state["down_proj.weight"]}


def _keys(got):
    return set(got) if isinstance(got, Mapping) else set()


def _transposed(got, state):
    split = _split(state)
    return isinstance(got, Mapping) and any(
        isinstance(got.get(k), torch.Tensor) and tuple(got[k].shape) == tuple(split[k].shape[::-1])
        and split[k].shape[0] != split[k].shape[1] for k in split)


_SPLIT_CASES = [(_fused_state(D_MODEL, D_FF, seed=5),), (_fused_state(6, 16, seed=6),)]

check_split_gate_up = Check(
    "Exercise 2 (load a fused checkpoint)",
    reference=_split,
    cases=_SPLIT_CASES,
    compare=_state_dicts(),
    mistakes=[
        Mistake("{call} keeps gate_up_proj.weight: GatedMLP has no such parameter, and load_state_dict "
                "(strict, as it is by default) refuses an unexpected key. Return gate_proj, up_proj and "
                "down_proj only.", when=lambda got, state: "gate_up_proj.weight" in _keys(got)),
        Mistake("{call} names the layers, not their parameters: a state_dict's keys are 'gate_proj.weight', "
                "'up_proj.weight' and 'down_proj.weight'.",
                when=lambda got, state: {"gate_proj", "up_proj"} <= _keys(got)),
        Mistake("{call} has no 'down_proj.weight': GatedMLP needs it too. It is not fused, so pass it on "
                "as it is.", when=lambda got, state: {"gate_proj.weight", "up_proj.weight"} <= _keys(got)
                and "down_proj.weight" not in _keys(got)),
        Mistake("{call} gives gate_proj the second half of gate_up_proj's rows. fuse_gate_up (section 5) "
                "stacks the gate's rows first, then up's, and so does Phi-3: the first d_ff rows are the gate.",
                answer=_swapped),
        Mistake("{call} splits gate_up_proj.weight along its columns (dim=1), which are the d_model inputs. "
                "nn.Linear stores a weight as (out_features, in_features): the 2 * d_ff outputs are its rows, "
                "dim=0.", answer=_by_columns),
        Mistake("{call} transposes a weight: a state_dict stores each nn.Linear weight as (out_features, "
                "in_features), the layout the checkpoint already has. Keep the rows as they are, no .T.",
                when=_transposed),
    ],
    success="both fused checkpoints split into gate_proj, up_proj and down_proj that load into GatedMLP: "
            "the gate's rows first, then up's, each (d_ff, d_model) as nn.Linear stores it.",
    name="split_gate_up",
)

# ---- Exercise 3: the fused module -----------------------------------------------------------

_NO_BIAS = "Llama's projections have no bias: pass bias=False to each nn.Linear."
_NO_DOWN = ("your output has d_ff numbers per token: did you forget the down-projection "
            "self.down_proj at the end of forward?")
_STILL_SEPARATE = ("your module still has separate gate_proj and up_proj: the fused version has one "
                   "gate_up_proj = nn.Linear(d_model, 2 * d_ff, bias=False) in their place.")


def _fused_reference():
    with seeded(5):
        return fuse_gate_up(GatedMLP(D_MODEL, D_FF).double())


def _tokens():
    return torch.randn(2, 5, D_MODEL, generator=torch.Generator().manual_seed(5), dtype=torch.float64)


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


check_fused_swiglu = ModuleCheck(
    "Exercise 3 (fuse gate and up)",
    reference=_fused_reference,
    build=lambda cls: cls(D_MODEL, D_FF),
    inputs=_tokens,
    mistakes=[
        Mistake(_NO_DOWN, when=lambda got, ref, x: got.shape[-1] == ref.d_ff),
        Mistake("SiLU went on the second half of gate_up_proj's output, which is up: the weights hold the "
                "gate's rows first (as vLLM's and Phi-3's gate_up_proj), then up's. The first half is the gate.",
                answer=_fused_with(halves="up first")),
        Mistake("you took every other output as the gate (0::2) and the rest as up; the weights hold the "
                "gate's d_ff rows as one block, then up's: split into two halves.",
                answer=_fused_with(halves="interleaved")),
        Mistake("you applied SiLU to both halves; only the gate goes through SiLU: act_fn(gate) * up.",
                answer=_fused_with(on="both")),
        Mistake("that is GELU on the gate (GEGLU, another of Shazeer's variants); SwiGLU's gate uses "
                "SiLU: nn.SiLU().", answer=_fused_with(act=F.gelu)),
        Mistake("that is ReLU on the gate (ReGLU); SwiGLU's gate uses SiLU: nn.SiLU().",
                answer=_fused_with(act=F.relu)),
        Mistake("that is sigmoid on the gate, the original GLU of Dauphin et al., which stays in (0, 1); "
                "SwiGLU's gate is SiLU(z) = z * sigmoid(z): nn.SiLU().", answer=_fused_with(act=torch.sigmoid)),
        Mistake("there is no activation on the gate: apply self.act_fn (nn.SiLU()) to the gate half.",
                answer=_fused_with(act=lambda t: t)),
        Mistake("you added the two halves; SwiGLU multiplies them entry by entry: act_fn(gate) * up.",
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

# ---- Exercise 4: Llama's width rule, backwards ------------------------------------------------


def _step1(d_model):
    """Step 1 of the rule: 2/3 of 4 * d_model, rounded down."""
    return int(2 * (4 * d_model) / 3)


def _multiplier_range(d_model, multiple_of, intermediate_size):
    """(low, high): llama_d_ff(d_model, multiple_of, m) == intermediate_size exactly for low <= m < high.

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


_WIDTH_CASES = [(4096, 1024, 14336), (8192, 4096, 28672), (4096, 256, 11008), (16384, 4096, 53248)]

check_multiplier_range = Check(
    "Exercise 4 (Llama's width rule, backwards)",
    reference=_multiplier_range,
    cases=_WIDTH_CASES,
    compare=_pair_of_numbers(),
    mistakes=[
        Mistake("{call} returned (high, low); return the smaller bound first: (low, high).",
                when=lambda got, d, m, n: _pair_of_numbers()(tuple(got)[::-1], _multiplier_range(d, m, n)) is None),
        Mistake("{call} returned widths, not multipliers: divide them by step 1's width, "
                "int(2 * 4 * d_model / 3).",
                when=lambda got, d, m, n: isinstance(got, (tuple, list)) and len(got) == 2
                and all(isinstance(g, (int, float)) and g > 100 for g in got)),
        Mistake("{call}: step 3 rounds UP to a multiple. The widths that round up to intermediate_size N are "
                "N - multiple_of + 1 to N; yours are those that round down to it.",
                when=_near_any(_bounds(lambda n, m: n, lambda n, m: n + m),
                               _bounds(lambda n, m: n + 1, lambda n, m: n + m + 1))),
        Mistake("{call}: your bounds treat m * w as any real number, but step 2 rounds it down to a whole "
                "number v = int(m * w). int(m * w) = k holds for k <= m * w < k + 1: apply that at both ends.",
                when=_near_any(_bounds(lambda n, m: n - m, lambda n, m: n),
                               _bounds(lambda n, m: n - m + 1, lambda n, m: n),
                               _bounds(lambda n, m: n - m, lambda n, m: n + 1))),
        Mistake("{call}: you divided by 8 * d_model / 3 itself; step 1 rounds it down to a whole number "
                "first (10922 for d_model = 4096), and the multiplier acts on that.",
                answer=_bounds(lambda n, m: n - m + 1, lambda n, m: n + 1, width=lambda d: 8 * d / 3)),
        Mistake("{call}: you divided by 4 * d_model; the multiplier acts on 2/3 of it (step 1).",
                answer=_bounds(lambda n, m: n - m + 1, lambda n, m: n + 1, width=lambda d: 4 * d)),
    ],
    success=say("every multiplier in [{:.4f}, {:.4f}) gives Llama-3-8B's 14336, so its 1.3 is one choice of "
                "many; Llama-2-7B's range holds 1.0 (no multiplier), and Llama-3.1-405B's holds its 1.2.",
                *_multiplier_range(*_WIDTH_CASES[0])),
    name="multiplier_range",
)

# ---- Exercise 5 (stretch): invert SiLU on its rising branch ----------------------------------


def _inverse_silu(g):
    """The z >= SILU_ARGMIN with SiLU(z) = g (SiLU rises there)."""
    return scipy.optimize.brentq(lambda z: float(activations.silu(z)) - g, SILU_ARGMIN, max(g, 0.0) + 1.0,
                                 xtol=1e-14)


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
        Mistake("{call} returned the gate itself: the gate value is what comes OUT of SiLU; find the "
                "z that goes in.", answer=lambda g: g),
        Mistake("{call} = {got}: that is SiLU(g), SiLU applied to the gate. The question goes the other "
                "way: which z has SiLU(z) = g?", answer=lambda g: float(activations.silu(g))),
        Mistake("{call} = {got}: that inverts sigmoid, log(g / (1 - g)); the gate is SiLU(z) = "
                "z * sigmoid(z).", answer=lambda g: math.log(g / (1 - g))),
        Mistake("{call} = {got} is left of SiLU's minimum at -1.278465: it gives the same gate, but take "
                "the solution on the rising branch (z >= -1.278465).", answer=_left_branch),
        Mistake("{call} = {got} is close, but not within 1e-6 of the answer: each halving of the interval "
                "gains one binary digit, so halve it more times (or pass a smaller xtol).", when=_roughly),
    ],
    success="the gates 0.1, 1.5, 0 and 2 of source post 2 come from pre-activations of about "
            "0.183, 1.758, 0 and 2.218.",
    name="gate_preactivation",
)
