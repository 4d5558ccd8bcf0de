"""Checks for notebook 17's exercises (fusing the MLP: the bytes between matmuls, recomputation).

1. A prediction: the T at which GPT-2 small's eager MLP moves more bytes between its matmuls than
   its weights hold.
2. `silu_mul(gate, up)`: the gated activation as one function, compared with autograd's in float64.
3. `SiluMul`: a torch.autograd.Function whose forward saves only its inputs and whose backward
   recomputes silu(gate). Its values and both gradients are compared with autograd's in float64;
   what it keeps for backward is counted with saved_tensors_hooks; an input changed in place, in
   forward or in backward, is named, and so are the usual slips in the derivative.
4. (stretch) A prediction: the share of the gated MLP's saved bytes that recomputing SiLU removes.
"""

import torch
import torch.nn.functional as F

from helpers.checks.compare import arrays
from helpers.checks.core import correct, judge, not_attempted, wrong
from helpers.checks.guesses import NamedPrediction
from helpers.checks.runner import Check, Mistake
from helpers.checks.show import describe, one_line, say

EX3 = "Exercise 3 (a SiLU * up that recomputes)"

check_cross_guess = NamedPrediction(
    "Exercise 1 (predict where the activations pass the weights)",
    why="The weights are read once whatever T is; the hidden activation has T x d_ff numbers and "
        "crosses memory four times in the eager MLP with a one-kernel GELU (written by c_fc, read "
        "and written by GELU, read by c_proj). Four T d_ff against 2 d_model d_ff: d_ff and the "
        "bytes per number cancel, so it is the same T in float32 and in bfloat16.",
    rel=0.02,
    variable="my_guess",
    fmt="T = {:,.0f}",
    mistakes=[
        Mistake("T = {got:,.0f} is where the hidden activation, counted once, passes the weights; "
                "in the eager MLP it is written and read twice, four passes in all.",
                when=lambda g, a: abs(g - 4 * a) <= a),
        Mistake("T = {got:,.0f} counts two passes, the fused MLP's (activation written once, "
                "read once); the eager one has four.", when=lambda g, a: abs(g - 2 * a) <= 0.5 * a),
        Mistake("T = {got:,.0f} counts five passes; list them again: c_fc writes, GELU "
                "reads and writes, c_proj reads.", when=lambda g, a: abs(g - 0.8 * a) <= 0.05 * a),
        Mistake("T = {got:,.0f} counts three passes; GELU both reads the activation "
                "and writes its own output.", when=lambda g, a: abs(g - 4 / 3 * a) <= 0.05 * a),
        Mistake("at decode (T of 1 to a few) the weights' bytes are thousands of "
                "times the activations': one token's hidden activation is d_ff "
                "numbers, the weights 2 d_model d_ff.",
                when=lambda g, a: g <= 16),
    ],
)


def _silu_grad(g):
    s = torch.sigmoid(g)
    return s * (1 + g * (1 - s))


check_silu_mul = Check(
    "Exercise 2 (the fused gated activation)",
    reference=lambda gate, up: F.silu(gate) * up,
    cases=[(torch.linspace(-6, 6, 13, dtype=torch.float64),
            torch.linspace(2, -1, 13, dtype=torch.float64)),
           (torch.randn(4, 24, generator=torch.Generator().manual_seed(17), dtype=torch.float64),
            torch.randn(4, 24, generator=torch.Generator().manual_seed(18), dtype=torch.float64))],
    mistakes=[
        Mistake("that is sigmoid(gate) * up, the original GLU's gate; SiLU "
                "is gate times its sigmoid.",
                answer=lambda g, u: torch.sigmoid(g) * u),
        Mistake("the roles are swapped: SiLU acts on the gate and multiplies up, silu(gate) * up.",
                answer=lambda g, u: F.silu(u) * g),
        Mistake("that is GELU of the gate; Llama's gate uses SiLU (x * sigmoid(x)).",
                answer=lambda g, u: F.gelu(g) * u),
        Mistake("there is no activation: gate * up is the bilinear variant; the "
                "gate goes through SiLU first.",
                answer=lambda g, u: g * u),
        Mistake("that adds up to the gate's SiLU; the gate scales up: multiply.",
                answer=lambda g, u: F.silu(g) + u),
    ],
    compare=arrays(atol=1e-12, rtol=1e-12),
    success="silu(gate) * up for every element, in float64 as autograd's.",
    name="silu_mul",
)

# The derivatives learners write for backward(grad_out) -> (grad_gate, grad_up), with sentences.
_BACKWARD_MISTAKES = [
    (lambda g, u, d: (d * u * torch.sigmoid(g), d * F.silu(g)),
     "grad_gate uses sigmoid(gate) alone as SiLU's derivative; SiLU is gate * sigmoid(gate), a "
     "product, so its derivative has two terms: sigmoid(gate) * (1 + gate * (1 - sigmoid(gate)))."),
    (lambda g, u, d: (d * u * g * torch.sigmoid(g) * (1 - torch.sigmoid(g)), d * F.silu(g)),
     "grad_gate keeps only gate * sigmoid'(gate): the product rule on gate * sigmoid(gate) adds "
     "a second term, sigmoid(gate) itself."),
    (lambda g, u, d: (d * F.silu(g), d * u * _silu_grad(g)),
     "the product rule is crossed: grad_gate is grad_out * up * silu'(gate) and grad_up is "
     "grad_out * silu(gate); each input's gradient takes the other factor."),
    (lambda g, u, d: (d * _silu_grad(g), d * F.silu(g)),
     "grad_gate forgets the factor up: the output is silu(gate) * up, "
     "so d out / d gate = silu'(gate) * up."),
    (lambda g, u, d: (u * _silu_grad(g), F.silu(g)),
     "your gradients do not use grad_out: backward gets the gradient of the loss with respect to "
     "the output and must multiply it in (the chain rule)."),
    (lambda g, u, d: (d * u * _silu_grad(g), d * u),
     "grad_up is grad_out * up; it is grad_out * silu(gate), the factor up multiplies."),
    (lambda g, u, d: (d * u * _silu_grad(g), d * torch.sigmoid(g)),
     "grad_up is grad_out * sigmoid(gate); it is grad_out * silu(gate) = "
     "grad_out * gate * sigmoid(gate)."),
]


def _inputs(shape=(6, 40)):
    g = torch.Generator().manual_seed(1717)
    gate = 3 * torch.randn(shape, generator=g, dtype=torch.float64)
    up = torch.randn(shape, generator=g, dtype=torch.float64)
    grad_out = torch.randn(shape, generator=g, dtype=torch.float64)
    return gate, up, grad_out


def _close(a, b):
    return (torch.is_tensor(a) and a.shape == b.shape and a.dtype == b.dtype
            and torch.allclose(a, b, rtol=1e-10, atol=1e-12))


def _run(cls, gate0, up0, grad_out):
    """({out, saved, ctx tensors, leaves, forward_in_place}, problem) of cls's forward, backward."""
    gate = gate0.clone().requires_grad_()
    up = up0.clone().requires_grad_()
    saved = []

    def pack(t):
        saved.append(t)
        return t

    # the class's own tensors, there before forward ran
    before = _tensors_in(list(vars(cls).values()))
    try:
        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            out = cls.apply(gate, up)
    except NotImplementedError:
        return None, "stub forward"
    except Exception as err:  # noqa: BLE001 - what the learner's code raised becomes a sentence
        return None, say("SiluMul.apply(gate, up) raised {kind}: {said}", kind=type(err).__name__,
                         said=one_line(err) or "no message")
    ctx = getattr(out, "grad_fn", None)
    kept = _tensors_in(list(vars(ctx).values())) if ctx is not None else []
    kept += [t for t in _tensors_in(list(vars(cls).values())) if all(t is not b for b in before)]
    changed = not (torch.equal(gate.detach(), gate0) and torch.equal(up.detach(), up0))
    result = {"out": out, "saved": saved, "ctx": kept, "gate": gate, "up": up,
              "forward_in_place": changed}
    if not torch.is_tensor(out) or out.grad_fn is None:
        return result, None
    try:
        out.backward(grad_out.clone())
    except NotImplementedError:
        return result, "stub backward"
    except Exception as err:  # noqa: BLE001
        return result, say("backward raised {kind}: {said}", kind=type(err).__name__,
                           said=one_line(err) or "no message")
    return result, None


def _tensors_in(value, depth=3):
    """The tensors in value, inside lists, tuples, dicts and sets (a cache on ctx or the class)."""
    if torch.is_tensor(value):
        return [value]
    if depth == 0:
        return []
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (list, tuple, set, frozenset)):
        return [t for v in value for t in _tensors_in(v, depth - 1)]
    return []


def _is_input(t, gate, up):
    return any(t.untyped_storage().data_ptr() == x.untyped_storage().data_ptr() for x in (gate, up))


def _judge_silu_mul(cls):
    if cls is None:
        return not_attempted(exercise=EX3)
    if not (isinstance(cls, type) and issubclass(cls, torch.autograd.Function)):
        return wrong(EX3, say("SiluMul is {got}; it should be a class deriving from "
                              "torch.autograd.Function, with static methods forward(ctx, gate, up) "
                              "and backward(ctx, grad_out).",
                              got=describe(cls)))
    gate0, up0, grad_out = _inputs()
    result, problem = _run(cls, gate0, up0, grad_out)
    if problem == "stub forward":
        return not_attempted(EX3)
    if result is None:
        return wrong(EX3, problem)
    out, gate, up = result["out"], result["gate"], result["up"]
    expected = F.silu(gate0) * up0
    if not (torch.is_tensor(out) and out.shape == expected.shape):
        return wrong(EX3, say("forward returned {got}; it should return one tensor, silu(gate) * "
                              "up, of the inputs' shape {shape}.",
                              got=describe(out), shape=tuple(expected.shape)))
    if result["forward_in_place"]:
        return wrong(EX3, say("forward changed gate or up in place (sigmoid_, mul_, *=, or silu "
                              "with inplace=True): the caller's tensors, and the ones saved for "
                              "backward, are now different. Compute new tensors."))
    if not _close(out.detach(), expected):
        return wrong(EX3, say("forward's values differ from silu(gate) * up (largest difference "
                              "{diff:.2g}); exercise 2's function is what forward returns.",
                              diff=float((out.detach() - expected).abs().max())))
    if out.grad_fn is None:
        return wrong(EX3, say("the output has no grad_fn: call SiluMul.apply(gate, up), not "
                              "SiluMul.forward, so that autograd records your backward."))
    computed = [t for t in result["saved"] + result["ctx"] if not _is_input(t, gate, up)]
    if computed:
        on_ctx = any(t is c for c in result["ctx"] for t in computed)
        where = (say("kept on ctx or on the class") if on_ctx
                 else say("saved with save_for_backward"))
        return wrong(EX3, say("your forward keeps {n} tensor(s) it computed ({where}, shape "
                              "{shape}): each is T x d_ff numbers (silu(gate), sigmoid(gate) "
                              "or a copy) held in memory until backward, exactly what this "
                              "function exists to avoid. Save only gate and up, and "
                              "recompute the sigmoid in backward.",
                              n=len(computed), where=where, shape=tuple(computed[0].shape)))
    if problem == "stub backward":
        return wrong(EX3, say("forward is right and keeps only its inputs; now write "
                              "backward(ctx, grad_out)."))
    if problem is not None:
        return wrong(EX3, say("{problem}. backward returns two tensors, (grad_gate, grad_up), "
                              "each of the inputs' shape.", problem=problem))
    if not (torch.equal(gate.detach(), gate0) and torch.equal(up.detach(), up0)):
        return wrong(EX3, say("backward wrote into the saved gate or up in place. Liger's "
                              "Triton kernel does write its gradients over gate and up, safe "
                              "there only because nothing else reads those intermediate "
                              "tensors; here they are the caller's, which must stay as they "
                              "were. Compute new tensors."))
    grads = (gate.grad, up.grad)
    ref_gate, ref_up = gate0.clone().requires_grad_(), up0.clone().requires_grad_()
    (F.silu(ref_gate) * ref_up).backward(grad_out)
    if _close(grads[0], ref_gate.grad) and _close(grads[1], ref_up.grad):
        return _second_shape(cls)
    for answer, message in _BACKWARD_MISTAKES:
        mistaken = answer(gate0, up0, grad_out)
        if all(_close(got, want) for got, want in zip(grads, mistaken, strict=True)):
            return wrong(EX3, say(message))
    which = [name for name, got, want in zip(("grad_gate", "grad_up"), grads,
                                             (ref_gate.grad, ref_up.grad), strict=True)
             if not _close(got, want)]
    return wrong(EX3, say("{which} differs from autograd's: grad_gate = grad_out * up * "
                          "silu'(gate) and grad_up = grad_out * silu(gate).",
                          which=" and ".join(which)))


def _second_shape(cls):
    """The same on a (batch, T, d_ff) input: a function that flattened or indexed 2-D fails here."""
    gate0, up0, grad_out = _inputs((2, 3, 8))
    result, problem = _run(cls, gate0, up0, grad_out)
    if problem is not None or result is None:
        return wrong(EX3, say("on a (2, 3, 8) input (batch, tokens, d_ff): {problem}",
                              problem=problem or "forward failed"))
    ref_gate, ref_up = gate0.clone().requires_grad_(), up0.clone().requires_grad_()
    (F.silu(ref_gate) * ref_up).backward(grad_out)
    if not (_close(result["gate"].grad, ref_gate.grad) and _close(result["up"].grad, ref_up.grad)):
        return wrong(EX3, say("right on a 2-D input but not on a (2, 3, 8) one: keep every "
                              "operation elementwise, whatever the shape."))
    return correct(EX3, say("values and both gradients equal autograd's in float64, "
                            "and backward recomputes silu(gate) from the saved gate "
                            "and up: nothing else is kept."))


def check_silu_mul_function(SiluMul):  # noqa: N803 - the learner's class, named as in the notebook
    """Exercise 3: SiluMul.apply(gate, up) = silu(gate) * up, saving only gate and up."""
    return judge(EX3, _judge_silu_mul, SiluMul)


check_saved_share_guess = NamedPrediction(
    "Exercise 4 (predict what recomputing SiLU saves)",
    why="Eager autograd keeps x, g = gate_proj(x), u, s = silu(g) and p = s * u: d_model + 4 d_ff "
        "numbers per token. SiluMul keeps g and u but not s, so d_ff of them go, a little under a "
        "quarter, since d_ff is near 8/3 d_model.",
    rel=0.05,
    variable="my_share",
    fmt="{:.0f}%",
    percent=True,
    mistakes=[
        Mistake("{got:g}% would be every hidden tensor gone; SiluMul still keeps g and u, "
                "and down_proj keeps its input p.", when=lambda g, a: g >= 60),
        Mistake("{got:g}%: one tensor of d_ff numbers goes, out of d_model + 4 d_ff kept; "
                "count which tensors each op keeps.", when=lambda g, a: g < 10),
        Mistake("{got:g}% leaves x out: gate_proj and up_proj keep their input, "
                "d_model numbers per token.",
                when=lambda g, a: abs(g - 25) <= 0.7),
        Mistake("{got:g}% counts x twice: gate_proj and up_proj keep the same tensor, stored once.",
                when=lambda g, a: abs(g - 100 * 11008 / (2 * 4096 + 4 * 11008)) <= 0.4),
        Mistake("{got:g}% is one tensor in five, but the five are not the same size: x holds "
                "d_model numbers, the others d_ff.", when=lambda g, a: abs(g - 20) <= 0.4),
    ],
)


def works(SiluMul):  # noqa: N803 - the learner's class, named as in the notebook
    """True when the learner's SiluMul passes exercise 3's check (nothing recorded or printed)."""
    try:
        return _judge_silu_mul(SiluMul).status == "correct"
    except Exception:  # noqa: BLE001 - a class the check cannot even run is not the one to use
        return False
