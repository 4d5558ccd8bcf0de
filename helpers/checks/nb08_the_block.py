"""Checks for notebook 08's exercises (the Transformer block).

1. A prediction: the residual stream's mean token length after 24 pre-LN blocks.
2. `class LlamaBlock(nn.Module)`, Llama's pre-norm block (RMSNorm, RoPE attention, SwiGLU) with Hugging
   Face's names: helpers.block.LlamaBlock's weights load into it.
3. (stretch) `class LlamaStack(nn.Module)`: n_layers of those blocks and the final norm, as LlamaModel
   names them: helpers.block.LlamaStack's weights load into it.
"""

import math

import torch
import torch.nn.functional as F

from helpers.block import LlamaBlock, LlamaStack, RMSNorm
from helpers.checks.core import WRONG, referee, wrong
from helpers.checks.module import ModuleCheck
from helpers.checks.runner import Mistake, Prediction
from helpers.checks.show import plain, say
from helpers.checks.state import seeded

D_MODEL, N_HEAD, D_FF, N_LAYERS = 16, 2, 40, 2
EPS = 1e-6   # LlamaConfig's default rms_norm_eps


def _with_random_norms(make):
    """A seeded float64 reference whose RMSNorm weights are random, so that a misplaced norm shows."""
    def reference():
        with seeded(8):
            module = make().double()
            with torch.no_grad():
                for norm in module.modules():
                    if isinstance(norm, RMSNorm):
                        norm.weight.normal_()
        return module
    return reference


def _stream():
    return torch.randn(2, 5, D_MODEL, generator=torch.Generator().manual_seed(8), dtype=torch.float64)


# ---- exercise 2: the block ------------------------------------------------------------------------
# Each wrong block, as the output it gives with the reference's parts: b is the reference LlamaBlock.

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
    ("you used input_layernorm twice: the MLP reads post_attention_layernorm(x), a norm with its own weights.",
     _then(_attn, lambda b, h: b.mlp(b.input_layernorm(h)))),
    ("ln_1 and ln_2 are swapped, in Llama's names: input_layernorm goes before self_attn, "
     "post_attention_layernorm before the MLP.",
     _then(lambda b, x: b.self_attn(b.post_attention_layernorm(x)), lambda b, h: b.mlp(b.input_layernorm(h)))),
    ("the MLP's update replaces the stream: add it, x = x + mlp(post_attention_layernorm(x)), as attention's is.",
     lambda b, x: _mlp(b, x + _attn(b, x))),
    ("your MLP reads attention's output alone. It reads the stream after attention's output was added to it: "
     "x = x + self_attn(input_layernorm(x)), then mlp(post_attention_layernorm(x)).", _mlp_reads_attention),
    ("your MLP reads attention's output alone, without its norm. It reads the normalised stream after "
     "attention's output was added: mlp(post_attention_layernorm(x)).",
     lambda b, x: x + _attn(b, x) + b.mlp(_attn(b, x))),
    ("your MLP reads x from before the attention update: that is the parallel block. In Llama's block the "
     "MLP reads the stream after attention was added.", lambda b, x: x + _attn(b, x) + _mlp(b, x)),
    ("you normalised after the add (post-norm, the original Transformer); Llama normalises each sublayer's "
     "input inside the branch: x = x + self_attn(input_layernorm(x)).", _post_norm),
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
        hidden = act(gate) * up if on == "gate" else gate * act(up) if on == "up" else act(gate + up)
        return x + m.down_proj(hidden)
    return answer


_PARTS = [
    ("your RMSNorm subtracts the mean: that is LayerNorm. RMSNorm divides x by its root mean square, "
     "x / sqrt(mean(x^2) + eps), and multiplies by the weight.", _norm_like(centre=True)),
    ("your RMSNorm adds eps outside the square root; Llama's is x / sqrt(mean(x^2) + eps), eps inside.",
     _norm_like(eps_inside=False)),
    ("your RMSNorm's eps is 1e-5 (Llama-2's config value); this check's model uses 1e-6, LlamaConfig's "
     "default: RMSNorm(d_model, eps=1e-6).", _norm_like(eps=1e-5)),
    ("your RMSNorm has no eps (torch.nn.RMSNorm's default is the dtype's own eps, about 2e-16 in float64); "
     "the check's model uses eps = 1e-6 inside the square root: RMSNorm(d_model, eps=1e-6).", _norm_like(eps=0.0)),
    ("your RMSNorm takes the mean over the tokens (dim 1); each token is normalised over its own d_model "
     "numbers: mean(dim=-1, keepdim=True).", _norm_like(dim=1)),
    ("SiLU sits on the up-projection; Llama puts it on the gate: down_proj(act_fn(gate_proj(x)) * up_proj(x)) "
     "(notebook 05).", _mlp_like(on="up")),
    ("your MLP uses GELU; Llama's act_fn is SiLU: down_proj(silu(gate_proj(x)) * up_proj(x)).",
     _mlp_like(act=F.gelu)),
    ("your MLP has no activation: the gate is act_fn(gate_proj(x)), with act_fn = SiLU.",
     _mlp_like(act=lambda t: t)),
    ("your MLP adds gate and up; SwiGLU multiplies them: act_fn(gate_proj(x)) * up_proj(x).",
     _mlp_like(on="sum")),
]

_NO_BIAS = "Llama's linear layers have no bias: make them with bias=False (GatedMLP does)."
_LAYERNORM = ("{name} has a weight and a bias: that is nn.LayerNorm, GPT-2's. Llama's RMSNorm has a "
              "weight only.")
_NO_WEIGHT = ("{name} has no parameter: RMSNorm keeps a learned weight, self.weight = "
              "nn.Parameter(torch.ones(d_model)), that scales each of the d_model numbers.")
_LLAMA_NAMES = ("your block has GPT-2's names ({name}); Llama's, which the weights carry, are input_layernorm, "
                "self_attn, post_attention_layernorm and mlp.")
_BLOCK_HINTS = {
    **{part + ".weight": say(_LLAMA_NAMES, name=part) for part in ("ln_1", "ln_2")},
    **{"attn." + proj + ".weight": say(_LLAMA_NAMES, name="attn") for proj in ("q_proj", "c_attn")},
    **{"mlp." + proj + ".bias": _NO_BIAS for proj in ("gate_proj", "up_proj", "down_proj")},
    **{norm + ".bias": say(_LAYERNORM, name=norm) for norm in ("input_layernorm", "post_attention_layernorm")},
    **{norm: say(_NO_WEIGHT, name=norm) for norm in ("input_layernorm", "post_attention_layernorm")},
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
            "x = x + self_attn(input_layernorm(x)); x = x + mlp(post_attention_layernorm(x)), with RMSNorm "
            "and SwiGLU, under Hugging Face's LlamaDecoderLayer names.",
)


# ---- exercise 3: the stack ------------------------------------------------------------------------

def _stack_with(layers, norm_each=False, final_norm=True):
    """The stack's output when `layers(s)` gives the blocks run, in order: a typical stacking mistake."""
    def answer(s, x):
        for layer in layers(s):
            x = layer(x)
            if norm_each:
                x = s.norm(x)
        return s.norm(x) if final_norm and not norm_each else x
    return answer


_STACK_MISTAKES = [
    ("your layers share one block: [block] * n_layers (or the same block appended n times) puts one set of "
     "weights in every slot, and the last layer's weights load into all of them. Build a new block for each "
     "layer: nn.ModuleList(LlamaBlock(...) for _ in range(n_layers)).",
     _stack_with(lambda s: [s.layers[-1]] * len(s.layers))),
    ("there is no final norm after the last layer: LlamaModel ends with self.norm(x), as GPT-2 ends with ln_f.",
     _stack_with(lambda s: s.layers, final_norm=False)),
    ("you normalised the stream after every layer; the stream is normalised only once, by self.norm after "
     "the last layer (each block normalises its sublayers' inputs itself).",
     _stack_with(lambda s: s.layers, norm_each=True)),
    ("only the first layer ran: is the `return` inside your loop over self.layers?",
     _stack_with(lambda s: s.layers[:1])),
    ("only the first layer ran: is the `return` inside your loop over self.layers?",
     _stack_with(lambda s: s.layers[:1], final_norm=False)),
    ("each layer read the stack's input instead of the previous layer's output: write x = layer(x) in the loop.",
     lambda s, x: s.norm(s.layers[-1](x))),
    ("your layers ran last to first: run self.layers in order, layer 0 first, so that the keys layers.0 ... are "
     "the first block the stream meets.", _stack_with(lambda s: list(s.layers)[::-1])),
    ("the last layer ran twice (or one layer too many): loop over self.layers once, n_layers blocks.",
     _stack_with(lambda s: [*s.layers, s.layers[-1]])),
    ("the final norm comes before the last layer: LlamaModel runs every layer, then self.norm once.",
     lambda s, x: s.layers[-1](s.norm(_stack_with(lambda t: t.layers[:-1], final_norm=False)(s, x)))),
]

_LAYERS_NAME = ("your list of blocks is called {name}; LlamaModel calls it layers: self.layers = "
                "nn.ModuleList(...), so that the keys read layers.0.input_layernorm.weight.")

check_llama_stack = ModuleCheck(
    "Exercise 3 (a stack of Llama blocks)",
    name="your stack",
    reference=_with_random_norms(lambda: LlamaStack(D_MODEL, N_HEAD, D_FF, N_LAYERS, eps=EPS)),
    build=lambda cls: cls(D_MODEL, N_HEAD, D_FF, N_LAYERS),
    inputs=_stream,
    key_hints={"norm": "there is no final norm: LlamaModel ends with self.norm = RMSNorm(d_model), applied "
                       "after the last layer (GPT-2's ln_f).",
               **{name + ".0.input_layernorm.weight": say(_LAYERS_NAME, name=name)
                  for name in ("blocks", "h", "layer", "block", "decoder_layers")}},
    mistakes=[Mistake(message, answer=answer) for message, answer in _STACK_MISTAKES],
    success=say("helpers.block.LlamaStack's weights load into your stack and give the same output: "
                "{n_layers} blocks, each with its own weights, then the final norm, under LlamaModel's names.",
                n_layers=N_LAYERS),
)


# ---- exercise 1: the prediction -------------------------------------------------------------------

# Pythagoras with the run's own update lengths lands within 10% of the stream (section 4 asserts it): the updates
# are nearly, not exactly, at right angles to the stream. So 10% separates that model from the wrong ones below.
STREAM_REL = 0.1

_STREAM = Prediction(
    "Exercise 1 (predict the stream's length)",
    why="Each update points in a direction almost unrelated to the stream, so lengths add like the sides "
        "of a right triangle: |x_24|^2 is about |x_0|^2 plus the sum of the 48 squared update lengths "
        "(the dashed line), far less than |x_0| plus the sum of the lengths.",
    rel=STREAM_REL,
    variable="my_stream_guess",
    fmt="{:.1f}",
)


def stream_models(lengths):
    """{model: the final length it predicts} for the right model and each likely wrong one.

    lengths: stream_norms' record, {"stream": [|x_0|, ..., |x_24|], "attn": [...], "mlp": [...]} (24 each).
    """
    x0 = lengths["stream"][0]
    updates = [u for pair in zip(lengths["attn"], lengths["mlp"], strict=True) for u in pair]
    squares = sum(u * u for u in updates)
    rms = math.sqrt(squares / len(updates))
    blocks = len(lengths["attn"])
    return {
        "right angles": math.sqrt(x0 ** 2 + squares),
        "in a line": x0 + sum(updates),
        "one update per block": math.sqrt(x0 ** 2 + blocks * rms ** 2),
        "input left out": math.sqrt(squares),
        "block 1's updates": math.sqrt(x0 ** 2 + blocks * (lengths["attn"][0] ** 2 + lengths["mlp"][0] ** 2)),
        "input in a line": x0 + math.sqrt(squares),
        "lengths not squared": math.sqrt(x0 ** 2 + sum(updates)),
    }


# What each wrong model assumed, in a sentence.
_STREAM_SENTENCES = {
    "in a line": "You added the lengths in a line, as if every update pointed the way the stream does.",
    "one update per block": "You counted 24 updates, one per block; each block adds two, attention's and the "
                            "MLP's: 48 in all.",
    "input left out": "You added up the updates' squares but left out the input's: |x_24|^2 is about |x_0|^2 "
                      "plus the 48 squared updates.",
    "block 1's updates": "You gave every block block 1's updates; take the typical (root mean square) update "
                         "length of all 48, printed above.",
    "input in a line": "You combined the updates at right angles but added the result to the input in a line: "
                       "the updates are at right angles to the input too, so square it with them.",
    "lengths not squared": "You added the updates' lengths under the square root; right angles add their "
                           "squares: |x_0|^2 + 48 x (update length)^2.",
}
_STREAM_NEAR = 0.06   # a guess within 6% of a wrong model is that model (rounding the printed lengths moves it ~3%)
_STREAM_BANDS = [
    (lambda guess, actual: guess >= 3 * actual, _STREAM_SENTENCES["in a line"]),
    (lambda guess, actual: guess < 2, "That is about one update's length, the stream without residuals: with "
                                      "residuals each sublayer adds to the stream instead of replacing it."),
    (lambda guess, actual: guess <= 0.65 * actual,
     "You kept the stream near its input's length, as if a norm rescaled it: in a pre-LN stack the norms "
     "only feed the branches, and the stream itself is never normalised."),
    (lambda guess, actual: abs(guess - actual) <= 0.2 * actual,
     "Close, but outside the 10% the check allows: a guess in round numbers lands this near, and the right "
     "model of how the lengths combine lands within 10%."),
    (lambda guess, actual: guess < actual,
     "That is short: the stream grows by more than that, since every one of the 48 updates, two per block, "
     "adds its own squared length to the stream's."),
    (lambda guess, actual: guess > actual,
     "That is long for updates at right angles to the stream: their squared lengths add, not their lengths, "
     "so the stream grows far less than the updates' lengths summed."),
]


def _stream_mistake(value, lengths):
    """The sentence naming the model behind a wrong guess, or None."""
    actual = lengths["stream"][-1]
    models = {name: v for name, v in stream_models(lengths).items() if name in _STREAM_SENTENCES}
    name, nearest = min(models.items(), key=lambda item: abs(value - item[1]) / item[1])
    near = 0.01 if value % 5 == 0 else _STREAM_NEAR   # a round 10 or 15 is an estimate, not a wrong formula
    if abs(value - nearest) <= near * nearest:
        return _STREAM_SENTENCES[name]
    for assumed, sentence in _STREAM_BANDS:
        if assumed(value, actual):
            return sentence
    return None


@referee(_STREAM.exercise)
def check_stream_guess(guess, lengths):
    """Exercise 1: the stream's mean token length after 24 blocks (a number), against the run's.

    lengths: stream_norms' record with residuals (the answer is its last stream length); a bare number is
    read as the answer alone (no model named then but the bands).
    """
    if not isinstance(lengths, dict):
        lengths = {"stream": [plain(lengths)], "attn": [], "mlp": []}
    actual = lengths["stream"][-1]
    feedback = _STREAM(guess, actual)
    value = plain(guess)
    if feedback.status != WRONG or isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not math.isfinite(value):
        return feedback
    if lengths["attn"]:
        sentence = _stream_mistake(float(value), lengths)
    else:
        sentence = next((s for assumed, s in _STREAM_BANDS if assumed(value, actual)), None)
    if sentence is None:
        return feedback
    return wrong(_STREAM.exercise, say("{said} {message}", said=sentence, message=feedback.message))
