"""Notebook 12's check sentences (helpers/checks/nb12_kv_memory_editing.py) in Korean."""

_WRONG_MODULE = "훅을 엉뚱한 모듈에 달았습니다: "

MESSAGES = {
    # exercise names: the Korean notebook's exercise headings
    "Exercise 1 (an ablation hook)": "연습 1 (어블레이션 훅을 등록하고 제거하기)",
    "Exercise 2 (predict the ablation)": "연습 2 (어블레이션 결과 예측하기)",
    "Exercise 3 (causal tracing)": "연습 3 (지점 하나의 인과 추적)",
    "Exercise 4 (MEMIT: edit several facts at once)": "연습 4 (MEMIT, 여러 사실을 한 번에)",
    # what the learner's run left behind
    "the model": "모델",
    "every module (a global hook)": "모든 모듈(전역 훅)",
    "your function left a hook registered on {where}: every later run of the model would still be changed by "
    "it. Keep the handle that register_forward_hook returns and call handle.remove() once the run is done (in a "
    "`finally:`, or use kv_memory.hooks), so that even an error cannot leave it behind.":
        "함수가 {where}에 훅을 등록한 채로 남겼습니다: 이후 모델을 실행할 때마다 그 훅이 결과를 바꿉니다. "
        "register_forward_hook이 돌려주는 핸들을 보관하고, 실행이 끝나면 handle.remove()를 호출하세요(`finally:` "
        "안에서, 또는 kv_memory.hooks를 써서). 그러면 오류가 나도 훅이 남지 않습니다.",
    "your function changed the model's weights ({names}). A hook changes what a module outputs during one run "
    "and leaves the weights as they are.":
        "함수가 모델의 가중치를 바꿨습니다({names}). 훅은 한 번의 실행 동안 모듈이 출력하는 것을 바꾸고, 가중치는 "
        "그대로 둡니다.",
    # exercise 1: an ablation hook
    "your hook changed nothing: a forward hook must return the new tensor (or change `output` in place) for "
    "the model to use it.":
        "훅이 아무것도 바꾸지 않았습니다: 모델이 새 텐서를 쓰게 하려면 forward hook이 그 텐서를 돌려주어야"
        "(또는 `output`을 제자리에서 바꾸어야) 합니다.",
    "every neuron was zeroed; only the chosen `neurons` should be.":
        "모든 뉴런이 0이 되었습니다. 고른 `neurons`만 0이 되어야 합니다.",
    "the chosen neurons were kept and all the others zeroed: it is the other way round.":
        "고른 뉴런은 그대로 두고 나머지를 모두 0으로 만들었습니다: 반대입니다.",
    "you zeroed the neurons at the last position only. An ablated neuron is cut out of the model, so it is 0 "
    "at every position: output[..., neurons] = 0 on the (B, T, d_ff) output.":
        "마지막 위치에서만 뉴런을 0으로 만들었습니다. 어블레이션한 뉴런은 모델에서 잘라 낸 것이므로 모든 위치에서 "
        "0입니다: (B, T, d_ff) 출력에 output[..., neurons] = 0.",
    "a hook on the wrong module: you zeroed MLP 0's neurons (model.blocks[0]); this exercise ablates MLP 1's, "
    "model.blocks[1].mlp.act.":
        _WRONG_MODULE + "MLP 0(model.blocks[0])의 뉴런을 0으로 만들었습니다. 이 연습은 MLP 1의 뉴런, "
        "model.blocks[1].mlp.act를 어블레이션합니다.",
    "a hook on the wrong module: its output has d_model = 64 entries (the MLP's output after c_proj, or the "
    "block's residual stream), so you zeroed directions of the residual stream, not neurons. The d_ff = 256 "
    "neurons are the output of model.blocks[1].mlp.act, (B, T, 256).":
        _WRONG_MODULE + "그 출력에는 항목이 d_model = 64개 있으므로(c_proj 뒤의 MLP 출력, 또는 블록의 Residual "
        "stream), 뉴런이 아니라 Residual stream의 방향들을 0으로 만들었습니다. d_ff = 256개 뉴런은 "
        "model.blocks[1].mlp.act의 출력 (B, T, 256)입니다.",
    "{err}. The neurons are the last dimension of the output of mlp.act, (B, T, d_ff): index it as "
    "output[..., neurons]":
        "{err}. 뉴런은 mlp.act 출력 (B, T, d_ff)의 마지막 차원입니다: output[..., neurons]로 인덱싱하세요",
    "your hook on mlp.act gives what deleting those neurons' value columns from c_proj gives (a neuron that "
    "outputs 0 writes nothing), and it is gone after the run.":
        "mlp.act에 단 훅이 c_proj에서 그 뉴런들의 Value 열을 지운 것과 같은 결과를 내고(0을 출력하는 뉴런은 "
        "아무것도 쓰지 않습니다), 실행 뒤에는 훅이 남지 않습니다.",
    # exercise 2: a prediction
    "The top 30 neurons are the ones whose keys fire for france and whose values push paris up, so removing "
    "them takes most of paris away; the other facts lean on other neurons, and 30 random neurons rarely matter "
    "to paris. That is the key-value reading at work.":
        "상위 30개 뉴런은 Key가 france에 반응하고 Value가 paris를 끌어올리는 뉴런이므로, 이들을 없애면 paris가 "
        "대부분 사라집니다. 다른 사실들은 다른 뉴런에 기대고, 무작위 뉴런 30개는 paris에 거의 영향을 주지 "
        "않습니다. 키-밸류 메모리 관점이 그대로 드러나는 결과입니다.",
    # exercise 3: causal tracing
    "": "",   # the tracing table's own success line, never shown: the check says the one below
    "your run is not corrupted: p(answer) is what restoring gives in the clean run. Add the noise to the "
    "subject's embedding (a hook on model.wte) as well as restoring the MLP output.":
        "실행이 오염되지 않았습니다: p(answer)가 깨끗한 실행에서 복원한 값입니다. MLP 출력을 복원하는 것과 함께, "
        "주어의 임베딩에 잡음을 더하세요(model.wte에 단 훅).",
    "nothing was restored: p(answer) is the corrupted run's. The hook on model.blocks[layer].mlp must return "
    "its output with word `position` set to the clean run's value (saved in a run without the noise).":
        "아무것도 복원되지 않았습니다: p(answer)가 오염된 실행의 값입니다. model.blocks[layer].mlp에 단 훅은 단어 "
        "`position`의 출력을 깨끗한 실행의 값(잡음 없는 실행에서 저장한 값)으로 바꾼 출력을 돌려주어야 합니다.",
    "you restored MLP `layer`'s output at every word; causal tracing restores one site: word `position` only, "
    "output[:, position].":
        "MLP `layer`의 출력을 모든 단어에서 복원했습니다. 인과 추적은 지점 하나만 복원합니다: 단어 `position`만, "
        "output[:, position].",
    "the noise went onto every word; ROME corrupts the subject only: add noise[b] at prompts.subject[b] in "
    "prompt b.":
        "잡음이 모든 단어에 더해졌습니다. ROME은 주어만 오염시킵니다: 프롬프트 b의 prompts.subject[b]에 noise[b]를 "
        "더하세요.",
    "that is the mean probability of each prompt's top word; causal tracing measures p of the right answer, "
    "prompts.answer, at the last word.":
        "그것은 각 프롬프트에서 확률이 가장 높은 단어의 평균 확률입니다. 인과 추적은 마지막 단어에서 정답 "
        "prompts.answer의 p를 잽니다.",
    "your trace matches at every site tried. p(answer) is {clean:.2f} clean and {noisy:.2f} with the subject "
    "corrupted; restoring MLP 1 at the last word brings it back to {late:.2f}, MLP 0 at the subject only to "
    "{subject:.2f}.":
        "시험한 모든 지점에서 추적 결과가 일치합니다. p(answer)는 깨끗한 실행에서 {clean:.2f}, 주어를 오염시키면 "
        "{noisy:.2f}입니다. 마지막 단어에서 MLP 1을 복원하면 {late:.2f}까지 돌아오고, 주어에서 MLP 0을 복원하면 "
        "{subject:.2f}까지만 돌아옵니다.",
    # exercise 4: MEMIT
    "that is the hard-constrained edit, W' K = V exactly: ROME's update for r facts at once "
    "(kv_memory.rome_update), which is MEMIT's limit as lam -> 0. MEMIT solves a least-squares problem instead: "
    "W + R K^T (lam C + K K^T)^-1, so each new fact gives a little to the old keys.":
        "그것은 W' K = V를 정확히 강제하는 편집입니다: 사실 r개에 대한 ROME의 업데이트를 한 번에 한 것"
        "(kv_memory.rome_update)으로, lam -> 0일 때 MEMIT이 다가가는 극한입니다. MEMIT은 대신 최소제곱 문제를 "
        "풉니다: W + R K^T (lam C + K K^T)^-1. 그래서 새 사실마다 기존 Key들에 조금씩 양보합니다.",
    "you multiplied by lam C + K K^T instead of by its inverse (C in place of C^-1, as it were): solve with it, "
    "torch.linalg.solve(lam * C + K @ K.T, K), as section 8 solved with C.":
        "lam C + K K^T의 역행렬 대신 그 행렬 자체를 곱했습니다(말하자면 C^-1 자리에 C를 쓴 셈입니다): 8절에서 C로 "
        "풀었듯이 torch.linalg.solve(lam * C + K @ K.T, K)로 푸세요.",
    "one edit after another: each later edit moves the facts set before it. MEMIT solves for all r facts at "
    "once, with the whole K K^T in one inverse.":
        "편집을 하나씩 차례로 했습니다: 뒤의 편집이 앞서 정한 사실들을 움직입니다. MEMIT은 K K^T 전체를 역행렬 "
        "하나에 넣어 사실 r개를 한 번에 풉니다.",
    "lam was left out: it weights the old keys' covariance C against the r new facts, lam * C + K @ K.T.":
        "lam이 빠졌습니다: lam은 새 사실 r개에 맞서 기존 Key들의 공분산 C에 주는 가중치입니다: lam * C + K @ K.T.",
    "lam multiplies K K^T here; in MEMIT it weights C, the old keys: lam * C + K @ K.T.":
        "여기서는 lam이 K K^T에 곱해졌습니다. MEMIT에서 lam은 기존 Key들의 C에 주는 가중치입니다: lam * C + K @ K.T.",
    "the update adds V itself; it adds the residual R = V - W K, what the facts still lack.":
        "업데이트가 V 자체를 더합니다. 더할 것은 잔차 R = V - W K, 곧 사실들에 아직 모자란 부분입니다.",
    "the covariance C was left out (an identity in its place): the update must weigh the old keys by C, so "
    "that directions ordinary keys use move least.":
        "공분산 C가 빠졌습니다(그 자리에 단위행렬): 평범한 Key들이 쓰는 방향이 가장 적게 움직이도록, 업데이트는 "
        "기존 Key들을 C로 가중해야 합니다.",
    "W + R K^T (lam C + K K^T)^-1: MEMIT's least-squares edit at one layer. As lam -> 0 it tends to the "
    "hard-constrained W' K = V (ROME's update for r facts); a larger lam keeps the old keys closer and meets "
    "the new facts less exactly.":
        "W + R K^T (lam C + K K^T)^-1: 한 층에서 하는 MEMIT의 최소제곱 편집입니다. lam -> 0이면 W' K = V를 강제하는 "
        "편집(사실 r개에 대한 ROME의 업데이트)으로 다가가고, lam이 클수록 기존 Key들을 더 가깝게 유지하는 대신 새 "
        "사실을 덜 정확히 맞춥니다.",
}
