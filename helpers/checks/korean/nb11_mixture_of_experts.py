"""Notebook 11's check sentences (helpers/checks/nb11_mixture_of_experts.py) in Korean."""

MESSAGES = {
    # exercise names: the Korean notebook's exercise headings
    "Exercise 1 (predict the active parameters)": "연습 1 (Mixtral의 활성 파라미터 예측하기)",
    "Exercise 2 (predict the experts a batch reads)": "연습 2 (배치가 읽는 expert 수 예측하기)",
    "Exercise 3 (an MoE layer with a sorted dispatch)": "연습 3 (정렬 디스패치를 쓰는 nn.Module MoE 층)",
    "Exercise 4 (keep what fits)": "연습 4 (각 expert의 용량에 들어가는 것만 남기기)",
    # exercises 1 and 2: predictions
    "A token runs through 2 of the 8 experts in every layer, but also through everything that is not an expert "
    "(attention, embeddings, norms, the router), which every token uses: more than 2/8 of 46.7B = 11.7B.":
        "토큰은 층마다 expert 8개 중 2개를 거치지만, expert가 아닌 모든 것(어텐션, 임베딩, 정규화 층, 라우터)도 "
        "거칩니다. 이것은 모든 토큰이 씁니다: 그래서 46.7B의 2/8 = 11.7B보다 많습니다.",
    "Each token leaves a given expert out with probability 6/8; all 16 leave it out with probability "
    "(6/8)^16 = 1%, so on average 8 x (1 - 0.75^16) = 7.9 experts are read: almost all.":
        "토큰 하나가 특정 expert를 빼놓을 확률은 6/8이고, 16개 모두가 빼놓을 확률은 (6/8)^16 = 1%입니다. "
        "그래서 평균적으로 expert 8 x (1 - 0.75^16) = 7.9개를 읽습니다: 거의 전부입니다.",
    # exercise 3: the layer
    "your MoE layer": "여러분의 MoE 층",
    "your forward returns a tuple; return only the output, a (T, d_model) tensor.":
        "forward가 tuple을 반환합니다. 출력, 곧 (T, d_model) 텐서만 반환하세요.",
    "each token's expert outputs are added without weights: multiply each by its router weight, "
    "softmax(top-k logits).":
        "각 토큰의 expert 출력을 가중치 없이 더했습니다: 각각에 라우터 가중치 softmax(상위 k개 로짓)를 곱하세요.",
    "the experts are weighted by the raw router logits: take the softmax over each token's k chosen logits "
    "first.":
        "expert들에 라우터의 로짓을 그대로 가중치로 곱했습니다: 먼저 각 토큰이 고른 k개 로짓에 대한 softmax를 "
        "구하세요.",
    "the weights are the softmax over all E experts, not renormalised over the k chosen: each token's weights "
    "must sum to 1.":
        "가중치가 expert E개 전체에 대한 softmax이고, 고른 k개에 대해 다시 정규화하지 않았습니다: 각 토큰의 "
        "가중치는 합이 1이어야 합니다.",
    "the softmax ran over the tokens (dim=0), so each expert's weights sum to 1 down a column; it goes over "
    "each token's own k chosen logits: softmax(dim=-1).":
        "softmax를 토큰 축(dim=0)을 따라 계산해서, 각 expert의 가중치가 열을 따라 합이 1이 됩니다. softmax는 "
        "각 토큰 자신이 고른 k개 로짓에 대해 계산합니다: softmax(dim=-1).",
    "the weights are sigmoid(logit), one gate per expert on its own; Mixtral mixes the k chosen experts with a "
    "softmax over their logits, so a token's weights sum to 1.":
        "가중치가 sigmoid(logit), 곧 expert마다 따로 있는 게이트입니다. Mixtral은 고른 k개 expert를 그 로짓에 "
        "대한 softmax로 섞으므로, 한 토큰의 가중치는 합이 1입니다.",
    "two softmaxes: a softmax over all E, then another over the k kept probabilities. Take one: softmax over "
    "the k chosen logits (or softmax over E, keep the top k, divide by their sum).":
        "softmax가 두 번입니다: E개 전체에 대한 softmax, 그다음 남긴 k개 확률에 대한 softmax. 하나만 쓰세요: "
        "고른 k개 로짓에 대한 softmax(또는 E개에 대한 softmax에서 상위 k개를 남기고 그 합으로 나누기).",
    "each token's output is its last expert's alone: `out[tokens] = ...` overwrites what an earlier expert "
    "wrote for the same token. Add with out.index_add_(0, tokens, ...) (or +=).":
        "각 토큰의 출력이 마지막 expert의 출력뿐입니다: `out[tokens] = ...`는 앞선 expert가 같은 토큰에 써 둔 "
        "것을 덮어씁니다. out.index_add_(0, tokens, ...)(또는 +=)로 더하세요.",
    "the assignments were sorted by expert, but the tokens or the weights were then taken in their unsorted "
    "order: index both with the positions the sort gave, token_of[group] and weight_of[group], not with the "
    "place in the sorted list.":
        "할당을 expert 기준으로 정렬했지만, 그다음 토큰이나 가중치를 정렬 전 순서로 가져왔습니다: 둘 다 정렬된 "
        "목록에서의 자리가 아니라 정렬이 준 위치로 인덱싱하세요: token_of[group], weight_of[group].",
    "each assignment got the wrong token: ids.flatten() lists token 0's k choices, then token 1's, so the token "
    "of assignment i is i // k, torch.arange(T).repeat_interleave(k), not .repeat(k).":
        "할당마다 엉뚱한 토큰이 붙었습니다: ids.flatten()은 토큰 0의 선택 k개, 그다음 토큰 1의 선택을 나열하므로, "
        "할당 i의 토큰은 i // k, 곧 .repeat(k)가 아니라 torch.arange(T).repeat_interleave(k)입니다.",
    "only each token's first choice counts: every one of its top_k experts adds its weighted output.":
        "각 토큰의 첫 번째 선택만 반영되었습니다: 그 토큰의 top_k개 expert가 모두 가중치를 곱한 출력을 "
        "더해야 합니다.",
    "helpers.moe.MoE's router and experts load into your layer and give the same output: the sorted dispatch "
    "equals the per-expert loop.":
        "helpers.moe.MoE의 라우터와 expert들이 여러분의 층에 로드되고 같은 출력을 냅니다: 정렬 디스패치는 "
        "expert별 반복문과 같습니다.",
    # exercise 3: how the layer dispatches
    "expert {e} ran {times} times in one forward pass, on {low} to {high} token(s) at a time: that is a loop "
    "over tokens (or over the k slots). The dispatch's point is that each expert runs once, on all its tokens "
    "together: group the T*k assignments by expert.":
        "expert {e}이(가) 순전파 한 번에 {times}번, 한 번에 토큰 {low}개에서 {high}개씩 실행되었습니다: 토큰(또는 "
        "k개 자리)에 대한 반복문입니다. 디스패치의 핵심은 각 expert가 자기 토큰 전체에 대해 한 번만 실행되는 "
        "것입니다: 할당 T*k개를 expert별로 묶으세요.",
    "expert {e} ran on {got} tokens, but only {n} picked it: every token went through every expert (section 3's "
    "dense loop, weighted by zeros). Run each expert on its own tokens only.":
        "expert {e}이(가) 토큰 {got}개에 실행되었지만, 그 expert를 고른 토큰은 {n}개뿐입니다: 모든 토큰이 모든 "
        "expert를 거쳤습니다(3절의 밀집 반복문에 0을 가중치로 곱한 것). 각 expert는 자기 토큰에만 실행하세요.",
    "each expert ran once on its own tokens, but nothing was sorted: that is section 3's search (torch.where, "
    "once per expert). This exercise asks for the sorted dispatch: argsort the T*k assignments by expert once, "
    "then split the sorted list into one group per expert.":
        "각 expert가 자기 토큰에 한 번씩 실행되었지만, 아무것도 정렬하지 않았습니다: 3절의 검색(expert마다 한 번씩 "
        "torch.where)입니다. 이 연습은 정렬 디스패치를 요구합니다: 할당 T*k개를 expert 기준으로 한 번 argsort하고, "
        "정렬된 목록을 expert마다 그룹 하나씩으로 자르세요.",
    "is the reference itself": "기준 클래스 helpers.moe.MoE 자체입니다",
    "subclasses the reference": "기준 클래스 helpers.moe.MoE를 상속합니다",
    "your layer {what}, helpers.moe.MoE: write the router and the dispatch yourself, in a subclass of "
    "nn.Module.":
        "여러분의 층은 {what}: 라우터와 디스패치를 nn.Module의 서브클래스 안에 직접 작성하세요.",
    "self.experts is a Python list, so its parameters are not registered and the reference's weights cannot "
    "load: wrap it in nn.ModuleList.":
        "self.experts가 Python 리스트여서 그 파라미터가 등록되지 않고, 기준 모듈의 가중치를 로드할 수 없습니다: "
        "nn.ModuleList로 감싸세요.",
    "the router has a bias; Mixtral's router (its 'gate') has none: nn.Linear(d_model, n_experts, bias=False).":
        "라우터에 bias가 있습니다. Mixtral의 라우터(Mixtral 코드의 'gate')에는 없습니다: "
        "nn.Linear(d_model, n_experts, bias=False).",
    "running your layer a second time raised {kind}: {said}":
        "여러분의 층을 두 번째로 실행하자 {kind} 예외가 발생했습니다: {said}",
    "your layer's output is right; {problem}": "여러분 층의 출력은 맞습니다. 그런데 {problem}",
    # exercise 4: capacity
    "returned {kind}; expected a bool tensor of shape {shape}":
        "{kind}을(를) 반환했습니다. 기대한 것은 모양이 {shape}인 bool 텐서입니다",
    "keeps {got} assignments; expected {expected} ({mask})": "할당 {got}개를 남깁니다. 기대한 것은 {expected}개입니다({mask})",
    "your function changed `experts`, the routing table it was given, in place (sorted it?). The layer still "
    "needs that table to send the outputs back: work on a copy, or with argsort, and leave the caller's tensor "
    "as it came.":
        "함수가 받은 라우팅 표 `experts`를 제자리에서 바꿨습니다(정렬했나요?). 층은 출력을 되돌려 보낼 때 그 표가 "
        "아직 필요합니다: 사본이나 argsort로 작업하고, 호출한 쪽의 텐서는 받은 그대로 두세요.",
    "your mask lines up with the experts sorted (within each row, or all together), not with `experts` as "
    "given: True must sit where that assignment sits in the (T, k) table. If you sort to group by expert, sort "
    "a copy (argsort) and scatter the result back to the original places.":
        "마스크가 받은 그대로의 `experts`가 아니라 (행마다, 또는 전체를) 정렬한 expert에 맞춰져 있습니다: True는 "
        "(T, k) 표에서 그 할당이 있는 자리에 있어야 합니다. expert별로 묶으려고 정렬한다면, 사본을 정렬하고"
        "(argsort) 결과를 원래 자리로 되돌려 놓으세요.",
    "each expert keeps one assignment too many: with a 0-based place in the queue, keep place < capacity (or a "
    "1-based count <= capacity).":
        "각 expert가 할당을 하나 더 남깁니다: 대기열의 자리를 0부터 세면 place < capacity인 것을 남기세요(1부터 세는 "
        "count라면 count <= capacity).",
    "every token's first choice went before any second choice (GShard's priority); this exercise keeps (T, k) "
    "order: row by row, a token's first choice before its second.":
        "모든 토큰의 첫 번째 선택이 어떤 두 번째 선택보다도 먼저 갔습니다(GShard의 우선순위). 이 연습은 (T, k) "
        "순서를 따릅니다: 행 단위로, 토큰의 첫 번째 선택이 두 번째보다 먼저입니다.",
    "each expert kept its last assignments; capacity goes to the first ones, in token order.":
        "각 expert가 마지막 할당들을 남겼습니다. 용량은 토큰 순서로 처음 할당들에 돌아갑니다.",
    "the capacity was counted over all experts together; each expert has its own queue.":
        "용량을 모든 expert에 걸쳐 한꺼번에 세었습니다. expert마다 자기 대기열이 있습니다.",
    "each expert keeps its first `capacity` assignments in token order; the rest are dropped. A dropped "
    "assignment adds nothing; a token skips the layer (the residual carries it unchanged) only when all its "
    "top_k assignments are dropped.":
        "각 expert는 토큰 순서로 처음 `capacity`개의 할당을 남기고, 나머지는 버립니다. 버려진 할당은 아무것도 "
        "더하지 않습니다. 토큰은 top_k개 할당이 모두 버려질 때만 그 층을 건너뜁니다(잔차가 토큰을 바꾸지 않은 채 "
        "나릅니다).",
}
