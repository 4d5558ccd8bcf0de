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
"""

import contextlib
import copy
import dataclasses
import dis
import functools
import inspect
import signal
import sys
import threading
from dataclasses import dataclass

import numpy as np
import torch

from helpers import language
from helpers.checks import recording
from helpers.checks.returns import ReturnedCallsNone, none_from_call
from helpers.checks.show import Text, call_str, describe, one_line, say, shape_str, to_numpy
from helpers.checks.state import kept

NOT_ATTEMPTED = "not attempted"
CORRECT = "correct"
WRONG = "wrong"
MARKS = {CORRECT: "[correct]", WRONG: "[not yet]", NOT_ATTEMPTED: "[not attempted yet]"}


@dataclass(frozen=True)
class Feedback:
    """The outcome of one check, shown as one sentence in the checks' language.

    message is the English sentence (a show.Text, which remembers how it was made, so that
    str(feedback) can say it in Korean in the Korean edition).
    """

    exercise: str
    status: str
    message: str

    def __bool__(self):
        return self.status == CORRECT

    def __str__(self):
        parts = (MARKS[self.status], self.exercise, self.message)
        said = [language.translate(part) for part in parts]
        return one_line("{} {}: {}".format(*said), limit=1400)   # one line, no object addresses

    def __repr__(self):
        return str(self)


NOT_YET = "write your answer in the cell above, then run it again."


def _sentence(message):
    """A message as a Text (a plain constant sentence becomes one, to be looked up as it is)."""
    return message if isinstance(message, Text) else say(one_line(message, limit=1200))


def correct(exercise, message="correct, well done."):
    return Feedback(exercise, CORRECT, _sentence(message))


def wrong(exercise, message):
    return Feedback(exercise, WRONG, _sentence(message))


def not_attempted(exercise, message=NOT_YET):
    return Feedback(exercise, NOT_ATTEMPTED, _sentence(message))


class _Sentinel:
    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return self.name


MISSING = _Sentinel("MISSING")              # the untouched stub: not attempted yet
RETURNED_NONE = _Sentinel("RETURNED_NONE")  # a function that did something, then returned None


def fresh(value):
    """A deep copy of a case for the learner: tensors cloned, arrays, dicts, lists and modules
    copied."""
    try:
        return copy.deepcopy(value)
    except Exception:  # a tensor autograd made (deepcopy refuses those): copy what can be copied
        if isinstance(value, torch.Tensor):
            return value.detach().clone()
        if type(value) in (list, tuple):
            return type(value)(fresh(v) for v in value)
        if type(value) is dict:
            return {k: fresh(v) for k, v in value.items()}
        raise


# The instructions a stub compiles to: `return None`, `pass`, or `raise NotImplementedError(...)`.
_STUB_OPS = {"RESUME", "NOP", "CACHE", "EXTENDED_ARG", "RETURN_CONST", "RETURN_VALUE",
             "LOAD_CONST", "LOAD_GLOBAL", "LOAD_NAME", "PUSH_NULL", "PRECALL", "CALL", "KW_NAMES",
             "RAISE_VARARGS"}


def _code_of(fn):
    """The code object that runs when fn is called: a function's, or an nn.Module's (or its class's)
    forward."""
    fn = inspect.unwrap(fn) if callable(fn) else fn
    if isinstance(fn, type) and issubclass(fn, torch.nn.Module):
        fn = fn.forward
    elif isinstance(fn, torch.nn.Module):
        fn = type(fn).forward
    return getattr(fn, "__code__", None) if inspect.isfunction(fn) or inspect.ismethod(fn) else None


def names_read(code):
    """Every global and attribute name a code object (and the functions defined in it) reads."""
    names = set(code.co_names)
    for const in code.co_consts:
        if hasattr(const, "co_names"):
            names |= names_read(const)
    return names


def untouched(fn):
    """True when fn is still an exercise's stub: its body only returns None or raises
    NotImplementedError.

    Read from the bytecode, so that docstrings, comments and blank lines do not count: a
    function that computes anything at all, and then returns None, is not the stub.
    Wrappers made with functools.wraps (or that set __wrapped__) are judged by what they wrap.

    """
    code = _code_of(fn)
    if code is None:
        return False
    for op in dis.get_instructions(code):
        if op.opname not in _STUB_OPS:
            return False
        if (op.opname in ("LOAD_CONST", "RETURN_CONST")
                and not (op.argval is None or isinstance(op.argval, str))):
            return False
        if op.opname in ("LOAD_GLOBAL", "LOAD_NAME") and op.argval != "NotImplementedError":
            return False
    return True


# a learner's function that runs longer has a loop that never ends (on Unix, main thread)
TIME_LIMIT_S = 120


class TookTooLong(Exception):
    """The learner's function ran past TIME_LIMIT_S and was stopped."""


@contextlib.contextmanager
def _time_limit(seconds):
    """Stop what runs inside after `seconds` with TookTooLong, where a timer signal can do it (Unix,
    main thread); elsewhere let it run."""
    usable = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    # no signals here, or a timer already set
    if not usable or signal.getitimer(signal.ITIMER_REAL)[0] > 0:
        yield
        return

    def stop(_signum, _frame):
        raise TookTooLong(seconds)

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


class ChangedInPlace(Exception):  # noqa: N818 - what the learner's function did, said as a sentence
    """The learner's function changed one of the inputs the check handed it (x += ..., W.add_(...),
    xs.sort())."""

    def __init__(self, name, value, keys=()):
        super().__init__(name)
        self.name, self.value, self.keys = name, value, tuple(keys)


def _same_tensor(a, b):
    """True when b holds what tensor a holds: shape, dtype and values, NaN where NaN was."""
    if not isinstance(b, torch.Tensor) or a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.device.type == "meta" or b.device.type == "meta" or a.is_sparse or b.is_sparse:
        return True   # nothing to compare: not counted as a change
    a, b = a.detach(), b.detach()
    if torch.equal(a, b):
        return True
    if a.is_floating_point() or a.is_complex():
        return bool(((a == b) | (a.isnan() & b.isnan())).all())   # NaN where NaN was is no change
    return False


def _same_array(a, b):
    if not isinstance(b, np.ndarray) or a.shape != b.shape or a.dtype != b.dtype:
        return False
    try:
        return bool(np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"))
    except TypeError:   # an object array
        return bool(np.array_equal(a, b))


def changed_keys(before, after):
    """The names of the parameters and buffers that differ between two modules (or state_dicts)."""
    if isinstance(before, torch.nn.Module):
        before, after = before.state_dict(), after.state_dict()
    keys = [k for k in before if k not in after or not _same_tensor(before[k], after[k])]
    return keys + [k for k in after if k not in before]


def unchanged(before, after, depth=0):
    """True when `after` holds what `before` held: tensors, arrays, modules' state_dicts, lists,
    tuples, dicts and dataclasses compared all the way down. What cannot be compared (a generator,
    an object) counts as unchanged."""
    if depth > 20:
        return True
    if isinstance(before, torch.Tensor):
        return _same_tensor(before, after)
    if isinstance(before, np.ndarray):
        return _same_array(before, after)
    if isinstance(before, torch.nn.Module):
        return isinstance(after, torch.nn.Module) and not changed_keys(before, after)
    if isinstance(before, (list, tuple)):
        return (type(after) is type(before) and len(after) == len(before)
                and all(unchanged(x, y, depth + 1) for x, y in zip(before, after, strict=True)))
    if isinstance(before, dict):
        return (isinstance(after, dict) and list(after) == list(before)
                and all(unchanged(before[k], after[k], depth + 1) for k in before))
    if dataclasses.is_dataclass(before) and not isinstance(before, type):
        return all(unchanged(getattr(before, f.name), getattr(after, f.name, None), depth + 1)
                   for f in dataclasses.fields(before))
    if isinstance(before, (bool, int, float, complex, str, bytes)) or before is None:
        # NaN stays NaN
        return type(after) is type(before) and (after == before or before != before)
    return True


def parameter_names(fn, n):
    """The names of fn's first n parameters, as the learner wrote them (`x`, `W`); "argument k"
    where unknown."""
    names = []
    try:
        target = fn.forward if isinstance(fn, torch.nn.Module) else fn
        params = list(inspect.signature(target).parameters.values())
    except (TypeError, ValueError):
        params = []
    for i in range(n):
        if i < len(params) and params[i].kind in (inspect.Parameter.POSITIONAL_ONLY,
                                                   inspect.Parameter.POSITIONAL_OR_KEYWORD):
            names.append(params[i].name)
        else:
            names.append(say("number {number}", number=i + 1))
    return names


def _handed_back(value, result):
    """True when a module, dict or list the learner was given is (or holds what is) part of its
    answer: a model it trained, a checkpoint it converted, buffers an all-reduce summed, all in
    place and returned. A tensor is never handed back this way: `W += ...; return W` changed the
    caller's W."""
    if not isinstance(value, (torch.nn.Module, dict, list)):
        return False
    parts = [result] + (list(result) if isinstance(result, (list, tuple)) else [])
    parts += [p for part in parts[1:] if isinstance(part, (list, tuple)) for p in part]
    inside = list(value) if isinstance(value, list) else []
    return any(part is value or any(part is item for item in inside) for part in parts)


def _changed_input(fn, before, given, result):
    """ChangedInPlace for the first input the call changed (one it hands back as its answer may
    change: `_handed_back`); else None."""
    for name, old, new in zip(parameter_names(fn, len(given)), before, given, strict=True):
        if _handed_back(new, result):
            continue
        try:
            same = unchanged(old, new)
        except Exception:  # noqa: BLE001 - what cannot be compared is not called a change
            same = True
        if not same:
            keys = changed_keys(old, new) if isinstance(old, torch.nn.Module) else ()
            return ChangedInPlace(name, old, keys)
    return None


def attempt(fn, *args, copies=True):
    """Call the learner's fn on (copies of) args; return its answer, or what happened instead.

    MISSING: fn is None, or the untouched stub (it returned None or raised NotImplementedError).
    RETURNED_NONE: fn did some work and returned None. An exception (any BaseException but
    KeyboardInterrupt, so sys.exit too) is returned, not raised, for the check to put into words. A
    value that is not callable is the answer itself. With copies (the default), the inputs are
    compared after the call with the check's own: a function that changed one in place (x += ...,
    W.add_(...), config.pop(...)) gets ChangedInPlace, which says so and names it, whatever it
    returned. With copies=False the caller keeps its own copies and judges that.
    """
    if fn is None:
        return MISSING
    if not callable(fn):
        return fn
    try:
        given = tuple(fresh(a) for a in args) if copies else args
        with _time_limit(TIME_LIMIT_S):
            result = fn(*given)
    except KeyboardInterrupt:
        raise
    except NotImplementedError as err:
        return MISSING if untouched(fn) else err
    except BaseException as err:  # noqa: BLE001 - what the learner's code does becomes a sentence
        return err
    if copies:
        changed = _changed_input(fn, args, given, result)
        if changed is not None:
            return changed
    if result is None:
        if untouched(fn):
            return MISSING
        call = none_from_call(fn)
        return ReturnedCallsNone(call) if call else RETURNED_NONE
    return result


def _known_error(err, said):
    """A sentence naming the mistake behind a common PyTorch or Python error, else None."""
    no_grad_fn = "does not require grad and does not have a grad_fn"
    if isinstance(err, RuntimeError) and no_grad_fn in said:
        return say("the loss has no gradient to follow. Was it computed inside `with "
                   "torch.no_grad()` (or from detached tensors)? Training needs the forward pass "
                   "run with autograd on.")
    if isinstance(err, TypeError) and ("arrays can be converted to Python scalars" in said
                                       or "must be real number, not Tensor" in said
                                       or "tensors of a single element can be converted" in said):
        return say("a function that takes one Python number (math.erf, math.exp, float(...)) met "
                   "an array. An array needs the array library's own function, which works on "
                   "every entry at once.")
    return None


def raised(call, err):
    """'f(x) raised ValueError: ...' as a sentence; sys.exit gets its own."""
    if isinstance(err, TookTooLong):
        return say("{call} ran for more than {seconds} s and was stopped: is there a loop that "
                   "never ends (a `while` whose condition stays true, say, as `hi - lo > 0` can in "
                   "floating point)?",
                   call=call, seconds=TIME_LIMIT_S)
    if isinstance(err, ChangedInPlace):
        return changed_in_place(call, err)
    if isinstance(err, ReturnedCallsNone):
        return say("{call} returned None: your function ends in `return {inner}`, and that call "
                   "returns None (a method that changes something, as handle.remove() or an "
                   "in-place `_` method, gives back nothing). Keep the value you want in a "
                   "variable and return it.", call=call, inner=err.call)
    if isinstance(err, SystemExit):
        return say("{call} called sys.exit({code}) (SystemExit). A function hands its answer back "
                   "with `return`; exiting would stop the notebook here.",
                   call=call, code=one_line(err.code))
    said = err.args[0] if len(err.args) == 1 and isinstance(err.args[0], Text) else one_line(err)
    known = _known_error(err, str(said))
    if known:
        return say("{call} raised {kind}: {known}", call=call, kind=type(err).__name__, known=known)
    if not said:
        return say("{call} raised {kind}.", call=call, kind=type(err).__name__)
    end = "" if said[-1] in ".?!" else "."
    return say("{call} raised {kind}: {said}" + end, call=call, kind=type(err).__name__, said=said)


def changed_in_place(call, err):
    """The sentence for an input the learner's function changed in place, by the kind of input it
    is."""
    value, name = err.value, err.name
    if isinstance(value, torch.nn.Module):
        return say("{call} changed the weights of its input `{name}` in place ({keys}): the "
                   "caller's model is now different. Read its weights and compute new tensors; "
                   "change a module only where the exercise asks for it.",
                   call=call, name=name, keys=", ".join(err.keys) or "its state")
    if not str(name).isidentifier():   # a parameter without a name (*args): no code to show with it
        return say("{call} changed its input {name} in place: the caller's value is now different. "
                   "Compute new values instead of changing the ones you were given (work on a "
                   ".clone() or a copy).",
                   call=call, name=name)
    if isinstance(value, (torch.Tensor, np.ndarray)):
        return say("{call} changed its input `{name}` in place ({name} += ..., {name}.mul_(...) or "
                   "{name}[...] = ...): the caller's tensor is now different. Compute a new tensor "
                   "instead ({name} = {name} + ..., or work on {name}.clone()).",
                   call=call, name=name)
    if isinstance(value, list):
        return say("{call} changed its input `{name}` in place (an append, a sort, a pop or an "
                   "assignment into it): the caller's list is now different. Build a new one, or "
                   "work on a copy ({name}.copy()).",
                   call=call, name=name)
    if isinstance(value, dict):
        return say("{call} changed its input `{name}` in place (a pop or an assignment into it): "
                   "the caller's dict is now different. Build a new one, or work on a copy "
                   "({name}.copy()).", call=call,
                   name=name)
    return say("{call} changed its input `{name}` in place: the caller's value is now different. "
               "Compute new values instead of changing the ones you were given.",
               call=call, name=name)


_NONE_LATER = ("{call} returned None, though the first case gave an answer: does every path "
               "through your function end in a `return`?")


def outcome(exercise, call, got, first=True):
    """The Feedback for an answer that is not an answer (not attempted, None, an exception), else
    None."""
    if got is MISSING:
        if first:
            return not_attempted(exercise)
        return wrong(exercise, say(_NONE_LATER, call=call))
    if got is RETURNED_NONE:
        if first:
            return wrong(exercise, say("{call} returns None: is the stub's `return None` still "
                                       "there? End your function with `return` and your answer.",
                                       call=call))
        return wrong(exercise, say(_NONE_LATER, call=call))
    if isinstance(got, BaseException):
        return wrong(exercise, raised(call, got))
    return None


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
