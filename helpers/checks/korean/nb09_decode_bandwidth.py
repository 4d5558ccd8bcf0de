"""Notebook 09's check sentences (helpers/checks/nb09_decode_bandwidth.py) in Korean."""

MESSAGES = {
    # exercise names: the Korean notebook's exercise headings
    "Exercise 1 (predict a 7B layer)": "연습 1 (7B 모델의 층 하나 예측하기)",
    "Exercise 2 (bytes per decode step)": "연습 2 (config에서 decode 단계의 바이트 구하기)",
    "Exercise 3 (the knee with a KV cache)": "연습 3 (KV cache가 있을 때 꺾이는 지점)",
    # exercise 1
    "A decode step's time is its bytes over the bandwidth: the layer's three 4096 x 11008 float32 matrices "
    "hold 541,065,216 bytes, 4.03x the 134,217,728 of the 128 MiB FFN, and both come from DRAM at about the "
    "same rate, so the timing above lands near 4 too, within the machine's noise. (Forgetting the gate gives "
    "2.69.)":
        "decode 단계의 시간은 읽는 바이트를 대역폭으로 나눈 값입니다: 이 층의 4096 x 11008 float32 행렬 세 개는 "
        "541,065,216바이트로, 128 MiB FFN의 134,217,728바이트의 4.03배이고, 둘 다 DRAM에서 거의 같은 속도로 "
        "읽히므로 위의 측정 시간도 기계의 잡음 범위 안에서 4 근처에 놓입니다. (게이트를 빠뜨리면 2.69가 "
        "나옵니다.)",
    "the bytes give": "바이트로 계산하면",
    # exercise 2
    "<{name} config>": "<{name} 모델의 config>",
    "{call} = {got:,}: that counts numbers, not bytes; multiply by bytes_per_weight.":
        "{call} = {got:,}: 이것은 바이트가 아니라 숫자의 개수입니다. bytes_per_weight를 곱하세요.",
    "{call} = {got:,}: you counted the whole embedding table. A decode step looks up one row of it, the new "
    "token's; the unembedding (vocab x d_model) is the one read whole.":
        "{call} = {got:,}: 임베딩 테이블 전체를 세었습니다. decode 단계는 그중 한 행, 새 토큰의 행만 찾아봅니다. "
        "통째로 읽히는 것은 unembedding(vocab x d_model)입니다.",
    "{call} = {got:,}: you left out the unembedding, the vocab x d_model matrix that scores every word; it is "
    "read whole at every step.":
        "{call} = {got:,}: unembedding, 즉 모든 단어의 점수를 매기는 vocab x d_model 행렬을 빠뜨렸습니다. 이 "
        "행렬은 단계마다 통째로 읽힙니다.",
    "{call} = {got:,}: W_K and W_V have num_key_value_heads x head_dim outputs, not hidden_size: with "
    "grouped-query attention they are smaller than W_Q.":
        "{call} = {got:,}: W_K와 W_V의 출력은 hidden_size가 아니라 num_key_value_heads x head_dim개입니다: "
        "grouped-query attention에서는 W_Q보다 작습니다.",
    "{call} = {got:,}: Llama's MLP has three matrices: gate_proj, up_proj and down_proj.":
        "{call} = {got:,}: Llama의 MLP에는 행렬이 세 개 있습니다: gate_proj, up_proj, down_proj.",
    "{call} = {got:,}: almost; you left out the RMSNorm weights (2 x hidden_size per layer, plus hidden_size "
    "for the final norm).":
        "{call} = {got:,}: 거의 맞았습니다. RMSNorm 가중치(층마다 2 x hidden_size, 그리고 마지막 norm의 "
        "hidden_size)를 빠뜨렸습니다.",
    "every matrix once, one embedding row, the unembedding whole: 13.2 GB for Llama-2-7B in bfloat16, of "
    "which the MLP is two thirds.":
        "모든 행렬을 한 번씩, 임베딩은 한 행, unembedding은 통째로: bfloat16의 Llama-2-7B에서 13.2 GB이고, 그중 "
        "3분의 2가 MLP입니다.",
    # exercise 3
    "= {got}; with this much KV cache per sequence the step never turns compute-bound: math.inf":
        "= {got}: 시퀀스마다 KV cache가 이만큼이면 이 단계는 결코 compute-bound가 되지 않습니다: math.inf",
    "{call} = {got:.4g}: that is the knee without the KV cache. Each sequence adds its cache to the bytes "
    "read, so the knee moves to a larger batch, or away altogether.":
        "{call} = {got:.4g}: 이것은 KV cache가 없을 때 꺾이는 지점입니다. 시퀀스마다 자기 캐시를 읽는 바이트에 "
        "더하므로, 꺾이는 지점은 더 큰 배치로 옮겨 가거나 아예 사라집니다.",
    "{call} = {got:.4g}: each weight gives 2 FLOPs per sequence (a multiply and an add).":
        "{call} = {got:.4g}: 가중치 하나는 시퀀스마다 2 FLOP(곱셈 한 번과 덧셈 한 번)을 냅니다.",
    "{call} = {got:.4g}: a negative batch means the two times never meet: return math.inf.":
        "{call} = {got:.4g}: 배치가 음수라는 것은 두 시간이 결코 만나지 않는다는 뜻입니다: math.inf를 "
        "반환하세요.",
    "B = N * bytes / (2 * N * bandwidth / peak - KV bytes per sequence): 295 for an H100 without a cache, 770 "
    "for Llama-3-8B at 256 tokens of context, and never for Llama-2-7B at 4096: long contexts keep decode "
    "memory-bound at any batch.":
        "B = N * bytes / (2 * N * bandwidth / peak - 시퀀스당 KV 바이트): 캐시가 없으면 H100에서 295, 컨텍스트가 "
        "256토큰인 Llama-3-8B는 770이고, 컨텍스트가 4096토큰인 Llama-2-7B에는 그런 배치가 없습니다. 긴 "
        "컨텍스트에서는 어떤 배치에서도 decode가 memory-bound로 남습니다.",
}
