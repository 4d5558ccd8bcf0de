"""Count a model's parameters from its Hugging Face `config.json`, component by component.

Three families, each read with its own field names:

- GPT-2 (`model_type` "gpt2", and "gpt3" for the paper's constants in GPT-2's names):
  n_embd, n_layer, n_head, n_positions, n_inner (None means 4 * n_embd), vocab_size.
  Learned position embeddings, biases on every linear layer, LayerNorm (weight + bias),
  the unembedding tied to the embedding unless tie_word_embeddings is false.
- Llama-style ("llama", "mistral"): hidden_size, intermediate_size, num_hidden_layers,
  num_attention_heads, num_key_value_heads (grouped-query attention), vocab_size,
  tie_word_embeddings. RMSNorm (weight only), no biases, a gated MLP (gate, up, down).
- Mixtral-style MoE ("mixtral"): Llama plus num_local_experts gated MLPs per layer, of which
  num_experts_per_tok run for each token, chosen by a router (d_model x n_experts).

`weights_only=True` counts the big matrices only (token embedding, attention, MLP, router,
unembedding): no biases, no norms, no position embeddings, the convention of the GPT-3 table.

    python -m helpers params gpt2            # a shipped config, or a path to any config.json
"""

import argparse
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from helpers.data import data_dir, data_path

GPT2_TYPES = ("gpt2", "gpt3")
LLAMA_TYPES = ("llama", "mistral")
MOE_TYPES = ("mixtral",)
COMPONENTS = ("embedding", "position_embedding", "attention", "mlp", "router", "norms", "unembedding")


class ConfigError(ValueError):
    """A config.json that the calculator cannot read: names the field that is wrong."""


@dataclass
class Breakdown:
    """Parameters of one model: `components` sum to `total`; `per_layer` is one block."""

    name: str
    model_type: str
    total: int
    active: int  # parameters used for one token; == total for dense models
    components: dict = field(default_factory=dict)
    per_layer: dict = field(default_factory=dict)
    n_layers: int = 0
    d_model: int = 0
    d_ff: int = 0
    n_heads: int = 0
    n_kv_heads: int = 0
    head_dim: int = 0
    vocab_size: int = 0
    n_experts: int = 1
    experts_per_token: int = 1
    weights_only: bool = False

    @property
    def attention(self):
        return self.components["attention"]

    @property
    def mlp(self):
        return self.components["mlp"]

    @property
    def mlp_share(self):
        """Fraction of all parameters in the MLPs (all experts for an MoE)."""
        return self.mlp / self.total


def shipped_configs():
    """Names of the configs shipped in data/configs/, e.g. ['gpt2', ..., 'mixtral-8x7b']."""
    return sorted(p.stem for p in (data_dir() / "configs").glob("*.json"))


def load_config(source):
    """A config dict from a dict, a path to a config.json, or a shipped name such as 'gpt2'."""
    if isinstance(source, dict):
        return dict(source)
    if not isinstance(source, (str, Path)):
        raise TypeError(f"source must be a dict, a path or a config name, got {type(source).__name__}")
    path = Path(source)
    if not path.is_file():
        if str(source) not in shipped_configs():
            raise FileNotFoundError(
                f"{str(source)!r} is neither a file nor a shipped config; "
                f"shipped configs: {', '.join(shipped_configs())}")
        path = data_path(f"configs/{source}.json")
    try:
        config = json.loads(path.read_text())
    except json.JSONDecodeError as err:
        raise ConfigError(f"{path} is not valid JSON: {err}") from err
    if not isinstance(config, dict):
        raise ConfigError(f"{path} holds a {type(config).__name__}, expected a JSON object")
    config.setdefault("_name_or_path", path.parent.name if path.name == "config.json" else path.stem)
    return config


def _field(config, name, meaning, default=None):
    """config[name] as a positive int; a ConfigError naming the field if missing or wrong."""
    value = config.get(name)
    value = default if value is None else value
    if value is None:
        kind = config.get("model_type")
        raise ConfigError(f"config (model_type {kind!r}) lacks the field {name!r} ({meaning})")
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(f"config field {name!r} ({meaning}) must be a positive integer, got {value!r}")
    return value


def _gpt2(config, weights_only):
    d = _field(config, "n_embd", "d_model")
    n_layers = _field(config, "n_layer", "number of blocks")
    n_heads = _field(config, "n_head", "attention heads")
    n_pos = _field(config, "n_positions", "context length")
    vocab = _field(config, "vocab_size", "vocabulary size")
    d_ff = _field(config, "n_inner", "d_ff; null means 4 * n_embd", default=4 * d)
    if d % n_heads:
        raise ConfigError(f"n_embd={d} must be a multiple of n_head={n_heads}")
    bias = 0 if weights_only else 1
    per_layer = {
        "attention": 4 * d * d + bias * 4 * d,  # c_attn (d -> 3d) and c_proj (d -> d)
        "mlp": 2 * d * d_ff + bias * (d_ff + d),  # c_fc (d -> d_ff) and c_proj (d_ff -> d)
        "router": 0,
        "norms": 0 if weights_only else 2 * 2 * d,  # ln_1, ln_2: weight and bias
    }
    tied = config.get("tie_word_embeddings", True)
    components = {
        "embedding": vocab * d,
        "position_embedding": 0 if weights_only else n_pos * d,
        "final_norm": 0 if weights_only else 2 * d,
        "unembedding": 0 if tied else vocab * d,
    }
    shape = dict(d_model=d, d_ff=d_ff, n_layers=n_layers, n_heads=n_heads, n_kv_heads=n_heads,
                 head_dim=d // n_heads, vocab_size=vocab)
    return per_layer, components, shape, 1, 1


def _llama(config, weights_only, moe):
    d = _field(config, "hidden_size", "d_model")
    d_ff = _field(config, "intermediate_size", "d_ff of one MLP")
    n_layers = _field(config, "num_hidden_layers", "number of blocks")
    n_heads = _field(config, "num_attention_heads", "query heads")
    n_kv = _field(config, "num_key_value_heads", "key/value heads", default=n_heads)
    vocab = _field(config, "vocab_size", "vocabulary size")
    if config.get("head_dim") is None and d % n_heads:
        raise ConfigError(f"hidden_size={d} must be a multiple of num_attention_heads={n_heads}")
    head_dim = _field(config, "head_dim", "size of one head", default=d // n_heads)
    if n_heads % n_kv:
        raise ConfigError(
            f"num_attention_heads={n_heads} must be a multiple of num_key_value_heads={n_kv}")
    n_experts = _field(config, "num_local_experts", "experts per layer") if moe else 1
    top_k = _field(config, "num_experts_per_tok", "experts per token") if moe else 1
    if top_k > n_experts:
        raise ConfigError(f"num_experts_per_tok={top_k} exceeds num_local_experts={n_experts}")
    bias = 0 if weights_only else 1
    q_out, kv_out = n_heads * head_dim, n_kv * head_dim
    attention = d * q_out + 2 * d * kv_out + q_out * d  # q, k, v, o
    if config.get("attention_bias"):
        attention += bias * (q_out + 2 * kv_out + d)
    expert = 3 * d * d_ff  # gate_proj, up_proj (d -> d_ff), down_proj (d_ff -> d)
    if config.get("mlp_bias"):
        expert += bias * (2 * d_ff + d)
    per_layer = {
        "attention": attention,
        "mlp": n_experts * expert,
        "router": d * n_experts if moe else 0,
        "norms": 0 if weights_only else 2 * d,  # input and post-attention RMSNorm: weight only
    }
    tied = config.get("tie_word_embeddings", False)
    components = {
        "embedding": vocab * d,
        "position_embedding": 0,  # rotary embeddings: no parameters
        "final_norm": 0 if weights_only else d,
        "unembedding": 0 if tied else vocab * d,
    }
    shape = dict(d_model=d, d_ff=d_ff, n_layers=n_layers, n_heads=n_heads, n_kv_heads=n_kv,
                 head_dim=head_dim, vocab_size=vocab)
    return per_layer, components, shape, n_experts, top_k


def count_params(config, weights_only=False):
    """Breakdown of a config (dict, path or shipped name) into embedding, attention, MLP, ..."""
    config = load_config(config)
    kind = config.get("model_type")
    if kind in GPT2_TYPES:
        per_layer, extra, shape, n_experts, top_k = _gpt2(config, weights_only)
    elif kind in LLAMA_TYPES + MOE_TYPES:
        per_layer, extra, shape, n_experts, top_k = _llama(config, weights_only, kind in MOE_TYPES)
    else:
        known = ", ".join(GPT2_TYPES + LLAMA_TYPES + MOE_TYPES)
        raise ConfigError(f"unknown model_type {kind!r} in config; this calculator reads: {known}")
    n_layers = shape["n_layers"]
    components = {
        "embedding": extra["embedding"],
        "position_embedding": extra["position_embedding"],
        "attention": n_layers * per_layer["attention"],
        "mlp": n_layers * per_layer["mlp"],
        "router": n_layers * per_layer["router"],
        "norms": n_layers * per_layer["norms"] + extra["final_norm"],
        "unembedding": extra["unembedding"],
    }
    total = sum(components.values())
    idle_experts = (n_experts - top_k) * (per_layer["mlp"] // n_experts)
    return Breakdown(
        name=str(config.get("_name_or_path", kind)), model_type=kind, total=total,
        active=total - n_layers * idle_experts, components=components, per_layer=per_layer,
        n_experts=n_experts, experts_per_token=top_k, weights_only=weights_only, **shape)


def flops_per_token(config, seq_len, causal=True):
    """Forward FLOPs of one token at context length seq_len, summed over all layers.

    A dict with "mlp" (2 FLOPs per active MLP and router weight), "attention_projections"
    (2 per Q, K, V, O weight) and "attention_core", the parameter-free QK^T and AV products:
    a token that sees t keys costs 2 * t * d_attn for each. Causal (default): averaged over a
    sequence of seq_len tokens a token sees seq_len / 2 keys, so the core costs
    2 * n_layers * seq_len * d_attn (Kaplan et al. 2020); causal=False: all seq_len keys, twice that.
    """
    if isinstance(seq_len, bool) or not isinstance(seq_len, int) or seq_len < 1:
        raise ValueError(f"seq_len must be a positive integer, got {seq_len!r}")
    b = count_params(config, weights_only=True)
    active_mlp = b.per_layer["mlp"] // b.n_experts * b.experts_per_token + b.per_layer["router"]
    return {
        "mlp": 2 * b.n_layers * active_mlp,
        "attention_projections": 2 * b.attention,
        "attention_core": _core_per_token_per_key(b, causal) * seq_len,
    }


def _core_per_token_per_key(b, causal):
    return (2 if causal else 4) * b.n_layers * b.n_heads * b.head_dim


def crossover_seq_len(config, causal=True):
    """The shortest context length at which attention's QK^T and AV cost as much as the MLP."""
    config = load_config(config)
    mlp = flops_per_token(config, 1, causal)["mlp"]
    b = count_params(config, weights_only=True)
    return -(-mlp // _core_per_token_per_key(b, causal))  # ceiling division


def human(n):
    """124439808 -> '124.4M', 175181291520 -> '175.2B'."""
    for unit, size in (("T", 10**12), ("B", 10**9), ("M", 10**6), ("K", 10**3)):
        if abs(n) >= size:
            return f"{n / size:.1f}{unit}"
    return str(n)


def format_table(b):
    """The breakdown as a text table: component, parameters, share of the total."""
    kind = "weights only" if b.weights_only else "exact"
    lines = [
        f"{b.name} ({b.model_type}, {kind}): d_model={b.d_model:,} d_ff={b.d_ff:,} "
        f"n_layers={b.n_layers} heads={b.n_heads} kv_heads={b.n_kv_heads} vocab={b.vocab_size:,}",
        f"{'component':<20}{'parameters':>18}{'share':>8}",
    ]
    for name, count in b.components.items():
        lines.append(f"{name:<20}{count:>18,}{count / b.total:>8.1%}")
    lines.append(f"{'total':<20}{b.total:>18,}{1:>8.1%}   ({human(b.total)})")
    if b.n_experts > 1:
        lines.append(f"{'active per token':<20}{b.active:>18,}{b.active / b.total:>8.1%}"
                     f"   ({b.experts_per_token} of {b.n_experts} experts, {human(b.active)})")
    return "\n".join(lines)


def to_json(b):
    """The breakdown as a JSON-ready dict, with mlp_share added."""
    return {**asdict(b), "mlp_share": b.mlp_share}


def main(argv=None):
    """`python -m helpers params CONFIG [--json] [--weights-only]`: print the breakdown."""
    parser = argparse.ArgumentParser(
        prog="python -m helpers params",
        description="Parameters of a model, by component, from its Hugging Face config.json.")
    parser.add_argument("config", help="path to a config.json, or a shipped name: "
                        + ", ".join(shipped_configs()))
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--weights-only", action="store_true",
                        help="count the big matrices only (no biases, norms, position embeddings)")
    args = parser.parse_args(argv)
    try:
        breakdown = count_params(args.config, weights_only=args.weights_only)
    except (ConfigError, FileNotFoundError) as err:
        parser.exit(2, f"error: {err}\n")
    print(json.dumps(to_json(breakdown), indent=2) if args.json else format_table(breakdown))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
