"""Notebook 02's check sentences (helpers/checks/nb02_activations.py) in Korean."""

MESSAGES = {
    # Exercise 1
    "Exercise 1 (where is GELU's valley?)": "연습 1 (GELU의 골짜기는 어디일까요?)",
    "GELU(x) = x * Phi(x) is lowest where its slope crosses 0. Left of that point the gate Phi(x) shrinks "
    "faster than |x| grows, so GELU climbs back towards 0 and its slope is negative; right of it GELU rises "
    "to 0 at x = 0. SiLU's valley is deeper and further left: the figures below show both.":
        "GELU(x) = x * Phi(x)는 기울기가 0을 지나는 곳에서 가장 낮습니다. 그 점의 왼쪽에서는 게이트 Phi(x)가 "
        "|x|가 커지는 것보다 빨리 줄어들어, GELU는 0 쪽으로 다시 올라가고 기울기는 음수입니다. 그 점의 "
        "오른쪽에서 GELU는 올라가 x = 0에서 0이 됩니다. SiLU의 골짜기는 더 깊고 더 왼쪽에 있습니다: 아래 "
        "그림들이 둘 다 보여 줍니다.",
    "brentq finds": "brentq가 찾은 값은",
    # Exercise 2
    "Exercise 2 (GELU's derivative)": "연습 2 (GELU의 미분)",
    "your derivative is Phi(x) alone: that is the gate, not the slope. The product rule on x * Phi(x) adds "
    "x * phi(x), the term that makes the slope negative left of the valley.":
        "여러분의 미분은 Phi(x)뿐입니다: 그것은 기울기가 아니라 게이트입니다. x * Phi(x)에 곱의 미분법을 "
        "쓰면 x * phi(x)가 더해집니다. 골짜기 왼쪽에서 기울기를 음수로 만드는 항입니다.",
    "you have x * phi(x) but not Phi(x): the product rule gives both, 1 * Phi(x) + x * phi(x).":
        "x * phi(x)는 있지만 Phi(x)가 없습니다: 곱의 미분법은 둘 다 줍니다. 1 * Phi(x) + x * phi(x).",
    "the second term is x * phi(x): the derivative of Phi(x) is phi(x), multiplied by the x in front.":
        "두 번째 항은 x * phi(x)입니다: Phi(x)의 미분은 phi(x)이고, 여기에 앞의 x가 곱해집니다.",
    "phi(x) = exp(-x**2 / 2) / sqrt(2 * pi): your normal density lacks its 1 / sqrt(2 * pi).":
        "phi(x) = exp(-x**2 / 2) / sqrt(2 * pi)입니다: 여러분의 정규분포 밀도에는 1 / sqrt(2 * pi)가 빠져 "
        "있습니다.",
    "the second term has the wrong sign: the product rule adds, Phi(x) + x * phi(x).":
        "두 번째 항의 부호가 틀렸습니다: 곱의 미분법은 더합니다. Phi(x) + x * phi(x).",
    "phi(x) = exp(-x**2 / 2) / sqrt(2 * pi): your density has exp(-x**2), without the / 2.":
        "phi(x) = exp(-x**2 / 2) / sqrt(2 * pi)입니다: 여러분의 밀도에는 / 2가 없는 exp(-x**2)가 있습니다.",
    "Phi(x) = 0.5 * (1 + erf(x / sqrt(2))): your Phi uses erf(x), without the / sqrt(2).":
        "Phi(x) = 0.5 * (1 + erf(x / sqrt(2)))입니다: 여러분의 Phi는 / sqrt(2)가 없는 erf(x)를 씁니다.",
    "your function returns GELU(x) itself, not its derivative.":
        "여러분의 함수는 미분이 아니라 GELU(x) 자체를 반환합니다.",
    "that is the derivative of GELU's tanh approximation; the exercise asks for exact GELU, x * Phi(x) "
    "with erf.":
        "그것은 GELU의 tanh 근사식의 미분입니다. 이 연습이 묻는 것은 정확한 GELU, 곧 erf로 쓴 x * Phi(x)의 "
        "미분입니다.",
    "{call} is within 1e-2 of the derivative but not within 1e-6: a finite difference (np.gradient, or "
    "(f(x + h) - f(x)) / h) only approximates it. Write the exact derivative with the product rule.":
        "{call}은(는) 미분과 1e-2 이내로는 맞지만 1e-6 이내로는 맞지 않습니다: 유한 차분(np.gradient, 또는 "
        "(f(x + h) - f(x)) / h)은 미분을 근사할 뿐입니다. 곱의 미분법으로 정확한 미분을 쓰세요.",
    "Phi(x) + x * phi(x) agrees with helpers.activations.gelu_grad (checked against autograd in section 2) "
    "everywhere on [-4, 4], negative left of the valley.":
        "Phi(x) + x * phi(x)가 [-4, 4] 전체에서 helpers.activations.gelu_grad(2절에서 autograd와 대조함)와 "
        "일치하고, 골짜기 왼쪽에서 음수입니다.",
    # Exercise 3
    "Exercise 3 (count the dead units)": "연습 3 (죽은 뉴런 세기)",
    "{call} counts entries <= 0, not units: a unit is a column of H, dead only when every token leaves it "
    "off.":
        "{call}은(는) 뉴런이 아니라 0 이하인 원소를 셉니다: 뉴런은 H의 열이고, 모든 토큰에서 꺼져 있을 때만 "
        "죽은 것입니다.",
    "{call} counts units that are off for at least one token; a unit is dead only when it is off for every "
    "token.":
        "{call}은(는) 토큰 하나에서라도 꺼진 뉴런을 셉니다. 뉴런은 모든 토큰에서 꺼져 있을 때만 죽은 "
        "것입니다.",
    "{call} counts columns below 0 everywhere; at exactly 0 ReLU's slope is 0 too (torch's choice), so a "
    "column of zeros and negatives gets no gradient either.":
        "{call}은(는) 모든 원소가 0보다 작은 열을 셉니다. 정확히 0에서도 ReLU의 미분값은 0이므로(torch의 "
        "선택), 0과 음수로만 된 열도 기울기를 전혀 받지 못합니다.",
    "{call} counts tokens (rows) that every unit ignores; the units are the columns of H.":
        "{call}은(는) 모든 뉴런이 무시하는 토큰(행)을 셉니다. 뉴런은 H의 열입니다.",
    "{call} is the number of units, not the dead ones.":
        "{call}은(는) 죽은 뉴런의 수가 아니라 전체 뉴런의 수입니다.",
    "{call} counts the live units; the question asks for the dead ones.":
        "{call}은(는) 살아 있는 뉴런을 셉니다. 문제는 죽은 뉴런을 묻습니다.",
    "{call} gives one value per unit (True or False, or a count of tokens); return one number, how many "
    "units are dead: `int(....sum())` over the units.":
        "{call}은(는) 뉴런마다 값 하나(True나 False, 또는 토큰 수)를 줍니다. 죽은 뉴런이 몇 개인지 숫자 "
        "하나를 반환하세요: 뉴런들에 대해 `int(....sum())`.",
    "{call} is the share of dead units (a mean); the question asks how many: a count.":
        "{call}은(는) 죽은 뉴런의 비율(평균)입니다. 문제는 몇 개인지, 곧 개수를 묻습니다.",
    "your count agrees with autograd: on the hand-made H, and on a layer whose 16 pushed units are dead for "
    "all 256 tokens.":
        "여러분이 센 값이 autograd와 일치합니다: 손으로 만든 H에서도, 밀려난 뉴런 16개가 토큰 256개 모두에서 "
        "죽어 있는 층에서도 그렇습니다.",
    # Exercise 4
    "Exercise 4 (the bottom of the valley by bisection)": "연습 4 (이분법으로 골짜기 바닥 찾기)",
    "{call} = {got:.2g} is about 0: that is the slope at the bottom, slope(x). Return the x where it is "
    "reached, the middle of the last bracket.":
        "{call} = {got:.2g}은(는) 거의 0입니다: 그것은 바닥에서의 기울기 slope(x)입니다. 바닥에 닿는 x, 곧 "
        "마지막 구간의 가운데를 반환하세요.",
    "{call} returned the last bracket; return one number, its middle, (lo + hi) / 2.":
        "{call}이(가) 마지막 구간을 반환했습니다. 숫자 하나, 곧 그 가운데 (lo + hi) / 2를 반환하세요.",
    "{call} is where the first halving (or none) leaves the bracket: is the `return` inside the loop? "
    "Return after the loop has finished.":
        "{call}은(는) 구간을 처음 반으로 나눈 뒤(또는 나누기 전)의 값입니다: `return`이 반복문 안에 있나요? "
        "반복문이 끝난 뒤에 반환하세요.",
    "{call} walked to an end of the bracket: when the slope at the middle is negative, the bottom lies to "
    "its right, so the middle becomes the new left end.":
        "{call}은(는) 구간의 한쪽 끝으로 가 버렸습니다: 가운데에서 기울기가 음수이면 바닥은 그 오른쪽에 "
        "있으므로, 가운데가 새 왼쪽 끝이 됩니다.",
    "{call} is close but not within 1e-6: keep halving until the bracket is narrower than 1e-7 (about 25 "
    "halvings for a bracket 3 wide).":
        "{call}은(는) 가깝지만 1e-6 이내는 아닙니다: 구간이 1e-7보다 좁아질 때까지 계속 반으로 나누세요(폭이 "
        "3인 구간이면 약 25번).",
    "bisection on the slope finds the bottom of both valleys, GELU's at x = -0.7518 and SiLU's at "
    "x = -1.2785, as brentq did in section 3.":
        "기울기에 이분법을 쓰면 두 골짜기의 바닥을 모두 찾습니다. 3절의 brentq처럼 GELU는 x = -0.7518, "
        "SiLU는 x = -1.2785입니다.",
}
