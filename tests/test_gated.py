"""The fused gate+up MLP: same function as GatedMLP, gate rows first, and bad inputs refused."""

import pytest
import torch

from helpers.gated import FusedGatedMLP, GatedMLP, fuse_gate_up, llama_d_ff


def _mlp(bias=False, activation="silu"):
    torch.manual_seed(0)
    return GatedMLP(8, 24, activation=activation, bias=bias).double()


@pytest.mark.parametrize("bias", [False, True])
@pytest.mark.parametrize("activation", ["silu", "gelu"])
def test_fused_equals_separate(bias, activation):
    mlp = _mlp(bias, activation)
    fused = fuse_gate_up(mlp)
    x = torch.randn(2, 5, 8, dtype=torch.float64)
    torch.testing.assert_close(fused(x), mlp(x), rtol=1e-12, atol=1e-12)
    assert fused.activation == activation and fused.gate_up_proj.weight.dtype == torch.float64


def test_fused_formula_written_out():
    fused = fuse_gate_up(_mlp())
    x = torch.randn(5, 8, dtype=torch.float64)
    h = x @ fused.gate_up_proj.weight.T                  # (5, 48): one GEMM
    gate, up = h[:, :24], h[:, 24:]
    expected = (gate * torch.sigmoid(gate) * up) @ fused.down_proj.weight.T
    torch.testing.assert_close(fused(x), expected)


def test_gate_rows_come_first_and_weights_are_copies():
    mlp = _mlp(bias=True)
    fused = fuse_gate_up(mlp)
    assert fused.gate_up_proj.weight.shape == (48, 8)
    assert torch.equal(fused.gate_up_proj.weight[:24], mlp.gate_proj.weight)
    assert torch.equal(fused.gate_up_proj.weight[24:], mlp.up_proj.weight)
    assert torch.equal(fused.gate_up_proj.bias[24:], mlp.up_proj.bias)
    with torch.no_grad():
        fused.gate_up_proj.weight.zero_()
    assert mlp.gate_proj.weight.abs().sum() > 0, "fusing must copy, not share, the weights"


def test_same_parameter_count():
    mlp = _mlp()
    fused = fuse_gate_up(mlp)
    count = sum(p.numel() for p in fused.parameters())
    assert count == sum(p.numel() for p in mlp.parameters()) == 3 * 8 * 24
    assert (fused.d_model, fused.d_ff) == (8, 24)


def test_llama_d_ff_rounds_up_to_the_multiple():
    assert llama_d_ff(4096) == 11008          # 10922.67 -> 43 * 256
    assert llama_d_ff(768) == 2048            # already a multiple: no rounding
    assert llama_d_ff(4096, multiple_of=1) == 10922


def test_llama_d_ff_with_ffn_dim_multiplier():
    # Published configs: Llama-3-8B (hidden 4096, intermediate 14336, 1.3, multiple_of 1024) and
    # Llama-2-70B (hidden 8192, intermediate 28672, 1.3, multiple_of 4096).
    assert llama_d_ff(4096, multiple_of=1024, ffn_dim_multiplier=1.3) == 14336
    assert llama_d_ff(8192, multiple_of=4096, ffn_dim_multiplier=1.3) == 28672
    assert llama_d_ff(5120) == 13824                                  # Llama-2-13B: no multiplier
    assert llama_d_ff(4096, multiple_of=1024) == 11264                # the multiplier matters
    with pytest.raises(ValueError, match="ffn_dim_multiplier must be a number > 0"):
        llama_d_ff(4096, ffn_dim_multiplier=0)
    with pytest.raises(ValueError, match="ffn_dim_multiplier must be a finite number"):
        llama_d_ff(4096, ffn_dim_multiplier="1.3")


def test_bad_inputs():
    with pytest.raises(TypeError, match="mlp must be a GatedMLP.*Linear"):
        fuse_gate_up(torch.nn.Linear(8, 24))
    fused = FusedGatedMLP(8, 24)
    with pytest.raises(ValueError, match="last dimension 7.*d_model=8"):
        fused(torch.randn(3, 7))
    with pytest.raises(TypeError, match="x must be a torch tensor"):
        fused([[1.0] * 8])
    with pytest.raises(ValueError, match="d_ff must be a positive integer"):
        FusedGatedMLP(8, 0)
