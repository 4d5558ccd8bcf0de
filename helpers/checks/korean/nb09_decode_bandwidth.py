"""Notebook 09's check sentences (helpers/checks/nb09_decode_bandwidth.py) in Korean."""

from helpers.checks.korean.cases import filled
from helpers.checks.nb09_decode_bandwidth import check_decode_bytes, check_knee_batch

MESSAGES = {
    # Exercise 1
    "Exercise 1 (predict a 7B layer)": "연습 1 (7B 모델의 층 하나 예측하기)",
    "A decode step's time is its bytes over the bandwidth: the layer's three 4096 x 11008 matrices hold "
    "{bytes_ratio:.2f}x the weights of the FFN, in the same dtype, and both come from memory at about the same "
    "rate, so the timing above lands near {bytes_ratio:.2f} too, within the machine's noise.":
        "decode 단계의 시간은 읽는 바이트를 대역폭으로 나눈 값입니다: 이 층의 4096 x 11008 행렬 세 개는 같은 "
        "dtype으로 FFN의 {bytes_ratio:.2f}배의 가중치를 담고 있고, 둘 다 메모리에서 거의 같은 속도로 읽히므로, "
        "위에서 잰 시간도 머신의 잡음 범위 안에서 {bytes_ratio:.2f} 근처에 놓입니다.",
    "the bytes give": "바이트로 계산하면",
    "you predicted {guess:.2f}, the bytes give {bytes_ratio:.2f}: that is the FFN's time over the layer's; the "
    "question asks the layer's over the FFN's.":
        "여러분의 예측은 {guess:.2f}이고, 바이트로 계산하면 {bytes_ratio:.2f}입니다: 그것은 FFN의 시간을 층의 "
        "시간으로 나눈 값입니다. 문제는 층의 시간을 FFN의 시간으로 나눈 값을 묻습니다.",
    "you predicted {guess:.2f}, the bytes give {bytes_ratio:.2f}: {sentence}":
        "여러분의 예측은 {guess:.2f}이고, 바이트로 계산하면 {bytes_ratio:.2f}입니다: {sentence}",
    "that counts two matrices of 4096 x 11008: Llama's MLP has three (gate_proj, up_proj, down_proj).":
        "그것은 4096 x 11008 행렬을 두 개만 센 값입니다: Llama의 MLP에는 행렬이 세 개(gate_proj, up_proj, "
        "down_proj) 있습니다.",
    "that counts one of the layer's three matrices: gate_proj, up_proj and down_proj are all read.":
        "그것은 층의 행렬 세 개 중 하나만 센 값입니다: gate_proj, up_proj, down_proj는 모두 읽힙니다.",
    "the layer and the FFN use the same dtype: their bytes per weight cancel.":
        "층과 FFN은 같은 dtype을 씁니다: 가중치당 바이트는 약분됩니다.",
    # Exercise 2
    "Exercise 2 (bytes per decode step)": "연습 2 (config에서 decode 단계의 바이트 구하기)",
    "<{name} config>": "<{name} 모델의 config>",
    "{call} = {got}: that counts numbers, not bytes; multiply by bytes_per_weight.":
        "{call} = {got}: 이것은 바이트가 아니라 숫자의 개수입니다. bytes_per_weight를 곱하세요.",
    "{call} = {got}: that multiplies by bytes_per_weight twice.":
        "{call} = {got}: bytes_per_weight를 두 번 곱했습니다.",
    "{call} = {got}: you counted the whole embedding table. A decode step looks up one row of it, the new "
    "token's; the unembedding (vocab x d_model) is the one read whole.":
        "{call} = {got}: 임베딩 표 전체를 세었습니다. decode 단계는 그중 한 행, 새 토큰의 행만 찾아봅니다. "
        "통째로 읽히는 것은 unembedding(vocab x d_model)입니다.",
    "{call} = {got}: you left out the unembedding, the vocab x d_model matrix that scores every word; it is read "
    "whole at every step.":
        "{call} = {got}: unembedding, 곧 모든 단어의 점수를 매기는 vocab x d_model 행렬을 빠뜨렸습니다. 이 "
        "행렬은 단계마다 통째로 읽힙니다.",
    "{call} = {got}: W_K and W_V have num_key_value_heads x head_dim outputs, not hidden_size: with grouped-query "
    "attention they are smaller than W_Q.":
        "{call} = {got}: W_K와 W_V의 출력은 hidden_size개가 아니라 num_key_value_heads x head_dim개입니다: "
        "그룹 쿼리 어텐션에서는 W_Q보다 작습니다.",
    "{call} = {got}: you left out W_O, attention's output projection (num_attention_heads x head_dim -> "
    "hidden_size).":
        "{call} = {got}: 어텐션의 출력 사영인 W_O(num_attention_heads x head_dim -> hidden_size)를 "
        "빠뜨렸습니다.",
    "{call} = {got}: keys and values have a matrix each: count both W_K and W_V.":
        "{call} = {got}: key와 value에는 각각 행렬이 하나씩 있습니다: W_K와 W_V를 둘 다 세세요.",
    "{call} = {got}: Llama's MLP has three matrices: gate_proj, up_proj and down_proj.":
        "{call} = {got}: Llama의 MLP에는 행렬이 세 개 있습니다: gate_proj, up_proj, down_proj.",
    "{call} = {got}: almost; you left out the RMSNorm weights (2 x hidden_size per layer, plus hidden_size for "
    "the final norm).":
        "{call} = {got}: 거의 맞았습니다. RMSNorm 가중치(층마다 2 x hidden_size, 그리고 마지막 정규화의 "
        "hidden_size)를 빠뜨렸습니다.",
    "{call} = {got}: almost; each layer has two RMSNorms (one before attention, one before the MLP), hidden_size "
    "weights each.":
        "{call} = {got}: 거의 맞았습니다. 층마다 RMSNorm이 두 개(어텐션 앞에 하나, MLP 앞에 하나) 있고, 각각 "
        "가중치가 hidden_size개입니다.",
    "{call} = {got}: almost; you are hidden_size weights short: the final RMSNorm, or the one embedding row of "
    "the new token.":
        "{call} = {got}: 거의 맞았습니다. 가중치가 hidden_size개 모자랍니다: 마지막 RMSNorm, 또는 새 토큰의 "
        "임베딩 한 행입니다.",
    "{gb:.1f} GB for Llama-2-7B in bfloat16, {mlp_share:.0%} of it the MLP":
        "bfloat16의 Llama-2-7B에서 {gb:.1f} GB이고, 그중 {mlp_share:.0%}가 MLP입니다",
    "every matrix once, one embedding row, the unembedding whole: {summary}.":
        "모든 행렬을 한 번씩, 임베딩은 한 행, unembedding은 통째로 셉니다: {summary}.",
    # Exercise 3
    "Exercise 3 (the knee with a KV cache)": "연습 3 (KV cache가 있을 때의 꺾임점)",
    "= {got}; with this much KV cache per sequence the step never turns compute-bound: math.inf":
        "= {got}: 시퀀스마다 KV cache가 이만큼이면 이 단계는 결코 compute-bound가 되지 않습니다: math.inf",
    "{call} = {got}: that is the knee without the KV cache. Each sequence adds its cache to the bytes read, so "
    "the knee moves to a larger batch, or away altogether.":
        "{call} = {got}: 그것은 KV cache가 없을 때의 꺾임점입니다. 시퀀스마다 자기 캐시가 읽는 바이트에 "
        "더해지므로, 꺾임점은 더 큰 배치로 옮겨 가거나 아예 사라집니다.",
    "{call} = {got}: each weight gives 2 FLOPs per sequence (a multiply and an add).":
        "{call} = {got}: 가중치 하나는 시퀀스마다 FLOPs 2개(곱셈 한 번과 덧셈 한 번)를 냅니다.",
    "{call} = {got}: you left out bytes_per_weight; reading the weights takes n_params x bytes_per_weight / "
    "bandwidth.":
        "{call} = {got}: bytes_per_weight를 빠뜨렸습니다. 가중치를 읽는 데는 n_params x bytes_per_weight / "
        "bandwidth가 걸립니다.",
    "{call} = {got}: the KV cache adds bytes to read, so it leaves less room per sequence: subtract it, do not "
    "add it.":
        "{call} = {got}: KV cache는 읽을 바이트를 늘리므로 시퀀스마다 남는 여유를 줄입니다: 더하지 말고 "
        "빼세요.",
    "{call} = {got}: peak_flops and bandwidth are swapped; the knee is near peak / bandwidth FLOPs per byte, "
    "hundreds on an H100.":
        "{call} = {got}: peak_flops와 bandwidth가 서로 바뀌었습니다. 꺾임점은 바이트당 peak / bandwidth "
        "FLOPs 근처, H100에서는 수백에 있습니다.",
    "{call} = {got}: a negative batch means the two times never meet: return math.inf.":
        "{call} = {got}: 배치가 음수라는 것은 두 시간이 결코 만나지 않는다는 뜻입니다: math.inf를 "
        "돌려주세요.",
    "{call} = {got}: no batch of 0 sequences turns compute-bound; when the times never meet, return math.inf.":
        "{call} = {got}: 시퀀스 0개의 배치가 compute-bound가 되는 일은 없습니다. 두 시간이 결코 만나지 않으면 "
        "math.inf를 돌려주세요.",
    "never": "없음",
    "B = N * bytes / (2 * N * bandwidth / peak - KV bytes per sequence): {no_cache} for an H100 without a cache, "
    "{llama3} for Llama-3-8B at 256 tokens of context, and {llama2_long} for Llama-2-7B at 4096: long contexts "
    "keep decode memory-bound at any batch.":
        "B = N * bytes / (2 * N * bandwidth / peak - 시퀀스당 KV 바이트): 캐시가 없는 H100에서 {no_cache}, "
        "문맥이 256토큰인 Llama-3-8B에서 {llama3}, 문맥이 4096토큰인 Llama-2-7B에서 {llama2_long}입니다: 긴 "
        "문맥에서는 어떤 배치에서도 decode가 memory-bound로 남습니다.",
}

# Sentences the checks hold already filled: the success lines with their numbers.
MESSAGES |= filled(MESSAGES, check_decode_bytes.success, check_knee_batch.success)
