"""The pieces every family is counted from: linear layers, norms, tables, and blocks of layers.

`Parts(weights_only)` counts a piece the way the chosen mode does: weights_only=True keeps the
big matrices only (no biases, no norms, no position embeddings), the GPT-3 table's convention.
"""

from dataclasses import dataclass, field


@dataclass
class Block:
    """Parameters of one transformer block by component; mlp_active: the MLP weights one token
    uses."""

    attention: int = 0
    mlp: int = 0
    router: int = 0
    norms: int = 0
    mlp_active: int | None = None  # None: a dense MLP, every weight is used

    def __post_init__(self):
        if self.mlp_active is None:
            self.mlp_active = self.mlp


@dataclass
class Model:
    """A counted model: its blocks as (how many, Block) runs, the parts outside them, its shape."""

    blocks: list  # [(n_layers_of_this_kind, Block), ...] in layer order
    embedding: int
    unembedding: int
    norms: int = 0  # outside the blocks: final norm, embedding norm
    position_embedding: int = 0
    shape: dict = field(default_factory=dict)


class Parts:
    """Parameter counts of the pieces of a model, in full or weights_only mode."""

    def __init__(self, weights_only=False):
        self.weights_only = weights_only

    def linear(self, d_in, d_out, bias=False):
        """A d_in -> d_out linear layer: d_in * d_out weights, plus d_out biases if it has them."""
        return d_in * d_out + (d_out if bias and not self.weights_only else 0)

    def norm(self, width, bias=False):
        """A LayerNorm (weight and bias) or RMSNorm (weight only) over width features."""
        return 0 if self.weights_only else width * (2 if bias else 1)

    def bias(self, width):
        """A bias vector on its own (e.g. an lm_head bias beside a tied weight)."""
        return 0 if self.weights_only else width

    def positions(self, n_positions, d_model):
        """A learned position-embedding table."""
        return 0 if self.weights_only else n_positions * d_model

    def gated_mlp(self, d_model, d_ff, bias=False):
        """gate_proj and up_proj (d_model -> d_ff), down_proj (d_ff -> d_model)."""
        return 2 * self.linear(d_model, d_ff, bias) + self.linear(d_ff, d_model, bias)

    def mlp(self, d_model, d_ff, bias=True):
        """Up-projection (c_fc, d_model -> d_ff) and down-projection (c_proj, d_ff -> d_model)."""
        return self.linear(d_model, d_ff, bias) + self.linear(d_ff, d_model, bias)

    def attention(self, d_model, n_heads, n_kv_heads, head_dim, qkv_bias=False, o_bias=False):
        """q (n_heads heads), k and v (n_kv_heads heads each) from d_model, and o back to
        d_model."""
        q, kv = n_heads * head_dim, n_kv_heads * head_dim
        return (self.linear(d_model, q, qkv_bias) + 2 * self.linear(d_model, kv, qkv_bias)
                + self.linear(q, d_model, o_bias))
