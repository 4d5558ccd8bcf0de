"""Notebook 10's exercise checks: accept the solutions, explain typical mistakes."""

from helpers.checks import nb10_tensor_parallel as checks


def megatron(W1, b1, W2, b2, n):
    w = W1.shape[1] // n
    return [{"W1": W1[:, r * w:(r + 1) * w], "b1": b1[r * w:(r + 1) * w],
             "W2": W2[r * w:(r + 1) * w], "b2": b2} for r in range(n)]


def test_not_attempted_does_not_raise():
    for fb in [checks.check_split(lambda *a: None), checks.check_allreduce_bytes(lambda *a: None),
               checks.check_params_per_worker(lambda *a: None)]:
        assert fb.status == "not attempted" and not fb
        assert "not attempted yet" in str(fb)


def test_split_accepts_any_consistent_partition():
    assert checks.check_split(megatron)

    def interleaved(W1, b1, W2, b2, n):   # worker r gets units r, r+n, r+2n, ...: also correct
        return [{"W1": W1[:, r::n], "b1": b1[r::n], "W2": W2[r::n], "b2": b2} for r in range(n)]

    assert checks.check_split(interleaved)


def test_split_rejects_typical_mistakes():
    def w1_by_rows(W1, b1, W2, b2, n):
        w, d = W1.shape[1] // n, W1.shape[0] // n
        return [{"W1": W1[r * d:(r + 1) * d], "b1": b1[r * w:(r + 1) * w],
                 "W2": W2[r * w:(r + 1) * w], "b2": b2} for r in range(n)]

    fb = checks.check_split(w1_by_rows)
    assert not fb and "split W1 by rows" in fb.message

    def w2_by_columns(W1, b1, W2, b2, n):
        shards = megatron(W1, b1, W2, b2, n)
        d = W2.shape[1] // n
        return [{**s, "W2": W2[:, r * d:(r + 1) * d]} for r, s in enumerate(shards)]

    fb = checks.check_split(w2_by_columns)
    assert not fb and "split W2 by columns" in fb.message

    fb = checks.check_split(lambda W1, b1, W2, b2, n: [{**s, "b2": b2 / n}
                                                       for s in megatron(W1, b1, W2, b2, n)])
    assert not fb and "b2 / n" in fb.message

    def mismatched(W1, b1, W2, b2, n):   # W1 blocks in order, W2 blocks reversed
        shards = megatron(W1, b1, W2, b2, n)
        return [{**s, "W2": t["W2"]} for s, t in zip(shards, shards[::-1], strict=True)]

    fb = checks.check_split(mismatched)
    assert not fb and "same hidden units" in fb.message

    fb = checks.check_split(lambda W1, b1, W2, b2, n: megatron(W1, b1, W2, b2, n)[:1])
    assert not fb and "list of 2 shards, got 1 shards" in fb.message


def test_allreduce_bytes():
    assert checks.check_allreduce_bytes(lambda T, d, f, b: T * d * b)
    fb = checks.check_allreduce_bytes(lambda T, d, f, b: T * f * b)
    assert not fb and "hidden activations" in fb.message
    fb = checks.check_allreduce_bytes(lambda T, d, f, b: T * d)
    assert not fb and "numbers, not bytes" in fb.message
    fb = checks.check_allreduce_bytes(lambda T, d, f, b: 8 * T * d * b)
    assert not fb and "bits" in fb.message
    fb = checks.check_allreduce_bytes(lambda T, d, f, b: "many")
    assert not fb and "expected 49,152" in fb.message


def test_params_per_worker():
    assert checks.check_params_per_worker(lambda d, f, n: (2 * d * f + f) // n + d)
    fb = checks.check_params_per_worker(lambda d, f, n: (2 * d * f + f + d) / n)
    assert not fb and "split b2 too" in fb.message
    fb = checks.check_params_per_worker(lambda d, f, n: 2 * d * f // n)
    assert not fb and "weights only" in fb.message
    fb = checks.check_params_per_worker(lambda d, f, n: 2 * d * f + f + d)
    assert not fb and "whole FFN" in fb.message
