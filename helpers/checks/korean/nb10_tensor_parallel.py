"""Notebook 10's check sentences (helpers/checks/nb10_tensor_parallel.py) in Korean."""

_STORED = ("nn.Linear stores its weight as (out, in) (notebook 03's note on storage): take "
           "mlp.{}.weight.T for the math layout x @ W.")
_STORED_KO = ("nn.Linear는 가중치를 (out, in)으로 저장합니다(노트북 03의 가중치 저장 방식 설명): 수식 배치 "
              "x @ W에는 mlp.{}.weight.T를 쓰세요.")

MESSAGES = {
    # exercise names: the Korean notebook's exercise headings
    "Exercise 1 (predict the all-reduce's size)": "연습 1 (all-reduce의 크기 예측하기)",
    "Exercise 2 (split Llama's MLP)": "연습 2 (Llama의 MLP를 나누어 프로세스 2개에서 실행하기)",
    "Exercise 3 (a ring all-reduce)": "연습 3 (링 all-reduce를 직접 만들기)",
    # exercise 1
    "Every worker adds up full-size partial outputs of shape (T, d_model): T x d_model x 8 bytes in float64, "
    "whatever N is. What shrinks with N is the weights each worker holds.":
        "모든 워커는 모양이 (T, d_model)인 전체 크기의 부분 출력을 더합니다: N이 얼마이든 float64로 "
        "T x d_model x 8바이트입니다. N에 따라 줄어드는 것은 각 워커가 가진 가중치입니다.",
    # exercise 2: the split
    "{n} workers": "워커 {n}개",
    "returned a {kind}; expected a list of {n} dicts": "{kind}을(를) 반환했습니다. 기대한 것은 dict {n}개로 된 리스트입니다",
    "returned {got} shards; expected one per worker, {n}":
        "샤드 {got}개를 반환했습니다. 기대한 것은 워커마다 하나, {n}개입니다",
    "gives shard {rank} as {kind}; expected a dict with keys {keys}":
        "샤드 {rank}이(가) {kind}입니다. 기대한 것은 키가 {keys}인 dict입니다",
    "gives shard {rank}['{key}'] shape {shape}; expected {expected}":
        "샤드 {rank}['{key}']의 모양이 {shape}입니다. 기대한 모양은 {expected}입니다",
    "holds numbers that are not slices of the MLP's weights": "MLP 가중치의 조각이 아닌 숫자가 들어 있습니다",
    "gives a worker W_gate, W_up and W_down for different hidden units":
        "한 워커에게 서로 다른 뉴런의 W_gate, W_up, W_down을 줍니다",
    "does not give every hidden unit to exactly one worker": "모든 뉴런을 워커 하나에 정확히 한 번씩 나눠 주지 않습니다",
    "W_gate has shape (d_ff / N, d_model): " + _STORED.format("gate_proj"):
        "W_gate의 모양이 (d_ff / N, d_model)입니다: " + _STORED_KO.format("gate_proj"),
    "W_up has shape (d_ff / N, d_model): " + _STORED.format("up_proj"):
        "W_up의 모양이 (d_ff / N, d_model)입니다: " + _STORED_KO.format("up_proj"),
    "W_down has shape (d_model, d_ff / N): " + _STORED.format("down_proj"):
        "W_down의 모양이 (d_model, d_ff / N)입니다: " + _STORED_KO.format("down_proj"),
    "W_gate has shape (d_model / N, d_ff): you split it by rows. Split by columns, so each worker owns whole "
    "hidden units: W_gate[:, units].":
        "W_gate의 모양이 (d_model / N, d_ff)입니다: 행 방향으로 나누었습니다. 각 워커가 뉴런을 통째로 갖도록 "
        "열 방향으로 나누세요: W_gate[:, units].",
    "W_down has shape (d_ff, d_model / N): you split it by columns. Split it by rows, the rows of the worker's "
    "own hidden units: W_down[units, :].":
        "W_down의 모양이 (d_ff, d_model / N)입니다: 열 방향으로 나누었습니다. 행 방향으로, 곧 워커 자신의 "
        "뉴런에 해당하는 행으로 나누세요: W_down[units, :].",
    # exercise 2: the worker's forward
    "your worker never calls all_reduce, so each returns only its own partial output. Hand the partial output "
    "(after W_down) to all_reduce and return what it gives back.":
        "워커가 all_reduce를 한 번도 호출하지 않아서, 각 워커가 자기 부분 출력만 돌려줍니다. (W_down 뒤의) "
        "부분 출력을 all_reduce에 넘기고, all_reduce가 돌려주는 값을 반환하세요.",
    "you all-reduce the hidden activations, shape (T, d_ff / N). In this split they never leave their worker: "
    "multiply by W_down first, then all-reduce the (T, d_model) partial.":
        "모양이 (T, d_ff / N)인 은닉 활성화 값을 all-reduce했습니다. 이 분할에서 그 값은 자기 워커를 떠나지 "
        "않습니다: 먼저 W_down을 곱한 다음, (T, d_model) 부분 출력을 all-reduce하세요.",
    "each worker calls all_reduce more than once; the split needs one, after W_down.":
        "각 워커가 all_reduce를 두 번 이상 호출합니다. 이 분할에는 W_down 뒤의 한 번이면 됩니다.",
    "SiLU goes on the gate, x @ W_gate, not on the up-projection (notebook 05).":
        "SiLU는 up-projection이 아니라 게이트 x @ W_gate에 적용합니다(노트북 05).",
    "SiLU is applied after the product here; it goes on the gate alone: F.silu(x @ W_gate) * (x @ W_up).":
        "여기서는 SiLU를 곱한 뒤에 적용했습니다. SiLU는 게이트에만 적용합니다: F.silu(x @ W_gate) * (x @ W_up).",
    "there is no SiLU: the gate is F.silu(x @ W_gate).": "SiLU가 없습니다: 게이트는 F.silu(x @ W_gate)입니다.",
    "that is GELU; Llama's gate uses SiLU (F.silu).": "그것은 GELU입니다. Llama의 게이트는 SiLU(F.silu)를 씁니다.",
    # exercise 2: the run in 2 processes
    "split_llama is right; now write llama_worker_forward.": "split_llama는 맞습니다. 이제 llama_worker_forward를 작성하세요.",
    "{kind}: {said}": "{kind}: {said}",
    "in one process your functions are right, but the run in 2 processes failed. Each worker runs "
    "llama_worker_forward from its source, with only torch, F, nn and its arguments. {said}":
        "한 프로세스에서는 함수들이 맞지만, 프로세스 2개에서 실행하는 데 실패했습니다. 각 워커는 "
        "llama_worker_forward를 소스 코드에서 실행하며, 쓸 수 있는 것은 torch, F, nn과 인자뿐입니다. {said}",
    "in 2 processes the workers' output differs from the one-process MLP by up to {gap:.2g}.":
        "프로세스 2개에서 워커들의 출력이 단일 프로세스 MLP와 최대 {gap:.2g}만큼 다릅니다.",
    "gate and up split by columns, down by rows, one all-reduce: in 2 real processes every worker's output "
    "equals the one-process gated MLP (within 1e-10).":
        "gate와 up은 열 방향, down은 행 방향으로 나누고 all-reduce는 한 번: 실제 프로세스 2개에서 모든 워커의 "
        "출력이 단일 프로세스 Gated MLP와 같습니다(1e-10 이내).",
    # exercise 3: a ring all-reduce
    "[{n} buffers of {numel} numbers]": "[숫자 {numel}개짜리 버퍼 {n}개]",
    "returned {kind}; expected a tuple (results, sent)": "{kind}을(를) 반환했습니다. 기대한 것은 tuple (results, sent)입니다",
    "gives {name} as {kind}; expected a list with one entry per worker":
        "{name}이(가) {kind}입니다. 기대한 것은 워커마다 항목이 하나씩 있는 리스트입니다",
    "gives {got} entries in {name}; expected one per worker, {n}":
        "{name}에 항목이 {got}개 있습니다. 기대한 것은 워커마다 하나, {n}개입니다",
    "gives sent[{rank}] as {kind}; expected a number of bytes":
        "sent[{rank}]이(가) {kind}입니다. 기대한 것은 바이트 수를 나타내는 숫자입니다",
    "gives worker {rank} a result that {problem}": "워커 {rank}의 결과: {problem}",
    "says the workers sent {sent} bytes; a ring sends {want}":
        "워커들이 보낸 바이트가 {sent}입니다. 링이 보내는 바이트는 {want}입니다",
    "each worker holds the full sum in one chunk only: that is the end of the reduce-scatter. Now the "
    "all-gather: N - 1 more steps that pass the finished chunks around the ring.":
        "각 워커가 완전한 합을 청크 하나에만 갖고 있습니다: reduce-scatter가 끝난 상태입니다. 이제 "
        "all-gather입니다: 완성된 청크들을 링을 따라 돌리는 N - 1단계가 더 필요합니다.",
    "the byte counts are a ring's, but the sums are not right: a chunk was passed on before it was complete. "
    "In reduce-scatter step s worker r sends chunk (r - s) % N, which holds s + 1 buffers' worth; in "
    "all-gather step s it passes on the finished chunk it holds, (r + 1 - s) % N.":
        "바이트 수는 링의 것이지만 합이 맞지 않습니다: 청크가 완성되기 전에 넘겨졌습니다. reduce-scatter의 "
        "단계 s에서 워커 r은 버퍼 s + 1개 몫이 담긴 청크 (r - s) % N을 보내고, all-gather의 단계 s에서는 "
        "자기가 가진 완성된 청크 (r + 1 - s) % N을 넘깁니다.",
    "the sums are right, but each worker sends its whole buffer to each of the N - 1 others: that is not a "
    "ring. A ring sends one chunk (buffer / N) per step, in 2 (N - 1) steps.":
        "합은 맞지만, 각 워커가 버퍼 전체를 나머지 워커 N - 1개 각각에게 보냅니다: 그것은 링이 아닙니다. "
        "링은 2 (N - 1)단계에 걸쳐 단계마다 청크 하나(버퍼 / N)를 보냅니다.",
    "the sums are right, but you counted the bytes of the reduce-scatter only; the all-gather sends as many "
    "again.":
        "합은 맞지만, reduce-scatter의 바이트만 세었습니다. all-gather도 같은 양을 한 번 더 보냅니다.",
}
