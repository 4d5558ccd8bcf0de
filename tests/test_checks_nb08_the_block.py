"""Notebook 08's exercise checks: accept the solutions, explain typical mistakes."""

import torch

from helpers.checks import nb08_the_block as checks


def layer_norm(x, weight, bias, eps=1e-5, correction=0, dim=-1):
    mean = x.mean(dim=dim, keepdim=True)
    var = x.var(dim=dim, keepdim=True, correction=correction)
    return (x - mean) / torch.sqrt(var + eps) * weight + bias


def test_not_attempted_does_not_raise():
    for fb in [checks.check_layer_norm(lambda *a: None), checks.check_pre_ln_block(lambda *a: None),
               checks.check_block_params(lambda d, parallel=False: None)]:
        assert fb.status == "not attempted" and not fb
        assert "not attempted yet" in str(fb)


def test_layer_norm():
    assert checks.check_layer_norm(layer_norm)
    assert checks.check_layer_norm(lambda x, w, b, eps: torch.nn.functional.layer_norm(x, (6,), w, b, eps))
    fb = checks.check_layer_norm(lambda x, w, b, eps: layer_norm(x, w, b, eps, correction=1))
    assert not fb and "unbiased variance" in fb.message
    fb = checks.check_layer_norm(lambda x, w, b, eps: layer_norm(x, w, b, eps, dim=0))
    assert not fb and "over the tokens (dim 0)" in fb.message
    fb = checks.check_layer_norm(lambda x, w, b, eps: layer_norm(x, w, b, 0.0))
    assert not fb and "left out eps" in fb.message
    fb = checks.check_layer_norm(lambda x, w, b, eps: layer_norm(x, 1.0, 0.0, eps))
    assert not fb and "scale and shift" in fb.message
    fb = checks.check_layer_norm(lambda x, w, b, eps: x / torch.sqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w + b)
    assert not fb and "RMSNorm" in fb.message
    fb = checks.check_layer_norm(lambda x, w, b, eps: layer_norm(x, w, b, eps)[:2])
    assert not fb and "shape (2, 6)" in fb.message


def test_pre_ln_block():
    def solution(x, ln_1, attn, ln_2, mlp):
        x = x + attn(ln_1(x))
        return x + mlp(ln_2(x))

    assert checks.check_pre_ln_block(solution)
    fb = checks.check_pre_ln_block(lambda x, ln_1, attn, ln_2, mlp: x + attn(ln_1(x)) + mlp(ln_2(x)))
    assert not fb and "parallel block" in fb.message

    def post_ln(x, ln_1, attn, ln_2, mlp):
        x = ln_1(x + attn(x))
        return ln_2(x + mlp(x))

    fb = checks.check_pre_ln_block(post_ln)
    assert not fb and "post-LN" in fb.message
    fb = checks.check_pre_ln_block(lambda x, ln_1, attn, ln_2, mlp: mlp(ln_2(attn(ln_1(x)))))
    assert not fb and "no residual" in fb.message
    fb = checks.check_pre_ln_block(lambda x, ln_1, attn, ln_2, mlp: ln_1(x) + attn(ln_1(x)))
    assert not fb and "normalised x" in fb.message
    fb = checks.check_pre_ln_block(lambda x, ln_1, attn, ln_2, mlp: x + attn(ln_1(x)))
    assert not fb and "differs" in fb.message


def test_block_params():
    assert checks.check_block_params(lambda d, parallel=False: 12 * d * d + (11 if parallel else 13) * d)
    fb = checks.check_block_params(lambda d, parallel=False: 12 * d * d)
    assert not fb and "weights alone" in fb.message and "7,077,888" in fb.message
    fb = checks.check_block_params(lambda d, parallel=False: 12 * d * d + 9 * d)
    assert not fb and "LayerNorms are missing" in fb.message
    fb = checks.check_block_params(lambda d, parallel=False: 12 * d * d + 13 * d)
    assert not fb and "one LayerNorm" in fb.message
    fb = checks.check_block_params(lambda d, parallel=False: 12 * d * d + 4 * d)
    assert not fb and "biases" in fb.message
    fb = checks.check_block_params(lambda d, parallel=False: 13 * d * d)
    assert not fb and "expected 7,087,872" in fb.message
