"""LlamaAttention, LlamaBlock and LlamaStack are Llama's: with the same weights they compute what
Hugging Face's LlamaAttention, LlamaDecoderLayer and LlamaModel compute, on tiny random configs
built offline (nothing is downloaded). RoPE is checked against its defining property too."""

import math

import pytest
import torch

from helpers.attention import LlamaAttention, rope
from helpers.block import LlamaBlock, LlamaStack, RMSNorm
from helpers.gated import GatedMLP

transformers = pytest.importorskip("transformers")
from transformers.models.llama import modeling_llama  # noqa: E402

# Hugging Face's RMSNorm and RoPE tables compute in float32 whatever the input's dtype, so the
# two agree to float32's eps (1.2e-7) times the size of the values (below 10) and a few roundings.
TOLERANCE = 1e-5

CONFIGS = {
    "multi-head": dict(hidden_size=16, num_attention_heads=2, num_key_value_heads=2, intermediate_size=40),
    "grouped-query (2 KV heads for 4)": dict(hidden_size=32, num_attention_heads=4, num_key_value_heads=2,
                                             intermediate_size=64),
    "one KV head (multi-query)": dict(hidden_size=24, num_attention_heads=3, num_key_value_heads=1,
                                      intermediate_size=48),
}


def llama_model(seed, n_layers=2, **sizes):
    """A LlamaModel with random weights (the norms' too), float32, eager attention."""
    config = transformers.LlamaConfig(num_hidden_layers=n_layers, vocab_size=32, max_position_embeddings=64,
                                      rms_norm_eps=1e-6, **sizes)
    config._attn_implementation = "eager"
    with torch.random.fork_rng():  # transformers initialises from the global generator: leave it be
        model = modeling_llama.LlamaModel(config).eval()
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(0.3 * torch.randn(p.shape, generator=generator))
    return model


def course_stack(model):
    """A LlamaStack holding the LlamaModel's weights: the same names, without the embedding table."""
    c = model.config
    stack = LlamaStack(c.hidden_size, c.num_attention_heads, c.intermediate_size, c.num_hidden_layers,
                       n_kv_head=c.num_key_value_heads, eps=c.rms_norm_eps)
    state = {k: v for k, v in model.state_dict().items() if not k.startswith("embed_tokens")}
    stack.load_state_dict(state)   # strict: every name and shape is Hugging Face's
    return stack


def inputs(model, T=7):
    return torch.randn(3, T, model.config.hidden_size, generator=torch.Generator().manual_seed(1))


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_llama_stack_equals_llama_model(name):
    model = llama_model(seed=0, **CONFIGS[name])
    x = inputs(model)
    with torch.no_grad():
        expected = model(inputs_embeds=x).last_hidden_state
        got = course_stack(model)(x)
    gap = (got - expected).abs().max().item()
    assert gap < TOLERANCE, f"{name}: largest difference {gap:.1e}, expected below {TOLERANCE:g}"


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_llama_block_equals_llama_decoder_layer(name):
    model = llama_model(seed=2, n_layers=1, **CONFIGS[name])
    layer, x = model.layers[0], inputs(model)
    T = x.shape[1]
    positions = torch.arange(T)[None]
    mask = torch.full((T, T), float("-inf")).triu(1)[None, None]      # additive causal mask (eager)
    with torch.no_grad():
        expected = layer(x, attention_mask=mask, position_embeddings=model.rotary_emb(x, positions))
        c = model.config
        block = LlamaBlock(c.hidden_size, c.num_attention_heads, c.intermediate_size, c.num_key_value_heads)
        block.load_state_dict(layer.state_dict())
        got = block(x)
        attn_expected, _ = layer.self_attn(x, position_embeddings=model.rotary_emb(x, positions),
                                           attention_mask=mask)
        attn_got = block.self_attn(x)
    assert sorted(block.state_dict()) == sorted(layer.state_dict()), "the names are LlamaDecoderLayer's"
    assert (got - expected).abs().max().item() < TOLERANCE, f"{name}: the block"
    assert (attn_got - attn_expected).abs().max().item() < TOLERANCE, f"{name}: attention alone"
    # the pieces: RMSNorm and the SwiGLU MLP are Hugging Face's LlamaRMSNorm and LlamaMLP
    ours_norm, ours_mlp = RMSNorm(c.hidden_size), GatedMLP(c.hidden_size, c.intermediate_size)
    ours_norm.load_state_dict(layer.input_layernorm.state_dict())
    ours_mlp.load_state_dict(layer.mlp.state_dict())
    with torch.no_grad():
        assert (ours_norm(x) - layer.input_layernorm(x)).abs().max().item() < TOLERANCE
        assert (ours_mlp(x) - layer.mlp(x)).abs().max().item() < TOLERANCE


def test_the_comparison_can_fail():
    """Without RoPE, or with the MLP's gate and up swapped, the block differs by far more than the tolerance."""
    model = llama_model(seed=3, n_layers=1, **CONFIGS["multi-head"])
    x = inputs(model)
    stack = course_stack(model)
    with torch.no_grad():
        expected = model(inputs_embeds=x).last_hidden_state
        mlp = stack.layers[0].mlp
        mlp.gate_proj.weight, mlp.up_proj.weight = mlp.up_proj.weight, mlp.gate_proj.weight
        assert (stack(x) - expected).abs().max().item() > 1e3 * TOLERANCE


def test_rope_scores_depend_on_the_distance_only():
    """A query at i and a key at j, rotated: their score is the same for (i, j) and (i + s, j + s)."""
    g = torch.Generator().manual_seed(0)
    q, k = torch.randn(2, 16, generator=g, dtype=torch.float64)
    T = 9
    scores = rope(q.expand(T, 16)) @ rope(k.expand(T, 16)).T       # (T, T): the same q and k at every position
    for offset in range(-T + 1, T):
        diagonal = scores.diagonal(offset)
        assert torch.allclose(diagonal, diagonal[0].expand_as(diagonal), rtol=0, atol=1e-12), offset
    assert scores.diagonal(0)[0] == pytest.approx((q @ k).item(), abs=1e-12)   # distance 0: not rotated
    assert (scores.diagonal(1)[0] - scores.diagonal(2)[0]).abs() > 1e-3          # distance matters


def test_rope_is_a_rotation_that_matches_hugging_face():
    g = torch.Generator().manual_seed(1)
    x = torch.randn(2, 3, 11, 8, generator=g, dtype=torch.float64)
    ours = rope(x)
    torch.testing.assert_close(ours.norm(dim=-1), x.norm(dim=-1), rtol=0, atol=1e-12)  # lengths kept
    torch.testing.assert_close(ours[..., 0, :], x[..., 0, :], rtol=0, atol=0)          # position 0 stays
    config = transformers.LlamaConfig(hidden_size=16, num_attention_heads=2, max_position_embeddings=64)
    cos, sin = modeling_llama.LlamaRotaryEmbedding(config)(x.float(), torch.arange(11)[None])
    hf, _ = modeling_llama.apply_rotary_pos_emb(x.float(), x.float(), cos, sin)
    assert (ours.float() - hf).abs().max().item() < TOLERANCE
    theta = 10000 ** (-0 / 4)                                                          # pair 0 turns by t rad
    assert ours[0, 0, 3, 0].item() == pytest.approx(x[0, 0, 3, 0].item() * math.cos(3 * theta)
                                                    - x[0, 0, 3, 4].item() * math.sin(3 * theta), abs=1e-12)


def test_llama_parameter_counts():
    d, d_ff = 4096, 11008                                    # Llama-2-7B's layer
    with torch.device("meta"):
        block = LlamaBlock(d, 32, d_ff)
        gqa = LlamaBlock(d, 32, 14336, n_kv_head=8)          # Llama-3-8B's layer
    assert sum(p.numel() for p in block.parameters()) == 4 * d * d + 3 * d * d_ff + 2 * d == 202_383_360
    assert sum(p.numel() for p in gqa.parameters()) == 2 * d * d + 2 * d * 1024 + 3 * d * 14336 + 2 * d
    assert block.mlp.d_ff == d_ff and LlamaBlock(16, 2).mlp.d_ff == 256    # None: llama_d_ff's rounding


@pytest.mark.parametrize(("make", "error", "words"), [
    (lambda: LlamaAttention(16, 3), ValueError, "d_model=16 must be n_head=3 times an even d_head"),
    (lambda: LlamaAttention(12, 4), ValueError, "even d_head"),
    (lambda: LlamaAttention(16, 4, n_kv_head=3), ValueError, "n_head=4 must be a multiple of n_kv_head=3"),
    (lambda: LlamaAttention(16, 2, n_kv_head=0), ValueError, "n_kv_head must be a positive integer"),
    (lambda: LlamaAttention(16, 2)(torch.zeros(5, 16)), ValueError, "must be a 3-D tensor"),
    (lambda: LlamaBlock(16, 2, d_ff=-1), ValueError, "d_ff must be a positive integer"),
    (lambda: LlamaBlock(16, 2, d_ff=40)(torch.zeros(2, 5, 8)), ValueError, "expects d_model=16"),
    (lambda: LlamaBlock(16, 2, d_ff=40)(torch.zeros(2, 5, 16, dtype=torch.float64)), TypeError,
     "weights are torch.float32"),
    (lambda: LlamaStack(16, 2, 40, n_layers=0), ValueError, "n_layers must be a positive integer"),
    (lambda: rope(torch.zeros(4, 7)), ValueError, "even d_head"),
    (lambda: rope(torch.zeros(7)), ValueError, "(..., T, d_head)"),
    (lambda: rope([1.0, 2.0]), TypeError, "x must be a torch tensor"),
    (lambda: rope(torch.zeros(3, 4), base=-1), ValueError, "base must be"),
])
def test_bad_input_is_refused_by_name(make, error, words):
    with pytest.raises(error, match=None) as caught:
        make()
    assert words in str(caught.value), str(caught.value)
