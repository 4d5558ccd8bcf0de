"""Notebook 07's check sentences (helpers/checks/nb07_position_wise.py) in Korean."""

from helpers.checks.nb07_position_wise import _IN_V, _NO_BIAS, _NO_TRANSPOSE, _NOT_IN_X

MESSAGES = {
    # A named wrong guess, then the prediction's own sentence
    "{said} {message}": "{said} {message}",
    "{} {}": "{} {}",
    # Exercise 1
    "Exercise 1 (predict token 3's inputs)": "연습 1 (토큰 3의 입력 예측하기)",
    "Causal attention gives output 3 a weighted average of the V rows of tokens 1, 2 and 3 (the mask hides 4 and "
    "later); the MLP reads token 3 alone. Source post 2 draws exactly this picture.":
        "인과적 어텐션은 출력 3에 토큰 1, 2, 3의 V 행의 가중 평균을 줍니다(마스크가 4 이후를 가립니다). MLP는 "
        "토큰 3만 읽습니다. 원문 글 2가 바로 이 그림을 그립니다.",
    "That is attention without a mask (an encoder such as BERT): the causal mask hides tokens 4, 5 and 6 from "
    "token 3.":
        "그것은 마스크가 없는 어텐션(BERT 같은 인코더)입니다: 인과적 마스크는 토큰 3에게서 토큰 4, 5, 6을 "
        "가립니다.",
    "That is the MLP's answer: attention's output 3 mixes the V rows of every token it may see, its own and the "
    "earlier ones.":
        "그것은 MLP의 답입니다: 어텐션의 출력 3은 볼 수 있는 모든 토큰, 곧 자기 자신과 앞선 토큰들의 V 행을 "
        "섞습니다.",
    "That is the mask upside down: a causal token reads the past and itself (j <= i), never the future.":
        "그것은 마스크를 거꾸로 뒤집은 것입니다: 인과적 어텐션에서 토큰은 과거와 자기 자신(j <= i)을 읽고, "
        "미래는 절대 읽지 않습니다.",
    # Exercise 2
    "Exercise 2 (predict where attention is linear)": "연습 2 (어텐션이 어디에서 선형인지 예측하기)",
    "With the weights A fixed, V -> A @ V @ W_O is a product of matrices: linear. The weights themselves are a "
    "softmax of X's scores, so doubling X changes the ratios, not just the scale: as a function of X the layer "
    "is not linear.":
        "가중치 A를 고정하면 V -> A @ V @ W_O는 행렬의 곱이므로 선형입니다. 가중치 자체는 X의 점수에 softmax를 "
        "적용한 것이므로, X를 두 배로 하면 크기만이 아니라 비율이 바뀝니다: X의 함수로서 이 층은 선형이 "
        "아닙니다.",
    _NOT_IN_X: "softmax는 X의 점수에 적용되므로 X가 비율을 정합니다: 어텐션은 X에 대해 선형이 아닙니다.",
    _IN_V: "softmax는 V를 건드리지 않습니다: 비율을 고정하면 V -> A @ V @ W_O는 행렬의 곱입니다.",
    # Exercise 3
    "Exercise 3 (causal self-attention as a module)": "연습 3 (모듈로 만드는 인과적 셀프 어텐션)",
    "your attention": "여러분의 어텐션",
    "you masked after the softmax, with -inf: the weights themselves then hold -inf. Fill the scores with -inf "
    "before the softmax, so that the softmax turns them into weights of exactly 0.":
        "softmax 뒤에 -inf로 마스크했습니다: 그러면 가중치 자체에 -inf가 들어갑니다. softmax 전에 점수를 -inf로 "
        "채우세요. 그래야 softmax가 그것을 정확히 0인 가중치로 바꿉니다.",
    "your output holds NaN: a whole row of scores is -inf, so some token sees nothing at all. Hide exactly the "
    "future (j > i); every token must at least see itself.":
        "출력에 NaN이 들어 있습니다: 점수의 한 행 전체가 -inf여서, 어떤 토큰은 아무것도 보지 못합니다. 정확히 "
        "미래(j > i)만 가리세요. 모든 토큰은 적어도 자기 자신은 보아야 합니다.",
    "the scores are not scaled: divide q @ k^T by sqrt(d_head) (section 1), or the softmax saturates as d_head "
    "grows.":
        "점수의 크기를 조정하지 않았습니다: q @ k^T를 sqrt(d_head)로 나누세요(1절). 그러지 않으면 d_head가 "
        "커질수록 softmax가 포화됩니다.",
    "you divided by sqrt(d_model); each head's dot product has d_head = d_model / n_head terms, so divide by "
    "sqrt(d_head).":
        "sqrt(d_model)로 나누었습니다. 각 헤드의 내적은 항이 d_head = d_model / n_head개이므로 sqrt(d_head)로 "
        "나누세요.",
    "your module uses one head of d_model numbers; split q, k and v into n_head heads of d_head numbers each "
    "(view, then transpose to (B, n_head, T, d_head)).":
        "여러분의 모듈은 숫자 d_model개짜리 헤드 하나를 씁니다. q, k, v를 각각 숫자 d_head개짜리 헤드 n_head개로 "
        "나누세요(view한 뒤 (B, n_head, T, d_head)로 transpose).",
    "there is no causal mask: every token reads the future too. Fill the scores where j > i with -inf before "
    "the softmax.":
        "인과적 마스크가 없습니다: 모든 토큰이 미래까지 읽습니다. softmax 전에 j > i인 점수를 -inf로 채우세요.",
    "you masked with 0, but exp(0) = 1 still gives the future a weight: mask with -inf.":
        "0으로 마스크했지만, exp(0) = 1이어서 미래에 여전히 가중치가 생깁니다: -inf로 마스크하세요.",
    "the mask is upside down: your tokens read the future and not the past. Hide j > i (above the diagonal), "
    "keep j <= i.":
        "마스크가 거꾸로입니다: 여러분의 토큰은 과거가 아니라 미래를 읽습니다. j > i(대각선 위)를 가리고, "
        "j <= i는 남기세요.",
    "the softmax runs down the columns (dim=-2): each token's weights over the keys it reads must sum to 1, so "
    "take it over the last dimension.":
        "softmax가 열 방향(dim=-2)으로 계산됩니다: 각 토큰이 읽는 키들에 대한 가중치의 합이 1이어야 하므로, "
        "마지막 차원에 대해 softmax를 취하세요.",
    "you masked after the softmax: zeroing the future's weights leaves each row summing to less than 1. Fill "
    "the scores with -inf before the softmax; it then gives the future exactly 0 and the rest sums to 1.":
        "softmax 뒤에 마스크했습니다: 미래의 가중치를 0으로 만들면 각 행의 합이 1보다 작아집니다. softmax 전에 "
        "점수를 -inf로 채우세요. 그러면 softmax가 미래에 정확히 0을 주고, 나머지의 합은 1이 됩니다.",
    _NO_TRANSPOSE:
        "헤드를 transpose 없이 만들었습니다: q.reshape(B, n_head, T, d_head)는 한 토큰의 숫자를 여러 토큰의 것처럼 "
        "읽습니다. q를 (B, T, n_head, d_head)로 view한 뒤, .transpose(1, 2)로 (B, n_head, T, d_head)로 바꾸세요.",
    "the heads are put back without the transpose: y is (B, n_head, T, d_head), so y.reshape(B, T, d_model) "
    "mixes tokens. Write y.transpose(1, 2).reshape(B, T, d_model).":
        "헤드를 transpose 없이 다시 합쳤습니다: y는 (B, n_head, T, d_head)이므로 y.reshape(B, T, d_model)은 "
        "토큰들을 뒤섞습니다. y.transpose(1, 2).reshape(B, T, d_model)로 쓰세요.",
    "the output projection is missing: the weighted sum of V goes through c_proj (W^O) before it leaves "
    "attention.":
        "출력 사영이 빠졌습니다: V의 가중 합은 어텐션을 나가기 전에 c_proj(W^O)를 거칩니다.",
    _NO_BIAS:
        "GPT-2의 c_attn과 c_proj에는 둘 다 bias가 있습니다: bias=False를 넘기지 않았나요? "
        "nn.Linear(in_features, out_features)에는 기본으로 bias가 있습니다.",
    "helpers.attention.CausalSelfAttention's weights load into your module and give the same output: scores / "
    "sqrt(d_head), causal mask, softmax over the keys, weighted sum of V, W^O.":
        "helpers.attention.CausalSelfAttention의 가중치가 여러분의 모듈에 로드되고 같은 출력을 냅니다: "
        "점수 / sqrt(d_head), 인과적 마스크, 키에 대한 softmax, V의 가중 합, W^O.",
    # Exercise 4
    "Exercise 4 (a sliding window)": "연습 4 (슬라이딩 윈도)",
    "{call} is transposed: rows are the tokens that look (i), columns the tokens they look at (j), so the "
    "allowed entries sit on and below the diagonal.":
        "{call}이(가) 전치되어 있습니다: 행은 바라보는 토큰(i), 열은 그 토큰이 바라보는 토큰(j)이므로, 허용된 "
        "원소는 대각선과 그 아래에 있습니다.",
    "{call} lets a token see a later token (True above the diagonal): a causal window never looks ahead.":
        "{call}은(는) 토큰이 뒤에 오는 토큰을 보게 합니다(대각선 위에 True): 인과적 윈도는 앞을 내다보지 "
        "않습니다.",
    "in {call} each token sees one token too many: check the window's edge (itself and the window - 1 tokens "
    "before it).":
        "{call}에서는 각 토큰이 토큰을 하나 더 많이 봅니다: 윈도의 경계(자기 자신과 그 앞의 토큰 window - 1개)를 "
        "확인하세요.",
    "in {call} each token sees one token too few: check the window's edge (itself and the window - 1 tokens "
    "before it).":
        "{call}에서는 각 토큰이 토큰을 하나 더 적게 봅니다: 윈도의 경계(자기 자신과 그 앞의 토큰 window - 1개)를 "
        "확인하세요.",
    "each token sees itself and the window - 1 tokens before it; with window >= T it is the causal mask.":
        "각 토큰은 자기 자신과 그 앞의 토큰 window - 1개를 봅니다. window >= T이면 인과적 마스크와 같습니다.",
}
