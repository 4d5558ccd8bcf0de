"""The parameter calculator: published totals, source post 1's GPT-3 table, torch modules, bad configs."""

import csv
import json

import pytest
from torch import nn

from helpers import config_params as cp
from helpers.block import Block, RMSNorm
from helpers.data import data_path
from helpers.params.published import agrees, published_counts, published_value

PUBLISHED = published_counts()


def test_every_shipped_config_has_a_published_count():
    assert set(cp.shipped_configs()) == set(PUBLISHED)
    assert all("total" in counts or "non_embedding" in counts for counts in PUBLISHED.values())


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_published_counts(name):
    """Each shipped config's total (and active, non-embedding count) is the published number."""
    b = cp.count_params(name)
    ours = {"total": b.total, "active": b.active, "non_embedding": b.non_embedding}
    for quantity, (published, source) in PUBLISHED[name].items():
        assert agrees(ours[quantity], published), f"{name} {quantity}: {ours[quantity]:,} vs {published} ({source})"
    assert sum(b.components.values()) == b.total
    assert set(b.components) == set(cp.COMPONENTS)
    assert b.attention == b.components["attention"] and b.mlp == b.components["mlp"]


def test_published_numbers_are_read_at_their_precision():
    assert published_value("7.61B") == (7_610_000_000, 10_000_000)
    assert published_value("1,414,647,808") == (1_414_647_808, 1)
    assert published_value("671B") == (671 * 10**9, 10**9)
    assert agrees(7_615_616_512, "7.61B") and agrees(7_615_616_512, "7.62B")  # truncated or rounded
    assert not agrees(7_625_616_512, "7.61B") and not agrees(1_414_647_809, "1,414,647,808")
    for bad in ["", "7.6X", "B", None, "-3B", "nanB"]:
        with pytest.raises(ValueError, match="published count"):
            published_value(bad)


def test_moe_active_parameters_and_mlp_shares():
    deepseek = cp.count_params("deepseek-v3")
    assert (deepseek.n_experts, deepseek.experts_per_token, deepseek.n_shared_experts) == (256, 8, 1)
    expert = 3 * 7168 * 2048
    dense, moe = 3 * 3 * 7168 * 18432, 58 * (256 + 1) * expert
    assert deepseek.mlp == dense + moe and deepseek.mlp_active == dense + 58 * (8 + 1) * expert
    assert deepseek.components["router"] == 58 * 7168 * 256
    assert deepseek.active == deepseek.total - 58 * 248 * expert
    assert round(deepseek.mlp_share, 3) == 0.980 and round(deepseek.mlp_active_share, 3) == 0.644
    qwen = cp.count_params("qwen1.5-moe-a2.7b")  # the shared expert runs for every token
    shared = 3 * 2048 * 5632
    assert qwen.mlp_active == 24 * (4 * 3 * 2048 * 1408 + shared)
    assert qwen.components["router"] == 24 * (2048 * 60 + 2048)  # router and shared_expert_gate
    dense = cp.count_params("llama-3-8b")
    assert dense.mlp_active == dense.mlp and dense.mlp_active_share == dense.mlp_share


def test_mixtral_active_parameters():
    b = cp.count_params("mixtral-8x7b")
    assert (b.n_experts, b.experts_per_token) == (8, 2)
    expert = 3 * 4096 * 14336
    assert b.active == b.total - 32 * 6 * expert == 12_879_925_248
    assert b.components["router"] == 32 * 4096 * 8
    assert cp.count_params("llama-2-7b").active == cp.count_params("llama-2-7b").total == 6_738_415_616


def test_gqa_shrinks_k_and_v_only():
    llama3 = cp.count_params("llama-3-8b")
    assert (llama3.n_heads, llama3.n_kv_heads, llama3.head_dim) == (32, 8, 128)
    assert llama3.per_layer["attention"] == 2 * 4096 * 4096 + 2 * 4096 * 1024
    mha = cp.load_config("llama-3-8b") | {"num_key_value_heads": 32}
    assert cp.count_params(mha).per_layer["attention"] == 4 * 4096 * 4096


def test_source_post_gpt3_table_weights_only():
    b = cp.count_params("gpt3-175b", weights_only=True)
    rows = {r["layer"]: int(r["parameters"]) for r in csv.DictReader(open(data_path("gpt3_parameter_table.csv")))}
    assert b.total == rows["Total"] == 175_181_291_520
    assert b.components["embedding"] == rows["Embedding"] == b.components["unembedding"]
    assert b.attention == 4 * rows["Key"] == rows["Up-projection"] == 57_982_058_496
    assert b.mlp == rows["Up-projection"] + rows["Down-projection"]
    assert sum(v for k, v in rows.items() if k != "Total") == rows["Total"]
    assert b.per_layer["mlp"] == 2 * b.per_layer["attention"] == 8 * 12288**2
    assert round(b.mlp_share, 3) == 0.662


def test_weights_only_drops_biases_norms_and_positions():
    exact, weights = cp.count_params("gpt2"), cp.count_params("gpt2", weights_only=True)
    d, layers = 768, 12
    assert exact.total - weights.total == 1024 * d + layers * (4 * d + 3072 + d + 4 * d) + 2 * d
    assert weights.components["position_embedding"] == weights.components["norms"] == 0


def n_params(module):
    return sum(p.numel() for p in module.parameters())


def test_gpt2_matches_a_torch_model():
    d, layers, heads, vocab, ctx = 32, 3, 4, 101, 16
    model = nn.ModuleList([nn.Embedding(vocab, d), nn.Embedding(ctx, d), nn.LayerNorm(d)]
                          + [Block(d, heads) for _ in range(layers)])
    config = {"model_type": "gpt2", "n_embd": d, "n_layer": layers, "n_head": heads,
              "n_positions": ctx, "n_inner": None, "vocab_size": vocab}
    b = cp.count_params(config)
    assert b.total == n_params(model)
    assert b.per_layer["mlp"] == n_params(model[3].mlp)
    assert b.per_layer["attention"] == n_params(model[3].attn)


def test_llama_with_gqa_matches_a_torch_model():
    d, d_ff, layers, heads, kv_heads, vocab = 32, 40, 2, 8, 2, 50
    head_dim = d // heads

    def layer():
        attn = [nn.Linear(d, heads * head_dim, bias=False), nn.Linear(d, kv_heads * head_dim, bias=False),
                nn.Linear(d, kv_heads * head_dim, bias=False), nn.Linear(heads * head_dim, d, bias=False)]
        mlp = [nn.Linear(d, d_ff, bias=False), nn.Linear(d, d_ff, bias=False), nn.Linear(d_ff, d, bias=False)]
        return nn.ModuleList(attn + mlp + [RMSNorm(d), RMSNorm(d)])

    model = nn.ModuleList([nn.Embedding(vocab, d), RMSNorm(d), nn.Linear(d, vocab, bias=False)]
                          + [layer() for _ in range(layers)])
    config = {"model_type": "llama", "hidden_size": d, "intermediate_size": d_ff,
              "num_hidden_layers": layers, "num_attention_heads": heads,
              "num_key_value_heads": kv_heads, "vocab_size": vocab}
    assert cp.count_params(config).total == n_params(model)
    tied = cp.count_params(config | {"tie_word_embeddings": True})
    assert tied.total == n_params(model) - d * vocab and tied.components["unembedding"] == 0


def test_flops_per_token_and_crossover():
    f = cp.flops_per_token("gpt2", 1024)
    assert f["mlp"] == 2 * 12 * 2 * 768 * 3072 == 2 * f["attention_projections"]
    assert f["attention_core"] == 2 * 12 * 1024 * 768
    assert cp.flops_per_token("gpt2", 1024, causal=False)["attention_core"] == 2 * f["attention_core"]
    assert cp.crossover_seq_len("gpt2") == 8 * 768 == 6144
    assert cp.crossover_seq_len("gpt3-175b") == 8 * 12288 == 98_304
    assert cp.crossover_seq_len("gpt2", causal=False) == 3072
    at = cp.flops_per_token("gpt2", 6144)
    assert at["attention_core"] == at["mlp"] > cp.flops_per_token("gpt2", 6143)["attention_core"]
    moe = cp.flops_per_token("mixtral-8x7b", 1)
    assert moe["mlp"] == 2 * 32 * (2 * 3 * 4096 * 14336 + 4096 * 8)
    mla = cp.flops_per_token("deepseek-v3", 1)  # QK^T over 192 = 128 + 64 dims, AV over 128
    assert mla["attention_core"] == 61 * 128 * (192 + 128)
    deepseek = cp.count_params("deepseek-v3", weights_only=True)
    assert mla["mlp"] == 2 * (deepseek.mlp_active + deepseek.components["router"])
    with pytest.raises(ValueError, match="seq_len must be a positive integer, got 0"):
        cp.flops_per_token("gpt2", 0)


def test_load_config_sources(tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(cp.load_config("gpt2")))
    assert cp.count_params(path).total == cp.count_params(str(path)).total == 124_439_808
    original = {"model_type": "gpt2"}
    assert cp.load_config(original) is not original


def test_demo_scales_a_shipped_config():
    from helpers.demos.nb06_parameter_table import scaled_config

    gpt2 = scaled_config("gpt2", d_scale=2.0, layer_scale=0.5, ff_scale=1.0)
    assert (gpt2["n_embd"], gpt2["n_layer"], gpt2["n_inner"]) == (1536, 6, 6144)
    llama = scaled_config("llama-3-8b", d_scale=0.5, layer_scale=1.0, ff_scale=2.0)
    assert (llama["hidden_size"], llama["intermediate_size"]) == (2048, 14336)
    assert cp.count_params(llama).head_dim == 64
    tiny = cp.count_params(scaled_config("gpt2", d_scale=0.01))
    assert tiny.d_model == 12 and tiny.d_ff == 48      # never below one width per head
    assert scaled_config("mixtral-8x7b")["num_local_experts"] == 8
    assert cp.count_params(scaled_config("gpt3-175b")).total == cp.count_params("gpt3-175b").total
