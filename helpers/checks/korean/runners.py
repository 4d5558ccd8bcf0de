"""The runners' own sentences (helpers/checks/core, runner, module, compare, show) in Korean."""

_LOAD = "기준 모듈의 파라미터는 {expected}입니다: 층 이름을 똑같이 지어야 가중치가 로드됩니다."

MESSAGES = {
    # marks, defaults and phrases used as values
    "[correct]": "[정답]",
    "[not yet]": "[아직]",
    "[not attempted yet]": "[아직 시도하지 않음]",
    "write your answer in the cell above, then run it again.": "위 셀에 답을 쓴 뒤 다시 실행하세요.",
    "correct, well done.": "정답입니다. 잘했습니다.",
    "correct: the reference's weights load into your module and give the same output.":
        "정답입니다: 기준 모듈의 가중치가 여러분의 모듈에 로드되고 같은 출력을 냅니다.",
    "your answer": "여러분의 답",
    "your module": "여러분의 모듈",
    "the run gives": "실행 결과는",
    "no message": "메시지 없음",
    "{}": "{}",
    "{name}({args})": "{name}({args})",
    "{shape} array": "{shape} 배열",
    "{}, {}": "{}, {}",
    "{}, {}, {}": "{}, {}, {}",
    "{}, {}, {}, {}": "{}, {}, {}, {}",
    # core: what the learner's code did
    "{call} raised {kind}: {said}": "{call}에서 {kind} 예외가 발생했습니다: {said}",
    "{call} raised {kind}: {said}.": "{call}에서 {kind} 예외가 발생했습니다: {said}.",
    "{call} raised {kind}.": "{call}에서 {kind} 예외가 발생했습니다.",
    "{call} ran for more than {seconds} s and was stopped: is there a loop that never ends (a `while` whose "
    "condition stays true, say, as `hi - lo > 0` can in floating point)?":
        "{call}이(가) {seconds}초 넘게 실행되어 멈췄습니다: 끝나지 않는 반복문이 있나요? (예를 들어 부동소수점에서는 "
        "`hi - lo > 0` 같은 `while` 조건이 계속 참일 수 있습니다.)",
    "{call} called sys.exit({code}) (SystemExit). A function hands its answer back with `return`; exiting "
    "would stop the notebook here.":
        "{call}이(가) sys.exit({code})를 호출했습니다(SystemExit). 함수는 답을 `return`으로 돌려줍니다. "
        "종료하면 노트북이 여기서 멈춥니다.",
    "{call} returns None: is the stub's `return None` still there? End your function with `return` and your "
    "answer.":
        "{call}이(가) None을 반환합니다: 스텁의 `return None`이 아직 남아 있나요? 함수를 `return`과 답으로 "
        "끝내세요.",
    "{call} returned None, though the first case gave an answer: does every path through your function end in "
    "a `return`?":
        "첫 번째 경우에는 답을 냈는데 {call}은(는) None을 반환했습니다: 함수의 모든 경로가 `return`으로 "
        "끝나나요?",
    "the check could not judge this answer ({kind}: {said}). Compare what your code returns, its type and "
    "shape, with what the exercise asks for.":
        "검사가 이 답을 판정하지 못했습니다({kind}: {said}). 코드가 반환하는 값의 타입과 shape를 연습 문제가 "
        "요구하는 것과 비교해 보세요.",
    # runner: tables and predictions
    "returned {got}, which cannot be compared with the expected {expected} ({kind}: {said})":
        "{got}을(를) 반환했는데, 기대한 {expected}와(과) 비교할 수 없습니다({kind}: {said})",
    "{call} {problem}.": "{call}: {problem}.",
    "set {variable} in the exercise's cell, then run this check again.":
        "연습 셀에서 {variable} 값을 정한 뒤 이 검사를 다시 실행하세요.",
    "{variable} = {guess} is not one of {choices}.": "{variable} = {guess}는 {choices} 중 하나가 아닙니다.",
    "{variable} = {guess}; write a number.": "{variable} = {guess}입니다. 숫자를 쓰세요.",
    "{variable} is NaN; write a number.": "{variable}이(가) NaN입니다. 숫자를 쓰세요.",
    "you wrote {guess:g}: as a percent that is {percent:g}%. The question asks for a percent: set {variable} = "
    "{percent:g}, then run this check again.":
        "{guess:g}라고 썼습니다: 퍼센트로는 {percent:g}%입니다. 문제는 퍼센트를 묻습니다: {variable} = "
        "{percent:g}로 정한 뒤 이 검사를 다시 실행하세요.",
    "you predicted {guess}, {answer} {actual}. {why}": "여러분의 예측은 {guess}이고, {answer} {actual}입니다. {why}",
    # module: a module the learner wrote
    "it has no {missing}; it has {extra}, which the reference does not. The reference's parameters are "
    "{expected}: name your layers the same, so that its weights load.":
        "{missing}이(가) 없고, 기준 모듈에는 없는 {extra}이(가) 있습니다. " + _LOAD,
    "it has no {missing}. The reference's parameters are {expected}: name your layers the same, so that its "
    "weights load.":
        "{missing}이(가) 없습니다. " + _LOAD,
    "it has {extra}, which the reference does not. The reference's parameters are {expected}: name your "
    "layers the same, so that its weights load.":
        "기준 모듈에는 없는 {extra}이(가) 있습니다. " + _LOAD,
    "{key} has shape {shape}; expected {expected}.": "{key}의 shape가 {shape}입니다. 기대한 shape는 {expected}입니다.",
    "{key} has shape {shape}; expected {expected}. nn.Linear(in_features, out_features) stores its weight as "
    "(out, in): did you swap the two sizes?":
        "{key}의 shape가 {shape}입니다. 기대한 shape는 {expected}입니다. nn.Linear(in_features, out_features)는 "
        "가중치를 (out, in)으로 저장합니다: 두 크기를 서로 바꿔 쓰지 않았나요?",
    "that is the reference, {where}, itself: write your own class, a subclass of nn.Module.":
        "그것은 기준 클래스 {where} 자체입니다: nn.Module의 서브클래스로 여러분의 클래스를 직접 작성하세요.",
    "your class subclasses the reference {name} ({where}): write the module yourself, as a subclass of "
    "nn.Module.":
        "여러분의 클래스가 기준 클래스 {name}({where})을(를) 상속합니다: 모듈을 nn.Module의 서브클래스로 직접 "
        "작성하세요.",
    "building {name}": "{name} 만들기",
    "building {name} gave None: pass the class itself, a subclass of nn.Module.":
        "{name}을(를) 만들었더니 None이 나왔습니다: 클래스 자체(nn.Module의 서브클래스)를 넘기세요.",
    "{name} built {got}, not an nn.Module: subclass nn.Module and call super().__init__() first.":
        "{name}이(가) nn.Module이 아닌 {got}을(를) 만들었습니다: nn.Module을 상속하고 먼저 "
        "super().__init__()을 호출하세요.",
    "{name}'s parameters do not match: {problem}": "{name}의 파라미터가 맞지 않습니다: {problem}",
    "{name}'s forward": "{name}의 forward",
    "{name}'s forward returns None: does it end with `return` and the output?":
        "{name}의 forward가 None을 반환합니다: `return`과 출력으로 끝나나요?",
    "with the reference's weights, {name}'s output {problem}.": "기준 모듈의 가중치를 넣었을 때 {name}의 출력: {problem}.",
    # compare: how an answer differs
    "is {dtype}, and agrees with the float64 reference only to {dtype}'s precision: keep float64 (did you call "
    ".float() or .half(), or make a tensor without dtype=torch.float64?)":
        "{dtype}이고, float64 기준값과 {dtype}의 정밀도까지만 일치합니다: float64를 유지하세요(.float()나 "
        ".half()를 호출했거나, dtype=torch.float64 없이 텐서를 만들지 않았나요?)",
    "returned {got}; expected an array of shape {shape}": "{got}을(를) 반환했습니다. 기대한 것은 shape {shape}의 배열입니다",
    "has shape {shape}; expected {expected}": "shape가 {shape}입니다. 기대한 shape는 {expected}입니다",
    "holds NaN or infinite values": "NaN이나 무한대 값이 들어 있습니다",
    "differs: got {got:.4g}, expected {expected:.4g}": "값이 다릅니다: {got:.4g}, 기대값은 {expected:.4g}",
    "differs in {n} of {size} entries; first at index {index}: got {got:.4g}, expected {expected:.4g}":
        "{size}개 원소 중 {n}개가 다릅니다. 첫 번째는 인덱스 {index}: {got:.4g}, 기대값은 {expected:.4g}",
    "returned {got}; expected the number {expected:,}": "{got}을(를) 반환했습니다. 기대한 것은 숫자 {expected:,}입니다",
    "returned {got}; expected the whole number {expected:,}":
        "{got}을(를) 반환했습니다. 기대한 것은 정수 {expected:,}입니다",
    "= {got:,}; expected {expected:,}": "= {got:,}, 기대값은 {expected:,}",
    "returned {got}; expected one number": "{got}을(를) 반환했습니다. 기대한 것은 숫자 하나입니다",
    "= {got}; expected a finite number": "= {got}, 기대한 것은 유한한 숫자입니다",
    "= {got:.6g}; expected {expected:.6g}": "= {got:.6g}, 기대값은 {expected:.6g}",
    "= {got}; expected {expected}": "= {got}, 기대값은 {expected}",
    # show: what a value is
    "a {name}": "{name} 객체",
    "an {name}": "{name} 객체",
    "the complex number {value:.4g}": "복소수 {value:.4g}",
    "a tensor on the meta device, of shape {shape}, which holds no numbers":
        "meta 장치에 있는 shape {shape}의 텐서(숫자를 담고 있지 않음)",
    "a {dtype} tensor of shape {shape}": "shape {shape}의 {dtype} 텐서",
    "an {dtype} tensor of shape {shape}": "shape {shape}의 {dtype} 텐서",
    "a {dtype} array of shape {shape}": "shape {shape}의 {dtype} 배열",
    "an {dtype} array of shape {shape}": "shape {shape}의 {dtype} 배열",
    "a generator (a function with `yield`, or a generator expression in parentheses)":
        "제너레이터(`yield`가 있는 함수, 또는 괄호로 감싼 제너레이터 표현식)",
    "a {kind} of {n}": "원소 {n}개의 {kind}",
    "an {kind} of {n}": "원소 {n}개의 {kind}",
    "a list of {n}": "원소 {n}개의 list",
    "a list of {n} ({items})": "원소 {n}개의 list({items})",
    "a tuple of {n}": "원소 {n}개의 tuple",
    "a tuple of {n} ({items})": "원소 {n}개의 tuple({items})",
    "a dict with keys {keys}": "키가 {keys}인 dict",
    "an empty dict": "빈 dict",
    "a {name} module": "{name} 모듈",
    "an {name} module": "{name} 모듈",
    "the class {name}": "클래스 {name}",
    "the function {name}": "함수 {name}",
}
