"""Dense families built like Llama: rotary positions, q/k/v/o attention (grouped-query where
num_key_value_heads < num_attention_heads) and a gated MLP: gate_proj and up_proj
(d_model -> d_ff), down_proj (d_ff -> d_model).

They differ in small things, each read here as transformers reads it: which projections
have biases, how many norms a block has (and whether they are RMSNorm, weight only, or
LayerNorm, weight and bias), norms on queries and keys, and whether the unembedding is tied.
"""

from helpers.params.parts import Block, Model


def _sizes(f, kv_default=None, head_dim=True, head_dim_default=None, d_ff=True):
    """(d_model, d_ff, n_layers, n_heads, n_kv_heads, head_dim, vocab) of a Llama-style config."""
    d = f.count("hidden_size", "d_model")
    width = f.count("intermediate_size", "d_ff of the MLP") if d_ff else None
    n_layers = f.count("num_hidden_layers", "number of blocks")
    n_heads = f.count("num_attention_heads", "query heads")
    vocab = f.count("vocab_size", "vocabulary size")
    n_kv, hd = f.heads(d, n_heads, kv_default, head_dim, head_dim_default)
    return d, width, n_layers, n_heads, n_kv, hd, vocab


def _model(f, p, sizes, block, tied_default, final_norm):
    """One kind of block repeated n_layers times, with the embedding, final norm and lm_head."""
    d, d_ff, n_layers, n_heads, n_kv, hd, vocab = sizes
    tied = f.flag("tie_word_embeddings", "the unembedding reuses the embedding matrix",
                  tied_default)
    return Model([(n_layers, block)], embedding=vocab * d, unembedding=0 if tied else vocab * d,
                 norms=final_norm,
                 shape=dict(d_model=d, d_ff=d_ff, n_layers=n_layers, n_heads=n_heads,
                            n_kv_heads=n_kv, head_dim=hd, vocab_size=vocab))


def _block(p, sizes, norms, qkv_bias=False, o_bias=False, mlp_bias=False):
    """q/k/v/o attention and a gated MLP; norms: the block's norm weights, counted by the caller."""
    d, d_ff, _, n_heads, n_kv, hd, _ = sizes
    return Block(attention=p.attention(d, n_heads, n_kv, hd, qkv_bias, o_bias),
                 mlp=p.gated_mlp(d, d_ff, mlp_bias), norms=norms)


def _bias(f):
    """(qkv_bias, o_bias) from attention_bias, which puts a bias on all four projections."""
    bias = f.flag("attention_bias", "biases on q, k, v and o", False)
    return bias, bias


def llama(f, p):
    """Llama (and Granite): optional attention_bias and mlp_bias, two RMSNorms per block."""
    s = _sizes(f)
    mlp_bias = f.flag("mlp_bias", "biases on gate, up and down", False)
    return _model(f, p, s, _block(p, s, 2 * p.norm(s[0]), *_bias(f), mlp_bias), False, p.norm(s[0]))


def mistral(f, p):
    """Mistral: Llama without any biases (attention_bias and mlp_bias do not apply)."""
    s = _sizes(f, kv_default=8)
    return _model(f, p, s, _block(p, s, 2 * p.norm(s[0])), False, p.norm(s[0]))


def phi3(f, p):
    """Phi-3: fused qkv_proj and gate_up_proj, which hold as many weights as separate ones."""
    s = _sizes(f)
    return _model(f, p, s, _block(p, s, 2 * p.norm(s[0])), False, p.norm(s[0]))


def qwen2(f, p):
    """Qwen2 / Qwen2.5: biases on q, k and v (not o)."""
    s = _sizes(f, kv_default=32)
    return _model(f, p, s, _block(p, s, 2 * p.norm(s[0]), qkv_bias=True), False, p.norm(s[0]))


def qwen3(f, p):
    """Qwen3: RMSNorm on each head's query and key (q_norm, k_norm), head_dim 128 by default."""
    s = d, _, _, _, _, hd, _ = _sizes(f, kv_default=32, head_dim_default=128)
    return _model(f, p, s, _block(p, s, 2 * p.norm(d) + 2 * p.norm(hd), *_bias(f)), False,
                  p.norm(d))


def gemma(f, p):
    """Gemma: head_dim 256, tied unembedding."""
    s = _sizes(f, kv_default=16, head_dim_default=256)
    return _model(f, p, s, _block(p, s, 2 * p.norm(s[0]), *_bias(f)), True, p.norm(s[0]))


def gemma2(f, p):
    """Gemma 2: four RMSNorms per block (before and after attention and MLP)."""
    s = _sizes(f, kv_default=4, head_dim_default=256)
    return _model(f, p, s, _block(p, s, 4 * p.norm(s[0]), *_bias(f)), True, p.norm(s[0]))


def gemma3_text(f, p):
    """Gemma 3 (text): Gemma 2's four norms plus q_norm and k_norm on each head."""
    s = d, _, _, _, _, hd, _ = _sizes(f, kv_default=4, head_dim_default=256)
    return _model(f, p, s, _block(p, s, 4 * p.norm(d) + 2 * p.norm(hd), *_bias(f)), True, p.norm(d))


def olmo(f, p):
    """OLMo: LayerNorms without any parameters."""
    s = _sizes(f)
    return _model(f, p, s, _block(p, s, 0, *_bias(f)), False, 0)


def olmo2(f, p):
    """OLMo 2: norms after attention and MLP, and q_norm / k_norm over all heads together."""
    s = d, _, _, n_heads, n_kv, hd, _ = _sizes(f)
    norms = 2 * p.norm(d) + p.norm(n_heads * hd) + p.norm(n_kv * hd)
    return _model(f, p, s, _block(p, s, norms, *_bias(f)), False, p.norm(d))


def stablelm(f, p):
    """StableLM: LayerNorms, optional q/k/v biases, per-head q/k LayerNorms, parallel residual."""
    s = d, _, _, n_heads, n_kv, hd, _ = _sizes(f, kv_default=32, head_dim=False)
    qkv_bias = f.flag("use_qkv_bias", "biases on q, k and v", False)
    norms = p.norm(d, bias=True)  # input_layernorm
    if not f.flag("use_parallel_residual", "attention and MLP side by side", False):
        norms += p.norm(d, bias=True)  # post_attention_layernorm
    if f.flag("qk_layernorm", "a LayerNorm (weight only) per query and key head", False):
        norms += (n_heads + n_kv) * p.norm(hd)
    return _model(f, p, s, _block(p, s, norms, qkv_bias), False, p.norm(d, bias=True))


def cohere(f, p):
    """Command-R (cohere): one weight-only LayerNorm per block, optional q/k norms; tied."""
    s = d, _, _, n_heads, n_kv, hd, _ = _sizes(f)
    norms = p.norm(d)
    if f.flag("use_qk_norm", "LayerNorms on queries and keys", False):
        norms += p.norm(n_heads * hd) + p.norm(n_kv * hd)
    return _model(f, p, s, _block(p, s, norms, *_bias(f)), True, p.norm(d))


FAMILIES = {"llama": llama, "granite": llama, "mistral": mistral, "phi3": phi3, "qwen2": qwen2,
            "qwen3": qwen3, "gemma": gemma, "gemma2": gemma2, "gemma3_text": gemma3_text,
            "olmo": olmo, "olmo2": olmo2, "stablelm": stablelm, "cohere": cohere}
