"""Notebook 09's exercise checks: accept the solutions, explain typical mistakes."""

from helpers.checks import nb09_decode_bandwidth as checks


def test_not_attempted_does_not_raise():
    for fb in [checks.check_ffn_intensity(lambda *a: None),
               checks.check_kv_cache_bytes(lambda *a: None),
               checks.check_knee_tokens(lambda *a: None)]:
        assert fb.status == "not attempted" and not fb
        assert "not attempted yet" in str(fb)


def test_ffn_intensity():
    assert checks.check_ffn_intensity(lambda T, d, f, b: 4 * T * d * f / (2 * d * f * b))
    fb = checks.check_ffn_intensity(lambda T, d, f, b: T / b)
    assert not fb and "2 FLOPs" in fb.message
    fb = checks.check_ffn_intensity(lambda T, d, f, b: 2 * T)
    assert not fb and "not bytes" in fb.message
    fb = checks.check_ffn_intensity(lambda T, d, f, b: 2 * T * d * f / b)
    assert not fb and "expected 0.5" in fb.message
    fb = checks.check_ffn_intensity(lambda T, d, f, b: "fast")
    assert not fb and "finite number" in fb.message


def test_kv_cache_bytes():
    def solution(n_tokens, n_layers, n_heads, n_kv_heads, d_head, b):
        return 2 * n_layers * n_kv_heads * d_head * b * n_tokens

    fb = checks.check_kv_cache_bytes(solution)
    assert fb and "9,663,676,416" in fb.message
    fb = checks.check_kv_cache_bytes(lambda t, L, h, kv, dh, b: L * kv * dh * b * t)
    assert not fb and "K and V" in fb.message
    fb = checks.check_kv_cache_bytes(lambda t, L, h, kv, dh, b: 2 * L * h * dh * b * t)
    assert not fb and "grouped-query" in fb.message
    fb = checks.check_kv_cache_bytes(lambda t, L, h, kv, dh, b: 2 * L * kv * dh * t)
    assert not fb and "elements" in fb.message
    fb = checks.check_kv_cache_bytes(lambda *a: 1 / 0)
    assert not fb and "ZeroDivisionError" in fb.message


def test_knee_tokens():
    fb = checks.check_knee_tokens(lambda peak, bw, b: peak * b / (2 * bw))
    assert fb and "295" in fb.message
    fb = checks.check_knee_tokens(lambda peak, bw, b: peak * b / bw)
    assert not fb and "twice" in fb.message
    fb = checks.check_knee_tokens(lambda peak, bw, b: 2 * bw / (peak * b))
    assert not fb and "upside down" in fb.message
    fb = checks.check_knee_tokens(lambda peak, bw, b: peak / (2 * bw))
    assert not fb and "bytes each weight" in fb.message
