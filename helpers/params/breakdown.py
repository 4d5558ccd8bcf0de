"""A model's parameters by component, from its config: the Breakdown, FLOPs per token, tables.

Components, in the course's words: embedding (the token table; OPT's project_in too),
position_embedding (learned positions only), attention (q, k, v, o, however fused),
mlp (every MLP weight: dense MLPs, routed experts, shared experts), router (the MoE gate
d_model x n_experts; Qwen2-MoE's shared_expert_gate too), norms (every LayerNorm/RMSNorm,
the ones on queries and keys included), unembedding (the lm_head, 0 when tied, its bias).
"""

import unicodedata
from dataclasses import asdict, dataclass, field

from helpers import validate
from helpers.language import said
from helpers.params import classic, experts, llama_like
from helpers.params.fields import ConfigError, Fields
from helpers.params.files import load_config
from helpers.params.parts import Parts

FAMILIES = {**classic.FAMILIES, **llama_like.FAMILIES, **experts.FAMILIES}
COMPONENTS = ("embedding", "position_embedding", "attention", "mlp", "router", "norms",
              "unembedding")


@dataclass
class Breakdown:
    """Parameters of one model: `components` sum to `total`; `per_layer` is one block (the last)."""

    name: str
    model_type: str
    total: int
    active: int  # parameters used for one token; == total for dense models
    components: dict = field(default_factory=dict)
    per_layer: dict = field(default_factory=dict)
    n_layers: int = 0
    d_model: int = 0
    d_ff: int = 0  # of one MLP; of one routed expert in an MoE
    n_heads: int = 0
    n_kv_heads: int = 0
    head_dim: int = 0  # of queries and keys
    vocab_size: int = 0
    n_experts: int = 1
    experts_per_token: int = 1
    weights_only: bool = False
    mlp_active: int = 0  # MLP weights one token uses: all of them for a dense model
    v_head_dim: int = 0  # of values; == head_dim except in latent attention
    n_shared_experts: int = 0

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

    @property
    def mlp_active_share(self):
        """Fraction of the parameters one token uses that sit in the MLPs (== mlp_share if
        dense)."""
        return self.mlp_active / self.active

    @property
    def non_embedding(self):
        """Parameters outside the embedding, position and unembedding tables."""
        c = self.components
        return self.total - c["embedding"] - c["position_embedding"] - c["unembedding"]


def _family(config):
    if "model_type" not in config:
        raise ConfigError("config lacks the field 'model_type' (which model family it is); every "
                          "Hugging Face config.json names one, e.g. \"model_type\": \"llama\"")
    kind = config.get("model_type")
    if isinstance(kind, str) and kind in FAMILIES:
        return FAMILIES[kind]
    hint = ""
    if isinstance(config.get("text_config"), dict):
        hint = " (a multimodal config: its language model's config is its text_config)"
    known = ", ".join(sorted(FAMILIES))
    raise ConfigError(
        f"unknown model_type {kind!r} in config{hint}; this calculator reads: {known}")


def count_params(config, weights_only=False):
    """Breakdown of a config (dict, path or shipped name) into embedding, attention, MLP, ..."""
    config = load_config(config)
    weights_only = validate.boolean(weights_only, "weights_only")
    model = _family(config)(Fields(config), Parts(weights_only))
    runs = model.blocks

    def over_blocks(part):
        return sum(n * getattr(block, part) for n, block in runs)

    components = {
        "embedding": model.embedding,
        "position_embedding": model.position_embedding,
        "attention": over_blocks("attention"),
        "mlp": over_blocks("mlp"),
        "router": over_blocks("router"),
        "norms": over_blocks("norms") + model.norms,
        "unembedding": model.unembedding,
    }
    total, mlp_active = sum(components.values()), over_blocks("mlp_active")
    last = runs[-1][1]
    shape = {"v_head_dim": model.shape["head_dim"], **model.shape}
    return Breakdown(
        name=str(config.get("_name_or_path", config["model_type"])),
        model_type=config["model_type"],
        total=total, active=total - components["mlp"] + mlp_active, components=components,
        per_layer={k: getattr(last, k) for k in ("attention", "mlp", "router", "norms",
                                                 "mlp_active")},
        weights_only=weights_only, mlp_active=mlp_active, **shape)


def flops_per_token(config, seq_len, causal=True):
    """Forward FLOPs of one token at context length seq_len, summed over all layers.

    A dict with "mlp" (2 FLOPs per active MLP and router weight), "attention_projections" (2 per
    attention weight) and "attention_core", the parameter-free QK^T and AV products: a token that
    sees t keys costs 2 * t * d_attn for each. Causal (default): averaged over a sequence of seq_len
    tokens a token sees seq_len / 2 keys, so the core costs 2 * n_layers * seq_len * d_attn (Kaplan
    et al. 2020); causal=False: all seq_len keys, twice that.
    """
    seq_len = validate.positive_int(seq_len, "seq_len")
    causal = validate.boolean(causal, "causal")
    b = count_params(config, weights_only=True)
    return {
        "mlp": 2 * (b.mlp_active + b.components["router"]),
        "attention_projections": 2 * b.attention,
        "attention_core": _core_per_token_per_key(b, causal) * seq_len,
    }


def _core_per_token_per_key(b, causal):
    # QK^T over head_dim and AV over v_head_dim, per head and layer; halved by a causal mask
    return (1 if causal else 2) * b.n_layers * b.n_heads * (b.head_dim + b.v_head_dim)


def crossover_seq_len(config, causal=True):
    """The shortest context length at which attention's QK^T and AV cost as much as the MLP."""
    config = load_config(config)
    causal = validate.boolean(causal, "causal")
    mlp = flops_per_token(config, 1, causal)["mlp"]
    b = count_params(config, weights_only=True)
    return -(-mlp // _core_per_token_per_key(b, causal))  # ceiling division


def human(n):
    """124439808 -> '124.4M', 175181291520 -> '175.2B'."""
    validate.real_number(n, "n")
    for unit, size in (("T", 10**12), ("B", 10**9), ("M", 10**6), ("K", 10**3)):
        if abs(n) >= size:
            return f"{n / size:.1f}{unit}"
    return str(n)


def _columns(text):
    """Columns text takes in a monospace output (a Hangul syllable takes two)."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _cell(text, columns, right=False):
    """text padded to `columns` (on the left when `right`), by the columns it takes."""
    space = " " * max(columns - _columns(text), 0)
    return space + text if right else text + space


def format_table(b):
    """The breakdown as a text table: component, parameters, share of the total."""
    validate.instance_of(b, "b", Breakdown, "(from count_params)")
    shape = ("{name} ({model_type}, weights only): d_model={d_model:,} d_ff={d_ff:,} "
             "n_layers={n_layers} heads={heads} kv_heads={kv_heads} "
             "vocab={vocab:,}" if b.weights_only else
             "{name} ({model_type}, exact): d_model={d_model:,} d_ff={d_ff:,} n_layers={n_layers} "
             "heads={heads} kv_heads={kv_heads} vocab={vocab:,}")
    # the columns' headers
    component, parameters, share = said("component | parameters | share").split(" | ")
    lines = [
        said(shape, name=b.name, model_type=b.model_type, d_model=b.d_model, d_ff=b.d_ff,
             n_layers=b.n_layers, heads=b.n_heads, kv_heads=b.n_kv_heads, vocab=b.vocab_size),
        _cell(component, 20) + _cell(parameters, 18, right=True) + _cell(share, 8, right=True),
    ]
    for name, count in b.components.items():
        lines.append(f"{name:<20}{count:>18,}{count / b.total:>8.1%}")
    lines.append(f"{'total':<20}{b.total:>18,}{1:>8.1%}   ({human(b.total)})")
    if b.n_experts > 1:
        experts = (said("{k} of {n} experts + {shared} shared, {active}", k=b.experts_per_token,
                        n=b.n_experts,
                        shared=b.n_shared_experts, active=human(b.active)) if b.n_shared_experts
                   else
                   said("{k} of {n} experts, {active}", k=b.experts_per_token, n=b.n_experts,
                        active=human(b.active)))
        lines.append(
            f"{_cell(said('active per token'), 20)}{b.active:>18,}{b.active / b.total:>8.1%}   "
            f"({experts})")
        lines.append(said("MLP share: {share:.1%} of all parameters, {active:.1%} of those one "
                          "token uses", share=b.mlp_share, active=b.mlp_active_share))
    return "\n".join(lines)


def to_json(b):
    """The breakdown as a JSON-ready dict, with mlp_share, mlp_active_share and non_embedding
    added."""
    return {**asdict(b), "mlp_share": b.mlp_share, "mlp_active_share": b.mlp_active_share,
            "non_embedding": b.non_embedding}
