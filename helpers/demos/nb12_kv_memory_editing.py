"""Notebook 12's demo: pick a subject, see MLP 1's top neurons for its capital, ablate them.

The model runs once, on every subject together, when the demo is made (two batched forward
passes: as trained, and with each subject's own top neurons zeroed); a redraw, the first look at
a subject included, is two small bar charts.
"""

from functools import lru_cache

import torch
from ipywidgets import Checkbox, Dropdown

from helpers import facts, kv_memory
from helpers.capacity import one_thread
from helpers.checks.state import kept
from helpers.plots import COLORS, OKABE_ITO
from helpers.widgets import LiveFigure

TEMPLATE = "the capital of {} is"
LAYER, TOP = 1, 30
SAMPLE = {"subject": "japan", "ablate": True}


@lru_cache(maxsize=1)
def _model():
    with kept():   # building the model draws from torch's generator before its weights load
        return kv_memory.load()


@lru_cache(maxsize=1)
def _table():
    """For every subject, as trained and with its top neurons zeroed: its top 10 neurons and their
    contributions, the top 5 answers (words, probabilities), its capital and p(capital)."""
    model, vocab = _model()
    rows = list(range(len(facts.FACTS)))
    prompts = kv_memory.make_prompts(vocab, [TEMPLATE], rows)
    with one_thread():                             # small batches: a second thread only adds waiting
        contribution = kv_memory.neuron_contributions(model, prompts, LAYER)   # (N, d_ff)
    top = contribution.argsort(dim=-1, descending=True)[:, :TOP]            # (N, TOP)
    table = {}
    for ablate in (False, True):
        scale = torch.ones(len(rows), 1, model.config.d_ff)
        if ablate:
            scale.scatter_(2, top[:, None, :], 0.0)   # each prompt loses its own top neurons

        def zero_top(module, inputs, output, scale=scale):   # a forward hook on the GELU: (N, T, d_ff)
            return output * scale

        with torch.no_grad(), one_thread(), kv_memory.hooks({model.blocks[LAYER].mlp.act: zero_top}):
            logits = model(prompts.idx)
        probs = kv_memory.answer_logits(logits, prompts).softmax(-1)          # (N, vocab)
        best = probs.argsort(dim=-1, descending=True)[:, :5]
        for r in rows:
            capital = facts.FACTS[r][1]
            table[facts.FACTS[r][0], ablate] = (
                top[r, :10].tolist(), contribution[r, top[r, :10]].tolist(),
                [vocab.words[j] for j in best[r]], probs[r, best[r]].tolist(), capital,
                probs[r, vocab.ids[capital]].item())
    return table


def _analyse(subject, ablate):
    """Top neurons with their contributions, and the top 5 answers (words, probabilities)."""
    return _table()[subject, bool(ablate)]


def draw(fig, subject, ablate):
    """Left: the top 10 neurons' contributions; right: the model's top 5 answers. Returns the
    artists that `update` changes."""
    ax1, ax2 = fig.subplots(1, 2)
    ax1.grid(False)
    ax2.grid(False)
    artists = {"ax1": ax1, "ax2": ax2,
               "bars": ax1.bar(range(10), [1.0] * 10, color=COLORS["mlp"]).patches,
               "answers": ax2.barh(range(5)[::-1], [0.5] * 5).patches}
    ax2.set_xlim(0, 1)
    ax2.set_xlabel("probability of the next word")
    ax2.set_ylabel("top answers")
    ax1.set_xlabel(f"neuron of MLP {LAYER}")
    fig.subplots_adjust(left=0.08, right=0.98, bottom=0.16, top=0.88, wspace=0.35)
    update(fig, artists, subject, ablate)
    return artists


def update(fig, artists, subject, ablate):
    """Set the bars' heights, colours and labels and the titles for this subject."""
    neurons, values, words, probs, capital, p_capital = _analyse(subject, ablate)
    ax1, ax2 = artists["ax1"], artists["ax2"]
    for bar, value in zip(artists["bars"], values, strict=True):
        bar.set_height(value)
        bar.set_alpha(0.35 if ablate else 1.0)
    ax1.set_ylim(min(0.0, min(values)) * 1.05, max(values) * 1.05)
    ax1.set_xticks(range(len(neurons)), [str(i) for i in neurons])
    ax1.set_ylabel(f"adds to the logit of {capital}")
    ax1.set_title(f"top neurons for {subject}" + (f" (top {TOP} zeroed)" if ablate else ""))
    for bar, word, p in zip(artists["answers"], words, probs, strict=True):
        bar.set_width(p)
        bar.set_color(OKABE_ITO["bluish_green"] if word == capital else COLORS["neutral"])
    ax2.set_yticks(range(5)[::-1], words)
    ax2.set_title(f"{subject} -> {words[0]}  (p({capital}) = {p_capital:.2f})")


def make():
    _table()   # every subject computed now, so that the first look at one is a redraw
    controls = {
        "subject": Dropdown(options=[c for c, _ in facts.FACTS], value="france", description="subject"),
        "ablate": Checkbox(value=False, description=f"zero the top {TOP} neurons"),
    }
    return LiveFigure(draw, controls, figsize=(9.0, 3.4), title="Top neurons for a subject", update=update)
