"""Notebook 01's exercise checks: accept the solutions, explain typical mistakes."""

import numpy as np

from helpers.checks import nb01_matrix_multiply as checks


def test_not_attempted_does_not_raise():
    for fb in [checks.check_build_W(None), checks.check_matmul_loop(lambda X, W: None),
               checks.check_fold(lambda a, b: None), checks.check_matmul_flops(lambda *a: None)]:
        assert fb.status == "not attempted" and not fb
        assert "not attempted yet" in str(fb)


def test_build_W():
    W = np.zeros((4, 8))
    W[0] = [-2, 1, 0.5, -1, 3, 0, -0.5, 2]
    assert checks.check_build_W(W)
    transposed = checks.check_build_W(W.T)
    assert not transposed and "(8, 4)" in transposed.message
    off = W.copy()
    off[0, 4] = 2
    fb = checks.check_build_W(off)
    assert not fb and "entry 4" in fb.message and "expected 3" in fb.message


def test_matmul_loop():
    assert checks.check_matmul_loop(lambda X, W: np.stack([X[t] @ W for t in range(len(X))]))
    fb = checks.check_matmul_loop(lambda X, W: (X @ W).T)
    assert not fb and "(7, 5)" in fb.message and "expected (5, 7)" in fb.message
    fb = checks.check_matmul_loop(lambda X, W: X @ W + 1)
    assert not fb and "differs in 35 of 35" in fb.message
    fb = checks.check_matmul_loop(lambda X, W: X @ W.T)
    assert not fb and "raised ValueError" in fb.message


def test_fold():
    assert checks.check_fold(lambda W1, W2: W1 @ W2)
    fb = checks.check_fold(lambda W1, W2: W2 @ W1)
    assert not fb and "wrong order" in fb.message
    fb = checks.check_fold(lambda W1, W2: W1[:, :4] + W2[:4, :])
    assert not fb and "differs" in fb.message


def test_matmul_flops():
    assert checks.check_matmul_flops(lambda T, d, m: 2 * T * d * m)
    fb = checks.check_matmul_flops(lambda T, d, m: T * d * m)
    assert not fb and "multiplies only" in fb.message
    fb = checks.check_matmul_flops(lambda T, d, m: 2 * T * d)
    assert not fb and "expected 64" in fb.message
