"""Notebook 12, exercise 4's reference, MEMIT's one-layer update, its cases and the wrong updates
learners write (one fact at a time, a missing covariance, another denominator)."""


import torch

from helpers import kv_memory
from helpers.checks.compare import arrays
from helpers.checks.runner import Check, Mistake

EX4 = "Exercise 4 (MEMIT: edit several facts at once)"


def memit_update(W, K, V, C, lam):
    """MEMIT's one-layer edit (Meng et al. 2022, arXiv 2210.07229).

    W + R K^T (lam C + K K^T)^-1, with R = V - W K:

    The W' that minimises lam * (the old keys' error, weighted by C) + |W' K - V|^2.
    """
    A = lam * C + K @ K.T                                               # (d_ff, d_ff), symmetric
    return W + (V - W @ K) @ torch.linalg.solve(A, K).T


def _one_after_another(W, K, V, C, lam):
    for i in range(K.shape[1]):
        W = memit_update(W, K[:, i:i + 1], V[:, i:i + 1], C, lam)
    return W


def _edit_case(seed, r, lam, d_model=5, d_ff=8):
    """(W, K, V, C, lam) for r new facts, drawn from `seed`, C a key covariance."""
    g = torch.Generator().manual_seed(seed)
    W = torch.randn(d_model, d_ff, generator=g, dtype=torch.float64)
    A = torch.randn(d_ff, d_ff, generator=g, dtype=torch.float64)
    # a key covariance, not diagonal
    C = A @ A.T / d_ff + 0.5 * torch.eye(d_ff, dtype=torch.float64)
    K = torch.randn(d_ff, r, generator=g, dtype=torch.float64)
    V = torch.randn(d_model, r, generator=g, dtype=torch.float64)
    return W, K, V, C, lam


def _per_fact(denominator, c_inv=True):
    """r rank-one updates, one per fact, each on its own, added.

    W + sum_i r_i (C^-1 k_i)^T / denominator(k_i).
    """
    def answer(W, K, V, C, lam):
        out = W.clone()
        for i in range(K.shape[1]):
            k, r = K[:, i], V[:, i] - W @ K[:, i]
            u = torch.linalg.solve(C, k) if c_inv else k
            out = out + torch.outer(r, u) / denominator(k, C, lam)
        return out
    return answer


def _with_inverse(of):
    """W + R (of(K, C, lam)^-1 K)^T: the update with another matrix in the inverse's place."""
    return lambda W, K, V, C, lam: W + (V - W @ K) @ torch.linalg.solve(of(K, C, lam), K).T


def _without_covariance(W, K, V, C, lam):
    """MEMIT with an identity where the old keys' covariance C belongs."""
    return memit_update(W, K, V, torch.eye(len(C), dtype=C.dtype), lam)


_PER_FACT = ("each fact got its own rank-one update, as ROME makes one, and the r updates were "
             "added: that ignores how the new keys overlap. MEMIT solves for all r at once, R K^T "
             "(lam C + K K^T)^-1 (for one fact alone that equals the rank-one update with "
             "normaliser lam + k^T C^-1 k, so r = 1 comes out right).")

_MEMIT = Check(
    EX4,
    reference=memit_update,
    cases=[_edit_case(0, 3, 0.5), _edit_case(1, 1, 4.0), _edit_case(2, 4, 10.0)],
    mistakes=[
        Mistake("that is the hard-constrained edit, W' K = V exactly: ROME's update for r facts at "
                "once (kv_memory.rome_update), which is MEMIT's limit as lam -> 0. MEMIT solves a "
                "least-squares problem instead: W + R K^T (lam C + K K^T)^-1, so each new fact "
                "gives a little to the old keys.",
                answer=lambda W, K, V, C, lam: kv_memory.rome_update(W, K, V, C)),
        Mistake("you multiplied by lam C + K K^T instead of by its inverse (C in place of C^-1, as "
                "it were): solve with it, torch.linalg.solve(lam * C + K @ K.T, K), as section 8 "
                "solved with C.",
                answer=lambda W, K, V, C, lam: W + (V - W @ K) @ K.T @ (lam * C + K @ K.T)),
        Mistake("one edit after another: each later edit moves the facts set before it. MEMIT "
                "solves for all r facts at once, with the whole K K^T in one inverse.",
                answer=_one_after_another),
        Mistake("lam was left out: it weights the old keys' covariance C against the r new facts, "
                "lam * C + K @ K.T.", answer=lambda W, K, V, C, lam: memit_update(W, K, V, C, 1.0)),
        Mistake("lam multiplies K K^T here; in MEMIT it weights C, the old keys: lam * C + K @ "
                "K.T.",
                answer=_with_inverse(lambda K, C, lam: C + lam * K @ K.T)),
        Mistake("the update adds V itself; it adds the residual R = V - W K, what the facts still "
                "lack.",
                answer=lambda W, K, V, C, lam: memit_update(W, K, V + W @ K, C, lam)),
        Mistake("the covariance C was left out (an identity in its place): the update must weigh "
                "the old keys by C, so that directions ordinary keys use move least.",
                answer=_without_covariance),
        Mistake("C^-1 stands where (lam C + K K^T)^-1 belongs: that is ROME's direction C^-1 k "
                "without its normaliser, and without the new keys. MEMIT inverts the whole "
                "lam * C + K @ K.T.",
                answer=_with_inverse(lambda K, C, lam: C)),
        Mistake("the inverse holds lam C^-1 + K K^T: ROME's formula has C^-1, but MEMIT's normal "
                "equations have C itself, weighted by lam, inside the one inverse: "
                "lam * C + K @ K.T.",
                answer=_with_inverse(lambda K, C, lam: lam * torch.linalg.inv(C) + K @ K.T)),
        Mistake("the residual has the wrong sign: R = V - W K, what the new facts still lack, "
                "added to W (W K - V, or W minus the update, moves every key away from its new "
                "value).",
                answer=lambda W, K, V, C, lam: memit_update(W, K, 2 * W @ K - V, C, lam)),
        Mistake("there is no inverse: R K^T is the update's direction before the least-squares "
                "weighting. Multiply by (lam C + K K^T)^-1, with "
                "torch.linalg.solve(lam * C + K @ K.T, K).T.",
                answer=lambda W, K, V, C, lam: W + (V - W @ K) @ K.T),
        Mistake(_PER_FACT, answer=_per_fact(lambda k, C, lam: lam + k @ torch.linalg.solve(C, k))),
        Mistake(_PER_FACT, answer=_per_fact(lambda k, C, lam: k @ torch.linalg.solve(C, k))),
        Mistake("a rank-one update per fact whose normaliser is lam + k^T k: the direction has "
                "C^-1, so the normaliser needs it too, lam + k^T C^-1 k; and with r facts, solve "
                "for all of them at once: R K^T (lam C + K K^T)^-1.",
                answer=_per_fact(lambda k, C, lam: lam + k @ k)),
        Mistake("a rank-one update per fact with neither C^-1 in its direction nor in its "
                "normaliser, k / (lam + k^T k): the old keys' covariance is what keeps their "
                "outputs; use R K^T (lam C + K K^T)^-1.",
                answer=_per_fact(lambda k, C, lam: lam + k @ k, c_inv=False)),
    ],
    compare=arrays(atol=1e-8, rtol=1e-8),
    success="W + R K^T (lam C + K K^T)^-1: MEMIT's least-squares edit at one layer. As lam -> 0 it "
            "tends to the hard-constrained W' K = V (ROME's update for r facts); a larger lam "
            "keeps the old keys closer and meets the new facts less exactly.",
    name="memit_update",
)
