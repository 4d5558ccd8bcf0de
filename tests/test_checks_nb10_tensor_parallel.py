"""Notebook 10's checks accept a right answer and name typical mistakes."""

import torch
import torch.nn.functional as F

from helpers.checks import nb10_tensor_parallel as checks


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


def ring_all_reduce(buffers):
    n = len(buffers)
    chunks = [list(b.clone().tensor_split(n)) for b in buffers]
    sent = [0] * n
    for step in range(n - 1):               # reduce-scatter
        moving = [(r, (r - step) % n, chunks[r][(r - step) % n].clone()) for r in range(n)]
        for r, c, data in moving:
            chunks[(r + 1) % n][c] += data
            sent[r] += data.numel() * data.element_size()
    for step in range(n - 1):               # all-gather
        moving = [(r, (r + 1 - step) % n, chunks[r][(r + 1 - step) % n].clone()) for r in range(n)]
        for r, c, data in moving:
            chunks[(r + 1) % n][c] = data
            sent[r] += data.numel() * data.element_size()
    return [torch.cat(c) for c in chunks], sent


def test_ring_all_reduce():
    assert checks.check_ring_all_reduce(lambda buffers: None).status == "not attempted"
    fb = checks.check_ring_all_reduce(ring_all_reduce)
    assert fb and str(fb).startswith("[correct] Exercise 3")

    def naive(buffers):
        n, size = len(buffers), buffers[0].numel() * buffers[0].element_size()
        return [sum(buffers)] * n, [(n - 1) * size] * n

    def reduce_scatter_only(buffers):
        n = len(buffers)
        results, sent = ring_all_reduce(buffers)
        partial = [list(b.tensor_split(n)) for b in buffers]
        for r in range(n):                  # each worker keeps only its finished chunk
            partial[r][(r + 1) % n] = results[r].tensor_split(n)[(r + 1) % n]
        return [torch.cat(p) for p in partial], [s / 2 for s in sent]

    def half_counted(buffers):
        results, sent = ring_all_reduce(buffers)
        return results, [s / 2 for s in sent]

    for answer, words in [(naive, "not a ring"), (reduce_scatter_only, "end of the reduce-scatter"),
                          (half_counted, "reduce-scatter only")]:
        fb = checks.check_ring_all_reduce(answer)
        assert not fb and words in fb.message, (words, fb.message)


def wrong_all_gather_index(buffers):
    """The ring with all-gather step s sending chunk (r - s) % N: at N = 2, a ring's bytes but wrong sums."""
    n = len(buffers)
    chunks = [list(b.clone().tensor_split(n)) for b in buffers]
    sent = [0] * n
    for step in range(n - 1):
        moving = [(r, (r - step) % n, chunks[r][(r - step) % n].clone()) for r in range(n)]
        for r, c, data in moving:
            chunks[(r + 1) % n][c] += data
            sent[r] += data.numel() * data.element_size()
    for step in range(n - 1):
        moving = [(r, (r - step) % n, chunks[r][(r - step) % n].clone()) for r in range(n)]
        for r, c, data in moving:
            chunks[(r + 1) % n][c] = data
            sent[r] += data.numel() * data.element_size()
    return [torch.cat(c) for c in chunks], sent


def sequential_ring(buffers):
    """A correct ring whose sends happen one after another, each in place, with no copies taken first."""
    n = len(buffers)
    chunks = [list(b.clone().tensor_split(n)) for b in buffers]
    sent = [0] * n
    for step in range(n - 1):
        for r in range(n):
            c = (r - step) % n
            chunks[(r + 1) % n][c] += chunks[r][c]
            sent[r] += chunks[r][c].numel() * chunks[r][c].element_size()
    for step in range(n - 1):
        for r in range(n):
            c = (r + 1 - step) % n
            chunks[(r + 1) % n][c] = chunks[r][c]
            sent[r] += chunks[r][c].numel() * chunks[r][c].element_size()
    return [torch.cat(c) for c in chunks], sent


def chunk_by_chunk_ring(buffers):
    """A correct ring that moves one chunk at a time all the way round: more steps, the same bytes."""
    n = len(buffers)
    chunks = [list(b.clone().tensor_split(n)) for b in buffers]
    sent = [0.0] * n
    for c in range(n):
        for hop in range(n - 1):               # reduce: chunk c travels from worker c, adding up
            r = (c + hop) % n
            chunks[(r + 1) % n][c] = chunks[(r + 1) % n][c] + chunks[r][c]
            sent[r] += chunks[r][c].numel() * chunks[r][c].element_size()
        for hop in range(n - 1):               # gather: the finished chunk goes on round
            r = (c + n - 1 + hop) % n
            chunks[(r + 1) % n][c] = chunks[r][c].clone()
            sent[r] += chunks[r][c].numel() * chunks[r][c].element_size()
    return tuple(torch.cat(c) for c in chunks), tuple(torch.tensor(s) for s in sent)


def test_correct_ring_variants_are_accepted():
    for ring in (sequential_ring, chunk_by_chunk_ring):
        fb = checks.check_ring_all_reduce(ring)
        assert fb, (ring.__name__, fb.message)


def test_wrong_sums_are_named_before_the_byte_count():
    fb = checks.check_ring_all_reduce(wrong_all_gather_index)
    assert not fb and "the sums are not right" in fb.message and "not a ring" not in fb.message, fb.message


def test_odd_ring_answers_get_a_sentence():
    cases = [
        (lambda buffers: 5, "returned int; expected a tuple (results, sent)"),
        (lambda buffers: (5, 6), "gives results as int"),
        (lambda buffers: ([b for b in buffers], ["many"] * len(buffers)), "gives sent[0] as str"),
        (lambda buffers: (buffers[:1], [0] * len(buffers)), "gives 1 entries in results; expected one per worker, 2"),
    ]
    for ring, words in cases:
        fb = checks.check_ring_all_reduce(ring)
        assert not fb and words in fb.message, (words, fb.message)


def test_a_ring_that_changes_the_buffers_in_place_is_still_judged_against_the_true_sum():
    def in_place(buffers):                  # adds everything into buffer 0, then hands that to all
        for b in buffers[1:]:
            buffers[0] += b
        n, size = len(buffers), buffers[0].numel() * buffers[0].element_size()
        return [buffers[0]] * n, [2 * (n - 1) / n * size] * n

    fb = checks.check_ring_all_reduce(in_place)
    assert fb, fb.message         # the sums are right (the result is a sum, not a ring, but the check sees results)
    fb = checks.check_ring_all_reduce(ring_all_reduce)
    assert fb, fb.message         # the stored cases are intact afterwards


def test_shards_of_numpy_arrays_are_accepted():
    def numpy_split(mlp, n_workers):
        return [{k: v.detach().numpy() for k, v in s.items()} for s in split_llama(mlp, n_workers)]

    fb = checks.check_llama_split(numpy_split, llama_worker_forward)
    assert fb, fb.message
