"""Notebook 01's check sentences (helpers/checks/nb01_matrix_multiply.py) in Korean."""

MESSAGES = {
    # Exercise 1
    "Exercise 1 (which rows move?)": "연습 1 (어느 행이 바뀔까요?)",
    "Z[t, j] is the dot product of row t of X with column j of W: row t of Z reads row t of X and the "
    "shared W, nothing else. Changing token 3 moves output row 3 alone; batching tokens into one matrix "
    "mixes nothing between them.":
        "Z[t, j]는 X의 행 t와 W의 열 j의 내적입니다: Z의 행 t는 X의 행 t와 공유하는 W만 읽고, 그 밖에는 "
        "아무것도 읽지 않습니다. 토큰 3을 바꾸면 출력의 행 3만 바뀝니다. 토큰들을 행렬 하나로 묶어도 토큰 "
        "사이에는 아무것도 섞이지 않습니다.",
    # Exercise 2: the answer is a pair (Z, n_flops)
    "returned a {kind}; return two things, `return {first}, {second}`":
        "{kind}을(를) 반환했습니다. 두 가지를 반환하세요: `return {first}, {second}`",
    "gives {name} {problem}": "반환한 {name} {problem}",
    "gives {name} as {problem}": "반환한 {name}은(는) {problem}",
    "gives a {name} that {problem}": "반환한 {name}은(는) {problem}",
    # the comparers' "returned ..." sentences without their first word, as "gives {name} as" uses them
    "{got}; expected the number {expected:,}": "{got}입니다. 기대한 것은 숫자 {expected:,}입니다",
    "{got}; expected the whole number {expected:,}": "{got}입니다. 기대한 것은 정수 {expected:,}입니다",
    "{got}; expected an array of shape {shape}": "{got}입니다. 기대한 것은 shape {shape}의 배열입니다",
    "Exercise 2 (a matmul from dot products)": "연습 2 (내적으로 만드는 행렬 곱)",
    "Z[t, j] uses row j of W (W[j]) where it needs column j (W[:, j], or W[i, j] term by term): that "
    "computes X @ W.T.":
        "Z[t, j]에 W의 열 j(W[:, j], 또는 항마다 W[i, j])가 필요한 자리에 행 j(W[j])를 썼습니다: 그러면 "
        "X @ W.T를 계산하게 됩니다.",
    "your Z is transposed: entry (t, j) landed at Z[j, t]. Rows of Z are tokens (rows of X), columns are "
    "the columns of W.":
        "Z가 전치되어 있습니다: 원소 (t, j)가 Z[j, t]에 들어갔습니다. Z의 행은 토큰(X의 행)이고, 열은 W의 "
        "열입니다.",
    "you returned (n_flops, Z): return Z first, then the count, `return Z, n_flops`.":
        "(n_flops, Z)를 반환했습니다: Z를 먼저, 그다음 개수를 반환하세요. `return Z, n_flops`.",
    "every row of Z is the same: `[[0.0] * m] * T` makes T names for one list, so each row you fill "
    "overwrites them all. Start from `np.zeros((T, m))`.":
        "Z의 모든 행이 같습니다: `[[0.0] * m] * T`는 리스트 하나에 이름을 T개 붙이므로, 행 하나를 채울 "
        "때마다 모든 행이 덮어써집니다. `np.zeros((T, m))`에서 시작하세요.",
    "Z holds whole numbers: an integer array (`dtype=int`) cuts off every sum's fraction. "
    "`np.zeros((T, m))` makes floats.":
        "Z에 정수만 들어 있습니다: 정수 배열(`dtype=int`)은 모든 합의 소수 부분을 잘라 냅니다. "
        "`np.zeros((T, m))`는 float 배열을 만듭니다.",
    "Z needs shape (T, m): one row per token (row of X), one column per column of W. Does a loop run over "
    "the wrong size?":
        "Z의 shape는 (T, m)이어야 합니다: 토큰(X의 행)마다 행 하나, W의 열마다 열 하나입니다. 반복문 중 "
        "하나가 엉뚱한 크기만큼 돌고 있지 않나요?",
    "each entry also holds the entries before it: set the sum back to 0 for every (t, j) before adding up "
    "its d products.":
        "각 원소에 앞선 원소들까지 더해져 있습니다: (t, j)마다 곱 d개를 더하기 전에 합을 0으로 되돌리세요.",
    "{call}: Z is right, but you counted one FLOP per term (the multiplies only, or the adds only). Each "
    "term of a dot product is a multiply and an add: 2 FLOPs.":
        "{call}: Z는 맞지만, 항마다 FLOP을 하나씩 셌습니다(곱셈만, 또는 덧셈만). 내적의 각 항은 곱셈 "
        "하나와 덧셈 하나, 곧 2 FLOPs입니다.",
    "{call}: Z is right, and T*m*(2d - 1) is an honest count of a sum that starts from its first product. "
    "The exercise (and the usual convention) counts every term as a multiply-add, as in a sum that starts "
    "at 0: count 2 FLOPs for each of the d terms.":
        "{call}: Z는 맞고, T*m*(2d - 1)은 첫 번째 곱에서 시작하는 합을 정직하게 센 값입니다. 이 연습은 "
        "(그리고 흔한 관례는) 0에서 시작하는 합처럼 모든 항을 곱셈-덧셈 하나로 셉니다: 항 d개마다 "
        "2 FLOPs를 세세요.",
    "{call}: Z is right, but the count covers one output entry per step; each entry is a sum of d "
    "products.":
        "{call}: Z는 맞지만, 출력 원소 하나를 한 걸음으로 세었습니다. 각 원소는 곱 d개의 합입니다.",
    "{call}: Z is right, but the count is for one token; X holds T of them.":
        "{call}: Z는 맞지만, 토큰 하나의 개수입니다. X에는 토큰이 T개 있습니다.",
    "Z == X @ W entry by entry, and your loop did 2 * T * d * m FLOPs: d multiply-adds for each of the "
    "T * m outputs.":
        "Z가 원소마다 X @ W와 같고, 반복문은 2 * T * d * m FLOPs를 계산했습니다: 출력 T * m개마다 "
        "곱셈-덧셈 d번입니다.",
    # Exercise 3
    "Exercise 3 (time per token)": "연습 3 (토큰당 시간)",
    "X @ W reads all of W once, however many tokens X holds, while each token's arithmetic stays 2 FLOPs "
    "per weight. With one token the processor mostly waits for W's 2.4 million weights to arrive (from the "
    "cache in this timing, from main memory in a large model); with many tokens each weight, once there, "
    "serves every token, so the time per token falls until the arithmetic units are busy. Notebook 09 comes "
    "back to this: generating text one token at a time is limited by reading the weights.":
        "X @ W는 X에 토큰이 몇 개 있든 W 전체를 한 번 읽고, 토큰 하나의 연산은 가중치 하나당 2 FLOPs로 "
        "그대로입니다. 토큰이 하나면 프로세서는 대부분의 시간을 W의 가중치 240만 개가 도착하기를 기다리며 "
        "보냅니다(이 측정에서는 캐시에서, 큰 모델에서는 메인 메모리에서 옵니다). 토큰이 많으면 한 번 도착한 "
        "가중치 하나가 모든 토큰에 쓰이므로, 연산 장치가 바빠질 때까지 토큰당 시간이 줄어듭니다. 노트북 "
        "09에서 이 이야기로 돌아옵니다: 텍스트를 한 번에 토큰 하나씩 생성하는 속도는 가중치를 읽는 속도에 "
        "묶여 있습니다.",
    "the answer is": "답은",
    # Exercise 4
    "Exercise 4 (fold two layers with biases)": "연습 4 (bias가 있는 두 층을 하나로 접기)",
    "your W is W2 @ W1, the product in the wrong order: x meets W1 first, so W = W1 @ W2.":
        "W가 W2 @ W1, 곧 순서가 뒤바뀐 곱입니다: x는 W1을 먼저 만나므로 W = W1 @ W2입니다.",
    "b1 is added before W2, so it passes through W2 too: the folded bias is not b1 + b2.":
        "b1은 W2보다 먼저 더해지므로 W2도 거칩니다: 접은 bias는 b1 + b2가 아닙니다.",
    "you returned (b, W): return the matrix first, `return W, b`.":
        "(b, W)를 반환했습니다: 행렬을 먼저 반환하세요. `return W, b`.",
    "W2 @ b1 treats b1 as a column; b1 is a row like x, so it meets W2 on the left: b1 @ W2.":
        "W2 @ b1은 b1을 열로 다룹니다. b1은 x처럼 행이므로 W2를 왼쪽에서 만납니다: b1 @ W2.",
    "your bias leaves out b1, but b1 reaches the output through W2.":
        "bias에서 b1이 빠졌습니다. 하지만 b1은 W2를 거쳐 출력에 닿습니다.",
    "your bias leaves out b2, which is added at the very end.":
        "bias에서 b2가 빠졌습니다. b2는 맨 끝에 더해집니다.",
    "x @ W + b == (x @ W1 + b1) @ W2 + b2: with nothing in between, two layers with biases are one layer, "
    "W = W1 @ W2 and b = b1 @ W2 + b2.":
        "x @ W + b == (x @ W1 + b1) @ W2 + b2: 사이에 아무것도 없으면 bias가 있는 두 층은 한 층입니다. "
        "W = W1 @ W2, b = b1 @ W2 + b2.",
}
