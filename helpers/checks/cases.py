"""Two pieces the notebooks' checks share: a case shown by its name, an answer that is a pair.

- `Named(values, name)`: a dict (a config, a state_dict) that a check's messages show as
  "<llama-3-8b config>" instead of field by field or tensor by tensor;
- `pair(("total", "active"), exact())`: compares each half of a pair with its own comparer and
  names the half that differs ("gives active = 12; expected 13"); anything else is described.
"""

from helpers.checks.show import describe, say


class Named(dict):
    """A dict that messages show by its name: repr gives "<name>" (name: a say() Text, or a plain
    label)."""

    def __init__(self, values, name):
        super().__init__(values)
        self.name = name

    def __repr__(self):
        return "<" + self.name + ">"   # the checks' catalog holds each case's "<name>" in Korean


def pair(names, one):
    """A comparer for a 2-tuple or 2-list: `one` on each half, the first difference named by
    `names`."""
    first, second = names

    def compare(got, expected):
        if not isinstance(got, (tuple, list)) or len(got) != 2:
            return say("returned {got}; expected a pair ({first}, {second})", got=describe(got),
                       first=first,
                       second=second)
        for what, g, e in zip(names, got, expected, strict=True):
            problem = one(g, e)
            if problem is not None:
                return say("gives {what} {problem}", what=what, problem=problem)
        return None

    return compare
