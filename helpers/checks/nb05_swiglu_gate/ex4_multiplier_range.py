"""Exercise 4: `multiplier_range(d_model, multiple_of, intermediate_size)`, Llama's width rule
run backwards, checked against helpers.gated.llama_d_ff."""

from helpers.checks.cases import pair
from helpers.checks.compare import number
from helpers.checks.runner import Check, Mistake
from helpers.checks.show import say


def _step1(d_model):
    """Step 1 of the rule: 2/3 of 4 * d_model, rounded down."""
    return int(2 * (4 * d_model) / 3)


def _multiplier_range(d_model, multiple_of, intermediate_size):
    """(low, high): llama_d_ff(d_model, multiple_of, m) == intermediate_size for low <= m < high.

    Step 3 rounds a whole width v up to intermediate_size N when N - multiple_of < v <= N, and
    step 2 gives v = int(m * w) (w from step 1), which is k when k <= m * w < k + 1.
    """
    w = _step1(d_model)
    return (intermediate_size - multiple_of + 1) / w, (intermediate_size + 1) / w


def _pair_of_numbers(rel=1e-9):
    """Compare a (low, high) pair of real numbers."""
    return pair(("low", "high"), number(rel=rel, abs=0.0))


def _bounds(low_width, high_width, width=_step1):
    """A mistake's (low, high): widths at each end divided by the step-1 width it uses."""
    def answer(d, m, n):
        w = width(d)
        return low_width(n, m) / w, high_width(n, m) / w
    return answer


def _near_any(*answers):
    """A `when` test: the learner's pair is one of several wrong pairs."""
    compare = _pair_of_numbers()

    def when(got, *case):
        return any(compare(got, answer(*case)) is None for answer in answers)
    return when


def _reversed_pair(got, d, m, n):
    """A `when` test: the learner's pair is the right one, high bound first."""
    return _pair_of_numbers()(tuple(got)[::-1], _multiplier_range(d, m, n)) is None


def _near_bounds(got, d, m, n):
    """A `when` test: the learner's pair is within 1e-4 of the right one (a search's answer)."""
    return _pair_of_numbers(rel=1e-4)(got, _multiplier_range(d, m, n)) is None


_WIDTH_CASES = [(4096, 1024, 14336), (8192, 4096, 28672), (4096, 256, 11008), (16384, 4096, 53248)]

check_multiplier_range = Check(
    "Exercise 4 (Llama's width rule, backwards)",
    reference=_multiplier_range,
    cases=_WIDTH_CASES,
    compare=_pair_of_numbers(),
    mistakes=[
        Mistake("{call} returned (high, low); return the smaller bound first: (low, high).",
                when=_reversed_pair),
        Mistake("{call} returned widths, not multipliers: divide them by step 1's width, "
                "int(2 * 4 * d_model / 3).",
                when=lambda got, d, m, n: isinstance(got, (tuple, list)) and len(got) == 2
                and all(isinstance(g, (int, float)) and g > 100 for g in got)),
        Mistake("{call}: step 3 rounds UP to a multiple. The widths that round up to "
                "intermediate_size N are N - multiple_of + 1 to N; yours are those that round down "
                "to it.",
                when=_near_any(_bounds(lambda n, m: n, lambda n, m: n + m),
                               _bounds(lambda n, m: n + 1, lambda n, m: n + m + 1))),
        Mistake("{call}: your high bound is one short. Step 2 rounds m * w down, so int(m * w) = "
                "intermediate_size holds for every m * w below intermediate_size + 1: high is "
                "(intermediate_size + 1) / w.",
                when=_near_any(_bounds(lambda n, m: n - m + 1, lambda n, m: n))),
        Mistake("{call}: your low bound lets in the width intermediate_size - multiple_of, which "
                "is a multiple itself: step 3 leaves it as it is instead of rounding it up. The "
                "smallest whole width that rounds up to intermediate_size is "
                "intermediate_size - multiple_of + 1.",
                when=_near_any(_bounds(lambda n, m: n - m, lambda n, m: n + 1))),
        Mistake("{call}: both bounds are one off. At the low end, step 3 leaves "
                "intermediate_size - multiple_of as it is (it is a multiple), so the smallest "
                "width is one more; at the high end, step 2 rounds m * w down, so "
                "int(m * w) = intermediate_size holds up to m * w < intermediate_size + 1.",
                when=_near_any(_bounds(lambda n, m: n - m, lambda n, m: n))),
        Mistake("{call}: step 1 rounds 8 * d_model / 3 DOWN to a whole number (int: 10922 for "
                "d_model = 4096); round() gives 10923.",
                answer=_bounds(lambda n, m: n - m + 1, lambda n, m: n + 1,
                               width=lambda d: round(8 * d / 3))),
        Mistake("{call}: you divided by 8 * d_model / 3 itself; step 1 rounds it down to a whole "
                "number first (10922 for d_model = 4096), and the multiplier acts on that.",
                answer=_bounds(lambda n, m: n - m + 1, lambda n, m: n + 1,
                               width=lambda d: 8 * d / 3)),
        Mistake("{call}: you divided by 4 * d_model; the multiplier acts on 2/3 of it (step 1).",
                answer=_bounds(lambda n, m: n - m + 1, lambda n, m: n + 1, width=lambda d: 4 * d)),
        Mistake("{call} is close to the bounds but not on them: a search stops near a bound. Each "
                "bound is a whole width divided by step 1's width; compute the two fractions.",
                when=_near_bounds),
    ],
    success=say("every multiplier in [{:.4f}, {:.4f}) gives Llama-3-8B's 14336, so its 1.3 is one "
                "choice of many; Llama-2-7B's range holds 1.0 (no multiplier), and "
                "Llama-3.1-405B's holds its 1.2.",
                *_multiplier_range(*_WIDTH_CASES[0])),
    name="multiplier_range",
)
