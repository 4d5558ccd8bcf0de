"""Notebook 03's check sentences (helpers/checks/nb03_ffn_forward.py) in Korean."""

from helpers.checks.nb03_ffn_forward import _NAMED_GUESSES, _NO_BIAS, _NOT_PARAMETERS

_NOT_PARAMETERS_KO = ("여러분의 모듈에 파라미터 c_fc.weight나 c_fc.bias가 없습니다: c_fc라는 이름의 층 안에서 각 가중치와 "
                      "bias를 nn.Parameter(...)로 만드세요(그냥 텐서는 파라미터가 아니어서 load_state_dict가 채울 수 "
                      "없습니다).")

MESSAGES = {
    # Exercise 1
    "Exercise 1 (predict the capacity)": "연습 1 (용량 예측하기)",
    "Each hidden neuron adds one key (a column of W1) and one value (a row of W2); with d_ff of them, the "
    "least-squares fit reproduces d_ff arbitrary pairs exactly: 512 for d_ff = 512.":
        "은닉 뉴런 하나가 Key(W1의 열) 하나와 Value(W2의 행) 하나를 더합니다. 뉴런이 d_ff개이면 최소제곱 적합은 "
        "임의의 쌍 d_ff개를 정확히 재현합니다: d_ff = 512이면 512개입니다.",
    "{said} {named}": "{said} {named}",
    _NAMED_GUESSES[32]:
        "32는 각 Key와 Value의 길이인 d_model입니다. 메모리가 담는 양은 은닉 뉴런의 수, 곧 d_ff로 셉니다.",
    _NAMED_GUESSES[128]: "128은 4배 FFN이 담은 양입니다(d_ff = 128). 16배 FFN에는 은닉 뉴런이 512개 있습니다.",
    _NAMED_GUESSES[1024]:
        "1024는 뉴런 하나당 쌍 2개입니다: 쌍 N개는 출력 숫자 하나마다 방정식 N개를 만들고, 그 모두를 풀 미지수는 "
        "d_ff개뿐입니다.",
    _NAMED_GUESSES[2048]:
        "2048은 뉴런 하나당 쌍 4개입니다: 쌍 N개는 출력 숫자 하나마다 방정식 N개를 만들고, 그 모두를 풀 미지수는 "
        "d_ff개뿐입니다.",
    # Exercise 2
    "Exercise 2 (GPT-2's MLP as its checkpoint stores it)": "연습 2 (체크포인트가 저장하는 그대로의 GPT-2 MLP)",
    "your GPT2MLP": "여러분의 GPT2MLP",
    _NO_BIAS: "GPT-2의 Conv1D에는 가중치뿐 아니라 bias도 있습니다: 각 층에 shape (n_out,)의 `bias`를 주고, 이것도 "
              "nn.Parameter로 만드세요.",
    _NOT_PARAMETERS: _NOT_PARAMETERS_KO,
    _NOT_PARAMETERS.replace("c_fc", "c_proj"): _NOT_PARAMETERS_KO.replace("c_fc", "c_proj"),
    "your output has d_ff numbers per token: did you forget the down-projection self.c_proj at the end of forward?":
        "출력이 토큰마다 숫자 d_ff개입니다: forward 끝의 down-projection self.c_proj를 잊지 않았나요?",
    "that is the exact GELU; GPT-2 was trained with GELU's tanh formula, so its checkpoint needs "
    "nn.GELU(approximate=\"tanh\").":
        "그것은 정확한 GELU입니다. GPT-2는 GELU의 tanh 근사식으로 학습되었으므로, 그 체크포인트에는 "
        "nn.GELU(approximate=\"tanh\")가 필요합니다.",
    "there is no activation between c_fc and c_proj: without it the two matrices fold into one (notebook 01).":
        "c_fc와 c_proj 사이에 활성화 함수가 없습니다: 활성화 함수가 없으면 두 행렬은 하나로 접힙니다(노트북 01).",
    "that is ReLU; GPT-2's MLP uses GELU, in its tanh formula.":
        "그것은 ReLU입니다. GPT-2의 MLP는 GELU를 tanh 근사식으로 씁니다.",
    "your forward leaves out the biases: Conv1D computes x @ weight + bias.":
        "forward에서 bias가 빠졌습니다: Conv1D는 x @ weight + bias를 계산합니다.",
    "the GELU comes after c_proj here; it goes between the two projections: c_proj(gelu(c_fc(x))).":
        "여기서는 GELU가 c_proj 뒤에 옵니다. GELU는 두 사영 사이에 들어갑니다: c_proj(gelu(c_fc(x))).",
    "a GPT-2 checkpoint's c_fc.weight (16, 64) and c_proj.weight (64, 16) load into your module as they are, with "
    "no transpose, and give GPT-2's output.":
        "GPT-2 체크포인트의 c_fc.weight (16, 64)와 c_proj.weight (64, 16)가 전치 없이 그대로 여러분의 모듈에 "
        "로드되고, GPT-2의 출력을 냅니다.",
    "that is nn.Linear's layout, (out, in)": "그것은 nn.Linear의 저장 방식 (out, in)입니다",
    "that is (out, in), nn.Linear's layout": "그것은 nn.Linear의 저장 방식인 (out, in)입니다",
    "{name} has shape {shape}: {how}. GPT-2's checkpoint stores Conv1D weights as (in, out) = {want}: write your "
    "own Conv1D layer whose weight is nn.Parameter of shape (n_in, n_out).":
        "{name}의 shape가 {shape}입니다: {how}. GPT-2의 체크포인트는 Conv1D 가중치를 (in, out) = {want}(으)로 "
        "저장합니다: 가중치가 shape (n_in, n_out)의 nn.Parameter인 Conv1D 층을 직접 작성하세요.",
    "your forward raised a shape error: it multiplies by the transposed weight. Conv1D stores its weight as "
    "(in, out) already, so the product is x @ weight, with no .T (nn.Linear and F.linear transpose because they "
    "store (out, in)).":
        "forward에서 shape 오류가 났습니다: 전치한 가중치를 곱하고 있습니다. Conv1D는 가중치를 이미 (in, out)으로 "
        "저장하므로, 곱은 .T 없이 x @ weight입니다(nn.Linear와 F.linear는 (out, in)으로 저장하기 때문에 "
        "전치합니다).",
    # Exercise 3
    "Exercise 3 (memorise by gradient descent)": "연습 3 (경사 하강법으로 기억하기)",
    "learn_values returned {got}; return ffn itself, the module you trained.":
        "learn_values가 {got}을(를) 반환했습니다. 학습시킨 모듈인 ffn 자체를 반환하세요.",
    "learn_values returned {got}, which has no c_fc and c_proj: return ffn.":
        "learn_values가 c_fc와 c_proj가 없는 {got}을(를) 반환했습니다: ffn을 반환하세요.",
    "your function made the FFN {dtype} (ffn.float()?); the keys and values are float64: keep the FFN in float64.":
        "함수가 FFN을 {dtype}(으)로 바꾸었습니다(ffn.float()?). Key와 Value는 float64입니다: FFN을 float64로 "
        "유지하세요.",
    "the up-projection c_fc changed: the experiment keeps it fixed (random keys). Give the optimiser only "
    "ffn.c_proj.parameters().":
        "up-projection c_fc가 바뀌었습니다: 이 실험은 c_fc를 고정합니다(무작위 Key). 옵티마이저에는 "
        "ffn.c_proj.parameters()만 넘기세요.",
    "after training, the FFN's output holds NaN or infinity: the loss diverged. Lower the learning rate.":
        "학습 뒤 FFN의 출력에 NaN이나 무한대가 있습니다: 손실이 발산했습니다. 학습률을 낮추세요.",
    "c_proj's weights are what they were before training: does your loop call opt.step(), with an optimiser made "
    "from ffn.c_proj.parameters()?":
        "c_proj의 가중치가 학습 전과 같습니다: 반복문이 ffn.c_proj.parameters()로 만든 옵티마이저의 opt.step()을 "
        "호출하나요?",
    "the mean squared error is {mse:.2g} after training, against {untrained:.3f} untrained (least squares: 0, up "
    "to rounding)":
        "평균 제곱 오차가 학습 뒤 {mse:.2g}, 학습 전 {untrained:.3f}입니다(최소제곱: 반올림 오차를 빼면 0)",
    "{said}: training made it worse. A learning rate too high, or gradients that pile up because opt.zero_grad() "
    "is not called every step.":
        "{said}: 학습이 오차를 오히려 키웠습니다. 학습률이 너무 높거나, 스텝마다 opt.zero_grad()를 호출하지 않아 "
        "gradient가 쌓였을 수 있습니다.",
    "{said}, {share:.0%} of the untrained error; at most {most:.0%} may be left. Train for more steps or with a "
    "higher learning rate (print the loss every 50 steps: is it still falling?).":
        "{said}. 학습 전 오차의 {share:.0%}이고, 남아도 되는 것은 최대 {most:.0%}입니다. 스텝을 늘리거나 학습률을 "
        "높여 학습하세요(50스텝마다 손실을 출력해 보세요: 아직 줄고 있나요?).",
    "{said}; {hits} of {n} pairs retrieved. Gradient descent, step by step, comes as close as you like to what "
    "least squares solves at once.":
        "{said}. 쌍 {n}개 중 {hits}개를 꺼냈습니다. 경사 하강법은 한 스텝씩, 최소제곱이 한 번에 푸는 답에 원하는 "
        "만큼 가까이 다가갑니다.",
}
