"""Checking a module the learner wrote, the way one loads a checkpoint into it.

The learner's class is built, the reference module's parameters are loaded
into it (so parameter names and shapes must match, as with real weights), and
both run on the same input. Buffers are the learner's own business: a causal
mask stored as a buffer (nanoGPT's `bias`) is neither required nor refused.
Each step that fails says why in words: a missing or extra parameter, a
transposed weight, a missing bias, a different output. A class that subclasses
the reference (or is it) is refused: the exercise is to write the module.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import torch
from torch import nn

from helpers.checks.compare import arrays
from helpers.checks.core import (
    MISSING,
    RETURNED_NONE,
    attempt,
    bad_call,
    correct,
    judge,
    not_attempted,
    outcome,
    untouched,
    wrong,
)
from helpers.checks.runner import Mistake, compared
from helpers.checks.show import describe, say, shape_str


def _state_problems(got, expected, key_hints):
    """Sentences about names and shapes that differ between two {name: tensor} dicts (empty when
    none)."""
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
        names = {"missing": ", ".join(missing), "extra": ", ".join(extra),
                 "expected": ", ".join(expected)}
        if missing and extra:
            template = "it has no {missing}; it has {extra}, which the reference does not. "
        elif missing:
            template = "it has no {missing}. "
        else:
            template = "it has {extra}, which the reference does not. "
        return [say(template + "The reference's parameters are {expected}: name your layers the "
                               "same, so that its weights load.", **names)]
    for key, tensor in expected.items():
        mine = tuple(got[key].shape)
        want = tuple(tensor.shape)
        if mine == want:
            continue
        shapes = {"key": key, "shape": shape_str(mine), "expected": shape_str(want)}
        if mine == want[::-1] and len(want) == 2:
            return [say("{key} has shape {shape}; expected {expected}. nn.Linear(in_features, "
                        "out_features) stores its weight as (out, in): did you swap the two sizes?",
                        **shapes)]
        return [say("{key} has shape {shape}; expected {expected}.", **shapes)]
    return []


def _parameters(module):
    """{name: parameter}, every name a checkpoint would hold (tied weights under each of their
    names)."""
    return dict(module.named_parameters(remove_duplicate=False))


def _reference_classes(reference):
    """The course's classes the reference is made from (its class and the helpers classes it
    subclasses)."""
    return [c for c in type(reference).__mro__ if c.__module__.startswith("helpers.")]


def _copied_reference(learner, reference):
    """A sentence when the learner's class is the reference's, or subclasses it; else None."""
    cls = learner if isinstance(learner, type) else type(learner)
    classes = _reference_classes(reference)
    # a check's private wrapper is not named
    public = [c for c in classes if not c.__name__.startswith("_")]
    for ref in classes:
        if issubclass(cls, ref):
            named = ref if ref in public else (public or classes)[0]
            where = ".".join((named.__module__, named.__name__))
            if cls is ref:
                return say("that is the reference, {where}, itself: write your own class, a "
                           "subclass of nn.Module.", where=where)
            return say("your class subclasses the reference {name} ({where}): write the module "
                       "yourself, as a subclass of nn.Module.", name=named.__name__, where=where)
    return None


def _still_raising(got):
    """'forward' or 'Conv1D.forward': the part of a half-written module that still raises the stub's
    NotImplementedError (got is what its forward gave: MISSING when its own forward is the stub);
    else None."""
    if got is MISSING:
        return "forward"
    if not isinstance(got, NotImplementedError) or got.args:
        return None
    tb = got.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    owner = tb.tb_frame.f_locals.get("self") if tb is not None else None
    return (".".join((type(owner).__name__, tb.tb_frame.f_code.co_name))
            if isinstance(owner, nn.Module) else None)


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
    success: str = ("correct: the reference's weights load into your module and give the same "
                    "output.")
    name: str = "your module"

    def __call__(self, *args, **kwargs):
        wrongly = bad_call(self.exercise, self,
                           [("cls", say("your class itself, named without ()"))],
                           "YourModule", args, kwargs)
        return wrongly if wrongly is not None else judge(self.exercise, self._judge, *args)

    def _judge(self, cls):
        if cls is None:
            return not_attempted(self.exercise)
        reference = self.reference().eval()
        copied = _copied_reference(cls, reference)
        if copied:
            return wrong(self.exercise, copied)
        module = attempt(self.build, cls, copies=False)
        if module is MISSING or module is RETURNED_NONE:
            if untouched(cls):
                return not_attempted(self.exercise)
            return wrong(self.exercise, say("building {name} gave None: pass the class itself, a "
                                            "subclass of nn.Module.", name=self.name))
        early = outcome(self.exercise, say("building {name}", name=self.name), module)
        if early is not None:
            return early
        if not isinstance(module, nn.Module):
            return wrong(self.exercise, say("{name} built {got}, not an nn.Module: subclass "
                                            "nn.Module and call super().__init__() first.",
                                            name=self.name, got=describe(module)))
        copied = _copied_reference(module, reference)
        if copied:
            return wrong(self.exercise, copied)
        x = self.inputs()
        if not _parameters(module):
            with torch.no_grad():
                if attempt(module, x) is MISSING:  # the untouched stub
                    return not_attempted(self.exercise)
        expected = _parameters(reference)
        problems = _state_problems(_parameters(module), expected, self.key_hints)
        if problems:
            return wrong(self.exercise, say("{name}'s parameters do not match: {problem}",
                                            name=self.name, problem=problems[0]))
        module.to(next(reference.parameters()).dtype)
        module.load_state_dict({name: p.detach() for name, p in expected.items()}, strict=False)
        module.eval()
        with torch.no_grad():
            got = attempt(module, x)   # a copy of x: the reference below sees the pristine one
            if got is RETURNED_NONE:
                return wrong(self.exercise, say("{name}'s forward returns None: does it end with "
                                                "`return` and the output?", name=self.name))
            unwritten = _still_raising(got)
            if unwritten:
                return wrong(self.exercise, say("{name}'s __init__ is written and its parameters "
                                                "are right, but {part} still raises "
                                                "NotImplementedError, the stub's line: write it, "
                                                "then run this check again.",
                                                name=self.name, part=unwritten))
            early = outcome(self.exercise, say("{name}'s forward", name=self.name), got)
            if early is not None:
                return early
            problem = compared(self.compare, got, reference(x))
            if problem is None:
                return correct(self.exercise, self.success)
            for mistake in self.mistakes:
                if mistake.matches(got, (reference, x), self.compare):
                    return wrong(self.exercise, say(mistake.message, got=got, call=self.name))
        return wrong(self.exercise, say("with the reference's weights, {name}'s output {problem}.",
                                        name=self.name, problem=problem))
