"""Notebook 10, exercise 3: check_ring_all_reduce, which reads the traffic, then the sums, then
the bytes the learner counted."""

import torch

from helpers import tensor_parallel
from helpers.checks.compare import arrays
from helpers.checks.core import attempt, correct, outcome, referee, wrong
from helpers.checks.nb10_tensor_parallel.ex3_ring import Buffers, Ring, _buffers, _OffsetRing
from helpers.checks.nb10_tensor_parallel.ex3_traffic import _traffic_problem
from helpers.checks.show import call_str, say

EX3 = "Exercise 3 (a ring all-reduce)"


def _results_bypass_ring(ring_all_reduce, n):
    """The ranks whose results are the buffers' sum even when send hands other numbers."""
    buffers = _buffers(n)
    given = Buffers(t.clone() for t in buffers)
    got = attempt(ring_all_reduce, given, _OffsetRing(n), copies=False)
    parts = _ring_parts(got, n) if not isinstance(got, BaseException) else None
    if parts is None or isinstance(parts, str):
        return []
    is_sum = arrays(atol=1e-10, rtol=1e-10)
    return [rank for rank, mine in enumerate(parts[0]) if is_sum(mine, buffers.total) is None]


_BYPASS = ("{call}: the sends are a ring's, but the results do not come from them: when send hands "
           "the workers other numbers, worker {ranks}'s result stays the sum of the buffers. Build "
           "results[r] from worker r's chunks as send handed them (torch.cat(chunks[r])), never "
           "from the buffers again (sum(buffers), torch.stack(buffers).sum(0)).")


def _ring_parts(got, n):
    """(results, sent) when `got` has the shape of an answer for n workers, else how it does not."""
    if not isinstance(got, tuple) or len(got) != 2:
        return say("returned {kind}; expected a tuple (results, sent)", kind=type(got).__name__)
    results, sent = got
    for name, value in (("results", results), ("sent", sent)):
        if not isinstance(value, (list, tuple)):
            return say("gives {name} as {kind}; expected a list with one entry per worker",
                       name=name, kind=type(value).__name__)
        if len(value) != n:
            return say("gives {got} entries in {name}; expected one per worker, {n}",
                       got=len(value), name=name, n=n)
    for rank, count in enumerate(sent):
        if isinstance(count, torch.Tensor) and count.numel() == 1:
            count = count.item()
        if isinstance(count, bool) or not isinstance(count, (int, float)):
            return say("gives sent[{rank}] as {kind}; expected a number of bytes",
                       rank=rank, kind=type(count).__name__)
    return results, [float(c) for c in sent]


def _sums_problem(results, buffers):
    """None when every worker ends with the sum of all buffers, else how the first does not."""
    for rank, mine in enumerate(results):
        problem = arrays(atol=1e-10, rtol=1e-10)(mine, buffers.total)
        if problem:
            return say("gives worker {rank} a result that {problem}", rank=rank, problem=problem)
    return None


_RESULTS = ("your sends are a ring's, but {problem}: after the all-gather every worker's chunks "
            "are finished; return results[r] = torch.cat(chunks[r]), built from what send handed "
            "each worker.")
_SENT_HALF = ("the sums are right, but you counted the bytes of the reduce-scatter only; the "
              "all-gather sends as many again.")
_SENT_NUMBERS = ("the ring is right, but sent counts numbers, not bytes: add "
                 "chunk.numel() * chunk.element_size() for each send.")
_SENT_WHOLE = ("the ring is right, but you counted a whole buffer for each send; a send carries "
               "one chunk, buffer / N.")


def _sent_problem(sent, ring, buffers):
    """None when sent[r] is the bytes worker r handed to send, else a sentence on the miscount."""
    n, itemsize = len(buffers), buffers[0].element_size()
    want = [float(sum(d.numel() * itemsize for rank, _, d in ring.sends if rank == r))
            for r in range(n)]
    if sent == want:
        return None
    if sent == [w / 2 for w in want]:
        return say(_SENT_HALF)
    if sent == [w / itemsize for w in want]:
        return say(_SENT_NUMBERS)
    if sent == [w * n for w in want]:
        return say(_SENT_WHOLE)
    return say("says the workers sent {sent} bytes; a ring sends {want}",
               sent=str([int(v) if v.is_integer() else v for v in sent]),
               want=str([int(w) for w in want]))


RING_CASES = (3, 4, 2)   # 3 first: with 2 workers several mistakes send the same traffic


@referee(EX3)
def check_ring_all_reduce(ring_all_reduce):
    """Exercise 3: ring_all_reduce(buffers, send) -> (results, sent); its sends read one by one."""
    for i, n in enumerate(RING_CASES):
        buffers, ring = _buffers(n), Ring(n)
        call = call_str("ring_all_reduce", (buffers, ring))
        got = attempt(ring_all_reduce, Buffers(t.clone() for t in buffers), ring, copies=False)
        early = outcome(EX3, call, got, first=i == 0)
        if early is not None:
            return early
        parts = _ring_parts(got, n)
        if isinstance(parts, str):
            return wrong(EX3, say("{call} {problem}.", call=call, problem=parts))
        results, sent = parts
        formula = [float(tensor_parallel.ring_bytes(buffers.nbytes, n))] * n
        sums_right = _sums_problem(results, buffers) is None
        problem = _traffic_problem(ring, buffers, sums_right=sums_right, ring_bytes=sent == formula)
        if problem is not None:
            return wrong(EX3, say("{call}: {problem}", call=call, problem=problem))
        problem = _sums_problem(results, buffers)
        if problem is not None:
            return wrong(EX3, say("{call}: " + _RESULTS, call=call, problem=problem))
        problem = _sent_problem(sent, ring, buffers)
        if problem is not None and problem.startswith("says"):
            return wrong(EX3, say("{call} {problem}.", call=call, problem=problem))
        if problem is not None:
            return wrong(EX3, say("{call}: {problem}", call=call, problem=problem))
        bypass = _results_bypass_ring(ring_all_reduce, n)
        if bypass:
            return wrong(EX3, say(_BYPASS, call=call, ranks=", ".join(str(r) for r in bypass)))
    return correct(EX3, say("every chunk went round the ring: N - 1 reduce-scatter steps, each "
                            "adding one worker's share, then N - 1 all-gather steps passing the "
                            "finished chunk on; each worker sent 2 (N - 1) chunks, 2 (N - 1) / N "
                            "of its buffer, and ends with the sum."))
