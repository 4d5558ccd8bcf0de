"""Reusable modules: attention, blocks, norms and the gated MLP against torch and formulas."""

import pytest
import torch

from helpers.attention import CausalSelfAttention, causal_mask
from helpers.block import Block, ParallelBlock, PostLNBlock, RMSNorm
from helpers.gated import GatedMLP, llama_d_ff


def test_attention_matches_torch_sdpa():
    torch.manual_seed(0)
    attn = CausalSelfAttention(32, 4).double()
    x = torch.randn(2, 6, 32, dtype=torch.float64)
    q, k, v = attn.c_attn(x).split(32, dim=2)
    q, k, v = (t.view(2, 6, 4, 8).transpose(1, 2) for t in (q, k, v))
    y = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
    expected = attn.c_proj(y.transpose(1, 2).reshape(2, 6, 32))
    seen = []
    hook = attn.softmax.register_forward_hook(lambda module, inputs, output: seen.append(output))
    torch.testing.assert_close(attn(x), expected)
    hook.remove()
    (w,) = seen                                   # the weights, read by a hook: (B, n_head, T, T)
    torch.testing.assert_close(w.sum(-1), torch.ones(2, 4, 6, dtype=torch.float64))
    assert torch.all(w.triu(1) == 0)
    assert not hasattr(attn, "last_weights")      # no state kept between calls
    torch.testing.assert_close(w @ v, y)          # the same weights SDPA used


def test_causal_mask_and_window():
    assert torch.equal(causal_mask(4), torch.ones(4, 4, dtype=torch.bool).tril())
    assert torch.equal(causal_mask(5, window=2), torch.ones(5, 5, dtype=torch.bool).tril() & ~torch.ones(5, 5, dtype=torch.bool).tril(-2))
    assert torch.equal(causal_mask(3, window=9), causal_mask(3))
    assert causal_mask(6, window=1).sum() == 6                          # itself only
    for bad in [lambda: causal_mask(0), lambda: causal_mask(4, window=0)]:
        with pytest.raises(ValueError, match="must be a positive integer"):
            bad()


def test_attention_state_dict_keys_are_gpt2s():
    keys = list(CausalSelfAttention(8, 2).state_dict())
    assert keys == ["c_attn.weight", "c_attn.bias", "c_proj.weight", "c_proj.bias"]


def test_gpt2_block_parameter_count():
    d = 768
    assert sum(p.numel() for p in Block(d, 12).parameters()) == 12 * d * d + 13 * d


def test_rmsnorm_matches_formula_and_torch():
    torch.manual_seed(0)
    x = torch.randn(3, 16, dtype=torch.float64)
    ours = RMSNorm(16).double()(x)
    torch.testing.assert_close(ours, x / torch.sqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6))
    if hasattr(torch.nn, "RMSNorm"):
        torch.testing.assert_close(ours, torch.nn.RMSNorm(16, eps=1e-6).double()(x))


def test_gated_mlp_formula():
    torch.manual_seed(0)
    mlp = GatedMLP(8, 24).double()
    x = torch.randn(5, 8, dtype=torch.float64)
    g = torch.nn.functional.silu(x @ mlp.gate_proj.weight.T)
    u = x @ mlp.up_proj.weight.T
    torch.testing.assert_close(mlp(x), (g * u) @ mlp.down_proj.weight.T)
    assert sum(p.numel() for p in mlp.parameters()) == 3 * 8 * 24


def test_llama_widths():
    assert llama_d_ff(4096) == 11008   # Llama-2-7B
    assert llama_d_ff(5120) == 13824   # Llama-2-13B


def test_parallel_block_runs_and_keeps_shape():
    y = ParallelBlock(16, 2, mlp="swiglu", norm="rmsnorm", bias=False)(torch.randn(2, 3, 16))
    assert y.shape == (2, 3, 16)


@pytest.mark.parametrize("bad", [lambda: CausalSelfAttention(10, 3), lambda: Block(8, 2, norm="batchnorm"),
                                 lambda: GatedMLP(8, 0), lambda: CausalSelfAttention(8, 2)(torch.randn(3, 8))])
def test_module_bad_inputs(bad):
    with pytest.raises(ValueError):
        bad()


def test_parallel_block_formula_and_parameter_count():
    torch.manual_seed(0)
    block = ParallelBlock(16, 2).double()
    x = torch.randn(2, 5, 16, dtype=torch.float64)
    h = block.ln(x)
    torch.testing.assert_close(block(x), x + block.attn(h) + block.mlp(h))
    d = 768
    assert sum(p.numel() for p in ParallelBlock(d, 12).parameters()) == 12 * d * d + 11 * d


def test_block_is_pre_ln_with_residuals():
    torch.manual_seed(0)
    block = Block(16, 2).double()
    x = torch.randn(2, 5, 16, dtype=torch.float64)
    h = x + block.attn(block.ln_1(x))
    torch.testing.assert_close(block(x), h + block.mlp(block.ln_2(h)))
    assert [name for name, _ in block.named_children()] == ["ln_1", "attn", "ln_2", "mlp"]


def test_post_ln_block_normalises_the_stream_after_each_add():
    torch.manual_seed(0)
    block = PostLNBlock(16, 2).double()
    x = torch.randn(2, 5, 16, dtype=torch.float64)
    h = block.ln_1(x + block.attn(x))
    torch.testing.assert_close(block(x), block.ln_2(h + block.mlp(h)))
    assert list(block.state_dict()) == list(Block(16, 2).state_dict())       # the same checkpoint keys
    lengths = block(x).norm(dim=-1)                                          # LayerNorm's output: length sqrt(d)
    torch.testing.assert_close(lengths, torch.full_like(lengths, 4.0), rtol=1e-4, atol=0)
