"""Exercise 2: `class LlamaBlock(nn.Module)`, Llama's pre-norm block (RMSNorm, RoPE attention,
SwiGLU) with Hugging Face's names; each wrong wiring (post-norm, a residual add missing, the
norms swapped, the parallel block...) is named by the output it gives."""

import torch
import torch.nn.functional as F

from helpers.block import LlamaBlock
from helpers.checks.module import ModuleCheck
from helpers.checks.nb08_the_block.shared import (
    D_FF,
    D_MODEL,
    EPS,
    N_HEAD,
    _stream,
    _with_random_norms,
)
from helpers.checks.runner import Mistake
from helpers.checks.show import say


def _attn(b, x):
    return b.self_attn(b.input_layernorm(x))


def _mlp(b, h):
    return b.mlp(b.post_attention_layernorm(h))


def _mlp_reads_attention(b, x):
    a = _attn(b, x)
    return x + a + _mlp(b, a)


def _post_norm(b, x):
    h = b.input_layernorm(x + b.self_attn(x))
    return b.post_attention_layernorm(h + b.mlp(h))


def _added_to_normed(b, x):
    h = b.input_layernorm(x) + _attn(b, x)
    return b.post_attention_layernorm(h) + _mlp(b, h)


def _then(first, second):
    """x -> h = x + first(b, x) -> h + second(b, h): two residual steps in the given order."""
    def answer(b, x):
        h = x + first(b, x)
        return h + second(b, h)
    return answer


_WIRING = [
    ("you used input_layernorm twice: the MLP reads post_attention_layernorm(x), "
     "a norm with its own weights.",
     _then(_attn, lambda b, h: b.mlp(b.input_layernorm(h)))),
    ("ln_1 and ln_2 are swapped, in Llama's names: input_layernorm goes before self_attn, "
     "post_attention_layernorm before the MLP.",
     _then(lambda b, x: b.self_attn(b.post_attention_layernorm(x)),
           lambda b, h: b.mlp(b.input_layernorm(h)))),
    ("the MLP's update replaces the stream: add it, "
     "x = x + mlp(post_attention_layernorm(x)), as attention's is.",
     lambda b, x: _mlp(b, x + _attn(b, x))),
    ("your MLP reads attention's output alone. It reads the stream after attention's output was "
     "added to it: x = x + self_attn(input_layernorm(x)), then mlp(post_attention_layernorm(x)).",
     _mlp_reads_attention),
    ("your MLP reads attention's output alone, without its norm. It reads the normalised stream "
     "after attention's output was added: mlp(post_attention_layernorm(x)).",
     lambda b, x: x + _attn(b, x) + b.mlp(_attn(b, x))),
    ("your MLP reads x from before the attention update: that is the parallel block. In Llama's "
     "block the MLP reads the stream after attention was added.",
     lambda b, x: x + _attn(b, x) + _mlp(b, x)),
    ("you normalised after the add (post-norm, the original Transformer); Llama normalises each "
     "sublayer's input inside the branch: x = x + self_attn(input_layernorm(x)).", _post_norm),
    ("there is no residual add: each sublayer's result must be added to x, not replace it.",
     lambda b, x: _mlp(b, _attn(b, x))),
    ("you added the update to the normalised x; the residual adds it to x itself: "
     "x = x + self_attn(input_layernorm(x)).", _added_to_normed),
    ("only attention is there: the block's second line adds the MLP's update, "
     "x = x + mlp(post_attention_layernorm(x)).", lambda b, x: x + _attn(b, x)),
    ("the MLP runs before attention; the block gathers first (attention), then processes (MLP).",
     _then(lambda b, x: _mlp(b, x), _attn)),
    ("the norms are missing: each sublayer reads a normalised copy of the stream, "
     "self_attn(input_layernorm(x)) and mlp(post_attention_layernorm(x)).",
     _then(lambda b, x: b.self_attn(x), lambda b, h: b.mlp(h))),
]


def _norm_like(centre=False, eps=EPS, eps_inside=True, dim=-1):
    """The block with both norms computed another way: a typical RMSNorm mistake."""
    def norm(weight, t):
        if centre:
            t = t - t.mean(dim=-1, keepdim=True)
        mean_square = t.pow(2).mean(dim=dim, keepdim=True)
        scale = torch.sqrt(mean_square + eps) if eps_inside else torch.sqrt(mean_square) + eps
        return t / scale * weight

    def answer(b, x):
        x = x + b.self_attn(norm(b.input_layernorm.weight, x))
        return x + b.mlp(norm(b.post_attention_layernorm.weight, x))
    return answer


def _mlp_like(act=F.silu, on="gate"):
    """The block with the SwiGLU MLP computed another way: a typical SwiGLU mistake."""
    def answer(b, x):
        m = b.mlp
        x = x + _attn(b, x)
        h = b.post_attention_layernorm(x)
        gate, up = m.gate_proj(h), m.up_proj(h)
        hidden = (act(gate) * up if on == "gate" else gate * act(up) if on == "up"
                  else act(gate + up))
        return x + m.down_proj(hidden)
    return answer


_PARTS = [
    ("your RMSNorm subtracts the mean: that is LayerNorm. RMSNorm divides x by its root mean "
     "square, x / sqrt(mean(x^2) + eps), and multiplies by the weight.", _norm_like(centre=True)),
    ("your RMSNorm adds eps outside the square root; Llama's is "
     "x / sqrt(mean(x^2) + eps), eps inside.",
     _norm_like(eps_inside=False)),
    ("your RMSNorm's eps is 1e-5 (Llama-2's config value); this check's model uses 1e-6, "
     "LlamaConfig's default: RMSNorm(d_model, eps=1e-6).", _norm_like(eps=1e-5)),
    ("your RMSNorm has no eps (torch.nn.RMSNorm's default is the dtype's own eps, about 2e-16 in "
     "float64); the check's model uses eps = 1e-6 inside the square root: RMSNorm(d_model, "
     "eps=1e-6).", _norm_like(eps=0.0)),
    ("your RMSNorm takes the mean over the tokens (dim 1); each token is normalised over its own "
     "d_model numbers: mean(dim=-1, keepdim=True).", _norm_like(dim=1)),
    ("SiLU sits on the up-projection; Llama puts it on the gate: "
     "down_proj(act_fn(gate_proj(x)) * up_proj(x)) (notebook 05).", _mlp_like(on="up")),
    ("your MLP uses GELU; Llama's act_fn is SiLU: down_proj(silu(gate_proj(x)) * up_proj(x)).",
     _mlp_like(act=F.gelu)),
    ("your MLP has no activation: the gate is act_fn(gate_proj(x)), with act_fn = SiLU.",
     _mlp_like(act=lambda t: t)),
    ("your MLP adds gate and up; SwiGLU multiplies them: act_fn(gate_proj(x)) * up_proj(x).",
     _mlp_like(on="sum")),
]

_NO_BIAS = "Llama's linear layers have no bias: make them with bias=False (GatedMLP does)."
_LAYERNORM = ("{name} has a weight and a bias: that is nn.LayerNorm, GPT-2's. Llama's "
              "RMSNorm has a weight only.")
_NO_WEIGHT = ("{name} has no parameter: RMSNorm keeps a learned weight, self.weight = "
              "nn.Parameter(torch.ones(d_model)), that scales each of the d_model numbers.")
_LLAMA_NAMES = ("your block has GPT-2's names ({name}); Llama's, which the weights carry, are "
                "input_layernorm, self_attn, post_attention_layernorm and mlp.")
_BLOCK_HINTS = {
    **{part + ".weight": say(_LLAMA_NAMES, name=part) for part in ("ln_1", "ln_2")},
    **{"attn." + proj + ".weight": say(_LLAMA_NAMES, name="attn") for proj in ("q_proj", "c_attn")},
    **{"mlp." + proj + ".bias": _NO_BIAS for proj in ("gate_proj", "up_proj", "down_proj")},
    **{norm + ".bias": say(_LAYERNORM, name=norm)
       for norm in ("input_layernorm", "post_attention_layernorm")},
    **{norm: say(_NO_WEIGHT, name=norm)
       for norm in ("input_layernorm", "post_attention_layernorm")},
}

check_llama_block = ModuleCheck(
    "Exercise 2 (Llama's block as a module)",
    name="your block",
    reference=_with_random_norms(lambda: LlamaBlock(D_MODEL, N_HEAD, D_FF, eps=EPS)),
    build=lambda cls: cls(D_MODEL, N_HEAD, D_FF),
    inputs=_stream,
    key_hints=_BLOCK_HINTS,
    mistakes=[Mistake(message, answer=answer) for message, answer in _WIRING + _PARTS],
    success="helpers.block.LlamaBlock's weights load into your block and give the same output: "
            "x = x + self_attn(input_layernorm(x)); x = x + mlp(post_attention_layernorm(x)), with "
            "RMSNorm and SwiGLU, under Hugging Face's LlamaDecoderLayer names.",
)
