"""Notebook 08's checks accept a right answer and name typical mistakes."""

from torch import nn

from helpers.attention import CausalSelfAttention
from helpers.block import RMSNorm
from helpers.checks import nb08_the_block as checks
from helpers.ffn import FFN


def make_block(forward, norm=nn.LayerNorm, d_ff_factor=4):
    """A learner's block class with GPT-2's parts; forward(self, x) is the part under test."""
    class MyBlock(nn.Module):
        def __init__(self, d_model, n_head):
            super().__init__()
            self.ln_1 = norm(d_model)
            self.attn = CausalSelfAttention(d_model, n_head)
            self.ln_2 = norm(d_model)
            self.mlp = FFN(d_model, d_ff_factor * d_model)

    MyBlock.forward = forward
    return MyBlock


def pre_ln(self, x):
    x = x + self.attn(self.ln_1(x))
    return x + self.mlp(self.ln_2(x))


def make_parallel(forward, names=("ln",)):
    class MyParallelBlock(nn.Module):
        def __init__(self, d_model, n_head):
            super().__init__()
            for name in names:
                setattr(self, name, nn.LayerNorm(d_model))
            self.attn = CausalSelfAttention(d_model, n_head)
            self.mlp = FFN(d_model)

    MyParallelBlock.forward = forward
    return MyParallelBlock


def parallel(self, x):
    h = self.ln(x)
    return x + self.attn(h) + self.mlp(h)


def not_written(self, x):
    raise NotImplementedError   # the stored learner's cell: forward not written yet


class Stub(nn.Module):
    """The stored learner's cell: an empty __init__ and no forward yet."""

    def __init__(self, d_model, n_head):
        super().__init__()

    forward = not_written


def test_the_untouched_stubs_are_not_attempted():
    for fb in [checks.check_block(Stub), checks.check_parallel_block(Stub), checks.check_block(None),
               checks.check_stream_guess(None, 11.2)]:
        assert fb.status == "not attempted" and str(fb).startswith("[not attempted yet] Exercise")
        assert "Hint" not in str(fb)


def test_a_gpt2_block_is_correct():
    fb = checks.check_block(make_block(pre_ln))
    assert fb and str(fb).startswith("[correct] Exercise 2")


def test_block_mistakes_are_named():
    cases = [
        (make_block(lambda s, x: x + s.attn(s.ln_1(x)) + s.mlp(s.ln_2(x))), "that is the parallel block"),
        (make_block(lambda s, x: (lambda h: s.ln_2(h + s.mlp(h)))(s.ln_1(x + s.attn(x)))), "post-LN"),
        (make_block(lambda s, x: s.mlp(s.ln_2(s.attn(s.ln_1(x))))), "no residual add"),
        (make_block(lambda s, x: (lambda h: s.ln_2(h) + s.mlp(s.ln_2(h)))(s.ln_1(x) + s.attn(s.ln_1(x)))),
         "to the normalised x"),
        (make_block(lambda s, x: x + s.attn(s.ln_1(x))), "only attention"),
        (make_block(lambda s, x: (lambda h: h + s.attn(s.ln_1(h)))(x + s.mlp(s.ln_2(x)))), "MLP runs before"),
        (make_block(lambda s, x: (lambda h: h + s.mlp(s.ln_1(h)))(x + s.attn(s.ln_2(x)))), "swapped"),
        (make_block(pre_ln, norm=RMSNorm), "RMSNorm"),
        (make_block(pre_ln, d_ff_factor=2), "mlp.c_fc.weight has shape (32, 16); expected (64, 16)"),
    ]
    for cls, words in cases:
        fb = checks.check_block(cls)
        assert not fb and fb.status == "wrong", words
        assert words in fb.message, (words, fb.message)


def test_parallel_block():
    assert checks.check_parallel_block(make_parallel(parallel))
    cases = [
        (make_parallel(lambda s, x: (lambda y: y + s.mlp(s.ln(y)))(x + s.attn(s.ln(x)))), "sequential block"),
        (make_parallel(lambda s, x: s.attn(s.ln(x)) + s.mlp(s.ln(x))), "no residual"),
        (make_parallel(lambda s, x: x + s.attn(s.ln(x)) + s.mlp(x)), "without the norm"),
        (make_parallel(lambda s, x: x + s.attn(s.ln(x))), "MLP's update is missing"),
        (make_parallel(parallel, names=("ln", "ln_2")), "which the reference does not"),
    ]
    for cls, words in cases:
        fb = checks.check_parallel_block(cls)
        assert not fb and fb.status == "wrong", words
        assert words in fb.message, (words, fb.message)


def test_stream_prediction():
    fb = checks.check_stream_guess(10.6, 11.2)
    assert fb and "right triangle" in fb.message
    fb = checks.check_stream_guess(68.0, 11.2)
    assert not fb and "you predicted 68.0, the run gives 11.2" in fb.message
    assert "write a number" in checks.check_stream_guess("grows", 11.2).message
