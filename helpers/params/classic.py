"""Families whose MLP is the classic pair: an up-projection to d_ff, an activation, a
down-projection (GPT-2's c_fc and c_proj), most of them with biases and LayerNorm.

gpt2 (and gpt3, the GPT-3 paper's constants in GPT-2's names), gptj, gpt_neox (Pythia),
opt, bloom, falcon, phi, starcoder2. Each function reads one model_type's fields with
transformers' defaults and returns a parts.Model.
"""

from helpers.params.parts import Block, Model


def _shape(d, d_ff, n_layers, n_heads, n_kv, head_dim, vocab):
    return dict(d_model=d, d_ff=d_ff, n_layers=n_layers, n_heads=n_heads, n_kv_heads=n_kv,
                head_dim=head_dim, vocab_size=vocab)


def _tied(f, default):
    return f.flag("tie_word_embeddings", "the unembedding reuses the embedding matrix", default)


def _sizes(f, d_ff="intermediate_size"):
    """(d_model, d_ff, n_layers, n_heads, vocab) under transformers' usual names."""
    return (f.count("hidden_size", "d_model"), f.count(d_ff, "d_ff"),
            f.count("num_hidden_layers", "number of blocks"),
            f.count("num_attention_heads", "attention heads"),
            f.count("vocab_size", "vocabulary size"))


def _gpt2_sizes(f):
    """(d_model, d_ff, n_layers, n_heads, vocab) under GPT-2's names (transformers' as aliases)."""
    d = f.count("n_embd", "d_model", aliases=("hidden_size",))
    n_layers = f.count("n_layer", "number of blocks", aliases=("num_hidden_layers",))
    n_heads = f.count("n_head", "attention heads", aliases=("num_attention_heads",))
    vocab = f.count("vocab_size", "vocabulary size")
    d_ff = f.count("n_inner", "d_ff; null means 4 * n_embd", default=4 * d, null=4 * d)
    f.divides(d, "n_embd", n_heads, "n_head")
    return d, d_ff, n_layers, n_heads, vocab


def gpt2(f, p):
    """GPT-2: learned positions, Conv1D layers with biases, LayerNorm; tied unembedding."""
    d, d_ff, n_layers, n_heads, vocab = _gpt2_sizes(f)
    n_pos = f.count("n_positions", "context length", aliases=("max_position_embeddings",))
    attention = p.linear(d, 3 * d, True) + p.linear(d, d, True)  # c_attn (q, k, v fused), c_proj
    norms = 2 * p.norm(d, bias=True)  # ln_1, ln_2
    if f.flag("add_cross_attention", "a cross-attention sublayer in every block", False):
        # crossattention: c_attn (keys and values, d -> 2d), q_attn, c_proj; and ln_cross_attn
        attention += p.linear(d, 2 * d, True) + 2 * p.linear(d, d, True)
        norms += p.norm(d, bias=True)
    block = Block(attention=attention, mlp=p.mlp(d, d_ff), norms=norms)
    return Model([(n_layers, block)], embedding=vocab * d,
                 unembedding=0 if _tied(f, True) else vocab * d, norms=p.norm(d, bias=True),
                 position_embedding=p.positions(n_pos, d),
                 shape=_shape(d, d_ff, n_layers, n_heads, n_heads, d // n_heads, vocab))


def gptj(f, p):
    """GPT-J: rotary positions, q/k/v/out without biases, one LayerNorm per block, lm_head bias."""
    d, d_ff, n_layers, n_heads, vocab = _gpt2_sizes(f)
    block = Block(attention=4 * p.linear(d, d), mlp=p.mlp(d, d_ff), norms=p.norm(d, bias=True))
    lm_head = (0 if _tied(f, False) else vocab * d) + p.bias(vocab)
    return Model([(n_layers, block)], embedding=vocab * d, unembedding=lm_head,
                 norms=p.norm(d, bias=True),
                 shape=_shape(d, d_ff, n_layers, n_heads, n_heads, d // n_heads, vocab))


def gpt_neox(f, p):
    """GPT-NeoX (Pythia): fused query_key_value, biases, two LayerNorms per block."""
    d, d_ff, n_layers, n_heads, vocab = _sizes(f)
    bias = f.flag("attention_bias", "biases on query_key_value and dense", True)
    attention = p.linear(d, 3 * d, bias) + p.linear(d, d, bias)
    block = Block(attention=attention, mlp=p.mlp(d, d_ff), norms=2 * p.norm(d, bias=True))
    return Model([(n_layers, block)], embedding=vocab * d,
                 unembedding=0 if _tied(f, False) else vocab * d, norms=p.norm(d, bias=True),
                 shape=_shape(d, d_ff, n_layers, n_heads, n_heads, d // n_heads, vocab))


def opt(f, p):
    """OPT: learned positions (2 extra rows), biases, optional projections around the embedding."""
    d, d_ff, n_layers, n_heads, vocab = _sizes(f, d_ff="ffn_dim")
    n_pos = f.count("max_position_embeddings", "context length")
    d_word = f.count("word_embed_proj_dim", "width of the word embedding", default=d, null=d)
    bias = f.flag("enable_bias", "biases on every linear layer", True)
    affine = f.flag("layer_norm_elementwise_affine", "LayerNorms with weight and bias", True)
    norm_first = f.flag("do_layer_norm_before", "LayerNorm before each sublayer", True)
    drop_final = f.flag("_remove_final_layer_norm", "no final LayerNorm", False)
    f.divides(d, "hidden_size", n_heads, "num_attention_heads")
    norm = p.norm(d, bias=True) if affine else 0
    block = Block(attention=4 * p.linear(d, d, bias), mlp=p.mlp(d, d_ff, bias), norms=2 * norm)
    project = p.linear(d_word, d) if d_word != d else 0  # project_in, and project_out back
    return Model([(n_layers, block)], embedding=vocab * d_word + project,
                 unembedding=(0 if _tied(f, True) else vocab * d_word) + project,
                 norms=norm if norm_first and not drop_final else 0,
                 position_embedding=p.positions(n_pos + 2, d),
                 shape=_shape(d, d_ff, n_layers, n_heads, n_heads, d // n_heads, vocab))


def bloom(f, p):
    """BLOOM: ALiBi (no position parameters), a LayerNorm on the embedding, d_ff = 4 d_model."""
    d = f.count("hidden_size", "d_model", aliases=("n_embed",))
    n_layers = f.count("n_layer", "number of blocks", aliases=("num_hidden_layers",))
    n_heads = f.count("n_head", "attention heads", aliases=("num_attention_heads",))
    vocab = f.count("vocab_size", "vocabulary size")
    f.divides(d, "hidden_size", n_heads, "n_head")
    attention = p.linear(d, 3 * d, True) + p.linear(d, d, True)
    block = Block(attention=attention, mlp=p.mlp(d, 4 * d), norms=2 * p.norm(d, bias=True))
    return Model([(n_layers, block)], embedding=vocab * d,
                 unembedding=0 if _tied(f, True) else vocab * d,
                 norms=2 * p.norm(d, bias=True),  # word_embeddings_layernorm and ln_f
                 shape=_shape(d, 4 * d, n_layers, n_heads, n_heads, d // n_heads, vocab))


def falcon(f, p):
    """Falcon: multi-query (7B) or grouped (new_decoder_architecture, 40B) fused attention."""
    d = f.count("hidden_size", "d_model", aliases=("n_embed",))
    n_layers = f.count("num_hidden_layers", "number of blocks")
    n_heads = f.count("num_attention_heads", "query heads")
    vocab = f.count("vocab_size", "vocabulary size")
    f.divides(d, "hidden_size", n_heads, "num_attention_heads")
    head_dim = d // n_heads
    new = f.flag("new_decoder_architecture", "Falcon-40B's grouped attention", False)
    multi_query = f.flag("multi_query", "one key/value head", True)
    parallel = f.flag("parallel_attn", "attention and MLP side by side", True)
    bias = f.flag("bias", "biases on every linear layer", False)
    n_kv = f.count("num_kv_heads", "key/value heads", default=n_heads, null=n_heads)
    d_ff = f.count("ffn_hidden_size", "d_ff; null means 4 * hidden_size", default=4 * d, null=4 * d)
    n_ln = f.count("num_ln_in_parallel_attn", "LayerNorms per parallel block", default=None,
                   null=None)
    n_ln = 2 if n_ln is None and new else n_ln
    if new:
        qkv, n_kv = (2 * n_kv + n_heads) * head_dim, n_kv
    elif multi_query:
        qkv, n_kv = d + 2 * head_dim, 1
    else:
        qkv, n_kv = 3 * d, n_heads
    n_norms = 2 if not parallel or n_ln == 2 else 1
    block = Block(attention=p.linear(d, qkv, bias) + p.linear(d, d, bias),
                  mlp=p.mlp(d, d_ff, bias), norms=n_norms * p.norm(d, bias=True))
    return Model([(n_layers, block)], embedding=vocab * d,
                 unembedding=0 if _tied(f, True) else vocab * d, norms=p.norm(d, bias=True),
                 shape=_shape(d, d_ff, n_layers, n_heads, n_kv, head_dim, vocab))


def phi(f, p):
    """Phi-1/2: attention and MLP in parallel after one LayerNorm, biases, an lm_head bias."""
    d, d_ff, n_layers, n_heads, vocab = _sizes(f)
    n_kv, head_dim = f.heads(d, n_heads)
    attention = p.attention(d, n_heads, n_kv, head_dim, qkv_bias=True, o_bias=True)
    norms = p.norm(d, bias=True)
    if f.flag("qk_layernorm", "LayerNorms on queries and keys", False):
        f.divides(d, "hidden_size", n_heads, "num_attention_heads")
        norms += 2 * p.norm(d // n_heads, bias=True)
    block = Block(attention=attention, mlp=p.mlp(d, d_ff), norms=norms)
    lm_head = (0 if _tied(f, False) else vocab * d) + p.bias(vocab)
    return Model([(n_layers, block)], embedding=vocab * d, unembedding=lm_head,
                 norms=p.norm(d, bias=True),
                 shape=_shape(d, d_ff, n_layers, n_heads, n_kv, head_dim, vocab))


def starcoder2(f, p):
    """StarCoder2: grouped-query attention, biases (use_bias), LayerNorm, classic c_fc/c_proj
    MLP."""
    d, d_ff, n_layers, n_heads, vocab = _sizes(f)
    n_kv, head_dim = f.heads(d, n_heads, kv_default=2)
    bias = f.flag("use_bias", "biases on every linear layer", True)
    block = Block(attention=p.attention(d, n_heads, n_kv, head_dim, bias, bias),
                  mlp=p.mlp(d, d_ff, bias), norms=2 * p.norm(d, bias=True))
    return Model([(n_layers, block)], embedding=vocab * d,
                 unembedding=0 if _tied(f, True) else vocab * d, norms=p.norm(d, bias=True),
                 shape=_shape(d, d_ff, n_layers, n_heads, n_kv, head_dim, vocab))


FAMILIES = {"gpt2": gpt2, "gpt3": gpt2, "gptj": gptj, "gpt_neox": gpt_neox, "opt": opt,
            "bloom": bloom, "falcon": falcon, "phi": phi, "starcoder2": starcoder2}
