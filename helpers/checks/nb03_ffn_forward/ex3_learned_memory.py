"""Exercise 3 (stretch): memorise the pairs by gradient descent instead of least squares, and
come within 1% of the error the untrained FFN makes."""

import torch
import torch.nn.functional as F
from torch import nn

from helpers import capacity
from helpers.checks.calling import attempt, outcome
from helpers.checks.core import referee
from helpers.checks.nb03_ffn_forward.ex4_backward import _Calls
from helpers.checks.show import describe, say
from helpers.checks.state import seeded
from helpers.checks.stub import names_read
from helpers.checks.verdict import correct, wrong
from helpers.ffn import FFN


def _memory_case(n_pairs=64, d_model=32, d_ff=128):
    keys, values = capacity.random_pairs(n_pairs, d_model, seed=1)
    with seeded(1):
        return FFN(d_model, d_ff).double(), keys, values


EX3 = "Exercise 3 (memorise by gradient descent)"
# Least squares solves this memory exactly (64 pairs, 128 hidden neurons: the error is
# 0 up to rounding). Gradient descent is asked to come close: at most 1% of the error
# the untrained FFN makes is left.
LEFT_AT_MOST = 0.01


def _mse(ffn, keys, values):
    with torch.no_grad():
        return F.mse_loss(ffn(keys), values).item()


_LEAST_SQUARES = ("your function solves for the weights ({solver}): that is least squares, "
                  "which section 6 already did in one solve. This exercise is gradient "
                  "descent: let an optimiser (or your own update, W -= lr * W.grad) take many "
                  "small steps on the loss.")
_NO_ZERO_GRAD = ("c_proj's gradient piles up: {steps} backward passes found the previous gradient "
                 "still in .grad and added to it, so every step follows the sum of all earlier "
                 "gradients. Clear them every step with opt.zero_grad() before loss.backward(); "
                 "training longer will not fix it.")


_SOLVERS = ("lstsq", "pinv", "solve", "inv", "fit_down_proj", "svd", "qr", "cholesky")


def _solver_used(names, fn):
    """The least-squares or linear-solve call the learner's function ran or
    names (numpy's too), else None."""
    ran = sorted({n for n in names if n.rsplit(".", 1)[-1].removeprefix("linalg_") in _SOLVERS})
    codes = [getattr(f, "__code__", None)
             for f in [fn, *(c.cell_contents for c in getattr(fn, "__closure__", None)
                                                          or () if callable(c.cell_contents))]]
    named = sorted({n for code in codes if code is not None for n in names_read(code)
                    if n in _SOLVERS})
    return ", ".join(ran or named) or None


@referee(EX3)
def check_learned_memory(learn_values):
    """Exercise 3: learn_values(ffn, keys, values) trains c_proj until the
    error is near least squares'."""
    name = EX3
    ffn, keys, values = _memory_case()
    up_before = ffn.c_fc.weight.detach().clone()
    down_before = ffn.c_proj.weight.detach().clone()
    untrained = _mse(ffn, keys, values)
    piled, recorder = [], _Calls()

    # runs before autograd adds grad to .grad: an old gradient still there piles up
    def on_gradient(grad):
        old = ffn.c_proj.weight.grad
        piled.append(old is not None and bool(old.any()))

    hook = ffn.c_proj.weight.register_hook(on_gradient)
    try:
        with capacity.one_thread(), recorder:  # small matrices: a second thread only adds waiting
            # ffn is the learner's to train in place; keys and values are
            # copies, the check keeps its own
            got = attempt(learn_values, ffn, keys.clone(), values.clone(), copies=False)
    finally:
        hook.remove()
    early = outcome(name, "learn_values(ffn, keys, values)", got)
    if early is not None:
        return early
    solver = _solver_used(recorder.names, learn_values)
    if solver is not None:
        return wrong(name, say(_LEAST_SQUARES, solver=solver))
    if got is not ffn and not isinstance(got, nn.Module):
        return wrong(name, say("learn_values returned {got}; return ffn itself, "
                               "the module you trained.",
                               got=describe(got)))
    trained = got
    if not hasattr(trained, "c_fc") or not hasattr(trained, "c_proj"):
        return wrong(name, say("learn_values returned {got}, which has no c_fc "
                               "and c_proj: return ffn.",
                               got=describe(got)))
    if trained.c_fc.weight.dtype != keys.dtype:
        return wrong(name, say("your function made the FFN {dtype} (ffn.float()?); the keys and "
                               "values are float64: keep the FFN in float64.",
                               dtype=str(trained.c_fc.weight.dtype).removeprefix("torch.")))
    if not torch.equal(trained.c_fc.weight.detach(), up_before):
        return wrong(name, say("the up-projection c_fc changed: the experiment keeps it fixed "
                               "(random keys). Give the optimiser only ffn.c_proj.parameters()."))
    with torch.no_grad():
        out = trained(keys)
    if not torch.isfinite(out).all():
        return wrong(name, say("after training, the FFN's output holds NaN or infinity: the loss "
                               "diverged. Lower the learning rate."))
    if torch.equal(trained.c_proj.weight.detach(), down_before):
        return wrong(name, say("c_proj's weights are what they were before training: does your "
                               "loop call opt.step(), with an optimiser made from "
                               "ffn.c_proj.parameters()?"))
    if any(piled):
        return wrong(name, say(_NO_ZERO_GRAD, steps=sum(piled)))
    mse = _mse(trained, keys, values)
    if not piled and mse < 1e-20:   # set exactly, with no gradient ever taken: a solve, not descent
        return wrong(name,
                     say(_LEAST_SQUARES, solver=say("no gradient of c_proj was ever computed")))
    said = say("the mean squared error is {mse:.2g} after training, against {untrained:.3f} "
               "untrained (least squares: 0, up to rounding)", mse=mse, untrained=untrained)
    if mse > untrained:
        return wrong(name, say("{said}: training made it worse. Is the learning rate too high? "
                               "Print the loss every 50 steps: jumping up and down means a lower "
                               "learning rate.", said=said))
    if mse > LEFT_AT_MOST * untrained:
        return wrong(name, say("{said}, {share:.0%} of the untrained error; at most {most:.0%} may "
                               "be left. Train for more steps or with a higher learning rate "
                               "(print the loss every 50 steps: is it still falling?).",
                               said=said, share=mse / untrained, most=LEFT_AT_MOST))
    hits = round(capacity.retrieval_accuracy(out, values) * len(keys))
    return correct(name, say("{said}; {hits} of {n} pairs retrieved. Gradient descent, step by "
                             "step, comes as close as you like to what least squares solves at "
                             "once.", said=said, hits=hits,
                             n=len(keys)))
