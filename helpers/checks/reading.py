"""A guess read as the learner means it: a choice in other words or any case ("Falls.", "it
shrinks"), a number written as text ("1e3", "49,152"), an array as its list; and, when the guess is
of another kind than the question asks for, the sentence that says what to write instead."""

import math

import numpy as np
import torch

from helpers.checks.compare import same
from helpers.checks.show import describe, plain, say, show


def _one_number(value):
    """A 1-element array or tensor as the number it holds; a float32 (or narrower) one written as it
    reads (a float32 10.6 is 10.6, not 10.600000381469727). Anything else as it is."""
    dtype = str(getattr(value, "dtype", ""))
    number = plain(value)
    if number is not value and isinstance(number, float) and any(k in dtype
                                                                 for k in ("float32", "float16")):
        return float(str(np.float32(number)))
    return number


def _answer(value):
    """A guess as a plain Python value: numpy and torch scalars as numbers, arrays as lists."""
    value = _one_number(value)
    if isinstance(value, (set, frozenset)) and all(_is_real(v) for v in value):
        return sorted(value)   # a set of positions is the list of them, in order
    tolist = getattr(value, "tolist", None)
    if callable(tolist) and getattr(getattr(value, "device", None), "type", "") != "meta":
        try:
            return tolist()
        except Exception:  # noqa: BLE001 - an array that cannot become a list stays as it is
            return value
    return value


# The words a person writes for a choice, besides the choice itself (each compared as `_words`
# reads it).
SYNONYMS = {
    "falls": ("decreases", "drops", "goes down", "shrinks", "falling", "decreasing", "down",
              "gets smaller", "smaller", "lower", "gets lower", "less", "reduces", "declines",
              "becomes smaller"),
    "grows": ("rises", "increases", "goes up", "growing", "rising", "increasing", "up",
              "gets bigger", "bigger", "higher", "gets higher", "more", "larger", "gets larger",
              "becomes larger"),
    "stays about the same": ("stays the same", "about the same", "the same", "stays", "constant",
                             "unchanged", "flat", "same", "stays constant", "remains the same",
                             "roughly the same", "does not change", "doesn't change", "no change"),
    "yes": ("y", "true"),
    "no": ("n", "false"),
    "linear in v only": ("v only", "only v", "linear only in v", "only in v", "linear in v",
                         "linear in v, not in x", "linear in v, not x", "linear in v but not in x",
                         "linear in v but not x"),
    "linear in x only": ("x only", "only x", "linear only in x", "only in x", "linear in x",
                         "linear in x, not in v", "linear in x, not v", "linear in x but not in v",
                         "linear in x but not v"),
    "linear in neither": ("neither", "nonlinear", "non-linear", "not linear", "linear in none",
                          "in neither"),
    "linear in v and in x": ("both", "linear in both", "in both", "linear in v and x",
                             "linear in x and v", "linear in x and in v", "v and x", "x and v"),
}
_EDGES = " \t\n.,;:!?'\"`()[]{}“”‘’。"
# Words a person puts before the answer itself ("option B", "it falls"), dropped when reading it.
_LEAD = ("my answer is ", "the answer is ", "answer ", "option ", "choice ", "it's ", "it ")


def _words(text):
    """A word answer as a person means it: case-folded, surrounding punctuation and spaces dropped,
    inner spacing made single, a leading "option" or "it" dropped ("  Linear in V only. " reads
    "linear in v only", "Option B." reads "b")."""
    said = " ".join(text.casefold().strip(_EDGES).split())
    for lead in _LEAD:
        if said.startswith(lead) and len(said) > len(lead):
            said = said[len(lead):].strip(_EDGES)
    return said


def _word_of(value):
    """One item of a guess as words: a bool as "true" or "false" (a yes or a no), text as it is,
    else None."""
    if isinstance(value, bool):
        return str(value).casefold()
    return value if isinstance(value, str) else None


def _choice(guess, choices):
    """The choice the guess names (a tuple for a list; for a string any case, spacing and
    surrounding punctuation, or an obvious synonym), or None."""
    for choice in choices:
        if same(guess, choice):
            return choice
        if isinstance(guess, (list, tuple)) and isinstance(choice,
                                                           (list, tuple)) and same(list(guess),
                                                                                   list(choice)):
            return choice
    if isinstance(guess, str):
        said = _words(guess)
        for choice in choices:
            if isinstance(choice, str) and said in (_words(choice),
                                                    *(_words(w)
                                                      for w in SYNONYMS.get(_words(choice), ()))):
                return choice
    if isinstance(guess, (list, tuple)) and guess and all(_word_of(g) is not None for g in guess):
        for choice in choices:   # a pair of words, ("No.", "y"): each item read as a word answer
            if (isinstance(choice, (list, tuple)) and len(choice) == len(guess)
                    and all(isinstance(c, str) for c in choice)
                    and all(_choice(_word_of(g), (c,)) == c
                            for g, c in zip(guess, choice, strict=True))):
                return choice
    return None


def _read_number(guess):
    """The number a guess written another way holds: [3] or (3,) is 3, "12.9" is 12.9; else None."""
    if isinstance(guess, (list, tuple)) and len(guess) == 1 and _is_real(plain(guess[0])):
        return plain(guess[0])
    return _parsed(guess)


def _is_real(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _parsed(text):
    """The number a string spells ("1", " 12.9 ", "49,152", "1e3"), as an int or a float; None if it
    spells none."""
    if not isinstance(text, str):
        return None
    cleaned = text.strip().replace(",", "").replace("_", "")
    for kind in (int, float):
        try:
            value = kind(cleaned)
        except ValueError:
            continue
        return value if math.isfinite(value) else None
    return None


def _written(value):
    """How a value is written in Python: 12.9, "falls", [1, 2, 3]."""
    return repr(value) if isinstance(value, (str, list, tuple)) else show(value)


def _kind_of(guess):
    """The guess with its type, for a sentence: "the text '1' (a str)", "a list of 3", "True (a
    bool)"."""
    if isinstance(guess, str):
        return say("the text {text} (a str, in quotes)", text=repr(guess))
    if isinstance(guess, bool):
        return say("{value} (a bool, True or False)", value=str(guess))
    if isinstance(guess, complex):
        return say("the complex number {value}", value=str(guess))
    if _is_real(guess):
        return say("the number {value}", value=show(guess))
    return describe(guess)


def _mistyped(guess, variable, choices=None):
    """A sentence when the guess is not of the kind the question asks for (a number written as text,
    a list for one number, a tensor of many numbers, a number for a choice in words), saying what to
    write; else None."""
    kinds = {type(c) for c in choices} if choices is not None else None
    numbers = kinds is None or all(issubclass(k, (int, float)) and not issubclass(k, bool)
                                   for k in kinds)
    words = kinds is not None and all(issubclass(k, str) for k in kinds)
    lists = kinds is not None and all(issubclass(k, (list, tuple)) for k in kinds)
    values = {"variable": variable, "guess": _kind_of(guess)}
    if numbers:
        if _is_real(guess):
            return None
        number = _parsed(guess)
        if number is not None:
            return say("{variable} is {guess}, not a number: write {variable} = {number}, a "
                       "number, without the quotes.", number=show(number), **values)
        if isinstance(guess, (list, tuple)) and len(guess) == 1 and _is_real(plain(guess[0])):
            return say("{variable} is {guess}, not one number: write {variable} = {number}, "
                       "without the brackets.", number=show(plain(guess[0])), **values)
        if isinstance(guess, (np.ndarray, torch.Tensor)) and getattr(guess, "ndim", 0) > 0:
            return say("{variable} is {guess}, not one number: the question asks for a single "
                       "value; write {variable} = and that number.", **values)
        if isinstance(guess, bool):
            return say("{variable} is {guess}, not a number: write {variable} = and the number you "
                       "expect.",
                       **values)
        if isinstance(guess, float) or isinstance(guess, complex):
            return None   # NaN, infinity and complex numbers have their own sentences
        return say("{variable} is {guess}, not a number: write {variable} = and the number you "
                   "expect (digits, no quotes).", **values)
    if words:
        if isinstance(guess, str):
            return None
        options = ", ".join(repr(c) for c in choices)
        if _is_real(guess) or isinstance(guess, bool):
            return say("{variable} is {guess}, but the choices are words: write {variable} = and "
                       "one of {options}, in quotes.", options=options, **values)
        return say("{variable} is {guess}; write {variable} = and one of {options}, in quotes.",
                   options=options, **values)
    if lists:
        if isinstance(guess, (list, tuple, set, frozenset, np.ndarray, torch.Tensor)):
            return None
        number = _parsed(guess)
        if number is not None or _is_real(guess):
            number = guess if number is None else number
            return say("{variable} is {guess}, not a list: write {variable} = [{number}], in "
                       "brackets, or the list you expect.", number=show(number), **values)
        return say("{variable} is {guess}, not a list: write {variable} = and a list such as "
                   "{example}.",
                   example=repr(list(choices[0])), **values)
    return None
