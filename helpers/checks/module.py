"""Checking a module the learner wrote, the way one loads a checkpoint into it.

The learner's class is built, the reference module's `state_dict` is loaded
into it (so parameter names and shapes must match, as with real weights), and
both run on the same input. Each step that fails says why in words: a missing
or extra parameter, a transposed weight, a missing bias, a different output.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import torch
from torch import nn

from helpers.checks.compare import arrays
from helpers.checks.core import MISSING, attempt, correct, not_attempted, shape_str, wrong
from helpers.checks.runner import Mistake


def _state_problems(got, expected, key_hints):
    """Sentences about names and shapes that differ between two state_dicts (empty when none)."""
    missing = [k for k in expected if k not in got]
    extra = [k for k in got if k not in expected]
    for key in missing:
        layer = key.rsplit(".", 1)[0]
        there = any(k.startswith(layer + ".") for k in got)
        if key in key_hints and there:
            return [key_hints[key]]   # the layer is there, this one parameter is not
        if layer in key_hints and not there and not extra:
            return [key_hints[layer]]   # the whole layer is missing, and nothing is misnamed
    for key in extra:
        if key in key_hints:
            return [key_hints[key]]   # a parameter the reference does not have (a bias, say)
    if missing or extra:
        said = []
        if missing:
            said.append(f"it has no {', '.join(missing)}")
        if extra:
            said.append(f"it has {', '.join(extra)}, which the reference does not")
        return ["; ".join(said) + f". The reference's parameters are {', '.join(expected)}: "
                "name your layers the same, so that its weights load."]
    for key, tensor in expected.items():
        mine = tuple(got[key].shape)
        want = tuple(tensor.shape)
        if mine == want:
            continue
        if mine == want[::-1] and len(want) == 2:
            return [f"{key} has shape {shape_str(mine)}; expected {shape_str(want)}. nn.Linear(in_features, "
                    "out_features) stores its weight as (out, in): did you swap the two sizes?"]
        return [f"{key} has shape {shape_str(mine)}; expected {shape_str(want)}."]
    return []


@dataclass(frozen=True)
class ModuleCheck:
    """Build the learner's nn.Module, load the reference's weights, compare outputs.

    reference: () -> the reference module (seeded, so every check sees the same weights).
    build: (cls) -> an instance of the learner's class, e.g. lambda cls: cls(768, 3072).
    inputs: () -> the input tensor given to both modules.
    mistakes: Mistake rows whose answer(reference, x) is the output a typical mistake gives.
    key_hints: {parameter name: the sentence to say when it is missing, or when the learner's
        module has it and the reference does not; layer name: the sentence when the whole layer
        is missing}.
    """

    exercise: str
    reference: Callable
    build: Callable
    inputs: Callable
    mistakes: Sequence[Mistake] = ()
    key_hints: dict = field(default_factory=dict)
    compare: Callable = field(default_factory=lambda: arrays(atol=1e-9, rtol=1e-9))
    success: str = "correct: the reference's weights load into your module and give the same output."
    name: str = "your module"

    def __call__(self, cls):
        if cls is None:
            return not_attempted(self.exercise)
        module = attempt(self.build, cls)
        if module is MISSING:
            return not_attempted(self.exercise)
        if isinstance(module, Exception):
            return wrong(self.exercise, f"building {self.name} raised {type(module).__name__}: {module}")
        if not isinstance(module, nn.Module):
            return wrong(self.exercise, f"{self.name} built a {type(module).__name__}, not an nn.Module: "
                                        "subclass nn.Module and call super().__init__() first.")
        reference = self.reference()
        expected_state = reference.state_dict()
        x = self.inputs()
        if not module.state_dict():
            with torch.no_grad():
                if attempt(module, x.clone()) is MISSING:  # the untouched stub
                    return not_attempted(self.exercise)
        problems = _state_problems(module.state_dict(), expected_state, self.key_hints)
        if problems:
            return wrong(self.exercise, f"{self.name}'s parameters do not match: {problems[0]}")
        module.to(next(reference.parameters()).dtype)
        module.load_state_dict(expected_state)
        with torch.no_grad():
            got = attempt(module, x.clone())
            if got is MISSING:
                return not_attempted(self.exercise)
            if isinstance(got, Exception):
                return wrong(self.exercise, f"{self.name}'s forward raised {type(got).__name__}: {got}")
            problem = self.compare(got, reference(x))
            if problem is None:
                return correct(self.exercise, self.success)
            for mistake in self.mistakes:
                if mistake.matches(got, (reference, x), self.compare):
                    return wrong(self.exercise, mistake.message.format(got=got, call=self.name))
        return wrong(self.exercise, f"with the reference's weights, {self.name}'s output {problem}.")
