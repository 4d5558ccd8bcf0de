"""The parameter calculator against Hugging Face transformers, the reference for every model type.

Each case builds the model transformers builds from a config, on the meta device (shapes, no
memory, nothing downloaded), sorts its parameters into the course's components by their names,
and asserts that the calculator gives exactly the same count per component, in total, in
weights-only mode and, for a mixture of experts, in active parameters per token. Tied tensors
are counted once (named_parameters lists a shared tensor once).

Every model type is checked from its class defaults (which describe a published model, e.g.
Falcon-7B, Cohere Command-R, the 671B DeepSeek-V3) and from small variants: grouped-query
attention, an explicit head_dim, tied and untied embeddings, biases, and each family's own
switches. A variant is also counted from the sparse dict a config.json would hold (only the
fields given), so the calculator's defaults are checked against transformers' too.
"""

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # nothing is downloaded

import inspect  # noqa: E402

import pytest  # noqa: E402
import torch  # noqa: E402
import transformers  # noqa: E402
from transformers import AutoConfig, AutoModelForCausalLM, MixtralConfig  # noqa: E402
from transformers.models.deepseek_v3.modeling_deepseek_v3 import DeepseekV3Attention  # noqa: E402
from transformers.utils import logging as hf_logging  # noqa: E402

from helpers import config_params as cp  # noqa: E402

hf_logging.set_verbosity_error()  # defaults such as StarCoder2's token ids draw warnings

# Small sizes, so that a variant builds in milliseconds.
SMALL = {"hidden_size": 64, "intermediate_size": 96, "num_hidden_layers": 3,
         "num_attention_heads": 4, "vocab_size": 101}
GPT2_SMALL = {"n_embd": 64, "n_layer": 3, "n_head": 4, "vocab_size": 101}
GQA = {"num_key_value_heads": 2}
HEAD_DIM = {"head_dim": 24}  # queries 4 x 24 = 96 wide, d_model 64
TIED, UNTIED = {"tie_word_embeddings": True}, {"tie_word_embeddings": False}
MOE = {"num_local_experts": 4, "num_experts_per_tok": 2}
NO_PAD = {"pad_token_id": None}  # Phi-3's default pad token 32000 lies outside a small vocabulary
QWEN_MOE = {"num_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 32}

# model type: {variant name: fields over the class defaults}; None: the class defaults alone.
CASES = {
    "gpt2": {"defaults": None, "small": GPT2_SMALL | {"n_positions": 16},
             "n_inner, untied": GPT2_SMALL | {"n_positions": 16, "n_inner": 80} | UNTIED,
             "cross-attention": GPT2_SMALL | {"n_positions": 16, "add_cross_attention": True},
             "names of llama": {"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
                                "max_position_embeddings": 16, "vocab_size": 101}},
    "gptj": {"defaults": None, "small": GPT2_SMALL, "n_inner, tied": GPT2_SMALL | {"n_inner": 80} | TIED},
    "gpt_neox": {"defaults": None, "small": SMALL,
                 "no attention bias, tied": SMALL | {"attention_bias": False} | TIED},
    "opt": {"defaults": None,
            "small": SMALL | {"ffn_dim": 96, "max_position_embeddings": 16},
            "projected embedding, untied": SMALL | {"ffn_dim": 96, "max_position_embeddings": 16,
                                                    "word_embed_proj_dim": 32} | UNTIED,
            "no biases, no affine norms, post-norm": SMALL | {
                "ffn_dim": 96, "max_position_embeddings": 16, "enable_bias": False,
                "layer_norm_elementwise_affine": False, "do_layer_norm_before": False}},
    "bloom": {"defaults": None, "small": {"hidden_size": 64, "n_layer": 3, "n_head": 4, "vocab_size": 101},
              "untied": {"hidden_size": 64, "n_layer": 3, "n_head": 4, "vocab_size": 101} | UNTIED},
    "falcon": {"defaults": None,
               "small multi-query": SMALL | {"ffn_hidden_size": 96},
               "new decoder architecture (GQA)": SMALL | {"new_decoder_architecture": True,
                                                          "num_kv_heads": 2} | UNTIED,
               "new architecture, one norm": SMALL | {"new_decoder_architecture": True, "num_kv_heads": 2,
                                                      "num_ln_in_parallel_attn": 1},
               "sequential, biases, multi-head": SMALL | {"parallel_attn": False, "bias": True,
                                                          "multi_query": False}},
    "llama": {"defaults": None, "small": SMALL, "GQA": SMALL | GQA, "head_dim": SMALL | GQA | HEAD_DIM,
              "tied": SMALL | TIED, "biases": SMALL | {"attention_bias": True, "mlp_bias": True}},
    "granite": {"defaults": None, "GQA, tied": SMALL | GQA | TIED,
                "biases": SMALL | {"attention_bias": True, "mlp_bias": True}},
    "mistral": {"defaults": None, "small": SMALL | GQA, "head_dim, tied": SMALL | GQA | HEAD_DIM | TIED,
                "bias fields ignored": SMALL | GQA | {"attention_bias": True, "mlp_bias": True}},
    "mixtral": {"defaults": None, "small": SMALL | GQA | MOE, "head_dim, tied": SMALL | GQA | MOE | HEAD_DIM | TIED,
                "num_experts spelling": SMALL | GQA | {"num_experts": 4, "num_experts_per_tok": 1}},
    "qwen2": {"defaults": None, "small": SMALL | GQA, "head_dim, tied": SMALL | GQA | HEAD_DIM | TIED},
    "qwen2_moe": {"defaults": None,
                  "small": SMALL | GQA | QWEN_MOE | {"shared_expert_intermediate_size": 48},
                  "sparse step, dense layers, tied": SMALL | GQA | QWEN_MOE | TIED | {
                      "shared_expert_intermediate_size": 48, "decoder_sparse_step": 2,
                      "mlp_only_layers": [2], "qkv_bias": False, "num_hidden_layers": 5}},
    "qwen3": {"defaults": None, "small": SMALL | GQA | {"head_dim": 16},
              "bias, tied": SMALL | GQA | {"head_dim": 16, "attention_bias": True} | TIED},
    "qwen3_moe": {"defaults": None,
                  "small": SMALL | GQA | QWEN_MOE | {"head_dim": 24},
                  "sparse step, dense layers": SMALL | GQA | QWEN_MOE | {
                      "num_key_value_heads": 2, "decoder_sparse_step": 3, "mlp_only_layers": [0],
                      "num_hidden_layers": 6, "attention_bias": True} | TIED},
    "gemma": {"defaults": None, "small MQA": SMALL | {"num_key_value_heads": 1, "head_dim": 32},
              "bias, untied": SMALL | {"num_key_value_heads": 4, "head_dim": 16, "attention_bias": True} | UNTIED},
    "gemma2": {"defaults": None, "small": SMALL | GQA | {"head_dim": 32},
               "untied": SMALL | GQA | {"head_dim": 16} | UNTIED},
    "gemma3_text": {"defaults": None, "small": SMALL | GQA | {"head_dim": 32},
                    "bias, untied": SMALL | GQA | {"head_dim": 16, "attention_bias": True} | UNTIED},
    "phi": {"defaults": None, "small": SMALL, "GQA, qk norms, tied": SMALL | GQA | {"qk_layernorm": True} | TIED},
    "phi3": {"defaults": None, "small": SMALL | GQA | NO_PAD,
             "head_dim, tied": SMALL | GQA | HEAD_DIM | TIED | NO_PAD},
    "phimoe": {"defaults": None, "small": SMALL | GQA | MOE,
               "biases, tied": SMALL | GQA | MOE | {"attention_bias": True, "lm_head_bias": True} | TIED},
    "olmo": {"defaults": None, "small": SMALL | GQA, "bias, tied": SMALL | {"attention_bias": True} | TIED},
    "olmo2": {"defaults": None, "small": SMALL | GQA, "head_dim, bias": SMALL | GQA | HEAD_DIM | {"attention_bias": True}},
    "olmoe": {"defaults": None, "small": SMALL | GQA | {"num_experts": 4, "num_experts_per_tok": 2},
              "bias, tied": SMALL | {"num_experts": 4, "num_experts_per_tok": 2, "attention_bias": True} | TIED},
    "stablelm": {"defaults": None, "small": SMALL | GQA,
                 "q/k/v bias, per-head norms, parallel": SMALL | GQA | {
                     "use_qkv_bias": True, "qk_layernorm": True, "use_parallel_residual": True} | TIED},
    "starcoder2": {"defaults": None, "small": SMALL | GQA, "no biases, untied": SMALL | {"use_bias": False} | UNTIED},
    "cohere": {"defaults": None, "small": SMALL | GQA,
               "qk norms, untied": SMALL | GQA | {"use_qk_norm": True} | UNTIED},
    "deepseek_v3": {
        "defaults": None,
        "small": SMALL | {"moe_intermediate_size": 32, "n_routed_experts": 8, "num_experts_per_tok": 2,
                          "n_shared_experts": 1, "first_k_dense_replace": 1, "q_lora_rank": 24,
                          "kv_lora_rank": 16, "qk_nope_head_dim": 8, "qk_rope_head_dim": 4,
                          "v_head_dim": 12, "n_group": 2, "topk_group": 1},
        "full-rank q, 2 shared experts, biases": SMALL | {
            "moe_intermediate_size": 32, "n_routed_experts": 8, "num_experts_per_tok": 2,
            "n_shared_experts": 2, "first_k_dense_replace": 2, "q_lora_rank": None, "kv_lora_rank": 16,
            "qk_nope_head_dim": 8, "qk_rope_head_dim": 4, "v_head_dim": 12, "attention_bias": True,
            "n_group": 2, "topk_group": 1} | TIED,
        "no dense layer, no shared expert": SMALL | {
            "moe_intermediate_size": 32, "n_routed_experts": 8, "num_experts_per_tok": 2,
            "n_shared_experts": 0, "first_k_dense_replace": 0, "q_lora_rank": 24, "kv_lora_rank": 16,
            "qk_nope_head_dim": 8, "qk_rope_head_dim": 4, "v_head_dim": 12, "n_group": 2,
            "topk_group": 1}},
}
EXPECTED_TYPES = {
    "gpt2", "gpt_neox", "gptj", "opt", "bloom", "falcon", "llama", "mistral", "mixtral", "qwen2",
    "qwen2_moe", "qwen3", "qwen3_moe", "gemma", "gemma2", "gemma3_text", "phi", "phi3", "phimoe",
    "olmo", "olmo2", "olmoe", "stablelm", "starcoder2", "cohere", "granite", "deepseek_v3"}

EMBEDDING = {"wte", "embed_tokens", "embed_in", "word_embeddings", "project_in"}
POSITIONS = {"wpe", "embed_positions"}
UNEMBEDDING = {"lm_head", "embed_out", "project_out"}
ROUTER = {"gate", "router", "shared_expert_gate"}
MLP = {"mlp", "block_sparse_moe", "fc1", "fc2"}
ATTENTION = {"attn", "self_attn", "attention", "self_attention", "crossattention"}


def component_of(name):
    """The course's component of a transformers parameter, from its dotted name."""
    parts = name.split(".")
    if any("norm" in part or part.startswith("ln_") for part in parts):
        return "norms"
    for names, component in [(UNEMBEDDING, "unembedding"), (EMBEDDING, "embedding"),
                             (POSITIONS, "position_embedding")]:
        if names & set(parts):
            return component
    module = parts[-2] if parts[-1] in ("weight", "bias") else parts[-1]
    if MLP & set(parts):
        return "router" if module in ROUTER else "mlp"
    if ATTENTION & set(parts):
        return "attention"
    raise AssertionError(f"parameter {name} belongs to no component of the course")


def reference(model_type, fields):
    """(config, counts per component, weights-only total, active total) of transformers' model."""
    config = AutoConfig.for_model(model_type, **(fields or {}))
    with torch.device("meta"):
        model = AutoModelForCausalLM.from_config(config)
    counts, weights_only, routed = dict.fromkeys(cp.COMPONENTS, 0), 0, 0
    for name, param in model.named_parameters():  # a tied tensor is listed once
        component = component_of(name)
        counts[component] += param.numel()
        if component not in ("norms", "position_embedding") and not name.endswith("bias"):
            weights_only += param.numel()
        if ".experts." in f".{name}" and component == "mlp":
            routed += param.numel()
    total = sum(counts.values())
    active = total
    if routed:  # a token runs k of the n routed experts
        n_experts = next(getattr(config, name) for name in ("n_routed_experts", "num_local_experts",
                                                             "num_experts") if hasattr(config, name))
        active = total - routed * (n_experts - config.num_experts_per_tok) // n_experts
    return config, counts, weights_only, active


PARAMS = [pytest.param(t, v, id=f"{t}: {v}") for t, variants in CASES.items() for v in variants]


def _knows(model_type, variant):
    """Whether this transformers version builds a variant (older ones lack two features)."""
    if (model_type, variant) == ("mixtral", "num_experts spelling"):
        return MixtralConfig.attribute_map.get("num_experts") == "num_local_experts"
    if model_type == "deepseek_v3" and CASES[model_type][variant] and \
            CASES[model_type][variant].get("q_lora_rank", 0) is None:
        return "q_proj" in inspect.getsource(DeepseekV3Attention.__init__)
    return True


def test_every_listed_model_type_is_covered():
    assert set(CASES) == EXPECTED_TYPES <= set(cp.FAMILIES)


@pytest.mark.filterwarnings("ignore:Initializing zero-element tensors:UserWarning")  # 0 shared experts
@pytest.mark.parametrize("model_type, variant", PARAMS)
def test_counts_equal_transformers(model_type, variant):
    fields = CASES[model_type][variant]
    if not _knows(model_type, variant):
        pytest.skip(f"transformers {transformers.__version__} does not build this variant")
    config, counts, weights_only, active = reference(model_type, fields)
    sources = [config.to_dict()]  # every field, as transformers holds it
    if fields is not None:
        sources.append({"model_type": model_type, **fields})  # only what a config.json would say
    for source in sources:
        b = cp.count_params(source)
        assert b.components == counts
        assert b.total == sum(counts.values())
        assert b.active == active
        assert cp.count_params(source, weights_only=True).total == weights_only


def test_defaults_cover_the_published_models():
    """A few class defaults are published models: the calculator gives their published totals."""
    assert reference("gpt2", None)[1] == cp.count_params("gpt2").components
    deepseek = cp.count_params(AutoConfig.for_model("deepseek_v3").to_dict())
    assert deepseek.total == cp.count_params("deepseek-v3").total == 671_026_404_352
    qwen_moe = cp.count_params(AutoConfig.for_model("qwen2_moe").to_dict())
    assert qwen_moe.total == cp.count_params("qwen1.5-moe-a2.7b").total


def test_shipped_configs_equal_transformers():
    """Every shipped config that transformers reads, built from its own fields."""
    for name in cp.shipped_configs():
        config = cp.load_config(name)
        if config["model_type"] not in cp.FAMILIES or config["model_type"] == "gpt3":
            continue
        fields = {k: v for k, v in config.items() if k not in ("model_type", "_name_or_path")}
        _, counts, _, active = reference(config["model_type"], fields)
        b = cp.count_params(name)
        assert (b.components, b.active) == (counts, active), name
