"""What every exercise compares with: a shipped config as the learner's function receives it,
the sizes of a config that the typical mistakes depend on, and the right total."""

from typing import NamedTuple

from helpers.checks.cases import Named
from helpers.checks.show import say
from helpers.config_params import count_params, load_config


def _config(shipped, label=None, **changes):
    """A shipped config as the learner's function receives it, with some fields
    changed (label: a say() Text)."""
    return Named(load_config(shipped) | changes, say("{name} config", name=label or shipped))


class Sizes(NamedTuple):
    """The sizes of a Llama- or Mixtral-style config that the typical mistakes depend on."""

    d: int          # hidden_size
    d_ff: int       # intermediate_size, of one MLP (one expert in an MoE)
    layers: int
    vocab: int
    kv_width: int   # num_key_value_heads * head_dim: the width of k_proj and v_proj
    experts: int


def _sizes(c):
    """Sizes of a config dict; experts is 1 for a dense model."""
    d = c["hidden_size"]
    return Sizes(d, c["intermediate_size"], c["num_hidden_layers"], c["vocab_size"],
                 c["num_key_value_heads"] * (d // c["num_attention_heads"]),
                 c.get("num_local_experts", 1))


def _total(c):
    return count_params(dict(c)).total


def _off_by(*deltas):
    """A `when` test: the learner's count is the reference's plus one of
    deltas(config) (None: not here)."""

    def when(got, c):
        steps = {delta(c) for delta in deltas} - {None, 0}
        return isinstance(got, int) and got - _total(c) in steps

    return when


def _tied(c):
    return c.get("tie_word_embeddings") is True
