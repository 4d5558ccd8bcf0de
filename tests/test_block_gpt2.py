"""Block(mlp="gelu_tanh") is GPT-2's block: with the same weights it computes what Hugging Face's
GPT2Block computes, on tiny random GPT-2 configs built offline (nothing is downloaded)."""

import pytest
import torch

from helpers.block import Block

transformers = pytest.importorskip("transformers")

# float64 carries 2.2e-16 per operation; the longest sums here run over d_ff = 96 terms and the
# values stay below 10, so the two orders of summation differ by about 1e-13 at the very most.
TOLERANCE = 1e-12

CONFIGS = {
    "GPT-2's shape (d_ff = 4 d_model)": dict(n_embd=32, n_head=4),
    "n_inner set": dict(n_embd=24, n_head=3, n_inner=96),
    "one head": dict(n_embd=16, n_head=1),
}


def gpt2_model(seed, **sizes):
    """A 2-block GPT2Model with random weights, float64, eager attention, no dropout."""
    config = transformers.GPT2Config(n_layer=2, n_positions=16, vocab_size=64, bos_token_id=0,
                                     eos_token_id=0, resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0,
                                     activation_function="gelu_new", **sizes)
    config._attn_implementation = "eager"
    with torch.random.fork_rng():  # transformers initialises from the global generator: leave it be
        model = transformers.GPT2Model(config).double().eval()
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():  # random LayerNorm gains and biases too, so that no term hides
        for p in model.parameters():
            p.copy_(0.3 * torch.randn(p.shape, dtype=p.dtype, generator=generator))
    return model


def course_block(hf_block, config):
    """A course Block holding hf_block's weights: GPT-2's Conv1D stores (in, out), nn.Linear (out, in)."""
    block = Block(config.n_embd, config.n_head, d_ff=config.n_inner, mlp="gelu_tanh").double()
    state = {}
    for name, value in hf_block.state_dict().items():
        conv = name.endswith(("c_attn.weight", "c_proj.weight", "c_fc.weight"))
        state[name] = value.T if conv else value
    block.load_state_dict(state)  # the same names: ln_1, attn.c_attn, attn.c_proj, ln_2, mlp.c_fc, mlp.c_proj
    return block


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_block_with_tanh_gelu_equals_gpt2_block(name):
    model = gpt2_model(seed=0, **CONFIGS[name])
    seen = []

    def keep(module, inputs, output):
        seen.append((inputs[0], output[0] if isinstance(output, tuple) else output))

    idx = torch.randint(0, 64, (3, 7), generator=torch.Generator().manual_seed(1))
    handles = [block.register_forward_hook(keep) for block in model.h]
    try:
        with torch.no_grad():
            model(idx)
    finally:
        for handle in handles:
            handle.remove()
    assert len(seen) == 2, f"expected the inputs and outputs of 2 blocks, got {len(seen)}"
    for i, (x, expected) in enumerate(seen):
        ours = course_block(model.h[i], model.config)
        assert isinstance(ours.mlp.act, torch.nn.GELU) and ours.mlp.act.approximate == "tanh"
        with torch.no_grad():
            got = ours(x)
        gap = (got - expected).abs().max().item()
        assert gap < TOLERANCE, f"block {i} ({name}): largest difference {gap:.1e}, expected below 1e-12"
        # the exact GELU differs by about 1e-4 at these sizes: the check can tell the two apart
        exact = Block(model.config.n_embd, model.config.n_head, d_ff=model.config.n_inner).double()
        exact.load_state_dict(ours.state_dict())
        with torch.no_grad():
            assert (exact(x) - expected).abs().max().item() > 1e3 * TOLERANCE


def test_parallel_block_takes_the_tanh_gelu_too():
    from helpers.block import ParallelBlock

    block = ParallelBlock(16, 2, mlp="gelu_tanh")
    assert block.mlp.act.approximate == "tanh" and block.mlp.activation == "gelu_tanh"
