"""Exercise 2: `split_gate_up(state_dict)`, a fused checkpoint (gate_up_proj, as Phi-3 stores
it) split into the state_dict of helpers.gated.GatedMLP; halves swapped, cut by columns or
transposed, and a checkpoint changed in place, are named."""

from collections.abc import Mapping
from dataclasses import dataclass

import torch

from helpers.checks.calling import attempt, fresh
from helpers.checks.in_place import unchanged
from helpers.checks.nb05_swiglu_gate.shared import D_FF, D_MODEL, _fused_state, _Lazy
from helpers.checks.runner import Check, Mistake
from helpers.checks.show import call_str, describe, say, shape_str
from helpers.checks.verdict import wrong


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
