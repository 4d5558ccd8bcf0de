"""Mixture-of-experts families: in some or all blocks the MLP is n_experts gated MLPs, of which
a router (d_model x n_experts) picks num_experts_per_tok for each token.

mixtral, phimoe, olmoe: every block is an MoE block. qwen2_moe, qwen3_moe: MoE blocks every
decoder_sparse_step layers except mlp_only_layers, dense ones elsewhere; Qwen2-MoE adds a
shared expert that every token uses, scaled by a gate (shared_expert_gate, d_model x 1, counted
with the router). deepseek_v3: multi-head latent attention (queries and keys/values through
low-rank projections), dense MLPs in the first first_k_dense_replace blocks, and
n_shared_experts always-active experts beside the routed ones. Its multi-token-prediction
module is not part of the model transformers builds, so it is not counted here either.

A block's mlp counts every expert; mlp_active counts what one token uses.
"""

from helpers.params.fields import ConfigError
from helpers.params.llama_like import _sizes
from helpers.params.parts import Block, Model


def _routing(f, n_experts_name, aliases=()):
    """(n_experts, experts_per_token), checked against each other."""
    n_experts = f.count(n_experts_name, "experts per block", aliases=aliases)
    top_k = f.count("num_experts_per_tok", "experts each token uses")
    if top_k > n_experts:
        raise ConfigError(f"num_experts_per_tok={top_k} exceeds {n_experts_name}={n_experts}")
    return n_experts, top_k


def _model(f, p, blocks, sizes, n_experts, top_k, final_norm, lm_bias=0, **extra_shape):
    d, d_ff, n_layers, n_heads, n_kv, hd, vocab = sizes
    tied = f.flag("tie_word_embeddings", "the unembedding reuses the embedding matrix", False)
    shape = dict(d_model=d, d_ff=d_ff, n_layers=n_layers, n_heads=n_heads, n_kv_heads=n_kv,
                 head_dim=hd, vocab_size=vocab, n_experts=n_experts, experts_per_token=top_k)
    return Model([(n, block) for n, block in blocks if n], embedding=vocab * d,
                 unembedding=(0 if tied else vocab * d) + lm_bias, norms=final_norm,
                 shape=shape | extra_shape)


def _moe_block(p, attention, norms, d, d_expert, n_experts, top_k, shared=0, router_extra=0):
    expert = p.gated_mlp(d, d_expert)
    return Block(attention=attention, norms=norms, mlp=n_experts * expert + shared,
                 mlp_active=top_k * expert + shared, router=p.linear(d, n_experts) + router_extra)


def mixtral(f, p):
    """Mixtral: Mistral's attention, num_local_experts gated MLPs of width intermediate_size."""
    s = d, d_ff, n_layers, n_heads, n_kv, hd, _ = _sizes(f, kv_default=8)
    n_experts, top_k = _routing(f, "num_local_experts", aliases=("num_experts",))
    block = _moe_block(p, p.attention(d, n_heads, n_kv, hd), 2 * p.norm(d), d, d_ff, n_experts,
                       top_k)
    return _model(f, p, [(n_layers, block)], s, n_experts, top_k, p.norm(d))


def phimoe(f, p):
    """Phi-3.5-MoE: Mixtral's layout with LayerNorms (weight and bias) and an optional lm_head
    bias."""
    s = d, d_ff, n_layers, n_heads, n_kv, hd, vocab = _sizes(f, kv_default=8)
    n_experts, top_k = _routing(f, "num_local_experts")
    bias = f.flag("attention_bias", "biases on q, k, v and o", False)
    block = _moe_block(p, p.attention(d, n_heads, n_kv, hd, bias, bias), 2 * p.norm(d, bias=True),
                       d, d_ff, n_experts, top_k)
    lm_bias = p.bias(vocab) if f.flag("lm_head_bias", "a bias on the lm_head", False) else 0
    return _model(f, p, [(n_layers, block)], s, n_experts, top_k, p.norm(d, bias=True), lm_bias)


def olmoe(f, p):
    """OLMoE: q_norm over d_model and k_norm over the key width; experts of width
    intermediate_size."""
    s = d, d_ff, n_layers, n_heads, n_kv, hd, _ = _sizes(f)
    n_experts, top_k = _routing(f, "num_experts", aliases=("num_local_experts",))
    bias = f.flag("attention_bias", "biases on q, k, v and o", False)
    norms = 2 * p.norm(d) + p.norm(d) + p.norm(d // n_heads * n_kv)
    block = _moe_block(p, p.attention(d, n_heads, n_kv, hd, bias, bias), norms, d, d_ff,
                       n_experts, top_k)
    return _model(f, p, [(n_layers, block)], s, n_experts, top_k, p.norm(d))


def _sparse_layers(f, n_layers):
    """How many blocks are MoE blocks: every decoder_sparse_step-th, except mlp_only_layers."""
    step = f.count("decoder_sparse_step", "an MoE block every this many blocks", default=1)
    dense_only = f.layer_list("mlp_only_layers", "blocks with a dense MLP", n_layers)
    return n_layers // step - sum(1 for i in dense_only if (i + 1) % step == 0)


def qwen2_moe(f, p):
    """Qwen1.5-MoE / Qwen2-MoE: routed experts plus a gated shared expert; q/k/v biases."""
    s = d, _, n_layers, n_heads, n_kv, hd, vocab = _sizes(f, kv_default=16, d_ff=False)
    n_experts, top_k = _routing(f, "num_experts")
    d_expert = f.count("moe_intermediate_size", "d_ff of one routed expert")
    d_shared = f.count("shared_expert_intermediate_size", "d_ff of the shared expert", minimum=0)
    n_moe = _sparse_layers(f, n_layers)
    d_ff = f.count("intermediate_size", "d_ff of a dense block") if n_moe < n_layers else None
    attention = p.attention(d, n_heads, n_kv, hd,
                            qkv_bias=f.flag("qkv_bias", "biases on q, k and v", True))
    moe = _moe_block(p, attention, 2 * p.norm(d), d, d_expert, n_experts, top_k,
                     shared=p.gated_mlp(d, d_shared), router_extra=p.linear(d, 1))
    dense = Block(attention=attention, norms=2 * p.norm(d),
                  mlp=p.gated_mlp(d, d_ff) if d_ff else 0)
    s = (d, d_expert, n_layers, n_heads, n_kv, hd, vocab)
    return _model(f, p, [(n_layers - n_moe, dense), (n_moe, moe)], s, n_experts, top_k, p.norm(d),
                  n_shared_experts=1)


def qwen3_moe(f, p):
    """Qwen3-MoE: Qwen3's attention (q_norm, k_norm) and routed experts only."""
    s = d, _, n_layers, n_heads, n_kv, hd, vocab = _sizes(f, kv_default=4, d_ff=False)
    n_experts, top_k = _routing(f, "num_local_experts", aliases=("num_experts",))
    d_expert = f.count("moe_intermediate_size", "d_ff of one expert")
    n_moe = _sparse_layers(f, n_layers)
    d_ff = f.count("intermediate_size", "d_ff of a dense block") if n_moe < n_layers else None
    bias = f.flag("attention_bias", "biases on q, k, v and o", False)
    attention = p.attention(d, n_heads, n_kv, hd, bias, bias)
    norms = 2 * p.norm(d) + 2 * p.norm(hd)
    moe = _moe_block(p, attention, norms, d, d_expert, n_experts, top_k)
    dense = Block(attention=attention, norms=norms, mlp=p.gated_mlp(d, d_ff) if d_ff else 0)
    s = (d, d_expert, n_layers, n_heads, n_kv, hd, vocab)
    return _model(f, p, [(n_layers - n_moe, dense), (n_moe, moe)], s, n_experts, top_k, p.norm(d))


def _latent_attention(f, p, d, n_heads):
    """Multi-head latent attention: (weights, norm weights, query/key head width, value head
    width)."""
    q_rank = f.count("q_lora_rank", "rank of the query projection; null: full rank",
                     default=1536, null=None)
    kv_rank = f.count("kv_lora_rank", "rank of the key/value projection", default=512)
    nope = f.count("qk_nope_head_dim", "query/key width without rotary", default=128)
    rope = f.count("qk_rope_head_dim", "query/key width with rotary", default=64)
    v_dim = f.count("v_head_dim", "value head width", default=128)
    bias = f.flag("attention_bias", "biases on q_a, kv_a and o", False)
    qk_dim = nope + rope
    if q_rank is None:
        weights, norms = p.linear(d, n_heads * qk_dim), 0  # q_proj
    else:  # q_a_proj, q_a_layernorm, q_b_proj
        weights, norms = (p.linear(d, q_rank, bias) + p.linear(q_rank, n_heads * qk_dim),
                          p.norm(q_rank))
    weights += p.linear(d, kv_rank + rope, bias)  # kv_a_proj_with_mqa: the latent and a rotary key
    norms += p.norm(kv_rank)  # kv_a_layernorm
    weights += p.linear(kv_rank, n_heads * (nope + v_dim))  # kv_b_proj: keys and values per head
    weights += p.linear(n_heads * v_dim, d, bias)  # o_proj
    return weights, norms, qk_dim, v_dim


def deepseek_v3(f, p):
    """DeepSeek-V3: latent attention, first_k_dense_replace dense blocks, then routed + shared
    experts."""
    d = f.count("hidden_size", "d_model")
    n_layers = f.count("num_hidden_layers", "number of blocks")
    n_heads = f.count("num_attention_heads", "query heads")
    vocab = f.count("vocab_size", "vocabulary size")
    n_experts, top_k = _routing(f, "n_routed_experts", aliases=("num_local_experts",))
    d_expert = f.count("moe_intermediate_size", "d_ff of one expert")
    n_shared = f.count("n_shared_experts", "always-active experts", default=1, minimum=0)
    n_dense = min(n_layers, f.count("first_k_dense_replace", "dense blocks first", default=3,
                                    minimum=0))
    d_ff = f.count("intermediate_size", "d_ff of a dense block") if n_dense else None
    attention, attention_norms, qk_dim, v_dim = _latent_attention(f, p, d, n_heads)
    norms = 2 * p.norm(d) + attention_norms
    moe = _moe_block(p, attention, norms, d, d_expert, n_experts, top_k,
                     shared=p.gated_mlp(d, d_expert * n_shared))
    dense = Block(attention=attention, norms=norms, mlp=p.gated_mlp(d, d_ff) if d_ff else 0)
    s = (d, d_expert, n_layers, n_heads, n_heads, qk_dim, vocab)
    return _model(f, p, [(n_dense, dense), (n_layers - n_dense, moe)], s, n_experts, top_k,
                  p.norm(d), v_head_dim=v_dim, n_shared_experts=n_shared)


FAMILIES = {"mixtral": mixtral, "phimoe": phimoe, "olmoe": olmoe, "qwen2_moe": qwen2_moe,
            "qwen3_moe": qwen3_moe, "deepseek_v3": deepseek_v3}
