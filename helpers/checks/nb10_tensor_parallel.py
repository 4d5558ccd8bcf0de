"""Checks for notebook 10's exercises (tensor parallelism).

1. A prediction: the bytes one worker hands to the all-reduce at N = 4.
2. Llama's gated MLP split over workers (gate and up by columns, down by rows) and
   the worker's forward with its one all-reduce: tried in one process first, where
   mistakes are easy to name, then for real in 2 processes (helpers.tensor_parallel.run).
3. (stretch) A ring all-reduce by hand, with the bytes each worker sends.
"""

from dataclasses import dataclass

import torch
import torch.nn.functional as F

from helpers import tensor_parallel
from helpers.checks import language
from helpers.checks.compare import arrays
from helpers.checks.core import attempt, correct, outcome, referee, shape_str, wrong
from helpers.checks.runner import Check, Mistake, Prediction
from helpers.checks.show import one_line, say
from helpers.checks.state import seeded
from helpers.gated import GatedMLP

check_buffer_guess = Prediction(
    "Exercise 1 (predict the all-reduce's size)",
    why="Every worker adds up full-size partial outputs of shape (T, d_model): T x d_model x 8 bytes "
        "in float64, whatever N is. What shrinks with N is the weights each worker holds.",
    rel=0.0,
    variable="my_buffer_guess",
    fmt="{:,}",
)

# ---- Exercise 2: Llama's MLP over workers -------------------------------------------------

EX2 = "Exercise 2 (split Llama's MLP)"
GATED = tensor_parallel.GATED_KEYS
D_MODEL, D_FF, T = 8, 24, 3


def _gated(seed=2):
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
    """None when `got` is a list of shards that splits the hidden units consistently, else how not."""
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
                return say("gives shard {rank}['{key}'] shape {shape}; expected {expected}", rank=rank, key=key,
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
        Mistake("W_gate has shape (d_model / N, d_ff): you split it by rows. Split by columns, so each "
                "worker owns whole hidden units: W_gate[:, units].",
                when=_is("W_gate", lambda m, n: (m.d_model // n, m.d_ff))),
        Mistake("W_up has shape (d_ff / N, d_model): " + _STORED.format("up_proj"),
                when=_is("W_up", lambda m, n: (m.d_ff // n, m.d_model))),
        Mistake("W_down has shape (d_model, d_ff / N): " + _STORED.format("down_proj"),
                when=_is("W_down", lambda m, n: (m.d_model, m.d_ff // n))),
        Mistake("W_down has shape (d_ff, d_model / N): you split it by columns. Split it by rows, the "
                "rows of the worker's own hidden units: W_down[units, :].",
                when=_is("W_down", lambda m, n: (m.d_ff, m.d_model // n))),
    ],
)


@dataclass(frozen=True)
class Misuse:
    """How the simulated workers used all_reduce, when not once with a (T, d_model) tensor."""

    calls: int          # all_reduce calls per worker
    shape: tuple        # shape of the first tensor handed in


def simulate(forward):
    """forward run by each worker in turn (the course's split), the all-reduce played in two passes."""
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
                "Hand the partial output (after W_down) to all_reduce and return what it gives back.",
                when=_misuse(lambda got, case: got.calls == 0)),
        Mistake("you all-reduce the hidden activations, shape (T, d_ff / N). In this split they never "
                "leave their worker: multiply by W_down first, then all-reduce the (T, d_model) partial.",
                when=_misuse(lambda got, c: got.shape == (c.x.shape[0], c.mlp.d_ff // c.n_workers))),
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
    shards = attempt(split_llama, mlp, 2)   # a copy of mlp: the comparison below uses the pristine one
    early = outcome(EX2, "split_llama(GatedMLP, 2)", shards)
    if early is not None:
        return early
    try:
        shards = [{k: torch.as_tensor(s[k]) for k in GATED} for s in shards]   # numpy arrays are fine too
        results = tensor_parallel.run(shards, x, forward=llama_worker_forward, timeout_s=120)
    except Exception as err:   # noqa: BLE001 - whatever went wrong becomes the sentence below
        said = getattr(err, "sentence", None) or say("{kind}: {said}", kind=type(err).__name__, said=one_line(err))
        return wrong(EX2, say("in one process your functions are right, but the run in 2 processes failed. "
                              "Each worker runs llama_worker_forward from its source, with only torch, F, nn "
                              "and its arguments. {said}", said=said))
    with torch.no_grad():
        gap = max((r.output - mlp(x)).abs().max().item() for r in results)
    if gap > 1e-10:
        return wrong(EX2, say("in 2 processes the workers' output differs from the one-process MLP by up "
                              "to {gap:.2g}.", gap=gap))
    return correct(EX2, "gate and up split by columns, down by rows, one all-reduce: in 2 real processes "
                        "every worker's output equals the one-process gated MLP (within 1e-10).")


# ---- Exercise 3: a ring all-reduce ---------------------------------------------------------

EX3 = "Exercise 3 (a ring all-reduce)"


class Buffers(list):
    """The workers' buffers, one tensor each, shown in messages by their count and size.

    It keeps its own copy of their sum and their size, which a function that changes the buffers
    in place cannot touch.
    """

    def __init__(self, tensors):
        super().__init__(tensors)
        self.total = sum(t.clone() for t in self)              # what every worker must end with
        self.nbytes = self[0].numel() * self[0].element_size()

    def __repr__(self):
        return language.translate(say("[{n} buffers of {numel} numbers]", n=len(self), numel=self[0].numel()))


def _buffers(n_workers, numel=24):
    g = torch.Generator().manual_seed(n_workers)
    return Buffers(torch.randn(numel, generator=g, dtype=torch.float64) for _ in range(n_workers))


def _ring_parts(got, n):
    """(results, sent) when `got` has the shape of an answer for n workers, else how it does not."""
    if not isinstance(got, tuple) or len(got) != 2:
        return say("returned {kind}; expected a tuple (results, sent)", kind=type(got).__name__)
    results, sent = got
    for name, value in (("results", results), ("sent", sent)):
        if not isinstance(value, (list, tuple)):
            return say("gives {name} as {kind}; expected a list with one entry per worker", name=name,
                       kind=type(value).__name__)
        if len(value) != n:
            return say("gives {got} entries in {name}; expected one per worker, {n}", got=len(value), name=name, n=n)
    for rank, count in enumerate(sent):
        if isinstance(count, torch.Tensor) and count.numel() == 1:
            count = count.item()
        if isinstance(count, bool) or not isinstance(count, (int, float)):
            return say("gives sent[{rank}] as {kind}; expected a number of bytes", rank=rank, kind=type(count).__name__)
    return results, [float(c) for c in sent]


def _sums_problem(results, buffers):
    """None when every worker ends with the sum of all buffers, else how the first does not."""
    for rank, mine in enumerate(results):
        problem = arrays(atol=1e-10, rtol=1e-10)(mine, buffers.total)
        if problem:
            return say("gives worker {rank} a result that {problem}", rank=rank, problem=problem)
    return None


def _ring_compare(got, expected):
    """None when every worker holds the sum and sent the expected bytes, else how not.

    The sums come first: a byte count is only judged once the sums are right.
    """
    buffers, want = expected
    parts = _ring_parts(got, len(buffers))
    if isinstance(parts, str):
        return parts
    results, sent = parts
    problem = _sums_problem(results, buffers)
    if problem:
        return problem
    if sent != [float(w) for w in want]:
        return say("says the workers sent {sent} bytes; a ring sends {want}",
                   sent=str([int(s) if s.is_integer() else s for s in sent]), want=str([int(w) for w in want]))
    return None


def _ring_reference(buffers):
    return buffers, [tensor_parallel.ring_bytes(buffers.nbytes, len(buffers))] * len(buffers)


def _sums_wrong(test):
    """A Mistake test on an answer of the right form whose sums are wrong."""
    def when(got, buffers):
        parts = _ring_parts(got, len(buffers))
        return not isinstance(parts, str) and _sums_problem(parts[0], buffers) is not None \
            and test(*parts, buffers)
    return when


def _sums_right(test):
    """A Mistake test on an answer whose sums are right (its byte count is then what is wrong)."""
    def when(got, buffers):
        parts = _ring_parts(got, len(buffers))
        return not isinstance(parts, str) and _sums_problem(parts[0], buffers) is None and test(*parts, buffers)
    return when


def _stopped_after_reduce_scatter(results, sent, buffers):
    """Each worker holds the sum in one chunk only (no all-gather)."""
    n = len(buffers)
    total = buffers.total.tensor_split(n)
    complete = [sum(torch.allclose(torch.as_tensor(a, dtype=b.dtype), b)
                    for a, b in zip(torch.as_tensor(r).tensor_split(n), total, strict=True)) for r in results]
    return all(c == 1 for c in complete)


def _ring_bytes_but_wrong_sums(results, sent, buffers):
    return sent == [tensor_parallel.ring_bytes(buffers.nbytes, len(buffers))] * len(buffers)


def _sent(times):
    def test(results, sent, buffers):
        return sent == [times(len(buffers)) * buffers.nbytes] * len(buffers)
    return test


check_ring_all_reduce = Check(
    EX3,
    reference=_ring_reference,
    cases=[(_buffers(2),), (_buffers(3),), (_buffers(4),)],   # the runner hands the learner copies
    compare=_ring_compare,
    name="ring_all_reduce",
    mistakes=[
        Mistake("each worker holds the full sum in one chunk only: that is the end of the reduce-scatter. "
                "Now the all-gather: N - 1 more steps that pass the finished chunks around the ring.",
                when=_sums_wrong(_stopped_after_reduce_scatter)),
        Mistake("the byte counts are a ring's, but the sums are not right: a chunk was passed on before it "
                "was complete. In reduce-scatter step s worker r sends chunk (r - s) % N, which holds s + 1 "
                "buffers' worth; in all-gather step s it passes on the finished chunk it holds, (r + 1 - s) % N.",
                when=_sums_wrong(_ring_bytes_but_wrong_sums)),
        Mistake("the sums are right, but each worker sends its whole buffer to each of the N - 1 others: that "
                "is not a ring. A ring sends one chunk (buffer / N) per step, in 2 (N - 1) steps.",
                when=_sums_right(_sent(lambda n: n - 1))),
        Mistake("the sums are right, but you counted the bytes of the reduce-scatter only; the all-gather "
                "sends as many again.", when=_sums_right(_sent(lambda n: (n - 1) / n))),
    ],
)
