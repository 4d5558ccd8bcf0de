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
import dis
import functools
import inspect
import signal
import threading
from dataclasses import dataclass

import torch

from helpers.checks import language, recording
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
        said = [language.translate(part) for part in (MARKS[self.status], self.exercise, self.message)]
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
    """A deep copy of a case for the learner: tensors cloned, arrays, dicts, lists and modules copied."""
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
_STUB_OPS = {"RESUME", "NOP", "CACHE", "EXTENDED_ARG", "RETURN_CONST", "RETURN_VALUE", "LOAD_CONST",
             "LOAD_GLOBAL", "LOAD_NAME", "PUSH_NULL", "PRECALL", "CALL", "KW_NAMES", "RAISE_VARARGS"}


def _code_of(fn):
    """The code object that runs when fn is called: a function's, or an nn.Module's (or its class's) forward."""
    fn = inspect.unwrap(fn) if callable(fn) else fn
    if isinstance(fn, type) and issubclass(fn, torch.nn.Module):
        fn = fn.forward
    elif isinstance(fn, torch.nn.Module):
        fn = type(fn).forward
    return getattr(fn, "__code__", None) if inspect.isfunction(fn) or inspect.ismethod(fn) else None


def untouched(fn):
    """True when fn is still an exercise's stub: its body only returns None or raises NotImplementedError.

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
        if op.opname in ("LOAD_CONST", "RETURN_CONST") and not (op.argval is None or isinstance(op.argval, str)):
            return False
        if op.opname in ("LOAD_GLOBAL", "LOAD_NAME") and op.argval != "NotImplementedError":
            return False
    return True


TIME_LIMIT_S = 120   # a learner's function that runs longer has a loop that never ends (on Unix, main thread)


class TookTooLong(Exception):
    """The learner's function ran past TIME_LIMIT_S and was stopped."""


@contextlib.contextmanager
def _time_limit(seconds):
    """Stop what runs inside after `seconds` with TookTooLong, where a timer signal can do it (Unix, main
    thread); elsewhere let it run."""
    usable = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    if not usable or signal.getitimer(signal.ITIMER_REAL)[0] > 0:   # no signals here, or a timer already set
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


def attempt(fn, *args, copies=True):
    """Call the learner's fn on (copies of) args; return its answer, or what happened instead.

    MISSING: fn is None, or the untouched stub (it returned None or raised NotImplementedError).
    RETURNED_NONE: fn did some work and returned None. An exception (any BaseException but
    KeyboardInterrupt, so sys.exit too) is returned, not raised, for the check to put into words.
    A value that is not callable is the answer itself.
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
    except BaseException as err:  # noqa: BLE001 - anything the learner's code does becomes a sentence
        return err
    if result is None:
        return MISSING if untouched(fn) else RETURNED_NONE
    return result


def raised(call, err):
    """'f(x) raised ValueError: ...' as a sentence; sys.exit gets its own."""
    if isinstance(err, TookTooLong):
        return say("{call} ran for more than {seconds} s and was stopped: is there a loop that never ends (a "
                   "`while` whose condition stays true, say, as `hi - lo > 0` can in floating point)?",
                   call=call, seconds=TIME_LIMIT_S)
    if isinstance(err, SystemExit):
        return say("{call} called sys.exit({code}) (SystemExit). A function hands its answer back with "
                   "`return`; exiting would stop the notebook here.", call=call, code=one_line(err.code))
    said = err.args[0] if len(err.args) == 1 and isinstance(err.args[0], Text) else one_line(err)
    if not said:
        return say("{call} raised {kind}.", call=call, kind=type(err).__name__)
    end = "" if said[-1] in ".?!" else "."
    return say("{call} raised {kind}: {said}" + end, call=call, kind=type(err).__name__, said=said)


_NONE_LATER = ("{call} returned None, though the first case gave an answer: does every path through your "
               "function end in a `return`?")


def outcome(exercise, call, got, first=True):
    """The Feedback for an answer that is not an answer (not attempted, None, an exception), else None."""
    if got is MISSING:
        if first:
            return not_attempted(exercise)
        return wrong(exercise, say(_NONE_LATER, call=call))
    if got is RETURNED_NONE:
        if first:
            return wrong(exercise, say("{call} returns None: is the stub's `return None` still there? End your "
                                       "function with `return` and your answer.", call=call))
        return wrong(exercise, say(_NONE_LATER, call=call))
    if isinstance(got, BaseException):
        return wrong(exercise, raised(call, got))
    return None


_depth = [0]   # judge inside judge (a check that runs another): only the outermost verdict is recorded


def judge(exercise, check, *args):
    """check(*args), run as a referee: the learner's state kept, anything that breaks turned into a sentence.

    Every verdict passes here, and the outermost one is recorded (helpers.checks.recording).
    """
    _depth[0] += 1
    try:
        with kept():
            try:
                feedback = check(*args)
            except KeyboardInterrupt:
                raise
            except BaseException as err:  # noqa: BLE001 - the learner sees a sentence, never a traceback
                feedback = wrong(exercise, say("the check could not judge this answer ({kind}: {said}). Compare "
                                               "what your code returns, its type and shape, with what the exercise "
                                               "asks for.", kind=type(err).__name__,
                                               said=one_line(err) or "no message"))
    finally:
        _depth[0] -= 1
    if _depth[0] == 0 and isinstance(feedback, Feedback):
        recording.note(exercise, feedback)
    return feedback


def referee(exercise):
    """Decorator for a check written as a function: it runs through `judge`."""
    def decorate(check):
        @functools.wraps(check)
        def run(*args):
            return judge(exercise, check, *args)
        return run
    return decorate


__all__ = ["CORRECT", "Feedback", "MISSING", "NOT_ATTEMPTED", "RETURNED_NONE", "WRONG", "attempt", "correct",
           "call_str", "describe", "fresh", "judge", "not_attempted", "outcome", "raised", "referee",
           "shape_str", "to_numpy", "untouched", "wrong"]
