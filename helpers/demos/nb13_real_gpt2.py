"""Notebook 13's demo: the logit lens on a few facts. Pick a prompt and a block; see the top tokens.

The model runs once per prompt, for every prompt when the demo is made (a forward pass with hooks on
the LayerNorms). A move repaints the bars, the line and the block's marker over the rest of the
figure; the axes and titles, whose text follows the prompt and the block, are drawn from images of
them (helpers.demos.stamps), made for every setting once the figure shows. make() with no model
loads the one gpt2.load() picks (the tiny one offline).
"""

from functools import lru_cache

import torch
from ipywidgets import Dropdown, IntSlider
from matplotlib.collections import PolyCollection
from matplotlib.ticker import MaxNLocator

from helpers import gpt2, hooks
from helpers.demos.stamps import Stamp, nice_top, place_y_label, tick_labels, y_label
from helpers.language import said
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
ROWS = range(TOP)[::-1]   # the best token on the top row


@lru_cache(maxsize=1)
def _loaded():
    model, tokenizer, _ = gpt2.load(verbose=False)
    return model, tokenizer


def lens(model, tokenizer, prompt):
    """The last token's stream after the embeddings and after every block, read as probabilities: (L
    + 1, vocab)."""
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
    with torch.no_grad(), hooks.attached(points):
        model(ids)
        stream = torch.stack([seen[i] for i in range(len(body.h) + 1)])   # (L + 1, d_model)
        return (body.ln_f(stream) @ model.lm_head.weight.T).softmax(-1).float().cpu()


def _bars(widths):
    """The corners of one horizontal bar per row, 0.8 high, as ax.barh draws them."""
    return [[(0, y - 0.4), (w, y - 0.4), (w, y + 0.4), (0, y + 0.4)]
            for y, w in zip(ROWS, widths, strict=True)]


class Lens:
    """The demo's data: the lens probabilities of every prompt, and what each setting shows."""

    def __init__(self, model, tokenizer):
        self.tokenizer = tokenizer
        self.n_layer = model.config.n_layer
        self.probs = {prompt: lens(model, tokenizer, prompt) for prompt in FACTS}
        self.answer = {prompt: tokenizer(FACTS[prompt]).input_ids[0] for prompt in FACTS}
        self.tops = {(prompt, block): self._top(prompt, block) for prompt in FACTS
                     for block in range(self.n_layer)}

    def _top(self, prompt, block):
        """The top tokens after `block`: their probabilities, their words and bar colours."""
        top = self.probs[prompt][block + 1].topk(TOP)
        words = [repr(self.tokenizer.decode([int(i)])) for i in top.indices]
        colors = [COLORS["mlp"] if int(i) == self.answer[prompt] else COLORS["neutral"]
                  for i in top.indices]
        return top.values.tolist(), words, colors

    def draw(self, fig, prompt, block):
        """Left: the top tokens after `block`; right: p(answer) after every block. Returns the
        artists that `update` changes."""
        ax1, ax2 = fig.subplots(1, 2, width_ratios=[1.2, 1])
        ax1.grid(False)
        layers = range(-1, self.n_layer)
        artists = {
            "ax1": ax1, "ax2": ax2,
            "bars": ax1.add_collection(PolyCollection([], edgecolors="none"), autolim=False),
            "line": ax2.plot(layers, [0.0] * len(layers), "o-", color=COLORS["mlp"])[0],
            "marker": ax2.axvline(block, color=COLORS["neutral"], ls=":", lw=1),
        }
        margin = 0.05 * self.n_layer   # the x limits a line over the blocks gets
        ax2.set_xlim(-1 - margin, self.n_layer - 1 + margin)
        margin = 0.05 * (TOP - 0.2)    # and the y limits of TOP bars 0.8 high
        ax1.set_ylim(-0.4 - margin, TOP - 0.6 + margin)
        ax1.xaxis.set_major_locator(MaxNLocator(4))
        ax1.set_xlabel(said("probability of the next token"))
        ax1.set_ylabel(said("top tokens"))
        ax2.set_xlabel(said("stream read after block (-1: embeddings)"))
        fig.subplots_adjust(left=0.16, right=0.98, bottom=0.16, top=0.88, wspace=0.35)
        artists["words"], artists["tokens"] = tick_labels(ax1.yaxis, ROWS), y_label(ax1.yaxis)
        for name, part in [("scale", ax1.xaxis), ("left title", ax1.title), ("p axis", ax2.yaxis),
                           ("right title", ax2.title)]:
            artists[name] = part.axes.add_artist(Stamp([part]))
        self._show(artists, prompt, block)
        return artists

    def _show(self, artists, prompt, block):
        """Set the bars, the line, the marker, the limits, the labels and the titles; return what
        changed."""
        ax1, ax2 = artists["ax1"], artists["ax2"]
        values, words, colors = self.tops[prompt, block]
        artists["bars"].set_verts(_bars(values))
        artists["bars"].set_facecolor(colors)
        end = nice_top(1.05 * values[0])   # a few ends for every setting: a few images of the axis
        ax1.set_xlim(0, end)
        ax1.set_yticks(ROWS, words)
        for label, word in zip(artists["words"], words, strict=True):
            label.set_text(word)
        place_y_label(artists["tokens"], artists["words"], ax1.figure.canvas.get_renderer())
        # y: a stamped title
        ax1.set_title(said("after block {block}: {token} on top", block=block, token=words[0]),
                      y=1.0)
        answer = self.probs[prompt][:, self.answer[prompt]]
        artists["line"].set_ydata(answer.numpy())
        artists["marker"].set_xdata([block, block])
        ax2.relim()
        ax2.autoscale_view(scalex=False)
        ax2.set_ylabel(f"p({FACTS[prompt].strip()})")
        ax2.set_title(said("{answer}: p = {p:.2g} at the end", answer=repr(FACTS[prompt]),
                           p=float(answer[-1])), y=1.0)
        artists["left title"].key, artists["scale"].key = (prompt, block), end
        artists["p axis"].key = artists["right title"].key = prompt
        return [artists["bars"], artists["line"], artists["marker"], ax1.spines["left"],
                ax2.spines["left"], ax2.spines["bottom"], *artists["words"],
                *(artists[name] for name in ("tokens", "scale", "left title", "p axis",
                                             "right title"))]

    def _store(self, fig, artists):
        """Make the images of the axes, the titles and the top tokens for every setting, so that
        the first look at one is as quick as the next (once, after the figure shows)."""
        renderer = fig.canvas.get_renderer()
        for prompt in FACTS:
            for block in range(self.n_layer):
                # places the y label: measures (and stores) the tokens
                self._show(artists, prompt, block)
                for name in ("scale", "left title", "p axis", "right title"):
                    artists[name].store(renderer)
        artists["stored"] = True

    def update(self, fig, artists, prompt, block):
        """Show the new setting (the first update, which show() makes, stores the images first);
        return what changed, so that a move repaints only these."""
        if not artists.get("stored"):
            self._store(fig, artists)
        return self._show(artists, prompt, block)


def make(model=None, tokenizer=None):
    """The live demo; the notebook passes its model, `make bench` lets gpt2.load() choose one."""
    if model is None:
        model, tokenizer = _loaded()
    data = Lens(model, tokenizer)
    controls = {
        "prompt": Dropdown(options=list(FACTS), value=next(iter(FACTS)), description="prompt"),
        "block": IntSlider(value=data.n_layer - 1, min=0, max=data.n_layer - 1,
                           description=said("after block")),
    }
    return LiveFigure(data.draw, controls, figsize=(9.5, 3.6), title=said("The logit lens"),
                      update=data.update)
