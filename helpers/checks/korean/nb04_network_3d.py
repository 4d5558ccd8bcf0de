"""Notebook 04's check sentences (helpers/checks/nb04_network_3d.py) in Korean."""

_DIMMED = "꺼진 것이 아니라 약해진 것입니다"
_ABS = "|a|를 keep * |h|와 비교하세요."

MESSAGES = {
    # Exercise 1
    "Exercise 1 (predict the units ReLU switches off)": "연습 1 (ReLU가 끄는 뉴런 예측하기)",
    "Each pre-activation h_j = x @ W1[:, j] sums 768 products of random numbers centred on 0, so it is negative "
    "for about half of the units, and ReLU sets every negative one to exactly 0.":
        "각 사전 활성화 h_j = x @ W1[:, j]는 0을 중심으로 퍼진 무작위 숫자의 곱 768개를 더한 값이므로, 뉴런의 "
        "약 절반에서 음수이고, ReLU는 음수인 것을 모두 정확히 0으로 만듭니다.",
    "you wrote {value:g}: the question asks for a share between 0 and 1, so {value:g}% is {share:g}. Set "
    "my_off_share = {share:g}, then run this check again.":
        "{value:g}라고 썼습니다: 문제는 0과 1 사이의 비율을 묻습니다. 비율로 쓰면 {value:g}%는 {share:g}입니다. "
        "my_off_share = {share:g}로 정한 뒤 이 검사를 다시 실행하세요.",
    "{said} 0.1 is the 10% rule, which only GELU's dimmed units need; ReLU's off units are its exact zeros, every "
    "unit with h < 0.":
        "{said} 0.1은 10% 규칙으로, GELU의 약해진 뉴런에만 필요합니다. ReLU의 꺼진 뉴런은 정확히 0인 출력, 곧 "
        "h < 0인 모든 뉴런입니다.",
    "{said} Almost none is what GELU switches off at this scale (section 4); ReLU switches off every unit with "
    "h < 0.":
        "{said} 거의 없다는 것은 이 크기의 입력에서 GELU가 끄는 뉴런의 수입니다(4절). ReLU는 h < 0인 뉴런을 "
        "모두 끕니다.",
    # Exercise 2
    "Exercise 2 (which units are off)": "연습 2 (어느 뉴런이 꺼져 있을까요?)",
    "you returned one number; return one True/False per hidden unit (a boolean array shaped like h), so that the "
    "drawing can cross out each unit.":
        "숫자 하나를 반환했습니다. 그림이 뉴런마다 X 표시를 할 수 있도록, 은닉 뉴런마다 True/False 하나(h와 같은 "
        "shape의 boolean 배열)를 반환하세요.",
    "you marked only the exact zeros: right for ReLU, but GELU never gives exactly 0. Measure how much of its "
    "input a unit passes, |a| against |h|.":
        "정확히 0인 것만 표시했습니다: ReLU에는 맞지만, GELU는 정확히 0을 내지 않습니다. 뉴런이 입력을 얼마나 "
        "통과시키는지, |a|를 |h|와 견주어 재세요.",
    "you marked every negative pre-activation. GELU still passes between 10% and 50% of most of them (its share "
    "Phi(h) only falls below 10% for h < -1.28): dimmed, not off.":
        "음수인 사전 활성화를 모두 표시했습니다. GELU는 그 대부분에서 여전히 10%에서 50% 사이를 통과시킵니다"
        "(통과 비율 Phi(h)는 h < -1.28일 때만 10% 아래로 떨어집니다): " + _DIMMED + ".",
    "you marked the negative outputs: ReLU has none (its off units are exactly 0), and under GELU most negative "
    "outputs still pass more than 10% of h: dimmed, not off.":
        "음수인 출력을 표시했습니다: ReLU에는 음수 출력이 없고(꺼진 뉴런은 정확히 0입니다), GELU에서는 음수 출력 "
        "대부분이 여전히 h의 10%보다 많이 통과시킵니다: " + _DIMMED + ".",
    "you compared |a| with keep itself; off means a small share of the unit's own input: compare |a| with "
    "keep * |h|.":
        "|a|를 keep 자체와 비교했습니다. 꺼졌다는 것은 뉴런 자신의 입력 중 작은 비율만 통과시킨다는 뜻입니다: "
        + _ABS,
    "without absolute values on both sides the test flips for a negative h (keep * h is negative too): compare "
    "|a| with keep * |h|.":
        "양쪽에 절댓값이 없으면 h가 음수일 때 판정이 뒤집힙니다(keep * h도 음수입니다): " + _ABS,
    "keep * h is negative wherever h is, so no negative unit can pass that test: take the absolute value of h "
    "too, |a| <= keep * |h|.":
        "keep * h는 h가 음수인 곳마다 음수이므로, 음수인 뉴런은 그 판정을 통과할 수 없습니다: h에도 절댓값을 "
        "씌우세요. |a| <= keep * |h|.",
    "your mask is True for the units that are on; return True for the off ones.":
        "마스크가 켜진 뉴런에서 True입니다. 꺼진 뉴런에서 True를 반환하세요.",
    "{call} gives the mask for keep=0.1: use the argument keep, not a fixed 10%.":
        "{call}은(는) keep=0.1일 때의 마스크를 줍니다: 고정된 10%가 아니라 인자 keep을 쓰세요.",
    "ReLU's off units are exactly its zeros; GELU's are only those that pass under 10% of their input "
    "(h < -1.28): one rule for both.":
        "ReLU의 꺼진 뉴런은 정확히 출력이 0인 뉴런이고, GELU의 꺼진 뉴런은 입력의 10% 미만만 통과시키는 뉴런"
        "(h < -1.28)뿐입니다: 두 활성화 함수에 규칙 하나입니다.",
    # Exercise 3
    "Exercise 3 (how often is each unit off)": "연습 3 (각 뉴런은 얼마나 자주 꺼질까요?)",
    "you have one number per token; average over the tokens (axis 0) to get one number per hidden unit.":
        "토큰마다 숫자가 하나입니다. 토큰에 걸쳐(axis 0) 평균을 내어 은닉 뉴런마다 숫자 하나를 얻으세요.",
    "you counted the tokens; divide by their number for a share between 0 and 1.":
        "토큰의 개수를 셌습니다. 토큰 수로 나누어 0과 1 사이의 비율을 구하세요.",
    "that is how often each unit is on; return how often it is off.":
        "그것은 각 뉴런이 켜지는 빈도입니다. 꺼지는 빈도를 반환하세요.",
    "your rates leave out the bias b1: the pre-activation is X @ W1 + b1.":
        "비율에서 bias b1이 빠졌습니다: 사전 활성화는 X @ W1 + b1입니다.",
    "with GELU you counted the negative pre-activations, ReLU's rule; a GELU unit is off only when it passes "
    "under 10% of its input: use switched_off with the activation the argument names, "
    "helpers.activations.get(activation).":
        "GELU에서 음수인 사전 활성화를 셌습니다. 그것은 ReLU의 규칙입니다. GELU 뉴런은 입력의 10% 미만만 "
        "통과시킬 때만 꺼집니다: 인자가 가리키는 활성화 함수 helpers.activations.get(activation)과 함께 "
        "switched_off를 쓰세요.",
    "each unit is off for some tokens and on for others; only a unit whose bias pushes every token below 0 is off "
    "for all of them (a dead unit, notebook 02).":
        "각 뉴런은 어떤 토큰에서는 꺼지고 다른 토큰에서는 켜집니다. bias가 모든 토큰을 0 아래로 밀어내는 뉴런만 "
        "모든 토큰에서 꺼집니다(죽은 뉴런, 노트북 02).",
}
