"""Notebook 10's checks accept a right answer and name typical mistakes."""

import pytest
import torch
import torch.nn.functional as F

from helpers.checks import nb10_tensor_parallel as checks
from helpers.checks.nb10_tensor_parallel import ex3_ring, ex3_traffic


def split_llama(mlp, n_workers):
    w = mlp.d_ff // n_workers
    gate, up, down = mlp.gate_proj.weight.T, mlp.up_proj.weight.T, mlp.down_proj.weight.T
    return [{"W_gate": gate[:, r * w:(r + 1) * w], "W_up": up[:, r * w:(r + 1) * w],
             "W_down": down[r * w:(r + 1) * w, :]} for r in range(n_workers)]


def interleaved(mlp, n_workers):   # worker r gets units r, r + n, r + 2n, ...: also a right split
    gate, up, down = mlp.gate_proj.weight.T, mlp.up_proj.weight.T, mlp.down_proj.weight.T
    return [{"W_gate": gate[:, r::n_workers], "W_up": up[:, r::n_workers], "W_down": down[r::n_workers]}
            for r in range(n_workers)]


def llama_worker_forward(x, shard, all_reduce):
    h = F.silu(x @ shard["W_gate"]) * (x @ shard["W_up"])
    return all_reduce(h @ shard["W_down"])


def test_prediction():
    assert checks.check_buffer_guess(None, 49_152).status == "not attempted"
    fb = checks.check_buffer_guess(49_152, 49_152)
    assert fb and "whatever N is" in fb.message
    fb = checks.check_buffer_guess(24_576, 49_152)
    assert not fb and "you predicted 24,576, the run gives 49,152" in fb.message


# Each likely wrong guess (T = 8, d_model = 768, d_ff = 3072, float64, N = 2) gets its own sentence.
BUFFER_GUESSES = [
    (8 * 768 * 8 // 2, "Half of it: either you split the partial output"),     # split over N, or float32
    (8 * 768 * 8 // 4, "A quarter of it: you divided by 4 workers"),
    (8 * 768, "An eighth of it: that counts numbers, not bytes"),               # numbers, or one token's bytes
    (8 * 3072 // 2 * 8, "Twice it: that is the hidden activations"),          # (T, d_ff / N)
    (8 * 3072 * 8, "Four times it: that is the whole hidden layer"),          # (T, d_ff)
    (8 * 768 * 8 * 8, "Eight times it: that counts bits"),
    (768 * 1536 * 8, "That is the size of weights a worker holds"),           # W1's shard, in bytes
    (2_361_600, "That is the size of weights a worker holds"),                # a worker's numbers
    (8 * 768 * 8 * 3 // 2, "A ring all-reduce of it would send"),             # 2 (N - 1) / N at N = 4
    (48_000, "Close: a rounded size"),
]


@pytest.mark.parametrize(("guess", "words"), BUFFER_GUESSES)
def test_each_wrong_buffer_guess_gets_its_own_sentence(guess, words):
    fb = checks.check_buffer_guess(guess, 49_152)
    assert not fb and words in fb.message and f"you predicted {guess:,}" in fb.message, fb.message
    others = [w for _, w in BUFFER_GUESSES if w != words]
    assert not any(w in fb.message for w in others), fb.message


def test_llama_split_not_attempted_then_correct_in_two_processes():
    fb = checks.check_llama_split(lambda mlp, n: None, lambda x, s, r: None)
    assert fb.status == "not attempted" and str(fb).startswith("[not attempted yet] Exercise 2")
    fb = checks.check_llama_split(split_llama, lambda x, s, r: None)
    assert not fb and "now write llama_worker_forward" in fb.message
    fb = checks.check_llama_split(split_llama, llama_worker_forward)   # runs 2 real processes
    assert fb and str(fb).startswith("[correct] Exercise 2")


def test_any_consistent_partition_is_a_right_split():
    assert checks.check_split(interleaved)
    assert checks.check_split(split_llama)


def test_split_mistakes_are_named():
    def stored(mlp, n):                     # nn.Linear's (out, in) storage, not transposed
        w = mlp.d_ff // n
        return [{"W_gate": mlp.gate_proj.weight[r * w:(r + 1) * w], "W_up": mlp.up_proj.weight[r * w:(r + 1) * w],
                 "W_down": mlp.down_proj.weight[:, r * w:(r + 1) * w]} for r in range(n)]

    def down_by_columns(mlp, n):
        d = mlp.d_model // n
        return [{**s, "W_down": mlp.down_proj.weight.T[:, r * d:(r + 1) * d]}
                for r, s in enumerate(split_llama(mlp, n))]

    def mismatched(mlp, n):                 # gate blocks in order, up blocks reversed
        shards = split_llama(mlp, n)
        return [{**s, "W_up": t["W_up"]} for s, t in zip(shards, shards[::-1], strict=True)]

    cases = [
        (stored, "nn.Linear stores its weight as (out, in)"),
        (down_by_columns, "you split it by columns"),
        (mismatched, "for different hidden units"),
        (lambda mlp, n: split_llama(mlp, n)[:1], "expected one per worker"),
    ]
    for split, words in cases:
        fb = checks.check_llama_split(split, llama_worker_forward)
        assert not fb and words in fb.message, (words, fb.message)


def test_forward_mistakes_are_named():
    def no_reduce(x, shard, all_reduce):
        return (F.silu(x @ shard["W_gate"]) * (x @ shard["W_up"])) @ shard["W_down"]

    def reduce_hidden(x, shard, all_reduce):
        return all_reduce(F.silu(x @ shard["W_gate"]) * (x @ shard["W_up"])) @ shard["W_down"]

    def silu_on_up(x, shard, all_reduce):
        return all_reduce(((x @ shard["W_gate"]) * F.silu(x @ shard["W_up"])) @ shard["W_down"])

    def silu_after(x, shard, all_reduce):
        return all_reduce(F.silu((x @ shard["W_gate"]) * (x @ shard["W_up"])) @ shard["W_down"])

    def gelu(x, shard, all_reduce):
        return all_reduce((F.gelu(x @ shard["W_gate"]) * (x @ shard["W_up"])) @ shard["W_down"])

    def broken(x, shard, all_reduce):
        raise KeyError("W1")

    cases = [
        (no_reduce, "never calls all_reduce"),
        (reduce_hidden, "hidden activations"),
        (silu_on_up, "not on the up-projection"),
        (silu_after, "applied after the product"),
        (gelu, "that is GELU"),
        (broken, "raised KeyError"),
    ]
    for forward, words in cases:
        fb = checks.check_llama_split(split_llama, forward)
        assert not fb and words in fb.message, (words, fb.message)


def ring(buffers, send, reduce_index=lambda r, s, n: (r - s) % n, gather_index=lambda r, s, n: (r + 1 - s) % n,
         reduce_steps=None, gather_steps=None, gather="replace", receive="add", own_twice=False, use_received=True,
         count=lambda data: data.numel() * data.element_size()):
    """A ring all-reduce through `send`; each keyword changes one step the way a typical mistake does."""
    n = len(buffers)
    chunks = [list(b.clone().tensor_split(n)) for b in buffers]
    original = [list(b.clone().tensor_split(n)) for b in buffers]
    sent = [0] * n
    for step in range(n - 1 if reduce_steps is None else reduce_steps(n)):            # reduce-scatter
        moving = [(r, reduce_index(r, step, n)) for r in range(n)]
        moving = [(r, c, (chunks if use_received else original)[r][c].clone()) for r, c in moving]
        for r, c, data in moving:
            got = send(r, c, data)
            dst = (r + 1) % n
            if receive == "add":
                chunks[dst][c] = chunks[dst][c] + got + (original[dst][c] if own_twice else 0)
            else:
                chunks[dst][c] = got
            sent[r] += count(data)
    for step in range(n - 1 if gather_steps is None else gather_steps(n)):            # all-gather
        moving = [(r, gather_index(r, step, n)) for r in range(n)]
        moving = [(r, c, chunks[r][c].clone()) for r, c in moving]
        for r, c, data in moving:
            got = send(r, c, data)
            dst = (r + 1) % n
            chunks[dst][c] = got if gather == "replace" else chunks[dst][c] + got
            sent[r] += count(data)
    return [torch.cat(c) for c in chunks], sent


def ring_all_reduce(buffers, send):
    return ring(buffers, send)


def sequential_ring(buffers, send):
    """A correct ring whose sends happen one after another, each in place, with no copies taken first."""
    n = len(buffers)
    chunks = [list(b.clone().tensor_split(n)) for b in buffers]
    sent = [0] * n
    for step in range(n - 1):
        for r in range(n):
            c = (r - step) % n
            chunks[(r + 1) % n][c] += send(r, c, chunks[r][c])
            sent[r] += chunks[r][c].numel() * chunks[r][c].element_size()
    for step in range(n - 1):
        for r in range(n):
            c = (r + 1 - step) % n
            chunks[(r + 1) % n][c] = send(r, c, chunks[r][c])
            sent[r] += chunks[r][c].numel() * chunks[r][c].element_size()
    return [torch.cat(c) for c in chunks], sent


def chunk_by_chunk_ring(buffers, send):
    """A correct ring that moves one chunk at a time all the way round: more steps, the same bytes."""
    n = len(buffers)
    chunks = [list(b.clone().tensor_split(n)) for b in buffers]
    sent = [0.0] * n
    for c in range(n):
        for hop in range(n - 1):               # reduce: chunk c travels from worker c, adding up
            r = (c + hop) % n
            chunks[(r + 1) % n][c] = chunks[(r + 1) % n][c] + send(r, c, chunks[r][c])
            sent[r] += chunks[r][c].numel() * chunks[r][c].element_size()
        for hop in range(n - 1):               # gather: the finished chunk goes on round
            r = (c + n - 1 + hop) % n
            chunks[(r + 1) % n][c] = send(r, c, chunks[r][c])
            sent[r] += chunks[r][c].numel() * chunks[r][c].element_size()
    return tuple(torch.cat(c) for c in chunks), tuple(torch.tensor(s) for s in sent)


def shifted_ring(buffers, send):
    """A correct ring in another numbering: step s, worker r sends chunk (r - s - 1) % N."""
    return ring(buffers, send, reduce_index=lambda r, s, n: (r - s - 1) % n,
                gather_index=lambda r, s, n: (r - s) % n)


def test_ring_all_reduce():
    assert checks.check_ring_all_reduce(lambda buffers, send: None).status == "not attempted"
    fb = checks.check_ring_all_reduce(ring_all_reduce)
    assert fb and str(fb).startswith("[correct] Exercise 3"), fb


def test_correct_ring_variants_are_accepted():
    for answer in (sequential_ring, chunk_by_chunk_ring, shifted_ring):
        fb = checks.check_ring_all_reduce(answer)
        assert fb, (answer.__name__, fb.message)


def summed(buffers, send):
    """The reviews' answer: every worker gets sum(buffers), sent reports the ring's formula; no traffic."""
    n, size = len(buffers), buffers[0].numel() * buffers[0].element_size()
    return [sum(buffers)] * n, [2 * (n - 1) / n * size] * n


def whole_buffers(buffers, send):
    """Each worker sends its whole buffer to its neighbour, N - 1 times, adding as it goes."""
    n = len(buffers)
    held = [b.clone() for b in buffers]
    for _ in range(n - 1):
        moving = [send(r, 0, buffers[r].clone()) for r in range(n)]
        for r in range(n):
            held[(r + 1) % n] += moving[r]
    return held, [(n - 1) * b.numel() * b.element_size() for b in buffers]


def chunk_by_chunk_extra_hop(buffers, send):
    """One chunk at a time, the finished chunk sent on one hop too many (to the worker it started from... and on)."""
    n = len(buffers)
    chunks = [list(b.clone().tensor_split(n)) for b in buffers]
    for c in range(n):
        for hop in range(n - 1):
            r = (c + hop) % n
            chunks[(r + 1) % n][c] = chunks[(r + 1) % n][c] + send(r, c, chunks[r][c])
        for hop in range(n):
            r = (c + n - 1 + hop) % n
            chunks[(r + 1) % n][c] = send(r, c, chunks[r][c])
    return [torch.cat(c) for c in chunks], [0] * n


def chunk_by_chunk_short(buffers, send):
    """One chunk at a time, the reduce stopping one hop short."""
    n = len(buffers)
    chunks = [list(b.clone().tensor_split(n)) for b in buffers]
    for c in range(n):
        for hop in range(n - 2):
            r = (c + hop) % n
            chunks[(r + 1) % n][c] = chunks[(r + 1) % n][c] + send(r, c, chunks[r][c])
    return [torch.cat(c) for c in chunks], [0] * n


def from_worker_zero(buffers, send):
    """Every chunk starts at worker 0 and goes round: sums and hops right, the traffic unbalanced."""
    n = len(buffers)
    chunks = [list(b.clone().tensor_split(n)) for b in buffers]
    sent = [0] * n
    for c in range(n):
        for r in range(n - 1):
            chunks[r + 1][c] = chunks[r + 1][c] + send(r, c, chunks[r][c])
            sent[r] += chunks[r][c].numel() * 8
        for hop in range(n - 1):
            r = (n - 1 + hop) % n
            chunks[(r + 1) % n][c] = send(r, c, chunks[r][c])
            sent[r] += chunks[r][c].numel() * 8
    return [torch.cat(c) for c in chunks], sent


def results_not_updated(buffers, send):
    results, sent = ring(buffers, send)
    return [b.clone() for b in buffers], sent


def mislabelled(buffers, send):
    """Sends chunk c's numbers under the index c + 1."""
    n = len(buffers)

    def relabel(r, c, data):
        return send(r, (c + 1) % n, data)
    return ring(buffers, relabel)


RING_MISTAKES = [
    (summed, "never called send"),
    (whole_buffers, "sent its whole buffer in one send"),
    (lambda b, send: (summed(b, send)[0], whole_buffers(b, send)[1]), "each worker sends its whole buffer to each"),
    (lambda b, send: ring(b, send, gather_steps=lambda n: 0), "each worker holds the full sum in one chunk only"),
    (lambda b, send: ring(b, send, reduce_steps=lambda n: n, gather_steps=lambda n: n),
     "your ring ran 6 steps (each worker sending once a step); a ring all-reduce takes 2 (N - 1) = 4"),
    (lambda b, send: ring(b, send, reduce_steps=lambda n: n), "your ring ran 5 steps"),
    (lambda b, send: ring(b, send, gather="add"), "adding it counts its own share twice"),
    (lambda b, send: ring(b, send, reduce_index=lambda r, s, n: (r + s) % n), "each step, a worker passes on the "
                                                                             "chunk it has just received"),
    (lambda b, send: ring(b, send, gather_index=lambda r, s, n: (r - s) % n),
     "the byte counts are a ring's, but the sums are not right"),
    (lambda b, send: (ring(b, send, gather_index=lambda r, s, n: (r - s) % n)[0], [0] * len(b)),
     "before it was finished"),
    (lambda b, send: ring(b, send, own_twice=True), "holding its own share twice"),
    (lambda b, send: ring(b, send, use_received=False), "holding its own share alone"),
    (lambda b, send: ring(b, send, receive="replace"), "add what you receive into your copy"),
    (lambda b, send: ring(b, send, gather_steps=lambda n: n - 2), "your ring ran 3 steps"),
    (lambda b, send: ring(b, send, reduce_steps=lambda n: n - 2), "your ring ran 3 steps"),
    (lambda b, send: ring(b, send, gather_steps=lambda n: n), "your ring ran 5 steps"),
    (chunk_by_chunk_extra_hop, "which already held it"),
    (chunk_by_chunk_short, "a ring all-reduce takes 2 (N - 1)"),
    (from_worker_zero, "Start each chunk at a different worker"),
    (mislabelled, "under the index"),
    (results_not_updated, "your sends are a ring's, but"),
    (lambda b, send: ring(b, send, count=lambda d: d.numel() * d.element_size() / 2)
     if len(b) else None, "reduce-scatter only"),
    (lambda b, send: ring(b, send, count=lambda d: d.numel()), "counts numbers, not bytes"),
    (lambda b, send: ring(b, send, count=lambda d: d.numel() * d.element_size() * len(b)),
     "a whole buffer for each send"),
    (lambda b, send: (ring(b, send)[0], [48] * len(b)), "says the workers sent [48, 48, 48] bytes; a ring sends"),
]


@pytest.mark.parametrize(("answer", "words"), RING_MISTAKES, ids=[w for _, w in RING_MISTAKES])
def test_ring_mistakes_are_named(answer, words):
    fb = checks.check_ring_all_reduce(answer)
    assert not fb and words in fb.message, (words, fb.message)


def test_a_chunk_that_stops_short_outside_steps_is_named():
    buffers, wire = ex3_ring._buffers(4), checks.Ring(4)
    chunk_by_chunk_short(checks.Buffers(t.clone() for t in buffers), wire)   # 8 sends, not in steps of 4
    problem = ex3_traffic._traffic_problem(wire, buffers)
    assert "chunk 0 went through 2 reduce-scatter steps; it needs N - 1 = 3" in problem, problem


def test_the_ring_check_reads_the_traffic_not_the_results():
    """A ring whose results and sent are right but whose traffic is not, is still refused."""
    def right_answer_wrong_traffic(buffers, send):
        ring(buffers, send, gather="add")            # the traffic of a ring that adds in the all-gather
        return summed(buffers, send)                  # and the right answer, computed directly

    fb = checks.check_ring_all_reduce(right_answer_wrong_traffic)
    assert not fb and "adding it counts its own share twice" in fb.message, fb.message


def test_odd_ring_answers_get_a_sentence():
    cases = [
        (lambda buffers, send: 5, "returned int; expected a tuple (results, sent)"),
        (lambda buffers, send: (5, 6), "gives results as int"),
        (lambda buffers, send: ([b for b in buffers], ["many"] * len(buffers)), "gives sent[0] as str"),
        (lambda buffers, send: (buffers[:1], [0] * len(buffers)), "gives 1 entries in results; expected one per "
                                                                  "worker, 3"),
        (lambda buffers, send: send(len(buffers), 0, buffers[0]), "send's rank is 3; expected a whole number"),
        (lambda buffers, send: send(0, 0, "chunk"), "send's chunk is str"),
        (lambda buffers: buffers, "TypeError"),
    ]
    for answer, words in cases:
        fb = checks.check_ring_all_reduce(answer)
        assert not fb and words in fb.message, (words, fb.message)


def test_a_ring_that_changes_the_buffers_in_place_is_still_judged_against_the_true_sum():
    def in_place(buffers, send):            # a right ring, then the buffers overwritten
        answer = ring(buffers, send)
        for b in buffers:
            b.zero_()
        return answer

    fb = checks.check_ring_all_reduce(in_place)
    assert fb, fb.message
    fb = checks.check_ring_all_reduce(ring_all_reduce)
    assert fb, fb.message         # the stored cases are intact afterwards


def test_shards_of_numpy_arrays_are_accepted():
    def numpy_split(mlp, n_workers):
        return [{k: v.detach().numpy() for k, v in s.items()} for s in split_llama(mlp, n_workers)]

    fb = checks.check_llama_split(numpy_split, llama_worker_forward)
    assert fb, fb.message


def test_results_from_the_buffers_after_a_right_ring_are_named():
    def ring_then_sum(buffers, send):
        _, sent = ring(buffers, send)
        return [sum(buffers)] * len(buffers), sent

    def ring_then_stack(buffers, send):
        results, sent = ring(buffers, send)
        return [torch.stack(list(buffers)).sum(0)] + results[1:], sent

    for answer, ranks in [(ring_then_sum, "worker 0, 1, 2"), (ring_then_stack, "worker 0's")]:
        fb = checks.check_ring_all_reduce(answer)
        assert not fb and "do not come from them" in str(fb) and ranks in str(fb), str(fb)
    assert checks.check_ring_all_reduce(ring_all_reduce)
