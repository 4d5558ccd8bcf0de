"""Checks for notebook 10's exercises (tensor parallelism).

1. A prediction: the bytes one worker hands to the all-reduce at N = 4.
2. Llama's gated MLP split over workers (gate and up by columns, down by rows) and
   the worker's forward with its one all-reduce: tried in one process first, where
   mistakes are easy to name, then for real in 2 processes (helpers.tensor_parallel.run).
3. (stretch) A ring all-reduce by hand, with the bytes each worker sends.
"""

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F

from helpers import tensor_parallel
from helpers.checks import language
from helpers.checks.compare import arrays
from helpers.checks.core import attempt, correct, outcome, referee, shape_str, wrong
from helpers.checks.guesses import NamedPrediction
from helpers.checks.runner import Check, Mistake
from helpers.checks.show import call_str, one_line, say
from helpers.checks.state import seeded
from helpers.gated import GatedMLP

# The question's sizes: T = 8 tokens, d_model = 768, d_ff = 3072, float64, N = 2 workers.
T_TOKENS, WIDTH, HIDDEN, N_WORKERS = 8, 768, 3072, 2


def _is(times):
    """A Mistake test: the guess is `times` the right bytes (exactly: the sizes are whole)."""
    return lambda guess, actual: math.isclose(guess, times * actual, rel_tol=1e-9)


def _ring_traffic(guess, actual):
    """A Mistake test: the guess is what a ring all-reduce of it sends, for N = 3, 4 or 8."""
    return any(math.isclose(guess, 2 * (n - 1) / n * actual, rel_tol=1e-9) for n in (3, 4, 8))


_BUFFER_MISTAKES = [
    Mistake("Half of it: either you split the partial output over the 2 workers (each worker's "
            "partial output has the full shape (T, d_model); what is split is the hidden units "
            "that made it), or you counted 4 bytes a number (float64 takes 8).",
            when=_is(1 / N_WORKERS)),
    Mistake("A quarter of it: you divided by 4 workers (this run has 2, and at any N the partial "
            "output keeps its full shape (T, d_model)), or split it over the workers and counted "
            "float32's 4 bytes.",
            when=_is(1 / 4)),
    Mistake("An eighth of it: that counts numbers, not bytes (float64 takes 8 bytes a number), or "
            "the bytes of one token's row alone (there are T = 8 tokens).", when=_is(1 / 8)),
    Mistake("Twice it: that is the hidden activations of one worker, (T, d_ff / N), which never "
            "leave it, or both workers' partial outputs together; each worker hands in its own (T, "
            "d_model).",
            when=_is(HIDDEN / N_WORKERS / WIDTH)),
    Mistake("Four times it: that is the whole hidden layer, (T, d_ff); a worker hands the "
            "all-reduce its partial output after the down-projection, (T, d_model).",
            when=_is(HIDDEN / WIDTH)),
    Mistake("Eight times it: that counts bits, not bytes.", when=_is(8)),
    Mistake("That is the size of weights a worker holds; the all-reduce carries activations, the "
            "(T, d_model) partial output, not weights.",
            when=lambda guess, actual: guess >= WIDTH * HIDDEN / 4),
    Mistake("A ring all-reduce of it would send 2 (N - 1) / N of the buffer per worker; the "
            "question asks the size of the tensor handed in, which does not depend on N.",
            when=_ring_traffic),
    Mistake("Close: a rounded size (48 KB, say). Write the exact number of bytes, T x d_model x 8.",
            when=lambda guess, actual: math.isclose(guess, actual, rel_tol=0.03)),
]

check_buffer_guess = NamedPrediction(
    "Exercise 1 (predict the all-reduce's size)",
    why="Every worker adds up full-size partial outputs of shape (T, d_model): T x d_model x 8 "
        "bytes in float64, whatever N is. What shrinks with N is the weights each worker holds.",
    rel=0.0,
    variable="my_buffer_guess",
    fmt="{:,}",
    mistakes=_BUFFER_MISTAKES,
)

# ---- Exercise 2: Llama's MLP over workers -------------------------------------------------

EX2 = "Exercise 2 (split Llama's MLP)"
GATED = tensor_parallel.GATED_KEYS
D_MODEL, D_FF, T = 8, 24, 3


def _gated(seed=2):
    """A float64 GatedMLP and an input x of T tokens, both drawn from `seed`."""
    with seeded(seed):
        mlp = GatedMLP(D_MODEL, D_FF).double()
    x = torch.randn(T, D_MODEL, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
    return mlp, x


@dataclass(frozen=True)
class Workers:
    """One case of the forward check: the MLP, the number of workers and the tokens."""

    mlp: GatedMLP
    n_workers: int
    x: torch.Tensor

    def __repr__(self):
        return language.translate(say("{n} workers", n=self.n_workers))   # shown inside a call


MLP, X = _gated()
SPLIT_CASES = [(MLP, 2), (MLP, 3)]
FORWARD_CASES = [(Workers(MLP, 2, X),), (Workers(MLP, 3, X),)]


def _shapes(shards):
    return [{k: tuple(torch.as_tensor(s[k]).shape) for k in GATED} for s in shards]


def _layout(got, expected):
    """None when `got` is a list of shards splitting the hidden units consistently, else how not."""
    n = len(expected)
    if not isinstance(got, (list, tuple)):
        return say("returned a {kind}; expected a list of {n} dicts", kind=type(got).__name__, n=n)
    if len(got) != n:
        return say("returned {got} shards; expected one per worker, {n}", got=len(got), n=n)
    for rank, shard in enumerate(got):
        if not isinstance(shard, dict) or any(k not in shard for k in GATED):
            return say("gives shard {rank} as {kind}; expected a dict with keys {keys}", rank=rank,
                       kind=type(shard).__name__, keys=str(list(GATED)))
    want = _shapes(expected)
    for rank, (mine, theirs) in enumerate(zip(_shapes(got), want, strict=True)):
        for key in GATED:
            if mine[key] != theirs[key]:
                return say("gives shard {rank}['{key}'] shape {shape}; expected {expected}",
                           rank=rank, key=key,
                           shape=shape_str(mine[key]), expected=shape_str(theirs[key]))
    full = {k: torch.cat([s[k] for s in expected], dim=1 if k != "W_down" else 0) for k in GATED}
    units = []
    for shard in got:
        mine = {k: torch.as_tensor(shard[k]).double() for k in GATED}
        ids = [_unit_ids(mine["W_gate"], full["W_gate"]), _unit_ids(mine["W_up"], full["W_up"]),
               _unit_ids(mine["W_down"].T, full["W_down"].T)]
        if any(i is None for i in ids):
            return say("holds numbers that are not slices of the MLP's weights")
        if not (ids[0] == ids[1] == ids[2]):
            return say("gives a worker W_gate, W_up and W_down for different hidden units")
        units += ids[0]
    return None if sorted(units) == list(range(full["W_up"].shape[1])) else \
        say("does not give every hidden unit to exactly one worker")


def _unit_ids(columns, full):
    """Which column of `full` each column of `columns` is (None if one matches none)."""
    ids = []
    for j in range(columns.shape[1]):
        match = (full - columns[:, j:j + 1]).abs().amax(dim=0) < 1e-12
        if not match.any():
            return None
        ids.append(int(match.nonzero()[0]))
    return ids


def _is(key, shape):
    """A Mistake test: shard 0's `key` has the shape shape(mlp, n)."""
    def when(got, mlp, n):
        return tuple(torch.as_tensor(got[0][key]).shape) == shape(mlp, n)
    return when


_STORED = ("nn.Linear stores its weight as (out, in) (notebook 03's note on storage): take "
           "mlp.{}.weight.T for the math layout x @ W.")

check_split = Check(
    EX2,
    reference=tensor_parallel.split_gated,
    cases=SPLIT_CASES,
    compare=_layout,
    name="split_llama",
    mistakes=[
        Mistake("W_gate has shape (d_ff / N, d_model): " + _STORED.format("gate_proj"),
                when=_is("W_gate", lambda m, n: (m.d_ff // n, m.d_model))),
        Mistake("W_gate has shape (d_model / N, d_ff): you split it by rows. Split by columns, so "
                "each worker owns whole hidden units: W_gate[:, units].",
                when=_is("W_gate", lambda m, n: (m.d_model // n, m.d_ff))),
        Mistake("W_up has shape (d_ff / N, d_model): " + _STORED.format("up_proj"),
                when=_is("W_up", lambda m, n: (m.d_ff // n, m.d_model))),
        Mistake("W_down has shape (d_model, d_ff / N): " + _STORED.format("down_proj"),
                when=_is("W_down", lambda m, n: (m.d_model, m.d_ff // n))),
        Mistake("W_down has shape (d_ff, d_model / N): you split it by columns. Split it by rows, "
                "the rows of the worker's own hidden units: W_down[units, :].",
                when=_is("W_down", lambda m, n: (m.d_ff, m.d_model // n))),
    ],
)


@dataclass(frozen=True)
class Misuse:
    """How the simulated workers used all_reduce, when not once with a (T, d_model) tensor."""

    calls: int          # all_reduce calls per worker
    shape: tuple        # shape of the first tensor handed in


def simulate(forward):
    """forward run by each worker in turn (the course's split), the all-reduce in two passes."""
    def run(case):
        shards = tensor_parallel.split_gated(case.mlp, case.n_workers)
        handed = []

        def record(tensor):
            handed.append(tensor)
            return tensor

        for shard in shards:
            if forward(case.x, shard, record) is None:
                return None
        n, (tokens, d_model) = case.n_workers, case.x.shape
        calls = len(handed) // n if len(handed) % n == 0 else -1
        shape = tuple(handed[0].shape) if handed else ()
        if calls != 1 or shape != (tokens, d_model):
            return Misuse(calls, shape)
        total = sum(handed)
        return forward(case.x, shards[0], lambda _partial: total.clone())
    run.__wrapped__ = forward   # a check reads the learner's stub through the wrapper
    return run


def _with(act_on="gate", act=F.silu, after=False):
    """The output of a typical mistake in the gated product."""
    def answer(case):
        mlp, x = case.mlp, case.x
        gate, up = mlp.gate_proj(x), mlp.up_proj(x)
        if after:
            return mlp.down_proj(act(gate * up))
        if act_on == "up":
            return mlp.down_proj(gate * act(up))
        return mlp.down_proj(act(gate) * up)
    return answer


def _misuse(test):
    return lambda got, case: isinstance(got, Misuse) and test(got, case)


check_forward = Check(
    EX2,
    reference=lambda case: case.mlp(case.x),
    cases=FORWARD_CASES,
    compare=arrays(atol=1e-10, rtol=1e-10),
    name="llama_worker_forward",
    mistakes=[
        Mistake("your worker never calls all_reduce, so each returns only its own partial output. "
                "Hand the partial output (after W_down) to all_reduce and return what it gives "
                "back.",
                when=_misuse(lambda got, case: got.calls == 0)),
        Mistake("you all-reduce the hidden activations, shape (T, d_ff / N). In this split they "
                "never leave their worker: multiply by W_down first, then all-reduce the (T, "
                "d_model) partial.",
                when=_misuse(lambda got, c: got.shape == (c.x.shape[0],
                                                          c.mlp.d_ff // c.n_workers))),
        Mistake("each worker calls all_reduce more than once; the split needs one, after W_down.",
                when=_misuse(lambda got, case: got.calls != 1)),
        Mistake("SiLU goes on the gate, x @ W_gate, not on the up-projection (notebook 05).",
                answer=_with(act_on="up")),
        Mistake("SiLU is applied after the product here; it goes on the gate alone: "
                "F.silu(x @ W_gate) * (x @ W_up).", answer=_with(after=True)),
        Mistake("there is no SiLU: the gate is F.silu(x @ W_gate).", answer=_with(act=lambda h: h)),
        Mistake("that is GELU; Llama's gate uses SiLU (F.silu).", answer=_with(act=F.gelu)),
    ],
)


@referee(EX2)
def check_llama_split(split_llama, llama_worker_forward):
    """Exercise 2: the split and the worker's forward, in one process, then in 2 real processes."""
    split_fb = check_split(split_llama)
    if not split_fb:
        return split_fb
    forward_fb = check_forward(simulate(llama_worker_forward))
    if forward_fb.status == "not attempted":
        return wrong(EX2, "split_llama is right; now write llama_worker_forward.")
    if not forward_fb:
        return forward_fb
    mlp, x = _gated(seed=5)
    # a copy of mlp: the comparison below uses the pristine one
    shards = attempt(split_llama, mlp, 2)
    early = outcome(EX2, "split_llama(GatedMLP, 2)", shards)
    if early is not None:
        return early
    try:
        # numpy arrays are fine too
        shards = [{k: torch.as_tensor(s[k]) for k in GATED} for s in shards]
        results = tensor_parallel.run(shards, x, forward=llama_worker_forward, timeout_s=120)
    except Exception as err:   # noqa: BLE001 - whatever went wrong becomes the sentence below
        said = getattr(err, "sentence", None) or say("{kind}: {said}", kind=type(err).__name__,
                                                     said=one_line(err))
        return wrong(EX2, say("in one process your functions are right, but the run in 2 processes "
                              "failed. Each worker runs llama_worker_forward from its source, with "
                              "only torch, F, nn and its arguments. {said}", said=said))
    with torch.no_grad():
        gap = max((r.output - mlp(x)).abs().max().item() for r in results)
    if gap > 1e-10:
        return wrong(EX2, say("in 2 processes the workers' output differs from the one-process MLP "
                              "by up to {gap:.2g}.", gap=gap))
    return correct(EX2, "gate and up split by columns, down by rows, one all-reduce: in 2 real "
                        "processes every worker's output equals the one-process gated MLP (within "
                        "1e-10).")


# ---- Exercise 3: a ring all-reduce ---------------------------------------------------------
# The learner's ring_all_reduce(buffers, send) moves every chunk through `send`, which records it:
# the check reads the traffic send by send (which worker sent which chunk, holding which workers'
# shares), then the results, then the bytes the learner counted. An answer that skips the ring
# (sum(buffers)) sends nothing.

EX3 = "Exercise 3 (a ring all-reduce)"


class Buffers(list):
    """The workers' buffers, one tensor each, shown in messages by their count and size.

    It keeps its own copy of their sum, their chunks and their size, which a function that changes
    the buffers in place cannot touch.
    """

    def __init__(self, tensors):
        super().__init__(tensors)
        self.total = sum(t.clone() for t in self)              # what every worker must end with
        self.nbytes = self[0].numel() * self[0].element_size()
        self.parts = [[c.clone() for c in t.tensor_split(len(self))] for t in self]   # parts[r][c]

    def __repr__(self):
        return language.translate(say("[{n} buffers of {numel} numbers]",
                                      n=len(self), numel=self[0].numel()))


def _buffers(n_workers, numel=24):
    g = torch.Generator().manual_seed(n_workers)
    return Buffers(torch.randn(numel, generator=g, dtype=torch.float64) for _ in range(n_workers))


class Ring:
    """The wire of a ring: send(r, c, chunk) hands worker r's chunk c to worker (r + 1) % N.

    It returns what the neighbour receives (a copy) and records every send, in order.
    """

    def __init__(self, n_workers):
        self.n = n_workers
        self.sends = []   # (sender, chunk index, the numbers sent)

    def __call__(self, rank, chunk, data):
        for name, value in (("rank", rank), ("chunk", chunk)):
            if isinstance(value, torch.Tensor) and value.numel() == 1:
                value = value.item()
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < self.n:
                raise ValueError(say("send's {name} is {value}; expected a whole number from 0 to "
                                     "{last}, a worker's rank or a chunk's index",
                                     name=name, value=one_line(value), last=self.n - 1))
        try:
            data = torch.as_tensor(data).detach().clone()
        except Exception as err:   # noqa: BLE001 - anything but numbers becomes the sentence below
            raise ValueError(say("send's chunk is {kind}; expected a tensor, one chunk of a buffer",
                                 kind=type(data).__name__)) from err
        self.sends.append((int(rank), int(chunk), data))
        return data.clone()

    def __repr__(self):
        return "send"

    def __deepcopy__(self, memo):
        # the learner's function must use this very wire, so that the check sees the traffic
        return self


class _OffsetRing(Ring):
    """A wire that hands the neighbour every number plus 1.

    A ring's results then differ from the sum, and results that still equal it were computed from
    the buffers again, not from what send handed.
    """

    def __call__(self, rank, chunk, data):
        return super().__call__(rank, chunk, data) + 1.0


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


def _shares(buffers, c, data):
    """Whose chunk c the sent numbers hold, a count per worker (2: its share twice), or None."""
    # (chunk numbers, N)
    parts = torch.stack([buffers.parts[r][c] for r in range(len(buffers))], dim=1)
    data = data.reshape(-1).to(torch.float64)
    if data.numel() != parts.shape[0]:
        return None
    k = torch.linalg.lstsq(parts, data.unsqueeze(1)).solution.squeeze(1).round()
    if (parts @ k - data).abs().max() > 1e-9 * (1 + data.abs().max()):
        return None
    return [int(v) for v in k]


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
