"""What a sparse autoencoder or transcoder is measured by, and where its inputs come from.

variance_explained, l0, dead_features: how well and how sparsely it reconstructs (helpers.sae).
facts_per_unit: how many facts a unit (a neuron or a feature) answers for, the control for it.
mlp_activations, spliced_loss, loss_recovered: notebook 12's fact model read at the word where a
fact is recalled, and its loss with a reconstruction spliced in the MLP's place.
"""

import torch

from helpers import hooks, kv_memory, validate


def as_rows(x, name, dtype=None):
    """A finite floating 2-D tensor (N, width), N >= 2; in dtype (a torch dtype) where one is
    given."""
    if dtype is not None:
        validate.float_dtype(dtype, "dtype")
    validate.tensor(x, name)
    validate.ndim(x, name, 2)
    if not x.is_floating_point():
        raise TypeError(f"{name} must hold floating-point numbers, got dtype {x.dtype}")
    if len(x) < 2:
        raise ValueError(f"{name} must hold at least 2 rows (inputs), got {len(x)}")
    validate.finite(x, name)
    return x.detach().to(dtype or x.dtype)


def variance_explained(x, x_hat):
    """1 - sum ||x - x_hat||^2 / sum ||x - mean(x)||^2, over every row; x, x_hat (N, d)."""
    x, x_hat = as_rows(x, "x"), as_rows(x_hat, "x_hat")
    if x.shape != x_hat.shape:
        raise ValueError(f"x_hat must have the shape of x {tuple(x.shape)}, got "
                         f"{tuple(x_hat.shape)}")
    return (1 - (x - x_hat).pow(2).sum() / (x - x.mean(0)).pow(2).sum()).item()


def l0(f):
    """Mean number of active (> 0) features per input; f (N, n_features)."""
    return (as_rows(f, "f") > 0).sum(-1).double().mean().item()


def dead_features(f):
    """(n_features,) True where a feature is never active on these inputs; f (N, n_features)."""
    return ~(as_rows(f, "f") > 0).any(0)


def facts_per_unit(acts, fact=None):
    """(units,) for each unit (neuron or feature), how many facts drive it above half its maximum.

    acts (N, units); fact (N,): the fact of each row (several phrasings share one); None: each
    row is a fact of its own. A unit that never exceeds 0 counts 0 facts.
    """
    acts = as_rows(acts, "acts")
    fact = torch.arange(len(acts)) if fact is None else validate.tensor(fact, "fact")
    if fact.shape != (len(acts),) or fact.is_floating_point():
        raise ValueError(f"fact must hold one integer fact id per row of acts ({len(acts)},), got "
                         f"dtype {fact.dtype} and shape {tuple(fact.shape)}")
    top = acts.max(0).values                                       # (units,)
    above = (acts > 0.5 * top) & (top > 0)                         # (N, units)
    ids = torch.unique(fact, return_inverse=True)[1]               # 0 .. n_facts - 1
    per_fact = torch.zeros(int(ids.max()) + 1, acts.shape[1],
                           dtype=torch.long).index_add_(0, ids, above.long())
    return (per_fact > 0).sum(0)                                   # (units,)


def _site(model, layer, site):
    """The module whose output is read or replaced: the MLP's neurons (mlp.act) or the whole MLP."""
    validate.instance_of(model, "model", kv_memory.FactModel, "(from kv_memory.load())")
    layer = validate.index(layer, "layer", len(model.blocks))
    validate.choice(site, "site", {"act", "mlp"})
    return model.blocks[layer].mlp.act if site == "act" else model.blocks[layer].mlp


def mlp_activations(model, prompts, layer, site="act"):
    """(N, width) at each prompt's last word (where the capital is read): the MLP's neurons (d_ff)
    with site="act", or (inputs, outputs), each (N, d_model), of the whole MLP with site="mlp"."""
    module = _site(model, layer, site)
    validate.instance_of(prompts, "prompts", kv_memory.Prompts, "(from kv_memory.make_prompts)")
    rows, seen = torch.arange(len(prompts.last)), {}

    def keep(mod, inputs, output):
        # (N, width)
        seen["in"], seen["out"] = inputs[0][rows, prompts.last], output[rows, prompts.last]

    with torch.no_grad(), hooks.attached({module: keep}):
        model(prompts.idx)
    return seen["out"] if site == "act" else (seen["in"], seen["out"])


def spliced_loss(model, prompts, layer, new=None, site="act"):
    """(cross-entropy of the answer, recall) with the site's output at each last word replaced by
    new (N, width); new=None: the clean model."""
    module = _site(model, layer, site)
    validate.instance_of(prompts, "prompts", kv_memory.Prompts, "(from kv_memory.make_prompts)")
    rows = torch.arange(len(prompts.last))

    def splice(mod, inputs, output):
        if new is None:
            return None
        out = output.clone()
        out[rows, prompts.last] = new.to(out)
        return out

    if new is not None:
        validate.tensor(new, "new")
        width = module.c_proj.out_features if site == "mlp" else model.config.d_ff
        if new.shape != (len(rows), width):
            raise ValueError(f"new must have shape ({len(rows)}, {width}): one row per prompt, got "
                             f"{tuple(new.shape)}")
    with torch.no_grad(), hooks.attached({module: splice}):
        logits = kv_memory.answer_logits(model(prompts.idx), prompts)   # (N, vocab)
    loss = torch.nn.functional.cross_entropy(logits, prompts.answer).item()
    return loss, (logits.argmax(-1) == prompts.answer).double().mean().item()


def loss_recovered(model, prompts, layer, new, site="act"):
    """{"clean", "zero", "spliced": (loss, recall), "recovered": (L_zero - L_spliced) / (L_zero -
    L_clean)}."""
    validate.tensor(new, "new")
    runs = {"clean": spliced_loss(model, prompts, layer, None, site),
            "zero": spliced_loss(model, prompts, layer, torch.zeros_like(new), site),
            "spliced": spliced_loss(model, prompts, layer, new, site)}
    (clean, _), (zero, _), (spliced, _) = runs["clean"], runs["zero"], runs["spliced"]
    return {**runs, "recovered": (zero - spliced) / (zero - clean)}
