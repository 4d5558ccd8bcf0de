"""Notebook 10, exercise 3's reading of the traffic, send by send: what a wrong ring all-reduce sent
(a whole buffer, a chunk twice, too few or too many steps...) in a sentence."""

from helpers.checks.nb10_tensor_parallel.ex3_ring import _shares
from helpers.checks.show import say

_NEVER_SENT = ("your function never called send: the sums may be right (sum(buffers) gives them), "
               "but no worker passed anything to its neighbour. A ring moves every chunk with "
               "send(r, c, chunk), worker r to worker (r + 1) % N, step by step.")
_WHOLE = ("worker {rank} sent its whole buffer in one send; a ring sends one chunk per send, "
          "buffer.tensor_split(N)[c], {numel} numbers here.")
_SIZE = ("worker {rank} sent {got} numbers as chunk {c}; a chunk here holds {numel} "
         "(buffer.tensor_split(N)[c]).")
_LABEL = ("worker {rank} sent chunk {other}'s numbers under the index {c}: pass the index of the "
          "chunk you send, send(r, c, chunks[r][c]).")
_NOT_A_SUM = ("worker {rank} sent numbers as chunk {c} that are no sum of the workers' chunk {c}: "
              "send chunks[r][c], the chunk as it stands after what was added to it.")
_OWN_TWICE = ("in step {step} worker {rank} sent chunk {c} holding its own share twice: the chunk "
              "it passes on already holds its own share, so add only what it received, once.")
_FINISHED_ADDED = ("chunk {c} reached worker {rank} finished and was added to its copy, which then "
                   "held worker {rank}'s share twice: {why}")
_TOO_MANY_STEPS = ("the reduce-scatter ran N steps: after N - 1 each chunk is finished at one "
                   "worker, and one more step adds a finished chunk into a copy that holds its own "
                   "share. Run N - 1 steps in each phase.")
_STEP_COUNT = ("your ring ran {steps} steps (each worker sending once a step); a ring all-reduce "
               "takes 2 (N - 1) = {want}: N - 1 of reduce-scatter, after which each chunk is "
               "finished at one worker, then N - 1 of all-gather. A step more adds a finished "
               "chunk into a copy that holds its own share, or sends it to a worker that has it; a "
               "step fewer leaves a chunk unfinished or a worker without it.")
_GATHER_ADDS = ("in the all-gather the neighbour replaces its copy with the finished chunk; adding "
                "it counts its own share twice.")
_TWICE = ("worker {rank} sent chunk {c} holding some worker's share more than once (shares "
          "{shares}): each chunk must add every worker's share exactly once.")
_WRONG_INDEX = ("in reduce-scatter step {step} worker {rank} sent chunk {c}, but chunk {c} went to "
                "worker {holder} in the step before: each step, a worker passes on the chunk it "
                "has just received and added to ((r - s) % N in Hint 1's numbering), so every "
                "chunk travels round the ring.")
_NOT_ADDED = ("in reduce-scatter step {step} worker {rank} passed on chunk {c} holding its own "
              "share alone: add the chunk it received in the step before into its copy, then send "
              "the sum.")
_NOT_GROWING = ("in reduce-scatter step {step} worker {rank} sent chunk {c} holding the shares of "
                "workers {shares}; after {step} steps it should hold {expected}: add what you "
                "receive into your copy of the same chunk.")
_GATHER_UNFINISHED = ("in the all-gather worker {rank} sent chunk {c} before it was finished (it "
                      "holds the shares of workers {shares}): each all-gather step passes on the "
                      "finished chunk received in the step before ((r + 1 - s) % N in Hint 2's "
                      "numbering).")
_GATHER_AGAIN = ("worker {rank} sent the finished chunk {c} to worker {dst}, which already held "
                 "it: the all-gather takes N - 1 steps, after which every worker holds every "
                 "finished chunk.")
_REDUCE_SHORT = ("chunk {c} went through {got} reduce-scatter steps; it needs N - 1 = {need}, one "
                 "per worker it collects from, before it is finished.")
_NO_GATHER = ("each worker holds the full sum in one chunk only: that is the end of the "
              "reduce-scatter. Now the all-gather: N - 1 more steps that pass the finished chunks "
              "around the ring.")
_GATHER_SHORT = ("the finished chunk {c} reached {got} of the {n} workers: the all-gather needs "
                 "N - 1 steps, each passing it one worker further.")
_UNBALANCED = ("worker {rank} sent {got} chunks, worker {other} {other_got}: in a ring every "
               "worker sends 2 (N - 1) chunks, one each step. Start each chunk at a different "
               "worker (step s: worker r sends chunk (r - s) % N).")


_WHOLE_TO_ALL = ("the sums are right, but each worker sends its whole buffer to each of the N - 1 "
                 "others: that is not a ring. A ring sends one chunk (buffer / N) per step, in 2 "
                 "(N - 1) steps.")
_RING_BYTES_WRONG_SUMS = ("the byte counts are a ring's, but the sums are not right: a chunk was "
                          "passed on before it was complete. In reduce-scatter step s worker r "
                          "sends chunk (r - s) % N, which holds s + 1 buffers' worth; in "
                          "all-gather step s it passes on the finished chunk it holds, (r + 1 - s) "
                          "% N.")


def _traffic_problem(ring, buffers, sums_right=False, ring_bytes=False):
    """None when the recorded sends are a ring all-reduce's, else a sentence naming the mistake.

    sums_right: the learner's results are the sums; ring_bytes: its sent counts are a ring's (both
    only choose between two sentences for the same mistake).
    """
    n, numel = len(buffers), buffers.parts[0][0].numel()
    if not ring.sends:
        return say(_NEVER_SENT)
    for rank, c, data in ring.sends:
        if data.numel() == buffers[0].numel() and n > 1:
            return say(_WHOLE_TO_ALL) if sums_right else say(_WHOLE, rank=rank, numel=numel)
        if data.numel() != buffers.parts[0][c].numel():
            return say(_SIZE, rank=rank, got=data.numel(), c=c, numel=numel)
    per_chunk = {c: [] for c in range(n)}
    for rank, c, data in ring.sends:
        shares = _shares(buffers, c, data)
        if shares is None:
            other = next((o for o in range(n)
                          if o != c and _shares(buffers, o, data) is not None), None)
            return (say(_LABEL, rank=rank, other=other, c=c) if other is not None
                    else say(_NOT_A_SUM, rank=rank, c=c))
        per_chunk[c].append((rank, shares))
    total_sends = len(ring.sends)
    steps = total_sends // n
    in_steps = total_sends % n == 0 and all(
        sorted(rank for rank, _, _ in ring.sends[i * n:(i + 1) * n]) == list(range(n))
        for i in range(steps))
    if in_steps:  # every worker sends once a step: count the steps first
        finished = any(all(v for v in shares)
                       for sends in per_chunk.values() for _, shares in sends)
        if steps == n - 1 and not finished:
            return say(_NO_GATHER)
        if steps != 2 * (n - 1):
            return say(_STEP_COUNT, steps=steps, want=2 * (n - 1))
    for c, sends in per_chunk.items():
        reduce, holders = [], set()
        for rank, shares in sends:
            step = len(reduce)
            if any(v < 0 for v in shares) or any(v > 1 for v in shares):
                finished_plus_own = all(v == (2 if r == rank else 1) for r, v in enumerate(shares))
                if finished_plus_own:
                    too_many = total_sends > 2 * (n - 1) * n
                    why = say(_TOO_MANY_STEPS) if too_many else say(_GATHER_ADDS)
                    return say(_FINISHED_ADDED, c=c, rank=rank, why=why)
                others_once = all(v <= 1 for r, v in enumerate(shares) if r != rank)
                if shares[rank] == 2 and not holders and others_once:
                    return say(_OWN_TWICE, step=step, rank=rank, c=c)
                return say(_TWICE, rank=rank, c=c, shares=str(shares))
            held = {r for r, v in enumerate(shares) if v}
            if len(held) < n:  # a partial chunk: the reduce-scatter
                if holders or step >= n - 1:
                    if ring_bytes and not sums_right:
                        return say(_RING_BYTES_WRONG_SUMS)
                    return say(_GATHER_UNFINISHED, rank=rank, c=c, shares=str(sorted(held)))
                if reduce:
                    last = reduce[-1][0]
                    if rank != (last + 1) % n:
                        return say(_WRONG_INDEX, step=step, rank=rank, c=c, holder=(last + 1) % n)
                    expected = reduce[-1][1] | {rank}
                    if held == {rank}:
                        return say(_NOT_ADDED, step=step, rank=rank, c=c)
                    if held != expected:
                        return say(_NOT_GROWING, step=step, rank=rank, c=c,
                                   shares=str(sorted(held)), expected=str(sorted(expected)))
                elif held != {rank}:
                    return say(_NOT_GROWING, step=step, rank=rank, c=c, shares=str(sorted(held)),
                               expected=str([rank]))
                reduce.append((rank, held))
            else:  # a finished chunk: the all-gather
                if not holders:
                    if len(reduce) < n - 1:
                        return say(_REDUCE_SHORT, c=c, got=len(reduce), need=n - 1)
                    holders = {(reduce[-1][0] + 1) % n}
                dst = (rank + 1) % n
                if dst in holders:
                    return say(_GATHER_AGAIN, rank=rank, c=c, dst=dst)
                holders.add(dst)
        if len(reduce) < n - 1:
            return say(_REDUCE_SHORT, c=c, got=len(reduce), need=n - 1)
        if not holders:
            return say(_NO_GATHER)
        if len(holders) < n:
            return say(_GATHER_SHORT, c=c, got=len(holders), n=n)
    counts = [sum(1 for rank, _, _ in ring.sends if rank == r) for r in range(n)]
    if len(set(counts)) > 1:
        most, least = max(range(n), key=counts.__getitem__), min(range(n), key=counts.__getitem__)
        return say(_UNBALANCED, rank=most, got=counts[most], other=least, other_got=counts[least])
    return None
