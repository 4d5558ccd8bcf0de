"""Notebook 13's demo: the logit lens on a few facts. Pick a prompt and a block; see the top tokens.

The model runs once per prompt (a forward pass with hooks on the LayerNorms, cached); a redraw is a
bar chart and a line. make() with no model loads the one gpt2.load() picks (the tiny one offline).
"""

from functools import lru_cache

import torch
from ipywidgets import Dropdown, IntSlider
from matplotlib.ticker import MaxNLocator

from helpers import gpt2, kv_memory
from helpers.plots import COLORS
from helpers.widgets import LiveFigure

FACTS = {
    "The Eiffel Tower is located in the city of": " Paris",
    "The Colosseum is located in the city of": " Rome",
    "Big Ben is located in the city of": " London",
    "The Brandenburg Gate is located in the city of": " Berlin",
    "The capital of Japan is": " Tokyo",
    "The Statue of Liberty is located in the city of": " New",
}
TOP = 8
SAMPLE = {"prompt": "Big Ben is located in the city of", "block": 2}


@lru_cache(maxsize=1)
def _loaded():
    model, tokenizer, _ = gpt2.load(verbose=False)
    return model, tokenizer


def lens(model, tokenizer, prompt):
    """The last token's stream after the embeddings and after every block, read as probabilities: (L + 1, vocab)."""
    body = model.transformer
    seen = {}

    def keep(i):
        def hook(module, inputs, output):
            seen[i] = inputs[0][0, -1]
        return hook

    points = {block.ln_1: keep(i) for i, block in enumerate(body.h)}
    points[body.ln_f] = keep(len(body.h))
    device = model.lm_head.weight.device
    ids = tokenizer(prompt, return_tensors="pt").input_ids.to(device)
    with torch.no_grad(), kv_memory.hooks(points):
        model(ids)
        stream = torch.stack([seen[i] for i in range(len(body.h) + 1)])   # (L + 1, d_model)
        return (body.ln_f(stream) @ model.lm_head.weight.T).softmax(-1).float().cpu()


class Lens:
    """The demo's data: lens probabilities per prompt, computed once each."""

    def __init__(self, model, tokenizer):
        self.model, self.tokenizer = model, tokenizer
        self.n_layer = model.config.n_layer
        self._cache = {}

    def probs(self, prompt):
        if prompt not in self._cache:
            self._cache[prompt] = lens(self.model, self.tokenizer, prompt)
        return self._cache[prompt]

    def draw(self, fig, prompt, block):
        """Left: the top tokens after `block`; right: p(answer) after every block."""
        probs = self.probs(prompt)
        answer = self.tokenizer(FACTS[prompt]).input_ids[0]
        row = probs[block + 1]
        top = row.topk(TOP)
        words = [repr(self.tokenizer.decode([int(i)])) for i in top.indices]
        ax1, ax2 = fig.subplots(1, 2, width_ratios=[1.2, 1])
        colors = [COLORS["mlp"] if int(i) == answer else COLORS["neutral"] for i in top.indices]
        ax1.barh(range(TOP)[::-1], top.values.numpy(), color=colors)
        ax1.set_yticks(range(TOP)[::-1], words)
        ax1.xaxis.set_major_locator(MaxNLocator(4))
        ax1.set_xlabel("probability of the next token")
        ax1.set_ylabel("top tokens")
        ax1.set_title(f"after block {block}: {words[0]} on top")
        ax1.grid(False)
        ax2.plot(range(-1, self.n_layer), probs[:, answer].numpy(), "o-", color=COLORS["mlp"])
        ax2.axvline(block, color=COLORS["neutral"], ls=":", lw=1)
        ax2.set_xlabel("stream read after block (-1: embeddings)")
        ax2.set_ylabel(f"p({FACTS[prompt].strip()})")
        ax2.set_title(f"{FACTS[prompt]!r}: p = {probs[-1, answer]:.2g} at the end")
        fig.subplots_adjust(left=0.16, right=0.98, bottom=0.16, top=0.88, wspace=0.35)


def make(model=None, tokenizer=None):
    """The live demo; the notebook passes its model, `make bench` lets gpt2.load() choose one."""
    if model is None:
        model, tokenizer = _loaded()
    data = Lens(model, tokenizer)
    controls = {
        "prompt": Dropdown(options=list(FACTS), value=next(iter(FACTS)), description="prompt"),
        "block": IntSlider(value=data.n_layer - 1, min=0, max=data.n_layer - 1, description="after block"),
    }
    return LiveFigure(data.draw, controls, figsize=(9.5, 3.6), title="The logit lens")
