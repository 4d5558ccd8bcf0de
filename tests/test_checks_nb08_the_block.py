"""Notebook 08's checks accept right answers and name typical mistakes."""

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from helpers.attention import LlamaAttention
from helpers.block import Block, LlamaBlock, LlamaStack
from helpers.block import RMSNorm as CourseRMSNorm
from helpers.checks import nb08_the_block as checks
from helpers.gated import GatedMLP


class RMSNorm(nn.Module):
    """A learner's RMSNorm; how= changes one step of it, the way a typical mistake does."""

    def __init__(self, d_model, eps=1e-6, how=""):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d_model))
        self.eps, self.how = eps, how

    def forward(self, x):
        if self.how == "centre":
            x = x - x.mean(dim=-1, keepdim=True)
        mean_square = x.pow(2).mean(dim=1 if self.how == "tokens" else -1, keepdim=True)
        if self.how == "eps outside":
            return x / (mean_square.sqrt() + self.eps) * self.weight
        return x / torch.sqrt(mean_square + self.eps) * self.weight


class SwiGLU(nn.Module):
    """A learner's SwiGLU (notebook 05's exercise); how= names a typical mistake."""

    def __init__(self, d_model, d_ff, how="", bias=False):
        super().__init__()
        self.gate_proj = nn.Linear(d_model, d_ff, bias=bias)
        self.up_proj = nn.Linear(d_model, d_ff, bias=bias)
        self.down_proj = nn.Linear(d_ff, d_model, bias=bias)
        self.how = how

    def forward(self, x):
        gate, up = self.gate_proj(x), self.up_proj(x)
        if self.how == "silu on up":
            return self.down_proj(gate * F.silu(up))
        if self.how == "gelu":
            return self.down_proj(F.gelu(gate) * up)
        if self.how == "no activation":
            return self.down_proj(gate * up)
        if self.how == "sum":
            return self.down_proj(F.silu(gate + up))
        return self.down_proj(F.silu(gate) * up)


def pre_norm(self, x):
    x = x + self.self_attn(self.input_layernorm(x))
    return x + self.mlp(self.post_attention_layernorm(x))


def make_block(forward=pre_norm, norm=RMSNorm, mlp=SwiGLU, eps=1e-6, norm_how="", mlp_how="", bias=False):
    """A learner's Llama block; forward(self, x) is the part under test."""
    class MyLlamaBlock(nn.Module):
        def __init__(self, d_model, n_head, d_ff):
            super().__init__()
            made = (lambda: norm(d_model, eps, norm_how)) if norm is RMSNorm else (lambda: norm(d_model))
            self.input_layernorm = made()
            self.self_attn = LlamaAttention(d_model, n_head)
            self.post_attention_layernorm = made()
            self.mlp = SwiGLU(d_model, d_ff, mlp_how, bias) if mlp is SwiGLU else mlp(d_model, d_ff)

    MyLlamaBlock.forward = forward
    return MyLlamaBlock


class Stub(nn.Module):
    """The stored learner's cell: an empty __init__ and no forward yet."""

    def __init__(self, *sizes):
        super().__init__()

    def forward(self, x):
        raise NotImplementedError


def test_the_untouched_stubs_are_not_attempted():
    for fb in [checks.check_llama_block(Stub), checks.check_llama_stack(Stub), checks.check_llama_block(None),
               checks.check_stream_guess(None, 11.2)]:
        assert fb.status == "not attempted" and str(fb).startswith("[not attempted yet] Exercise"), fb
        assert "Hint" not in str(fb)


def test_right_llama_blocks_are_correct():
    fb = checks.check_llama_block(make_block())
    assert fb and str(fb).startswith("[correct] Exercise 2"), fb
    assert checks.check_llama_block(make_block(norm=CourseRMSNorm, mlp=GatedMLP))   # the course's parts
    if hasattr(nn, "RMSNorm"):                                                   # torch's own, eps given
        assert checks.check_llama_block(make_block(norm=lambda d: nn.RMSNorm(d, eps=1e-6)))

    def with_residual_names(self, x):                    # Hugging Face's own wording of the same forward
        residual = x
        h = self.self_attn(self.input_layernorm(x))
        h = residual + h
        residual = h
        return residual + self.mlp(self.post_attention_layernorm(h))

    assert checks.check_llama_block(make_block(with_residual_names))


def _mlp_reads(source):
    def forward(self, x):
        a = self.self_attn(self.input_layernorm(x))
        x = x + a
        return x + self.mlp(self.post_attention_layernorm(a) if source == "normed" else a)
    return forward


BLOCK_MISTAKES = [
    # the three the learners made most: one norm twice, no residual on the MLP, the MLP reading attention's output
    (make_block(lambda s, x: (lambda h: h + s.mlp(s.input_layernorm(h)))(x + s.self_attn(s.input_layernorm(x)))),
     "you used input_layernorm twice"),
    (make_block(lambda s, x: (lambda h: s.mlp(s.post_attention_layernorm(h)))(x + s.self_attn(s.input_layernorm(x)))),
     "the MLP's update replaces the stream"),
    (make_block(_mlp_reads("normed")), "your MLP reads attention's output alone. It reads the stream"),
    (make_block(_mlp_reads("raw")), "your MLP reads attention's output alone, without its norm"),
    # the block's other wirings
    (make_block(lambda s, x: x + s.self_attn(s.input_layernorm(x)) + s.mlp(s.post_attention_layernorm(x))),
     "that is the parallel block"),
    (make_block(lambda s, x: (lambda h: s.post_attention_layernorm(h + s.mlp(h)))(
        s.input_layernorm(x + s.self_attn(x)))), "post-norm"),
    (make_block(lambda s, x: s.mlp(s.post_attention_layernorm(s.self_attn(s.input_layernorm(x))))),
     "no residual add"),
    (make_block(lambda s, x: x + s.self_attn(s.input_layernorm(x))), "only attention is there"),
    (make_block(lambda s, x: (lambda h: h + s.self_attn(s.input_layernorm(h)))(x + s.mlp(s.post_attention_layernorm(x)))),
     "the MLP runs before attention"),
    (make_block(lambda s, x: (lambda h: h + s.mlp(s.input_layernorm(h)))(x + s.self_attn(s.post_attention_layernorm(x)))),
     "swapped"),
    (make_block(lambda s, x: (lambda h: h + s.mlp(h))(x + s.self_attn(x))), "the norms are missing"),
    # the norm
    (make_block(norm_how="centre"), "subtracts the mean: that is LayerNorm"),
    (make_block(norm_how="eps outside"), "eps outside the square root"),
    (make_block(eps=1e-5), "eps is 1e-5"),
    (make_block(eps=0.0), "has no eps"),
    (make_block(norm_how="tokens"), "mean over the tokens"),
    (make_block(norm=lambda d: nn.LayerNorm(d)), "that is nn.LayerNorm"),
    (make_block(norm=lambda d: nn.Identity()), "input_layernorm has no parameter"),
    # the MLP
    (make_block(mlp_how="silu on up"), "SiLU sits on the up-projection"),
    (make_block(mlp_how="gelu"), "uses GELU"),
    (make_block(mlp_how="no activation"), "has no activation"),
    (make_block(mlp_how="sum"), "adds gate and up"),
    (make_block(bias=True), "no bias"),
]


def test_nn_rmsnorm_without_eps_is_named():
    if not hasattr(nn, "RMSNorm"):
        pytest.skip("torch < 2.4 has no nn.RMSNorm")
    fb = checks.check_llama_block(make_block(norm=lambda d: nn.RMSNorm(d)))
    assert not fb and "has no eps" in fb.message, fb


def test_the_references_and_their_subclasses_are_refused():
    class MyBlock(LlamaBlock):
        pass

    class MyStack(LlamaStack):
        pass

    for check, cls, words in [
        (checks.check_llama_block, LlamaBlock, "that is the reference, helpers.block.LlamaBlock, itself"),
        (checks.check_llama_block, MyBlock, "your class subclasses the reference LlamaBlock"),
        (checks.check_llama_stack, LlamaStack, "that is the reference, helpers.block.LlamaStack, itself"),
        (checks.check_llama_stack, MyStack, "your class subclasses the reference LlamaStack"),
    ]:
        fb = check(cls)
        assert not fb and words in fb.message, (cls.__name__, fb)


def test_gpt2s_block_is_not_llamas():
    fb = checks.check_llama_block(lambda d_model, n_head, d_ff: Block(d_model, n_head))
    assert not fb and "your block has GPT-2's names (ln_1)" in fb.message, fb


def make_stack(block=None, shared=False, final_norm=True, norm_each=False, first_only=False, same_input=False,
               list_name="layers", order=lambda layers: list(layers), norm_before_last=False):
    block = block or make_block()

    class MyLlamaStack(nn.Module):
        def __init__(self, d_model, n_head, d_ff, n_layers):
            super().__init__()
            blocks = [block(d_model, n_head, d_ff)] * n_layers if shared else \
                [block(d_model, n_head, d_ff) for _ in range(n_layers)]
            setattr(self, list_name, nn.ModuleList(blocks))
            if final_norm:
                self.norm = RMSNorm(d_model)

        def forward(self, x):
            h = x
            layers = order(getattr(self, list_name))
            if norm_before_last:
                for layer in layers[:-1]:
                    h = layer(h)
                return layers[-1](self.norm(h))
            for layer in layers:
                h = layer(x if same_input else h)
                if norm_each:
                    h = self.norm(h)
                if first_only:
                    return self.norm(h)
            return self.norm(h) if final_norm and not norm_each else h

    return MyLlamaStack


def test_right_stacks_are_correct():
    assert checks.check_llama_stack(make_stack())
    assert checks.check_llama_stack(make_stack(block=LlamaBlock))      # the course's block inside is fine
    fb = checks.check_llama_stack(make_stack())
    assert str(fb).startswith("[correct] Exercise 3"), fb


STACK_MISTAKES = [
    (make_stack(shared=True), "your layers share one block"),
    (make_stack(final_norm=False), "there is no final norm"),
    (make_stack(norm_each=True), "after every layer"),
    (make_stack(first_only=True), "only the first layer ran"),
    (make_stack(same_input=True), "each layer read the stack's input"),
    (make_stack(order=lambda layers: list(layers)[::-1]), "your layers ran last to first"),
    (make_stack(order=lambda layers: [*layers, layers[-1]]), "the last layer ran twice"),
    (make_stack(norm_before_last=True), "the final norm comes before the last layer"),
    (make_stack(list_name="blocks"), "your list of blocks is called blocks; LlamaModel calls it layers"),
    (make_stack(list_name="stack"), "parameters do not match: it has no layers.0.input_layernorm.weight"),
]


MISTAKES = [("block", cls, words) for cls, words in BLOCK_MISTAKES] + \
    [("stack", cls, words) for cls, words in STACK_MISTAKES]


@pytest.mark.parametrize(("exercise", "cls", "words"), MISTAKES, ids=[f"{e}: {w}" for e, _, w in MISTAKES])
def test_mistakes_are_named(exercise, cls, words):
    fb = {"block": checks.check_llama_block, "stack": checks.check_llama_stack}[exercise](cls)
    assert not fb and fb.status == "wrong", words
    assert words in fb.message, (words, fb.message)


def _run_lengths():
    """notebook 08's stack of 24 pre-LN blocks, measured as its section 4 does (the exercise's lengths)."""
    import math as _math

    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        stack = [Block(32, 4).double() for _ in range(24)]
    x = torch.randn(1, 8, 32, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    lengths = {"stream": [x.norm(dim=-1).mean().item()], "attn": [], "mlp": []}
    with torch.no_grad():
        for b in stack:
            a = b.attn(b.ln_1(x))
            x = x + a
            m = b.mlp(b.ln_2(x))
            x = x + m
            lengths["attn"].append(a.norm(dim=-1).mean().item())
            lengths["mlp"].append(m.norm(dim=-1).mean().item())
            lengths["stream"].append(x.norm(dim=-1).mean().item())
    assert _math.isclose(lengths["stream"][-1], 11.17, abs_tol=0.01)   # the notebook's run
    return lengths


LENGTHS = _run_lengths()
STREAM_NAMED = [
    ("in a line", "You added the lengths in a line"),
    ("one update per block", "You counted 24 updates, one per block"),
    ("input left out", "You added up the updates' squares but left out"),
    ("block 1's updates", "You gave every block block 1's updates"),
    ("input in a line", "You combined the updates at right angles but added"),
    ("lengths not squared", "You added the updates' lengths under the square root"),
]


def test_stream_prediction_accepts_the_right_model():
    right = checks.stream_models(LENGTHS)["right angles"]
    for guess in (right, round(right, 1), 11.2, 10.6):
        fb = checks.check_stream_guess(guess, LENGTHS)
        assert fb and "right triangle" in fb.message, fb


@pytest.mark.parametrize(("model", "words"), STREAM_NAMED)
def test_each_wrong_stream_model_is_rejected_and_named(model, words):
    value = checks.stream_models(LENGTHS)[model]
    for guess in (value, round(value, 1)):
        fb = checks.check_stream_guess(guess, LENGTHS)
        assert not fb, (model, guess, "is accepted")
        assert fb.message.startswith(words) and "you predicted" in fb.message, (model, fb.message)


def test_the_reviews_wrong_guesses_are_rejected_and_named():
    for guess in (8.5, 8.9, 9.0):                     # three wrong models the 25% tolerance let through
        fb = checks.check_stream_guess(guess, LENGTHS)
        assert not fb and fb.message.split(" you predicted")[0].endswith("."), fb.message
        assert not fb.message.startswith("you predicted"), fb.message


def test_stream_prediction():
    fb = checks.check_stream_guess(10.6, 11.2)                     # a bare answer still works
    assert fb and "right triangle" in fb.message
    fb = checks.check_stream_guess(68.0, LENGTHS)
    assert not fb and "you predicted 68.0, the run gives 11.2" in fb.message
    assert fb.message.startswith("You added the lengths in a line"), fb.message
    fb = checks.check_stream_guess(5.6, LENGTHS)
    assert not fb and "the stream itself is never normalised" in fb.message and "right triangle" in fb.message
    fb = checks.check_stream_guess(0.9, LENGTHS)
    assert not fb and fb.message.startswith("That is about one update's length"), fb.message
    fb = checks.check_stream_guess(20.0, LENGTHS)                   # wrong, but no model of the list
    assert not fb and fb.message.startswith("That is long for updates at right angles"), fb.message
    assert "you predicted 20.0, the run gives 11.2" in fb.message
    fb = checks.check_stream_guess(8.0, LENGTHS)
    assert not fb and fb.message.startswith("That is short"), fb.message
    assert "not a number" in checks.check_stream_guess("grows", LENGTHS).message
    assert "NaN" in checks.check_stream_guess(float("nan"), LENGTHS).message


def test_a_round_estimate_is_not_told_it_used_a_wrong_formula():
    fb = checks.check_stream_guess(10.0, LENGTHS)    # 3% from "lengths not squared", but a round estimate
    assert not fb and fb.message.startswith("Close, but outside the 10%"), fb.message
    assert "you predicted 10.0, the run gives 11.2" in fb.message
    assert "right triangle" in fb.message
    fb = checks.check_stream_guess(9.8, LENGTHS)     # the unsquared lengths, computed
    assert not fb and fb.message.startswith("You added the updates' lengths under the square root"), fb.message


def test_half_written_work_says_which_part_still_raises():
    def stub_forward(self, x):
        raise NotImplementedError

    fb = checks.check_llama_block(make_block(forward=stub_forward))
    assert fb.status == "wrong" and "but forward still raises NotImplementedError" in fb.message, fb

    class UnwrittenNorm(CourseRMSNorm):
        def forward(self, x):
            raise NotImplementedError

    fb = checks.check_llama_block(make_block(norm=UnwrittenNorm))
    assert fb.status == "wrong" and "but UnwrittenNorm.forward still raises" in fb.message, fb
