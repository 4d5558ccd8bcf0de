"""Checks for notebook 08's exercises (the Transformer block).

1. A prediction: the residual stream's mean token length after 24 pre-LN blocks.
2. `class MyBlock(nn.Module)`, GPT-2's pre-LN block: helpers.block.Block's weights load into it.
3. (stretch) `class MyParallelBlock(nn.Module)`: helpers.block.ParallelBlock's weights load into it.
"""

import torch

from helpers.block import Block, ParallelBlock
from helpers.checks.module import ModuleCheck
from helpers.checks.runner import Mistake, Prediction
from helpers.checks.state import seeded

D_MODEL, N_HEAD = 16, 2


def _with_random_norms(cls):
    """A seeded reference block whose norms have random weights and biases, so that every mistake shows."""
    def reference():
        with seeded(8):
            block = cls(D_MODEL, N_HEAD).double()
            with torch.no_grad():
                for module in block.modules():
                    if isinstance(module, torch.nn.LayerNorm):
                        module.weight.normal_()
                        module.bias.normal_()
        return block
    return reference


def _stream():
    return torch.randn(2, 5, D_MODEL, generator=torch.Generator().manual_seed(8), dtype=torch.float64)


def _post_ln(b, x):
    h = b.ln_1(x + b.attn(x))
    return b.ln_2(h + b.mlp(h))


def _added_to_normed(b, x):
    h = b.ln_1(x) + b.attn(b.ln_1(x))
    return b.ln_2(h) + b.mlp(b.ln_2(h))


def _then(first, second):
    """x -> h = x + first(x) -> h + second(h): two residual steps in the given order."""
    def answer(b, x):
        h = x + first(b, x)
        return h + second(b, h)
    return answer


# Typical wrong blocks: the sentence that names each, and the output it gives with the reference's parts.
_BLOCK_MISTAKES = [
    ("your MLP reads x from before the attention update: that is the parallel block. In GPT-2's block the "
     "MLP reads the stream after attention was added.", lambda b, x: x + b.attn(b.ln_1(x)) + b.mlp(b.ln_2(x))),
    ("you normalised after the add (post-LN, the original Transformer); GPT-2 normalises each sublayer's "
     "input inside the branch: x + attn(ln_1(x)).", _post_ln),
    ("there is no residual add: each sublayer's result must be added to x, not replace it.",
     lambda b, x: b.mlp(b.ln_2(b.attn(b.ln_1(x))))),
    ("you added the update to the normalised x; the residual adds it to x itself: x = x + attn(ln_1(x)).",
     _added_to_normed),
    ("only attention is there: the block's second line adds the MLP's update, x = x + mlp(ln_2(x)).",
     lambda b, x: x + b.attn(b.ln_1(x))),
    ("the MLP runs before attention; GPT-2's block gathers first (attention), then processes (MLP).",
     _then(lambda b, x: b.mlp(b.ln_2(x)), lambda b, h: b.attn(b.ln_1(h)))),
    ("ln_1 and ln_2 are swapped: ln_1 goes before attention, ln_2 before the MLP.",
     _then(lambda b, x: b.attn(b.ln_2(x)), lambda b, h: b.mlp(b.ln_1(h)))),
]
_RMS = ("{name} has a weight but no bias: GPT-2's norms are nn.LayerNorm(d_model), which has both "
        "(RMSNorm, Llama's, has no bias).")

check_block = ModuleCheck(
    "Exercise 2 (GPT-2's block as a module)",
    name="your block",
    reference=_with_random_norms(Block),
    build=lambda cls: cls(D_MODEL, N_HEAD),
    inputs=_stream,
    key_hints={f"{ln}.bias": _RMS.format(name=ln) for ln in ("ln_1", "ln_2")},
    mistakes=[Mistake(message, answer=answer) for message, answer in _BLOCK_MISTAKES],
    success="helpers.block.Block's weights load into your block and give the same output: "
            "x = x + attn(ln_1(x)); x = x + mlp(ln_2(x)), with GPT-2's names.",
)

_PARALLEL_MISTAKES = [
    ("your MLP reads the stream after attention's update: that is GPT-2's sequential block. In the "
     "parallel block both sublayers read the same ln(x).", _then(lambda b, x: b.attn(b.ln(x)),
                                                                  lambda b, h: b.mlp(b.ln(h)))),
    ("there is no residual: the block returns x + attn(h) + mlp(h), with x itself added back.",
     lambda b, x: b.attn(b.ln(x)) + b.mlp(b.ln(x))),
    ("your MLP reads x without the norm; both sublayers read the one normalised h = ln(x).",
     lambda b, x: x + b.attn(b.ln(x)) + b.mlp(x)),
    ("the MLP's update is missing: add both updates, x + attn(h) + mlp(h).",
     lambda b, x: x + b.attn(b.ln(x))),
]

check_parallel_block = ModuleCheck(
    "Exercise 3 (the parallel block as a module)",
    name="your parallel block",
    inputs=_stream,
    reference=_with_random_norms(ParallelBlock),
    build=lambda cls: cls(D_MODEL, N_HEAD),
    key_hints={"ln.bias": _RMS.format(name="ln")},
    mistakes=[Mistake(message, answer=answer) for message, answer in _PARALLEL_MISTAKES],
    success="helpers.block.ParallelBlock's weights load into your block and give the same output: "
            "one norm, h = ln(x), and x + attn(h) + mlp(h).",
)

check_stream_guess = Prediction(
    "Exercise 1 (predict the stream's length)",
    why="Each update points in a direction almost unrelated to the stream, so lengths add like the sides "
        "of a right triangle: |x_24|^2 is about |x_0|^2 plus the sum of the 48 squared update lengths "
        "(the dashed line), far less than |x_0| plus the sum of the lengths.",
    rel=0.25,
    variable="my_stream_guess",
    fmt="{:.1f}",
)
