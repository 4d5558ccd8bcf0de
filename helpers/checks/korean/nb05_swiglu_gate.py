"""Notebook 05's check sentences (helpers/checks/nb05_swiglu_gate.py) in Korean."""

from helpers.checks.korean.cases import filled, named
from helpers.checks.nb05_swiglu_gate import (
    _NO_BIAS,
    _NO_DOWN,
    _SPLIT_CASES,
    _STILL_SEPARATE,
    check_multiplier_range,
)

MESSAGES = {
    # Exercise 1
    "Exercise 1 (predict the negative gates)": "연습 1 (음수 게이트 예측하기)",
    "x @ W_gate is centred on 0 for a freshly initialised layer, so about half of the gate pre-activations are "
    "negative, and SiLU maps every negative z to a negative gate (between -0.278 and 0): those gates flip the "
    "sign of their up value and shrink it.":
        "갓 초기화한 층에서 x @ W_gate는 0을 중심으로 퍼져 있으므로 게이트의 사전 활성화 중 약 절반이 음수이고, "
        "SiLU는 음수인 z를 모두 음수 게이트(-0.278과 0 사이)로 보냅니다: 그런 게이트는 자기 up 값의 부호를 "
        "뒤집고 크기를 줄입니다.",
    "A share is a number between 0 and 1: a guess of {got:g} reads as a percent (50% is 0.5).":
        "비율은 0과 1 사이의 숫자입니다: 추측한 값 {got:g}은(는) 퍼센트로 읽힙니다(50%는 0.5입니다).",
    "No negative gates would be ReLU's answer, or a switch's in [0, 1]; SiLU keeps the sign of z, so every "
    "negative z gives a negative gate.":
        "음수 게이트가 하나도 없다는 것은 ReLU의 답, 또는 [0, 1] 안의 스위치의 답입니다. SiLU는 z의 부호를 "
        "유지하므로, 음수인 z는 모두 음수 게이트를 줍니다.",
    "A gate is negative for every negative z, not only in the dip near z = -1.28 where SiLU is lowest: how many "
    "of the z are negative?":
        "게이트는 SiLU가 가장 낮은 z = -1.28 근처의 골짜기에서만이 아니라, 음수인 z 모두에서 음수입니다: z 중 "
        "몇 개가 음수일까요?",
    "More than the positive ones? SiLU(z) < 0 exactly when z < 0, and nothing here makes z lean to one side.":
        "양수인 게이트보다 많다고요? SiLU(z) < 0은 정확히 z < 0일 때이고, 여기에는 z를 한쪽으로 치우치게 하는 "
        "것이 없습니다.",
    # Exercise 2
    "Exercise 2 (load a fused checkpoint)": "연습 2 (융합된 체크포인트 로드하기)",
    "fused state_dict, d_model={d_model}, d_ff={d_ff}": "융합된 state_dict, d_model={d_model}, d_ff={d_ff}",
    "returned {got}; expected a dict with the keys {keys}":
        "{got}을(를) 반환했습니다. 기대한 것은 키가 {keys}인 dict입니다",
    "has no {missing} and has {extra}, which GatedMLP does not: GatedMLP's state_dict has exactly {expected}":
        "{missing}이(가) 없고, GatedMLP에는 없는 {extra}이(가) 있습니다: GatedMLP의 state_dict에는 정확히 "
        "{expected}이(가) 있습니다",
    "has no {missing}: GatedMLP's state_dict has exactly {expected}":
        "{missing}이(가) 없습니다: GatedMLP의 state_dict에는 정확히 {expected}이(가) 있습니다",
    "has {extra}, which GatedMLP does not: GatedMLP's state_dict has exactly {expected}":
        "GatedMLP에는 없는 {extra}이(가) 있습니다: GatedMLP의 state_dict에는 정확히 {expected}이(가) 있습니다",
    "holds {got} under {key}; expected a tensor of shape {shape}":
        "{key}에 {got}이(가) 들어 있습니다. 기대한 것은 shape {shape}의 텐서입니다",
    "holds a meta tensor under {key}, which has no numbers: keep the checkpoint's tensors":
        "{key}에 숫자가 없는 meta 텐서가 들어 있습니다: 체크포인트의 텐서를 그대로 쓰세요",
    "gives {key} the shape {shape}; GatedMLP's {key} is {expected}":
        "{key}의 shape가 {shape}입니다. GatedMLP의 {key}은(는) {expected}입니다",
    "gives {key} the dtype {dtype}; the checkpoint's tensors are {expected}: keep their dtype":
        "{key}의 dtype이 {dtype}입니다. 체크포인트의 텐서는 {expected}입니다: dtype을 유지하세요",
    "gives {key} other numbers than the checkpoint holds for it":
        "{key}에 체크포인트가 담은 것과 다른 숫자가 들어 있습니다",
    "{call} keeps gate_up_proj.weight: GatedMLP has no such parameter, and load_state_dict (strict, as it is by "
    "default) refuses an unexpected key. Return gate_proj, up_proj and down_proj only.":
        "{call}에 gate_up_proj.weight가 남아 있습니다: GatedMLP에는 그런 파라미터가 없고, load_state_dict는 "
        "(기본값대로 strict이면) 예상하지 못한 키를 거부합니다. gate_proj, up_proj, down_proj만 반환하세요.",
    "{call} names the layers, not their parameters: a state_dict's keys are 'gate_proj.weight', "
    "'up_proj.weight' and 'down_proj.weight'.":
        "{call}은(는) 파라미터가 아니라 층의 이름을 키로 씁니다: state_dict의 키는 'gate_proj.weight', "
        "'up_proj.weight', 'down_proj.weight'입니다.",
    "{call} has no 'down_proj.weight': GatedMLP needs it too. It is not fused, so pass it on as it is.":
        "{call}에 'down_proj.weight'가 없습니다: GatedMLP에는 이것도 필요합니다. 융합되어 있지 않으므로 그대로 "
        "넘기세요.",
    "{call} gives gate_proj the second half of gate_up_proj's rows. fuse_gate_up (section 5) stacks the gate's "
    "rows first, then up's, and so does Phi-3: the first d_ff rows are the gate.":
        "{call}은(는) gate_proj에 gate_up_proj의 행 중 뒤쪽 절반을 줍니다. fuse_gate_up(5절)은 게이트의 행을 "
        "먼저, 그다음 up의 행을 쌓고, Phi-3도 그렇습니다: 처음 d_ff개 행이 게이트입니다.",
    "{call} splits gate_up_proj.weight along its columns (dim=1), which are the d_model inputs. nn.Linear stores "
    "a weight as (out_features, in_features): the 2 * d_ff outputs are its rows, dim=0.":
        "{call}은(는) gate_up_proj.weight를 열(dim=1)을 따라 나눕니다. 열은 d_model개의 입력입니다. nn.Linear는 "
        "가중치를 (out_features, in_features)로 저장합니다: 출력 2 * d_ff개는 행, 곧 dim=0입니다.",
    "{call} transposes a weight: a state_dict stores each nn.Linear weight as (out_features, in_features), the "
    "layout the checkpoint already has. Keep the rows as they are, no .T.":
        "{call}은(는) 가중치를 전치합니다: state_dict는 각 nn.Linear 가중치를 (out_features, in_features)로 "
        "저장하고, 체크포인트는 이미 그 배치입니다. 행을 그대로 두세요. .T는 필요 없습니다.",
    "both fused checkpoints split into gate_proj, up_proj and down_proj that load into GatedMLP: the gate's rows "
    "first, then up's, each (d_ff, d_model) as nn.Linear stores it.":
        "융합된 체크포인트 두 개가 모두 GatedMLP에 로드되는 gate_proj, up_proj, down_proj로 나뉩니다: 게이트의 "
        "행이 먼저, 그다음 up의 행이고, 각각 nn.Linear가 저장하는 대로 (d_ff, d_model)입니다.",
    # Exercise 3
    "Exercise 3 (fuse gate and up)": "연습 3 (게이트와 up 융합하기)",
    "your FusedSwiGLU": "여러분의 FusedSwiGLU",
    _NO_BIAS: "Llama의 사영에는 bias가 없습니다: 각 nn.Linear에 bias=False를 넘기세요.",
    _NO_DOWN: "출력이 토큰마다 숫자 d_ff개입니다: forward 끝의 down-projection self.down_proj를 잊지 않았나요?",
    _STILL_SEPARATE:
        "여러분의 모듈에는 아직 gate_proj와 up_proj가 따로 있습니다: 융합한 버전에는 그 자리에 gate_up_proj = "
        "nn.Linear(d_model, 2 * d_ff, bias=False) 하나가 있습니다.",
    "your module has no down_proj: the fused version keeps it, nn.Linear(d_ff, d_model, bias=False).":
        "여러분의 모듈에 down_proj가 없습니다: 융합한 버전에도 down_proj, 곧 nn.Linear(d_ff, d_model, "
        "bias=False)가 그대로 있습니다.",
    "SiLU went on the second half of gate_up_proj's output, which is up: the weights hold the gate's rows first "
    "(as vLLM's and Phi-3's gate_up_proj), then up's. The first half is the gate.":
        "SiLU가 gate_up_proj 출력의 뒤쪽 절반, 곧 up에 적용되었습니다: 가중치에는 (vLLM과 Phi-3의 gate_up_proj처럼) "
        "게이트의 행이 먼저, 그다음 up의 행이 있습니다. 앞쪽 절반이 게이트입니다.",
    "you took every other output as the gate (0::2) and the rest as up; the weights hold the gate's d_ff rows as "
    "one block, then up's: split into two halves.":
        "출력을 하나 걸러 하나씩(0::2) 게이트로, 나머지를 up으로 잡았습니다. 가중치에는 게이트의 행 d_ff개가 한 "
        "덩어리로 있고, 그다음 up의 행이 있습니다: 두 절반으로 나누세요.",
    "you applied SiLU to both halves; only the gate goes through SiLU: act_fn(gate) * up.":
        "두 절반 모두에 SiLU를 적용했습니다. SiLU는 게이트에만 적용합니다: act_fn(gate) * up.",
    "that is GELU on the gate (GEGLU, another of Shazeer's variants); SwiGLU's gate uses SiLU: nn.SiLU().":
        "그것은 게이트에 GELU를 쓴 것(Shazeer의 또 다른 변형인 GEGLU)입니다. SwiGLU의 게이트는 SiLU를 씁니다: "
        "nn.SiLU().",
    "that is ReLU on the gate (ReGLU); SwiGLU's gate uses SiLU: nn.SiLU().":
        "그것은 게이트에 ReLU를 쓴 것(ReGLU)입니다. SwiGLU의 게이트는 SiLU를 씁니다: nn.SiLU().",
    "that is sigmoid on the gate, the original GLU of Dauphin et al., which stays in (0, 1); SwiGLU's gate is "
    "SiLU(z) = z * sigmoid(z): nn.SiLU().":
        "그것은 게이트에 sigmoid를 쓴 것, 곧 (0, 1) 안에 머무는 Dauphin et al.의 원래 GLU입니다. SwiGLU의 게이트는 "
        "SiLU(z) = z * sigmoid(z)입니다: nn.SiLU().",
    "there is no activation on the gate: apply self.act_fn (nn.SiLU()) to the gate half.":
        "게이트에 활성화 함수가 없습니다: 게이트 절반에 self.act_fn(nn.SiLU())을 적용하세요.",
    "you added the two halves; SwiGLU multiplies them entry by entry: act_fn(gate) * up.":
        "두 절반을 더했습니다. SwiGLU는 둘을 원소별로 곱합니다: act_fn(gate) * up.",
    "SiLU comes after the product here; it goes on the gate alone, before the product: act_fn(gate) * up.":
        "여기서는 SiLU가 곱 뒤에 옵니다. SiLU는 곱하기 전에 게이트에만 적용합니다: act_fn(gate) * up.",
    "fuse_gate_up(GatedMLP)'s weights load into your module and give GatedMLP's output: one GEMM for gate and "
    "up, then a split, the same numbers.":
        "fuse_gate_up(GatedMLP)의 가중치가 여러분의 모듈에 로드되고 GatedMLP의 출력을 냅니다: 게이트와 up을 GEMM "
        "한 번으로 계산한 뒤 나누어도 숫자는 같습니다.",
    # Exercise 4
    "Exercise 4 (Llama's width rule, backwards)": "연습 4 (Llama의 너비 규칙, 거꾸로)",
    "{call} returned (high, low); return the smaller bound first: (low, high).":
        "{call}이(가) (high, low)를 반환했습니다: 작은 경계를 먼저 반환하세요: (low, high).",
    "{call} returned widths, not multipliers: divide them by step 1's width, int(2 * 4 * d_model / 3).":
        "{call}이(가) 승수가 아니라 너비를 반환했습니다: 1단계의 너비 int(2 * 4 * d_model / 3)로 나누세요.",
    "{call}: step 3 rounds UP to a multiple. The widths that round up to intermediate_size N are N - multiple_of "
    "+ 1 to N; yours are those that round down to it.":
        "{call}: 3단계는 배수로 올림합니다. intermediate_size N으로 올림되는 너비는 N - multiple_of + 1부터 "
        "N까지입니다. 여러분의 범위는 N으로 내림되는 너비입니다.",
    "{call}: your bounds treat m * w as any real number, but step 2 rounds it down to a whole number v = "
    "int(m * w). int(m * w) = k holds for k <= m * w < k + 1: apply that at both ends.":
        "{call}: 여러분의 경계는 m * w를 아무 실수로나 다루지만, 2단계는 그것을 정수 v = int(m * w)로 내림합니다. "
        "int(m * w) = k는 k <= m * w < k + 1일 때 성립합니다: 이것을 양 끝에 적용하세요.",
    "{call}: you divided by 8 * d_model / 3 itself; step 1 rounds it down to a whole number first (10922 for "
    "d_model = 4096), and the multiplier acts on that.":
        "{call}: 8 * d_model / 3 자체로 나누었습니다. 1단계는 먼저 그것을 정수로 내림하고(d_model = 4096이면 "
        "10922), 승수는 그 정수에 곱해집니다.",
    "{call}: you divided by 4 * d_model; the multiplier acts on 2/3 of it (step 1).":
        "{call}: 4 * d_model로 나누었습니다. 승수는 그 2/3(1단계)에 곱해집니다.",
    "every multiplier in [{:.4f}, {:.4f}) gives Llama-3-8B's 14336, so its 1.3 is one choice of many; "
    "Llama-2-7B's range holds 1.0 (no multiplier), and Llama-3.1-405B's holds its 1.2.":
        "[{:.4f}, {:.4f}) 안의 승수는 모두 Llama-3-8B의 14336을 주므로, 그 1.3은 여러 선택지 중 하나입니다. "
        "Llama-2-7B의 범위에는 1.0(승수 없음)이, Llama-3.1-405B의 범위에는 그 모델의 1.2가 들어 있습니다.",
    # Exercise 5
    "Exercise 5 (which pre-activation gives this gate?)": "연습 5 (어떤 사전 활성화가 이 게이트를 만들까요?)",
    "{call} returned the gate itself: the gate value is what comes OUT of SiLU; find the z that goes in.":
        "{call}이(가) 게이트 자체를 반환했습니다: 게이트 값은 SiLU에서 나오는 값입니다. SiLU에 들어가는 z를 "
        "찾으세요.",
    "{call} = {got}: that is SiLU(g), SiLU applied to the gate. The question goes the other way: which z has "
    "SiLU(z) = g?":
        "{call} = {got}: 그것은 SiLU(g), 곧 게이트에 SiLU를 적용한 값입니다. 문제는 반대 방향입니다: 어떤 z가 "
        "SiLU(z) = g를 만족할까요?",
    "{call} = {got}: that inverts sigmoid, log(g / (1 - g)); the gate is SiLU(z) = z * sigmoid(z).":
        "{call} = {got}: 그것은 sigmoid의 역함수 log(g / (1 - g))입니다. 게이트는 SiLU(z) = z * sigmoid(z)입니다.",
    "{call} = {got} is left of SiLU's minimum at -1.278465: it gives the same gate, but take the solution on the "
    "rising branch (z >= -1.278465).":
        "{call} = {got}은(는) -1.278465에 있는 SiLU의 최솟값보다 왼쪽입니다: 같은 게이트를 주지만, 증가하는 쪽의 "
        "해(z >= -1.278465)를 고르세요.",
    "{call} = {got} is close, but not within 1e-6 of the answer: each halving of the interval gains one binary "
    "digit, so halve it more times (or pass a smaller xtol).":
        "{call} = {got}은(는) 가깝지만 답과 1e-6 이내는 아닙니다: 구간을 반으로 나눌 때마다 이진 자릿수 하나를 "
        "얻으므로, 더 여러 번 나누세요(또는 더 작은 xtol을 넘기세요).",
    "the gates 0.1, 1.5, 0 and 2 of source post 2 come from pre-activations of about 0.183, 1.758, 0 and 2.218.":
        "원문 글 2의 게이트 0.1, 1.5, 0, 2는 약 0.183, 1.758, 0, 2.218의 사전 활성화에서 나옵니다.",
}

# Sentences the checks hold already filled: a success line with its numbers, the cases' names in a call.
MESSAGES |= filled(MESSAGES, check_multiplier_range.success)
MESSAGES |= named(MESSAGES, *(state for (state,) in _SPLIT_CASES))
