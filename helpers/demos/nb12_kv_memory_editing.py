"""Notebook 12's demo: pick a subject, see MLP 1's top neurons for its capital, ablate them.

The model runs once per (subject, ablate) pair and is cached; a redraw is two small bar charts.
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


@lru_cache(maxsize=256)
def _analyse(subject, ablate):
    """Top neurons with their contributions, and the top 5 answers (words, probabilities)."""
    model, vocab = _model()
    row = [c for c, _ in facts.FACTS].index(subject)
    prompt = kv_memory.make_prompts(vocab, [TEMPLATE], [row])
    with one_thread():                             # one prompt: a second thread only adds waiting
        contribution = kv_memory.neuron_contributions(model, prompt, LAYER)[0]
    top = contribution.argsort(descending=True)[:TOP]
    scale = torch.ones(model.config.d_ff)
    if ablate:
        scale[top] = 0.0

    def zero_top(module, inputs, output):          # a forward hook on the GELU: (B, T, d_ff)
        return output * scale

    with torch.no_grad(), one_thread(), kv_memory.hooks({model.blocks[LAYER].mlp.act: zero_top}):
        logits = model(prompt.idx)
    probs = kv_memory.answer_logits(logits, prompt)[0].softmax(-1)
    best = probs.argsort(descending=True)[:5]
    capital = facts.FACTS[row][1]
    return (top[:10].tolist(), contribution[top[:10]].tolist(),
            [vocab.words[j] for j in best], probs[best].tolist(), capital,
            probs[vocab.ids[capital]].item())


def draw(fig, subject, ablate):
    """Left: the top 10 neurons' contributions; right: the model's top 5 answers."""
    neurons, values, words, probs, capital, p_capital = _analyse(subject, ablate)
    ax1, ax2 = fig.subplots(1, 2)
    ax1.grid(False)
    ax1.bar(range(len(neurons)), values, color=COLORS["mlp"], alpha=0.35 if ablate else 1.0)
    ax1.set_xticks(range(len(neurons)), [str(i) for i in neurons])
    ax1.set_xlabel(f"neuron of MLP {LAYER}")
    ax1.set_ylabel(f"adds to the logit of {capital}")
    ax1.set_title(f"top neurons for {subject}" + (f" (top {TOP} zeroed)" if ablate else ""))
    ax2.grid(False)
    colors = [OKABE_ITO["bluish_green"] if w == capital else COLORS["neutral"] for w in words]
    ax2.barh(range(5)[::-1], probs, color=colors)
    ax2.set_yticks(range(5)[::-1], words)
    ax2.set_xlim(0, 1)
    ax2.set_xlabel("probability of the next word")
    ax2.set_ylabel("top answers")
    ax2.set_title(f"{subject} -> {words[0]}  (p({capital}) = {p_capital:.2f})")
    fig.subplots_adjust(left=0.08, right=0.98, bottom=0.16, top=0.88, wspace=0.35)


def make():
    controls = {
        "subject": Dropdown(options=[c for c, _ in facts.FACTS], value="france", description="subject"),
        "ablate": Checkbox(value=False, description=f"zero the top {TOP} neurons"),
    }
    return LiveFigure(draw, controls, figsize=(9.0, 3.4), title="Top neurons for a subject")
