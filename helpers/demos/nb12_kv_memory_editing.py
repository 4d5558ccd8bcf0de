"""Notebook 12's demo: pick a subject, see MLP 1's top neurons for its capital, ablate them."""

from functools import lru_cache

import torch
from ipywidgets import Checkbox, Dropdown

from helpers import facts, kv_memory
from helpers.widgets import LiveFigure

TEMPLATE = "the capital of {} is"
LAYER, TOP = 1, 30
SAMPLE = {"subject": "japan", "ablate": True}


@lru_cache(maxsize=1)
def _model():
    return kv_memory.load()


@lru_cache(maxsize=256)
def _analyse(subject, ablate):
    """Top neurons with their contributions, and the top 5 answers (words, probabilities)."""
    model, vocab = _model()
    row = [c for c, _ in facts.FACTS].index(subject)
    prompt = kv_memory.make_prompts(vocab, [TEMPLATE], [row])
    contribution = kv_memory.neuron_contributions(model, prompt, LAYER)[0]
    top = contribution.argsort(descending=True)[:TOP]
    scale = torch.ones(model.config.d_ff)
    if ablate:
        scale[top] = 0.0
    with torch.no_grad():
        logits = kv_memory.forward_with_neurons(model, prompt.idx, neuron_scale={LAYER: scale})[0]
    probs = kv_memory.answer_logits(logits, prompt)[0].softmax(-1)
    best = probs.argsort(descending=True)[:5]
    capital = facts.FACTS[row][1]
    return (top[:10].tolist(), contribution[top[:10]].tolist(),
            [vocab.words[j] for j in best], probs[best].tolist(), capital,
            probs[vocab.ids[capital]].item())


def draw(fig, subject, ablate):
    neurons, values, words, probs, capital, p_capital = _analyse(subject, ablate)
    ax1, ax2 = fig.subplots(1, 2)
    ax1.bar(range(len(neurons)), values, color="#E69F00", alpha=0.35 if ablate else 1.0)
    ax1.set_xticks(range(len(neurons)), [str(i) for i in neurons], fontsize=9)
    ax1.set_xlabel(f"neuron of MLP {LAYER}")
    ax1.set_ylabel(f"adds to the logit of {capital}")
    ax1.set_title(f"top neurons for {subject}" + (f" (top {TOP} zeroed)" if ablate else ""))
    colors = ["#009E73" if w == capital else "#555555" for w in words]
    ax2.barh(range(5)[::-1], probs, color=colors)
    ax2.set_yticks(range(5)[::-1], words)
    ax2.set_xlim(0, 1)
    ax2.set_xlabel("probability of the next word")
    ax2.set_ylabel("top answers")
    ax2.set_title(f'"{TEMPLATE.format(subject)}" -> {words[0]}  (p({capital}) = {p_capital:.2f})')
    fig.subplots_adjust(left=0.07, right=0.98, bottom=0.15, wspace=0.3)


def make():
    controls = {
        "subject": Dropdown(options=[c for c, _ in facts.FACTS], value="france", description="subject"),
        "ablate": Checkbox(value=False, description=f"zero the top {TOP} neurons"),
    }
    return LiveFigure(draw, controls, figsize=(10.0, 3.8), title="Top neurons for a subject")
