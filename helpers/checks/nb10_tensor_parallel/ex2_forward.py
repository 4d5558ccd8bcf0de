"""Notebook 10, exercise 2's second check and check_llama_split: the worker's forward, tried in one
process where a misused activation or all-reduce is easy to name, then in 2 processes."""

from dataclasses import dataclass

import torch
import torch.nn.functional as F

from helpers import tensor_parallel
from helpers.checks.compare import arrays
from helpers.checks.core import attempt, correct, outcome, referee, wrong
from helpers.checks.nb10_tensor_parallel.ex2_cases import EX2, FORWARD_CASES, GATED, _gated
from helpers.checks.nb10_tensor_parallel.ex2_split import check_split
from helpers.checks.runner import Check, Mistake
from helpers.checks.show import one_line, say


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
