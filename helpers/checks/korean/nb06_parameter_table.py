"""Notebook 06's check sentences (helpers/checks/nb06_parameter_table.py) in Korean."""

from helpers.checks.korean.cases import filled, named
from helpers.checks.nb06_parameter_table import (
    _LLAMA_CASES,
    _MOE_CASES,
    check_count_llama,
    check_count_moe,
    check_share_guess,
)

MESSAGES = {
    # Exercise 1
    "Exercise 1 (predict DeepSeek-V3's MLP share per token)": "연습 1 (DeepSeek-V3에서 토큰당 MLP 비중 예측하기)",
    "Each of DeepSeek-V3's {moe_layers} MoE layers holds {routed} routed experts and {shared} shared one, and a "
    "token runs {per_token} routed experts plus the shared one: {run} of {experts} expert MLPs. Attention, the "
    "first {dense} dense MLPs and the embeddings are used in full, so per token the MLP's share falls back near "
    "a dense model's 2/3.":
        "DeepSeek-V3의 MoE 층 {moe_layers}개에는 각각 라우팅되는 expert {routed}개와 공유 expert {shared}개가 "
        "있고, 토큰 하나는 라우팅되는 expert {per_token}개와 공유 expert를 실행합니다: expert MLP {experts}개 중 "
        "{run}개입니다. 어텐션, 처음 {dense}개의 dense MLP, 임베딩은 전부 쓰이므로, 토큰당 MLP의 비중은 dense "
        "모델의 2/3 가까이로 돌아옵니다.",
    "{{got:g}}% is about the MLP's share of all {total} parameters ({share:.0%}); the question asks for its share "
    "of the {active} one token uses, and a token skips most of the experts.":
        "{{got:g}}%는 전체 파라미터 {total}개 중 MLP의 비중({share:.0%})에 가깝습니다. 문제는 토큰 하나가 쓰는 "
        "{active}개 중 MLP의 비중을 묻고, 토큰은 expert 대부분을 건너뜁니다.",
    "{{got:g}}% is about the share of the expert MLPs one token runs ({run} of {experts}, {share:.1%}); the "
    "question asks what share of everything the token uses sits in the MLP, attention and embeddings included.":
        "{{got:g}}%는 토큰 하나가 실행하는 expert MLP의 비율(전체 {experts}개 중 {run}개, {share:.1%})에 "
        "가깝습니다. 문제는 토큰이 쓰는 모든 것(어텐션과 임베딩까지 포함) 중 MLP에 있는 비중을 묻습니다.",
    # Exercise 2
    "Exercise 2 (count a Llama config by hand)": "연습 2 (Llama config를 손으로 세기)",
    "{name} config": "{name}의 config",
    "tinyllama-1.1b with tie_word_embeddings: true": "tie_word_embeddings: true인 tinyllama-1.1b",
    "{call} = {got:,}: your count has an lm_head, but this config ties it (tie_word_embeddings is true): the "
    "unembedding reuses the embedding matrix, as GPT-2's does.":
        "{call} = {got:,}: 여러분의 개수에는 lm_head가 들어 있지만, 이 config는 그것을 임베딩에 묶습니다"
        "(tie_word_embeddings가 true): GPT-2에서처럼 unembedding이 임베딩 행렬을 다시 씁니다.",
    "{call} = {got:,}: the lm_head is missing: tie_word_embeddings is false, so the unembedding is a vocab_size x "
    "hidden_size matrix of its own.":
        "{call} = {got:,}: lm_head가 빠졌습니다: tie_word_embeddings가 false이므로 unembedding은 따로 있는 "
        "vocab_size x hidden_size 행렬입니다.",
    "{call} = {got:,}: you gave k_proj and v_proj the full width hidden_size; with grouped-query attention they "
    "have num_key_value_heads * head_dim outputs (head_dim = hidden_size / num_attention_heads).":
        "{call} = {got:,}: k_proj와 v_proj에 전체 너비 hidden_size를 주었습니다. grouped-query attention에서는 "
        "출력이 num_key_value_heads * head_dim개입니다(head_dim = hidden_size / num_attention_heads).",
    "{call} = {got:,}: one hidden_size x intermediate_size matrix per layer is missing: the gated MLP has three "
    "(gate_proj, up_proj, down_proj).":
        "{call} = {got:,}: 층마다 hidden_size x intermediate_size 행렬이 하나씩 빠졌습니다: Gated MLP에는 행렬이 "
        "세 개(gate_proj, up_proj, down_proj) 있습니다.",
    "{call} = {got:,}: the RMSNorm weights are missing: two per layer (input_layernorm, post_attention_layernorm) "
    "plus the final norm, hidden_size each.":
        "{call} = {got:,}: RMSNorm 가중치가 빠졌습니다: 층마다 두 개(input_layernorm, post_attention_layernorm)와 "
        "마지막 norm 하나이고, 각각 hidden_size개입니다.",
    "{call} = {got:,}: the final RMSNorm (hidden_size weights, after the last layer) is missing.":
        "{call} = {got:,}: 마지막 RMSNorm(마지막 층 뒤의 가중치 hidden_size개)이 빠졌습니다.",
    "{call} = {got:,}: you gave each RMSNorm a bias; RMSNorm has a weight only (LayerNorm, as in GPT-2, has both).":
        "{call} = {got:,}: RMSNorm마다 bias를 주었습니다. RMSNorm에는 가중치만 있습니다(GPT-2의 LayerNorm에는 "
        "둘 다 있습니다).",
    "{call} = {got:,}: Llama's linear layers have no biases (attention_bias and mlp_bias are false); count weights "
    "only.":
        "{call} = {got:,}: Llama의 선형 층에는 bias가 없습니다(attention_bias와 mlp_bias가 false): 가중치만 "
        "세세요.",
    "TinyLlama {:,}, Llama-3-8B {:,} and Llama-2-7B {:,}, exactly, and {:,} for TinyLlama with a tied lm_head.":
        "TinyLlama {:,}개, Llama-3-8B {:,}개, Llama-2-7B {:,}개가 정확히 맞고, lm_head를 묶은 TinyLlama의 "
        "{:,}개도 맞습니다.",
    # Exercise 3
    "Exercise 3 (count a mixture of experts)": "연습 3 (MoE 세기)",
    "small Mixtral-style, 16 experts, top-4": "작은 Mixtral 방식, expert 16개, top-4",
    "you returned (active, total); return (total, active).": "(active, total)을 반환했습니다: (total, active)를 반환하세요.",
    "{call}: active = total, but a token runs only num_experts_per_tok of the num_local_experts expert MLPs in "
    "each layer.":
        "{call}: active = total이지만, 토큰은 층마다 expert MLP num_local_experts개 중 num_experts_per_tok개만 "
        "실행합니다.",
    "{call}: the router is missing: each layer has a gate of hidden_size x num_local_experts weights (one score "
    "per expert), and every token uses it.":
        "{call}: 라우터가 빠졌습니다: 층마다 가중치 hidden_size x num_local_experts개의 gate(expert마다 점수 "
        "하나)가 있고, 모든 토큰이 그것을 씁니다.",
    "{call}: total is right, but active leaves out the router: every token runs it to choose its experts.":
        "{call}: total은 맞지만 active에서 라우터가 빠졌습니다: 모든 토큰이 자기 expert를 고르려고 라우터를 "
        "실행합니다.",
    "{call}: total counts one expert per layer: an MoE layer stores all num_local_experts of them (each a gated "
    "MLP: gate, up, down).":
        "{call}: total이 층마다 expert를 하나만 셉니다: MoE 층은 expert num_local_experts개를 모두 저장합니다"
        "(각각 gate, up, down이 있는 Gated MLP).",
    "{call}: active leaves out the embedding and the lm_head; published active counts (Mixtral's 12.9B) include "
    "both in full.":
        "{call}: active에서 임베딩과 lm_head가 빠졌습니다. 공개된 active 개수(Mixtral의 12.9B)는 둘 다 전부 "
        "포함합니다.",
    "Mixtral 8x7B holds {:,} parameters and a token uses {:,}, exactly; your count also holds for 16 experts with "
    "4 per token.":
        "Mixtral 8x7B의 파라미터 {:,}개와 토큰 하나가 쓰는 {:,}개가 정확히 맞고, expert 16개 중 토큰마다 4개를 "
        "쓰는 경우에도 여러분의 개수가 맞습니다.",
}

# Sentences the checks hold already filled: the why and mistakes with DeepSeek-V3's numbers, the success
# lines with their counts, the cases' names in a call.
MESSAGES |= filled(MESSAGES, check_share_guess.why, *(m.message for m in check_share_guess.mistakes),
                   check_count_llama.success, check_count_moe.success)
MESSAGES |= named(MESSAGES, *(config for (config,) in _LLAMA_CASES + _MOE_CASES))
