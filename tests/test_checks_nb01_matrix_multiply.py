"""Notebook 01's checks accept a right answer and name typical mistakes."""

import numpy as np

from helpers import ffn
from helpers.checks import nb01_matrix_multiply as checks
from helpers.checks.nb01_matrix_multiply import ex2_dot_products, ex4_fold_layers


def by_dots(swap_W=False, transpose=False, no_reset=False, per_term=2, first_add=True,
            cols=None, aliased_rows=False, int_Z=False, swapped_return=False, returns_none=False):
    """A loop matmul_by_dots with one typical slip switched on."""
    def matmul_by_dots(X, W):
        T, d = X.shape
        m = W.shape[1]
        m = m if cols is None else cols(X, W)
        Z = np.zeros((m, T) if transpose else (T, m), dtype=int if int_Z else float)
        if aliased_rows:
            Z = [[0.0] * m] * T
        n_flops, total = 0, 0.0
        for t in range(T):
            for j in range(m):
                if not no_reset:
                    total = 0.0
                for i in range(d):
                    x = X[t, i]
                    w = W[j, i] if swap_W else W[i, j]
                    total += x * w
                    n_flops += per_term if (first_add or i > 0) else per_term - 1
                if transpose:
                    Z[j, t] = total
                elif aliased_rows:
                    Z[t][j] = total
                else:
                    Z[t, j] = total
        if returns_none:
            return None
        return (n_flops, Z) if swapped_return else (np.asarray(Z), n_flops)
    return matmul_by_dots


def test_the_untouched_stubs_are_not_attempted():
    for fb in [checks.check_matmul_by_dots(lambda X, W: None), checks.check_matmul_by_dots(None),
               checks.check_fold_layers(lambda W1, b1, W2, b2: None),
               checks.check_rows_moved(None, 1), checks.check_time_guess(None, "falls")]:
        assert fb.status == "not attempted" and not fb
        assert str(fb).startswith("[not attempted yet] Exercise") and "Hint" not in str(fb)


def test_a_loop_of_dot_products_is_correct():
    fb = checks.check_matmul_by_dots(by_dots())
    assert fb and str(fb).startswith("[correct] Exercise 2")


def test_the_reference_count_is_the_ffn_formula_halved():
    assert checks.matmul_flops(1024, 768, 3072) == 4_831_838_208 == ffn.flops(1024, 768, 3072) // 2


def test_matmul_mistakes_are_named():
    cases = [
        (by_dots(swap_W=True), "row j of W (W[j])"),
        (by_dots(transpose=True), "your Z is transposed"),
        (by_dots(no_reset=True), "set the sum back to 0"),
        (by_dots(per_term=1), "you counted one FLOP per term"),
        (by_dots(aliased_rows=True), "every row of Z is the same"),
        (by_dots(int_Z=True), "Z holds whole numbers"),
        (by_dots(swapped_return=True), "you returned (n_flops, Z)"),
        (by_dots(first_add=False), "T*m*(2d - 1)"),
        (by_dots(cols=lambda X, W: X.shape[1]), "Z needs shape (T, m)"),
        (lambda X, W: (X @ W, 2 * X.shape[0] * W.shape[1]), "one output entry per step"),
        (lambda X, W: (X @ W, 2 * X.shape[1] * W.shape[1]), "the count is for one token"),
        (lambda X, W: X @ W, "return two things"),
    ]
    for fn, words in cases:
        fb = checks.check_matmul_by_dots(fn)
        assert not fb and fb.status == "wrong", words
        assert words in fb.message, (words, fb.message)


def test_matmul_wrong_values_and_errors_are_described():
    fb = checks.check_matmul_by_dots(lambda X, W: (X @ W + 1, 2 * X.size * W.shape[1]))
    assert not fb and "gives a Z that is the expected array plus 1 in every entry" in fb.message

    def one_slip(X, W):
        Z = X @ W
        Z[1, 2] += 1.0
        return Z, 2 * X.size * W.shape[1]

    fb = checks.check_matmul_by_dots(one_slip)
    assert not fb and "gives a Z that first differs at index (1, 2)" in fb.message and "(1 of 12 entries" in fb.message
    fb = checks.check_matmul_by_dots(lambda X, W: (X @ W, 2 * X.size * W.shape[1] + 1))
    assert not fb and "gives n_flops = 97; expected 96" in fb.message
    fb = checks.check_matmul_by_dots(lambda X, W: (X @ W, "many"))
    assert not fb and "gives n_flops as 'many'" in fb.message
    fb = checks.check_matmul_by_dots(lambda X, W: (X[0] @ W[:, 5], 0))
    assert not fb and "raised IndexError" in fb.message


def test_fold_layers():
    assert checks.check_fold_layers(lambda W1, b1, W2, b2: (W1 @ W2, b1 @ W2 + b2))
    cases = [
        (lambda W1, b1, W2, b2: (W1 @ W2, b1 + b2), "not b1 + b2"),
        (lambda W1, b1, W2, b2: (W1 @ W2, b2), "leaves out b1"),
        (lambda W1, b1, W2, b2: (W1 @ W2, b1 @ W2), "leaves out b2"),
        (lambda W1, b1, W2, b2: (W2 @ W1, b1 @ W2 + b2), "wrong order"),
        (lambda W1, b1, W2, b2: (b1 @ W2 + b2, W1 @ W2), "you returned (b, W)"),
        (lambda W1, b1, W2, b2: (W1 @ W2, W2 @ b1 + b2), "W2 @ b1 treats b1 as a column"),
        (lambda W1, b1, W2, b2: W1 @ W2, "return two things"),
    ]
    for fn, words in cases:
        fb = checks.check_fold_layers(fn)
        assert not fb and words in fb.message, (words, fb.message)


def test_predictions():
    fb = checks.check_rows_moved(1, 1)
    assert fb and "you predicted 1, the run gives 1" in fb.message
    fb = checks.check_rows_moved(5, 1)
    assert not fb and "row t of Z reads row t of X" in fb.message
    assert "is not one of" in checks.check_rows_moved(7, 1).message
    assert checks.check_time_guess("falls", "falls")
    fb = checks.check_time_guess("stays about the same", "falls")
    assert not fb and "reads all of W once" in fb.message
    assert "is not one of" in checks.check_time_guess("faster", "falls").message


def test_the_honest_d_minus_1_count_is_told_the_convention():
    fb = checks.check_matmul_by_dots(by_dots(first_add=False))
    assert not fb and "honest count" in fb.message and "count 2 FLOPs for each of the d terms" in fb.message


def test_real_code_that_still_returns_none_is_told_so():
    fb = checks.check_matmul_by_dots(by_dots(returns_none=True))
    assert fb.status == "wrong", fb
    assert "returns None: is the stub's `return None` still there?" in fb.message, fb.message

    def fold_layers(W1, b1, W2, b2):
        W, b = W1 @ W2, b1 @ W2 + b2  # noqa: F841 - computed, then the stub's return left in place
        return None

    fb = checks.check_fold_layers(fold_layers)
    assert fb.status == "wrong" and "`return None` still there?" in fb.message, fb


def test_a_learner_that_changes_its_inputs_in_place_is_not_fooled():
    def doubled(X, W):                  # X *= 2, then the right answer for the doubled X
        X *= 2
        return ex2_dot_products._matmul_reference(X, W)

    fb = checks.check_matmul_by_dots(doubled)
    assert not fb and "changed its input `X` in place" in fb.message, fb
    assert checks.check_matmul_by_dots(by_dots()), "the right answer after a mutating one"

    def zeroed_bias(W1, b1, W2, b2):    # b1[:] = 0 in place: the reference would fold without b1
        b1[:] = 0
        return ex4_fold_layers._fold_reference(W1, b1, W2, b2)

    fb = checks.check_fold_layers(zeroed_bias)
    assert not fb and "changed its input `b1` in place" in fb.message, fb
    assert checks.check_fold_layers(lambda W1, b1, W2, b2: (W1 @ W2, b1 @ W2 + b2))


def test_the_time_answer_comes_from_the_reasoning_not_the_clock():
    fb = checks.check_time_guess("grows", "falls")
    assert not fb and "the answer is 'falls'" in fb.message and "from the cache in this timing" in fb.message


def test_a_right_z_from_a_matrix_product_breaks_the_no_at_rule():
    """`X @ W` (or np.dot, np.einsum, np.matmul), even inside the loops, is named, not praised."""
    def dots_per_entry(X, W):
        T, d = X.shape
        Z = np.zeros((T, W.shape[1]))
        for t in range(T):
            for j in range(W.shape[1]):
                Z[t, j] = np.dot(X[t], W[:, j])
        return Z, 2 * T * d * W.shape[1]

    def converted(X, W):                 # np.asarray drops any wrapper the check could hand over: the code says @
        Z = np.asarray(X) @ np.asarray(W)
        return Z, 2 * X.shape[0] * X.shape[1] * W.shape[1]

    cases = [
        (lambda X, W: (X @ W, 2 * X.shape[0] * X.shape[1] * W.shape[1]), "uses @"),
        (converted, "uses @"),
        (lambda X, W: (np.matmul(X, W), 2 * X.size * W.shape[1]), "uses @"),
        (dots_per_entry, "uses np.dot"),
        (lambda X, W: (np.einsum("td,dm->tm", X, W), 2 * X.size * W.shape[1]), "uses np.einsum"),
    ]
    for fn, words in cases:
        fb = checks.check_matmul_by_dots(fn)
        assert not fb and fb.status == "wrong", (words, fb)
        assert words in fb.message and "without @" in fb.message and "loop did" not in fb.message, fb.message

    def products_summed(X, W):           # no matrix product: each entry a sum of products, still accepted
        T, d = X.shape
        Z = np.zeros((T, W.shape[1]))
        for t in range(T):
            for j in range(W.shape[1]):
                Z[t, j] = (X[t] * W[:, j]).sum()
        return Z, 2 * T * d * W.shape[1]

    assert checks.check_matmul_by_dots(products_summed)
    assert checks.check_matmul_by_dots(by_dots())


def test_each_wrong_prediction_is_named():
    for guess, words in [(0, "0 rows would mean nothing moves"), (5, "5 rows would mean every output row"),
                         (2, "2 rows: besides row 3"), (4, "4 rows: besides row 3")]:
        fb = checks.check_rows_moved(guess, 1)
        assert not fb and words in fb.message, (guess, fb.message)
    assert checks.check_rows_moved(1, 1)
    fb = checks.check_time_guess("stays about the same", "falls")
    assert not fb and "not all the time takes" in fb.message
    fb = checks.check_time_guess("grows", "falls")
    assert not fb and "nothing per token grows" in fb.message
    assert checks.check_time_guess("falls", "falls")
