"""What more than one exercise uses: the FLOPs of a product, and the comparison of an
answer given as a pair (Z, flops), part by part."""

from helpers import ffn
from helpers.checks.show import Text, say


def matmul_flops(T, d, m):
    """FLOPs of X (T, d) @ W (d, m): one of the FFN's two projections, 2 * T * d * m."""
    return ffn.flops(T, d, m) // 2


def _without_returned(problem):
    """A comparer's "returned X; expected Y" as "X; expected Y", still a sentence said in the
    checks' language."""
    if isinstance(problem, Text) and problem.template.startswith("returned "):
        return say(problem.template[len("returned "):], *problem.args, **problem.values)
    return problem[len("returned "):]


def _pair(first, second, compare_first, compare_second):
    """Compare an answer (a, b) part by part; say which part differs and how."""

    def compare(got, expected):
        if not (isinstance(got, tuple) and len(got) == 2):
            return say("returned a {kind}; return two things, `return {first}, {second}`",
                       kind=type(got).__name__, first=first, second=second)
        for name, cmp, mine, want in ((first, compare_first, got[0], expected[0]),
                                      (second, compare_second, got[1], expected[1])):
            problem = cmp(mine, want)
            if problem is None:
                continue
            if problem.startswith("="):
                return say("gives {name} {problem}", name=name, problem=problem)
            if problem.startswith("returned "):
                return say("gives {name} as {problem}", name=name,
                           problem=_without_returned(problem))
            return say("gives a {name} that {problem}", name=name, problem=problem)
        return None

    return compare


def _part(got, index, expected, compare):
    """True when part `index` of the learner's pair equals `expected` (for Mistake rows)."""
    return isinstance(got, tuple) and len(got) == 2 and compare(got[index], expected) is None
