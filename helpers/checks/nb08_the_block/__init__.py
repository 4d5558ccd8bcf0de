"""Checks for notebook 08's exercises (the Transformer block).

1. A prediction: the residual stream's mean token length after 24 pre-LN blocks.
2. `class LlamaBlock(nn.Module)`, Llama's pre-norm block (RMSNorm, RoPE attention, SwiGLU) with
   Hugging Face's names: helpers.block.LlamaBlock's weights load into it.
3. (stretch) `class LlamaStack(nn.Module)`: n_layers of those blocks and the final norm, as
   LlamaModel names them: helpers.block.LlamaStack's weights load into it.

One submodule per exercise: ex1_stream_guess.py, ex2_llama_block.py and ex3_llama_stack.py;
shared.py holds the sizes and the reference maker they share.
"""

from helpers.checks.nb08_the_block.ex1_stream_guess import (
    STREAM_REL,
    check_stream_guess,
    stream_models,
)
from helpers.checks.nb08_the_block.ex2_llama_block import check_llama_block
from helpers.checks.nb08_the_block.ex3_llama_stack import check_llama_stack
from helpers.checks.nb08_the_block.shared import D_FF, D_MODEL, EPS, N_HEAD, N_LAYERS

__all__ = [
    "D_FF",
    "D_MODEL",
    "EPS",
    "N_HEAD",
    "N_LAYERS",
    "STREAM_REL",
    "check_llama_block",
    "check_llama_stack",
    "check_stream_guess",
    "stream_models",
]
