"""Exercise 3 (stretch): `class LlamaStack(nn.Module)`, n_layers of those blocks and the final
norm, as LlamaModel names them; helpers.block.LlamaStack's weights load into it."""

from helpers.block import LlamaStack
from helpers.checks.module import ModuleCheck
from helpers.checks.nb08_the_block.shared import (
    D_FF,
    D_MODEL,
    EPS,
    N_HEAD,
    N_LAYERS,
    _stream,
    _with_random_norms,
)
from helpers.checks.runner import Mistake
from helpers.checks.show import say


def _stack_with(layers, norm_each=False, final_norm=True):
    """The stack's output when `layers(s)` gives the blocks run, in order:
    a typical stacking mistake."""
    def answer(s, x):
        for layer in layers(s):
            x = layer(x)
            if norm_each:
                x = s.norm(x)
        return s.norm(x) if final_norm and not norm_each else x
    return answer


_STACK_MISTAKES = [
    ("your layers share one block: [block] * n_layers (or the same block appended n times) puts "
     "one set of weights in every slot, and the last layer's weights load into all of them. Build "
     "a new block for each layer: nn.ModuleList(LlamaBlock(...) for _ in range(n_layers)).",
     _stack_with(lambda s: [s.layers[-1]] * len(s.layers))),
    ("there is no final norm after the last layer: LlamaModel ends with "
     "self.norm(x), as GPT-2 ends with ln_f.",
     _stack_with(lambda s: s.layers, final_norm=False)),
    ("you normalised the stream after every layer; the stream is normalised only once, by "
     "self.norm after the last layer (each block normalises its sublayers' inputs itself).",
     _stack_with(lambda s: s.layers, norm_each=True)),
    ("only the first layer ran: is the `return` inside your loop over self.layers?",
     _stack_with(lambda s: s.layers[:1])),
    ("only the first layer ran: is the `return` inside your loop over self.layers?",
     _stack_with(lambda s: s.layers[:1], final_norm=False)),
    ("each layer read the stack's input instead of the previous layer's output: "
     "write x = layer(x) in the loop.",
     lambda s, x: s.norm(s.layers[-1](x))),
    ("your layers ran last to first: run self.layers in order, layer 0 first, so that the keys "
     "layers.0 ... are the first block the stream meets.",
     _stack_with(lambda s: list(s.layers)[::-1])),
    ("the last layer ran twice (or one layer too many): loop over "
     "self.layers once, n_layers blocks.",
     _stack_with(lambda s: [*s.layers, s.layers[-1]])),
    ("the final norm comes before the last layer: LlamaModel runs every layer, then self.norm "
     "once.",
     lambda s, x: s.layers[-1](
         s.norm(_stack_with(lambda t: t.layers[:-1], final_norm=False)(s, x)))),
]

_LAYERS_NAME = ("your list of blocks is called {name}; LlamaModel calls it layers: self.layers = "
                "nn.ModuleList(...), so that the keys read layers.0.input_layernorm.weight.")

check_llama_stack = ModuleCheck(
    "Exercise 3 (a stack of Llama blocks)",
    name="your stack",
    reference=_with_random_norms(lambda: LlamaStack(D_MODEL, N_HEAD, D_FF, N_LAYERS, eps=EPS)),
    build=lambda cls: cls(D_MODEL, N_HEAD, D_FF, N_LAYERS),
    inputs=_stream,
    key_hints={"norm": "there is no final norm: LlamaModel ends with self.norm = RMSNorm(d_model), "
                       "applied after the last layer (GPT-2's ln_f).",
               **{name + ".0.input_layernorm.weight": say(_LAYERS_NAME, name=name)
                  for name in ("blocks", "h", "layer", "block", "decoder_layers")}},
    mistakes=[Mistake(message, answer=answer) for message, answer in _STACK_MISTAKES],
    success=say("helpers.block.LlamaStack's weights load into your stack and give the same "
                "output: {n_layers} blocks, each with its own weights, then the final norm, "
                "under LlamaModel's names.",
                n_layers=N_LAYERS),
)
