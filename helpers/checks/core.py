"""What a check says: not attempted yet, correct, or what is wrong, in words.

A learner's stub returns None (or raises NotImplementedError) until it is
filled in; the check then says "not attempted yet" and nothing else. A check
is a referee the learner can neither fool nor break:

- `attempt` hands the learner's function deep copies of the check's cases, so a
  function that changes its inputs in place (`X *= 2`, `config.pop(...)`) can
  neither change the reference's answer nor the cases the next run uses;
- whatever the learner's code raises (`sys.exit` included) or returns (None, a
  string, a generator, a meta tensor) becomes a sentence, never a traceback;
  only KeyboardInterrupt goes through, so that a learner can still stop a cell;
- `referee` runs a whole check inside `state.kept()`, so it never changes the
  learner's random state or torch's settings.

Hints live in the notebook, collapsed under the exercise; a check only names
the mistake it sees.

Its pieces, one idea each: verdict.py (Feedback, correct, wrong, not_attempted), stub.py (is the
function still the stub?), in_place.py (did it change its inputs?) and calling.py (`attempt`:
the call itself, and what it gave instead of an answer, as a sentence). This module runs a check
as a referee (`judge`, `referee`) and says how to call a check given the wrong arguments.
"""

import functools
import inspect
import sys

from helpers.checks import recording

# What moved to calling.py, in_place.py, stub.py and verdict.py is imported back here (the imports
# marked F401), so that `from helpers.checks.core import attempt, wrong, ...` keeps working.
from helpers.checks.calling import TookTooLong, attempt, fresh, outcome, raised  # noqa: F401
from helpers.checks.in_place import (  # noqa: F401
    ChangedInPlace,
    changed_in_place,
    changed_keys,
    parameter_names,
    unchanged,
)
from helpers.checks.show import Text, call_str, describe, one_line, say, shape_str, to_numpy
from helpers.checks.state import kept
from helpers.checks.stub import names_read, untouched  # noqa: F401
from helpers.checks.verdict import (  # noqa: F401
    CORRECT,
    MARKS,
    MISSING,
    NOT_ATTEMPTED,
    NOT_YET,
    RETURNED_NONE,
    WRONG,
    Feedback,
    correct,
    not_attempted,
    wrong,
)

# judge inside judge (a check that runs another): only the outermost verdict is recorded
_depth = [0]


def judge(exercise, check, *args):
    """check(*args), run as a referee: the learner's state kept, anything that breaks turned into a
    sentence.

    Every verdict passes here, and the outermost one is recorded (helpers.checks.recording).

    """
    _depth[0] += 1
    try:
        with kept():
            try:
                feedback = check(*args)
            except KeyboardInterrupt:
                raise
            except BaseException as err:  # noqa: BLE001 - a sentence for the learner, no traceback
                feedback = wrong(exercise, say("the check could not judge this answer ({kind}: "
                                               "{said}). Compare what your code returns, its type "
                                               "and shape, with what the exercise asks for.",
                                               kind=type(err).__name__,
                                               said=one_line(err) or "no message"))
    finally:
        _depth[0] -= 1
    if _depth[0] == 0 and isinstance(feedback, Feedback):
        recording.note(exercise, feedback)
    return feedback


def public_name(check, default="check"):
    """The name a notebook calls a check by (`check_memit`): its attribute in a helpers.checks
    module."""
    modules = [module for module_name, module in list(sys.modules.items())
               if module_name.startswith("helpers.checks.nb") and module is not None]
    for module in modules:
        for attr, value in list(vars(module).items()):
            if value is check and not attr.startswith("_"):
                return attr
    exercise = getattr(check, "exercise", None)
    for module in modules:   # a module imported again since (importlib.reload) holds an equal check
        for attr, value in list(vars(module).items()):
            if (exercise is not None and type(value) is type(check) and not attr.startswith("_")
                    and getattr(value, "exercise", None) == exercise):
                return attr
    name = getattr(check, "__name__", default)
    return name.lstrip("_") or default


# What each usual parameter of a check is, said to the learner.
_ARGUMENTS = {
    "fn": say("your function itself, named without ()"),
    "cls": say("your class itself, named without ()"),
    "guess": say("the variable holding your guess"),
    "actual": say("the value the cell above computed"),
    "answer": say("your answer (a function or a value)"),
}


def how_to_call(exercise, check, params, example, given):
    """A Feedback that says how to call a check that was given the wrong number of arguments.

    params: [(name, what it is)] in order; example: the arguments of a typical call, as written in a
    notebook.
    """
    name = public_name(check)
    listed = say(", ".join("{}" for _ in params),
                 *[say("{name} ({what})", name=n, what=w if isinstance(w, Text) else say(w))
                   for n, w in params])
    template = ("checks.{name} takes {n} argument: {params}. It was given {given}. Call it as "
                "checks.{name}({example}), as the exercise's check cell does."
                if len(params) == 1 else
                "checks.{name} takes {n} arguments: {params}. It was given {given}. Call it as "
                "checks.{name}({example}), as the exercise's check cell does.")
    return Feedback(exercise, NOT_ATTEMPTED, say(template, name=name, n=len(params),
                                                 params=listed, given=given, example=example))


def bad_call(exercise, check, params, example, args, kwargs=None):
    """how_to_call's Feedback when args (and kwargs) do not fit params; None when they do."""
    if len(args) == len(params) and not kwargs:
        return None
    return how_to_call(exercise, check, params, example, len(args) + len(kwargs or {}))


def _signature_params(check):
    """[(name, what it is)] for a check function's positional parameters."""
    try:
        params = inspect.signature(check).parameters.values()
    except (TypeError, ValueError):
        return None
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    if any(p.kind not in kinds for p in params):
        return None   # *args or keywords: the check takes what it takes
    return [(p.name, _ARGUMENTS.get(p.name)
             or say("your {what}", what=p.name.replace("_", " ")))
            for p in params if p.default is inspect.Parameter.empty]


def explained_calls(exercise, check, name=None):
    """check(*args), or a Feedback saying how to call it when the number of arguments is wrong.

    For a check written as a function; `referee` does this for every check it decorates.
    """
    params = _signature_params(check)
    # the parameters, those with a default (an optional last argument, maybe given by name) too
    try:
        names = set(inspect.signature(check).parameters)
    except (TypeError, ValueError):
        names = set()

    @functools.wraps(check)
    def run(*args, **kwargs):
        given = len(args) + len(kwargs)
        if params is not None and (not len(params) <= given <= len(names)
                                   or not set(kwargs) <= names):
            example = ", ".join(p for p, _ in params)
            return how_to_call(exercise, name or run, params, example, given)
        return check(*args, **kwargs)
    return run


def referee(exercise):
    """Decorator for a check written as a function: it runs through `judge`; called with the wrong
    number of arguments, it says how to call it."""
    def decorate(check):
        def run(*args):
            return judge(exercise, check, *args)
        return explained_calls(exercise, functools.wraps(check)(run))
    return decorate


__all__ = ["CORRECT", "ChangedInPlace", "Feedback", "MISSING", "NOT_ATTEMPTED", "RETURNED_NONE",
           "WRONG", "attempt", "correct", "call_str", "changed_in_place", "describe",
           "explained_calls", "fresh", "how_to_call", "judge", "not_attempted", "outcome", "raised",
           "referee", "shape_str", "to_numpy", "unchanged", "untouched", "wrong"]
