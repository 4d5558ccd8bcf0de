"""Did the learner's function change an input in place? Each input compared before and after the
call (`unchanged`, `changed_keys`), the exception that reports a change (`ChangedInPlace`) and its
sentence (`changed_in_place`)."""

import dataclasses
import inspect

import numpy as np
import torch

from helpers.checks.show import say


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
