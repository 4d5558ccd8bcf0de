"""Checks of plain Python values: whole and real numbers, booleans, a choice among options, an
instance of a type, a function, an index. Each error names the argument, what was expected and
what came; helpers.validate names these checks too, beside those of arrays and tensors.

None of them needs numpy or torch, so a command that only reads numbers (`python -m helpers params`)
starts fast.
"""

import math
import numbers

from helpers.language import said, say


def _is_bool(value):
    """True for True, False and numpy's bools (which are not Python bools)."""
    return isinstance(value, bool) or type(value).__name__ in ("bool_", "bool") and \
        type(value).__module__ == "numpy"


def _whole(value):
    """A Python or numpy integer, not a bool (True == 1 would pass as a size)."""
    return isinstance(value, numbers.Integral) and not _is_bool(value)


def _float_hint(value):
    """' (a float; write 16)' for 16.0: the usual slip behind a float where a count belongs."""
    if isinstance(value, numbers.Real) and not _whole(value) and math.isfinite(value) \
            and value == int(value):
        return say(" (a float; write {whole})", whole=int(value))
    return ""


def positive_int(value, name):
    """Require a whole number >= 1."""
    if not _whole(value) or value < 1:
        raise ValueError(said("{name} must be a positive integer, got {value!r}{hint}", name=name,
                              value=value, hint=_float_hint(value)))
    return int(value)


def non_negative_int(value, name):
    """Require a whole number >= 0."""
    if not _whole(value) or value < 0:
        raise ValueError(said("{name} must be a whole number >= 0, got {value!r}{hint}", name=name,
                              value=value, hint=_float_hint(value)))
    return int(value)


def _real_number(value):
    """A finite int or float (numpy's too), not a bool."""
    return isinstance(value, numbers.Real) and not _is_bool(value) and math.isfinite(value)


def non_negative_number(value, name):
    """Require a finite real number >= 0 (a duration, a tolerance, a count of bytes or FLOPs)."""
    if not _real_number(value) or value < 0:
        raise ValueError(said("{name} must be a finite number >= 0, got {value!r}", name=name,
                              value=value))
    return float(value)


def positive_number(value, name):
    """Require a finite real number > 0 (a rate, a bandwidth, a learning rate)."""
    if not _real_number(value) or value <= 0:
        raise ValueError(said("{name} must be a finite number > 0, got {value!r}", name=name,
                              value=value))
    return float(value)


def real_number(value, name):
    """Require a finite real number of any sign (an angle, an offset)."""
    if not _real_number(value):
        raise ValueError(said("{name} must be a finite number, got {value!r}", name=name,
                              value=value))
    return float(value)


def boolean(value, name):
    """Require True or False: a string such as "no" is truthy and would mean yes."""
    if not _is_bool(value):
        raise TypeError(said("{name} must be True or False, got {value!r} ({kind})", name=name,
                             value=value, kind=type(value).__name__))
    return bool(value)


def choice(value, name, options):
    """Require value to be one of options."""
    try:
        known = value in options
    except TypeError:  # an unhashable value (a list, a dict) cannot be one of them
        known = False
    if not known:
        raise ValueError(said("unknown {name} {value!r}; choose one of {options}", name=name,
                              value=value, options=sorted(options)))
    return value


def _a(noun):
    """'a GatedMLP', 'an FFN' (said "eff-eff-en"), 'an Embedding'."""
    spelled = noun[:2].isupper() and noun[0] in "AEFHILMNORSX"
    return f"{'an' if noun[0] in 'AEIOU' or spelled else 'a'} {noun}"


def instance_of(value, name, kind, what=""):
    """Require an instance of kind; what says what it holds, e.g. '(gate_proj, up_proj,
    down_proj)'."""
    if not isinstance(value, kind):
        about = f" {what}" if what else ""
        raise TypeError(f"{name} must be {_a(kind.__name__)}{about}, got {type(value).__name__}")
    return value


def function(value, name):
    """Require something callable (a function, a lambda, a module)."""
    if not callable(value):
        raise TypeError(f"{name} must be a function, got {type(value).__name__} {value!r}")
    return value


def index(value, name, n):
    """Require a whole number that indexes n things: 0 to n - 1, or -n to -1 counted from the
    end."""
    if not _whole(value) or not -n <= value < n:
        raise ValueError(f"{name} must be a whole number from 0 to {n - 1} (or -{n} to -1 from the "
                         f"end), got {value!r}")
    return int(value)
