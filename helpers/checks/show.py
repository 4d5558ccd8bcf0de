"""How a check writes the learner's values in a sentence, whatever they are.

A check's message may show what the learner's code returned: a number, an
array, a generator, a meta tensor, a string. `show(value, spec)` formats any of
them without raising (a 1-element tensor formats like the number it holds, so
"{got:,}" works on it); `describe(value)` says what a value is ("a float32
tensor of shape (4, 8)") where printing it would not help; `say(message, ...)`
fills a message's {got} and {call} with both.
"""

import inspect
import math
import re

import numpy as np
import torch

from helpers import language


def shape_str(shape):
    """(4, 512) written the way Python prints a shape; (3,) for one dimension."""
    return "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"


def plain(value):
    """A 0-d or 1-element array or tensor, or a numpy scalar, as the Python number it holds; else
    value."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, torch.Tensor) and value.numel() == 1 and value.device.type != "meta":
        return value.detach().cpu().item()
    if isinstance(value, np.ndarray) and value.size == 1 and value.dtype != object:
        return value.item()
    return value


def to_numpy(value):
    """A float64 numpy array from an array, tensor, list or number (None if impossible)."""
    try:
        if value is None or isinstance(value, (str, bytes, dict)) or inspect.isgenerator(value):
            return None
        if isinstance(value, torch.Tensor):
            if value.device.type == "meta" or value.is_complex():
                return None
            return value.detach().cpu().double().numpy()
        arr = np.asarray(value)
        if arr.dtype.kind not in "biuf":
            return None
        return arr.astype(float)
    except Exception:  # noqa: BLE001 - whatever it is, it is not an array of numbers
        return None


def _a(word, template_a, template_an, **values):
    """say() with the template whose article suits word: 'a float32 ...' but 'an int64 ...'."""
    return say(template_an if word[:1].lower() in "aeiou" else template_a, **values)


def _listed(items):
    """'x, y, z' as a Text, so that each item is said in the checks' language too."""
    return say(", ".join("{}" for _ in items), *items)


_SEQUENCES = {"list": ("a list of {n}", "a list of {n} ({items})"),
              "tuple": ("a tuple of {n}", "a tuple of {n} ({items})")}


def describe(value, depth=0):
    """What a value is, in a few words: 'a float32 tensor of shape (4, 8)', "'abc'", '12'."""
    if isinstance(value, np.generic):
        value = value.item()
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, int):
        return format(value, ",")
    if isinstance(value, float):
        return format(value, ".6g")
    if isinstance(value, complex):
        return say("the complex number {value:.4g}", value=value)
    if isinstance(value, str):
        text = value if len(value) <= 40 else value[:37] + "..."
        return repr(text)
    if isinstance(value, torch.Tensor):
        if value.device.type == "meta":
            return say("a tensor on the meta device, of shape {shape}, which holds no numbers",
                       shape=shape_str(value.shape))
        dtype = str(value.dtype).removeprefix("torch.")
        return _a(dtype, "a {dtype} tensor of shape {shape}", "an {dtype} tensor of shape {shape}",
                  dtype=dtype, shape=shape_str(value.shape))
    if isinstance(value, np.ndarray):
        dtype = str(value.dtype)
        return _a(dtype, "a {dtype} array of shape {shape}", "an {dtype} array of shape {shape}",
                  dtype=dtype, shape=shape_str(value.shape))
    if inspect.isgenerator(value):
        return say("a generator (a function with `yield`, or a generator expression in "
                   "parentheses)")
    if isinstance(value, (list, tuple)):
        kind = type(value).__name__
        if kind not in ("list", "tuple"):
            return _a(kind, "a {kind} of {n}", "an {kind} of {n}", kind=kind, n=len(value))
        short, long = _SEQUENCES[kind]
        if depth > 0 or len(value) > 4 or not value:
            return say(short, n=len(value))
        return say(long, n=len(value), items=_listed([describe(v, depth + 1) for v in value]))
    if isinstance(value, dict):
        keys = ", ".join(repr(k) for k in list(value)[:6]) + (", ..." if len(value) > 6 else "")
        return say("a dict with keys {keys}", keys=keys) if value else say("an empty dict")
    if isinstance(value, torch.nn.Module):
        name = type(value).__name__
        return _a(name, "a {name} module", "an {name} module", name=name)
    if isinstance(value, type):
        return say("the class {name}", name=value.__name__)
    if callable(value):
        return say("the function {name}", name=getattr(value, "__name__", type(value).__name__))
    name = type(value).__name__
    return _a(name, "a {name}", "an {name}", name=name)


def _is_small(value):
    """A value short enough to print as it is: a number, a string, a few numbers in a tuple or
    list."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return True
    return (isinstance(value, (list, tuple)) and len(value) <= 8
            and all(v is None or isinstance(v, (bool, int, float, str)) for v in value))


def show(value, spec=""):
    """value formatted with spec ('{:,}' style, without the braces) if it takes it, else
    described."""
    value = plain(value)
    if spec:
        try:
            return format(value, spec)
        except (TypeError, ValueError):
            pass
    if isinstance(value, float) and math.isfinite(value):
        return f"{value:.6g}"
    if _is_small(value):
        return str(value) if not isinstance(value,
                                            (list, tuple)) else repr(type(value)(plain(v)
                                                                                 for v in value))
    return describe(value)


class _Shown(language.Shown):
    """A value in str.format: '{got:,}' and '{got}' go through show()."""

    def __format__(self, spec):
        return self.value if isinstance(self.value, str) and not spec else show(self.value, spec)

    def __repr__(self):
        return repr(self.value) if _is_small(plain(self.value)) else show(self.value)


def fill(template, args=(), values=None):
    """template with {got}, {call} (or {} for args) filled in safely; the template as it is if that
    fails."""
    return language.fill(template, args, values, _Shown)


class Text(language.Text):
    """A check's sentence (helpers.language.Text) whose values are shown as a check shows them: a
    tensor by its number or its description, so the learner's value reads the same in every
    language."""

    shown = _Shown


def say(template, *args, **values):
    """A Text: template with its {got}, {call} (or {} for args) filled in, e.g. say("{call} returned
    {got}.")."""
    return Text(template, args, values)


def one_line(value, limit=300):
    """str(value) on one line, at most `limit` characters ('' if str itself fails)."""
    try:
        text = value if isinstance(value, str) else str(value)
    except Exception:  # noqa: BLE001 - an exception whose message cannot be written
        return ""
    text = re.sub(r"\s+", " ", text).strip()
    text = re.sub(r" at 0x[0-9a-f]+", "", text)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def call_str(name, args):
    """'name(x (4, 512), 768, bias=True)': arrays shown by their shape, other values as typed."""
    parts = []
    for arg in args:
        if isinstance(arg, (np.ndarray, torch.Tensor)):
            parts.append(say("{shape} array", shape=shape_str(arg.shape)) if arg.ndim
                         else repr(arg.item()))
        elif isinstance(arg, torch.nn.Module):
            parts.append(type(arg).__name__)
        else:
            parts.append(one_line(repr(arg), limit=80))
    args = _listed(parts) if len(parts) <= 4 else ", ".join(str(p) for p in parts)
    # the name and arrays said in the checks' language
    return say("{name}({args})", name=name, args=args)
