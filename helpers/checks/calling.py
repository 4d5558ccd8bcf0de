"""Calling the learner's function as a referee does: on fresh copies of the cases, within a time
limit, and whatever it raises or returns instead of an answer put into a sentence (`attempt`,
`raised`, `outcome`)."""

import contextlib
import copy
import signal
import threading

import torch

from helpers.checks.in_place import ChangedInPlace, _changed_input, changed_in_place
from helpers.checks.returns import ReturnedCallsNone, none_from_call
from helpers.checks.show import Text, one_line, say
from helpers.checks.stub import untouched
from helpers.checks.verdict import MISSING, RETURNED_NONE, not_attempted, wrong


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
