"""Notebook 13's checks (helpers/checks/nb13_real_gpt2.py) in Korean."""

from helpers.checks.nb13_real_gpt2 import CONV1D, UNTRANSPOSED

_CONV1D = ("GPT-2의 Conv1D는 가중치를 (in, out)으로 저장합니다: c_fc.weight는 (d_model, d_ff)입니다. nn.Linear와, "
           "따라서 FFN은 (out, in)으로 저장합니다: 전치인 hf_mlp.c_fc.weight.T를 복사하세요(c_proj의 것도).")

MESSAGES = {
    # exercise 1
    "Exercise 1 (GPT-2's MLP in your FFN)": "연습 1 (GPT-2의 MLP를 여러분의 FFN으로)",
    CONV1D: _CONV1D,
    UNTRANSPOSED:
        "이 정사각 MLP(d_ff = d_model)에서는 아무 오류도 나지 않았지만 로짓이 틀립니다: Conv1D의 가중치를 그대로 "
        "복사했습니다. " + _CONV1D + " GPT-2 small의 768 x 3072 MLP는 그 복사를 거부하지만, 정사각인 어텐션 사영 "
        "attn.c_proj(768 x 768)는 어느 쪽으로든 로드됩니다.",
    'the weights are right but the activation is exact GELU, x * Phi(x): GPT-2 uses the tanh formula '
    '(activation="gelu_tanh"; FFN\'s default is "gelu", the exact one).':
        '가중치는 맞지만 활성화 함수가 정확한 GELU, x * Phi(x)입니다: GPT-2는 tanh 근사식을 씁니다'
        '(activation="gelu_tanh". FFN의 기본값은 정확한 GELU인 "gelu"입니다).',
    "the weights are right but the biases are not: GPT-2's Conv1D has a bias in c_fc and in c_proj; copy both "
    "(hf_mlp.c_fc.bias, hf_mlp.c_proj.bias).":
        "가중치는 맞지만 bias가 틀립니다: GPT-2의 Conv1D에는 c_fc와 c_proj에 각각 bias가 있습니다. 둘 다 "
        "복사하세요(hf_mlp.c_fc.bias, hf_mlp.c_proj.bias).",
    "your FFN holds GPT-2's weights: swapped into every block, the logits agree within 1e-4 and the greedy "
    "tokens are the same, with a square MLP and with GPT-2's 4x one.":
        "여러분의 FFN에 GPT-2의 가중치가 들어 있습니다: 모든 블록에 바꿔 끼우면 로짓이 1e-4 이내로 일치하고 "
        "그리디 토큰이 같습니다. 정사각 MLP에서도, GPT-2의 4배 MLP에서도 그렇습니다.",
    "{err}. {fix}": "{err}. {fix}",
    "mlp_from_hf returned a {kind}; expected a course FFN (helpers.ffn.FFN) holding the block's weights":
        "mlp_from_hf가 {kind}을(를) 반환했습니다. 기대한 것은 블록의 가중치를 담은 강좌의 FFN(helpers.ffn.FFN)입니다",
    "the model with your FFNs raised: {err}. {fix}": "여러분의 FFN을 넣은 모델에서 예외가 발생했습니다: {err}. {fix}",
    "gave {kind}; expected the model's logits": "{kind}을(를) 냈습니다. 기대한 것은 모델의 로짓입니다",
    "gives logits that differ from GPT-2's own: {problem}": "GPT-2 자신의 로짓과 다른 로짓을 냅니다: {problem}",
    "gives logits within 1e-4 but other greedy tokens": "로짓은 1e-4 이내로 일치하지만 그리디 토큰이 다릅니다",
    # exercise 2
    "Exercise 2 (predict what values say)": "연습 2 (Value가 말하는 것 예측하기)",
    "On trained weights a value tends to promote what follows its key's patterns (Geva et al. 2021 found this "
    "most in the upper layers); random weights store nothing, so their values agree only by chance.":
        "학습된 가중치에서는 Value가 그 Key의 패턴 뒤에 오는 것을 끌어올리는 경향이 있습니다(Geva et al. 2021은 "
        "이것을 위쪽 층에서 가장 많이 발견했습니다). 무작위 가중치는 아무것도 저장하지 않으므로, 그 Value들은 "
        "우연으로만 일치합니다.",
    "on the model running now the answer is": "지금 실행 중인 모델에서 답은",
    # exercise 3
    "Exercise 3 (the restoring hook)": "연습 3 (복원 훅)",
    "restore returned a {kind}, not a hook(module, inputs, output)":
        "restore가 hook(module, inputs, output)이 아닌 {kind}을(를) 반환했습니다",
    "nothing was restored: a forward hook must return the new output (or change `output` in place) for the "
    "model to use it.":
        "아무것도 복원되지 않았습니다: 모델이 새 출력을 쓰게 하려면 forward hook이 그 출력을 돌려주어야(또는 "
        "`output`을 제자리에서 바꾸어야) 합니다.",
    "every position was restored; only `position` should be (the clean output at the other positions is not "
    "what this site carries).":
        "모든 위치가 복원되었습니다. `position`만 복원해야 합니다(다른 위치의 깨끗한 출력은 이 지점이 나르는 것이 "
        "아닙니다).",
    "only the first run of the batch was restored: every row is a corrupted run, so restore output[:, position] "
    "in all of them.":
        "배치의 첫 번째 실행만 복원되었습니다: 모든 행이 오염된 실행이므로, 모든 행에서 output[:, position]을 "
        "복원하세요.",
    "the clean output was added to the corrupted one; restoring replaces it.":
        "깨끗한 출력을 오염된 출력에 더했습니다. 복원은 오염된 출력을 깨끗한 출력으로 바꿔 넣는 것입니다.",
    "the last position was restored instead of `position`.": "`position` 대신 마지막 위치가 복원되었습니다.",
    "your hook puts the clean MLP output back at exactly one position, in every corrupted run.":
        "여러분의 훅은 모든 오염된 실행에서 정확히 한 위치에 깨끗한 MLP 출력을 되돌려 놓습니다.",
    # exercise 4
    "Exercise 4 (predict the undo)": "연습 4 (되돌리기 예측하기)",
    "The cell copies the saved tensor back, bit for bit, so the model is exactly the one before the edit. "
    "Subtracting the update instead, (W + D) - D, rounds in float32 and can leave entries a last bit off.":
        "셀은 저장해 둔 텐서를 비트 하나까지 그대로 다시 복사하므로, 모델은 편집 전의 모델과 정확히 같습니다. "
        "대신 업데이트를 빼면, (W + D) - D는 float32에서 반올림되어 일부 원소의 마지막 비트가 어긋날 수 있습니다.",
}
