"""Notebook 12's demo: pick a subject, see MLP 1's top neurons for its capital, ablate them.

The model runs once, on every subject together, when the demo is made (two batched forward
passes: as trained, and with each subject's own top neurons zeroed); a redraw, the first look at
a subject included, repaints two small bar charts over the rest of the figure. Text is what Agg
draws slowly, so the neuron ids, the answers and the y axis are drawn from images of them
(helpers.demos.stamps), made for every id, every answer and every height once the figure shows:
only the two titles are drawn afresh.
"""

from functools import lru_cache

import torch
from ipywidgets import Checkbox, Dropdown
from matplotlib import rcParams
from matplotlib.collections import PolyCollection

from helpers import facts, hooks, kv_memory
from helpers.capacity import one_thread
from helpers.checks.state import kept
from helpers.demos.stamps import Stamp, nice_top, nice_tops, place_y_label, tick_labels, y_label
from helpers.language import said
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
    # small batches: a second thread only adds waiting
    with one_thread():
        contribution = kv_memory.neuron_contributions(model, prompts, LAYER)   # (N, d_ff)
    top = contribution.argsort(dim=-1, descending=True)[:, :TOP]            # (N, TOP)
    table = {}
    for ablate in (False, True):
        scale = torch.ones(len(rows), 1, model.config.d_ff)
        if ablate:
            scale.scatter_(2, top[:, None, :], 0.0)   # each prompt loses its own top neurons

        # a forward hook on the GELU: (N, T, d_ff)
        def zero_top(module, inputs, output, scale=scale):
            return output * scale

        with torch.no_grad(), one_thread(), hooks.attached({model.blocks[LAYER].mlp.act: zero_top}):
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


def _columns(heights, x=range(10)):
    """The corners of one bar per neuron, 0.8 wide, as ax.bar draws them."""
    return [[(i - 0.4, 0), (i - 0.4, h), (i + 0.4, h), (i + 0.4, 0)]
            for i, h in zip(x, heights, strict=True)]


def _rows(widths, y=range(5)[::-1]):
    """The corners of one bar per answer, 0.8 high, the best on top, as ax.barh draws them."""
    return [[(0, j - 0.4), (w, j - 0.4), (w, j + 0.4), (0, j + 0.4)]
            for j, w in zip(y, widths, strict=True)]


def draw(fig, subject, ablate):
    """Left: the top 10 neurons' contributions; right: the model's top 5 answers. Returns the
    artists that `update` changes."""
    ax1, ax2 = fig.subplots(1, 2)
    ax1.grid(False)
    ax2.grid(False)
    ax1.set_xlim(-0.4 - 0.05 * 9.8, 9.4 + 0.05 * 9.8)     # the limits ax.bar gives 10 bars
    ax2.set_ylim(-0.4 - 0.05 * 4.8, 4.4 + 0.05 * 4.8)     # and ax.barh 5
    ax2.set_xlim(0, 1)
    ax2.set_xlabel(said("probability of the next word"))
    ax2.set_ylabel(said("top answers"))
    ax1.set_xlabel(said("neuron of MLP {layer}", layer=LAYER))
    ax1.set_ylabel(said("adds to the logit of the capital"))
    fig.subplots_adjust(left=0.08, right=0.98, bottom=0.16, top=0.88, wspace=0.35)
    artists = {"ax1": ax1, "ax2": ax2,
               "neuron bars": ax1.add_collection(
                   PolyCollection([], facecolors=COLORS["mlp"], edgecolors="none"),
                   autolim=False),
               # edged in their colour, as Rectangle.set_color
               "answer bars": ax2.add_collection(
                   PolyCollection([], linewidths=rcParams["patch.linewidth"]), autolim=False),
               "neurons": tick_labels(ax1.xaxis, range(10)),
               "words": tick_labels(ax2.yaxis, range(5)[::-1]), "y label": y_label(ax2.yaxis),
               "height": ax1.add_artist(Stamp([ax1.yaxis])),
               "left title": ax1.add_artist(Stamp([ax1.title], keep=64)),
               "right title": ax2.add_artist(Stamp([ax2.title], keep=64))}
    _show(artists, subject, ablate)
    return artists


def _show(artists, subject, ablate):
    """Set the bars, their colours and labels and the titles for this subject; return what
    changed."""
    neurons, values, words, probs, capital, p_capital = _analyse(subject, ablate)
    ax1, ax2 = artists["ax1"], artists["ax2"]
    artists["neuron bars"].set_verts(_columns(values))
    artists["neuron bars"].set_alpha(0.35 if ablate else 1.0)
    limits = min(0.0, min(values)) * 1.05, nice_top(1.05 * max(values))
    ax1.set_ylim(*limits)
    neurons = [str(i) for i in neurons]
    ax1.set_xticks(range(10), neurons)
    ax1.set_title(said("top neurons for {subject} (top {top} zeroed)" if ablate
                       else "top neurons for {subject}", subject=subject, top=TOP), y=1.0)
    artists["answer bars"].set_verts(_rows(probs))
    artists["answer bars"].set_color([OKABE_ITO["bluish_green"] if w == capital
                                      else COLORS["neutral"] for w in words])
    ax2.set_yticks(range(5)[::-1], words)
    # y: stamped titles
    ax2.set_title(f"{subject} -> {words[0]}  (p({capital}) = {p_capital:.2f})", y=1.0)
    for label, text in zip(artists["neurons"] + artists["words"], neurons + words, strict=True):
        label.set_text(text)
    place_y_label(artists["y label"], artists["words"], ax2.figure.canvas.get_renderer())
    artists["height"].key = limits
    artists["left title"].key, artists["right title"].key = ax1.get_title(), ax2.get_title()
    return [artists["neuron bars"], artists["answer bars"], *artists["neurons"], *artists["words"],
            ax1.spines["bottom"],
            ax2.spines["left"], *(artists[name]
                                  for name in ("y label", "height", "left title", "right title"))]


def _store(fig, artists):
    """Make the images of the y axis at every height the bars need, of every neuron id and of every
    answer, so that the first look at a subject draws only its titles afresh (once, after the
    figure shows)."""
    renderer = fig.canvas.get_renderer()
    table = _table()
    tops = [1.05 * max(row[1]) for row in table.values()]
    for top in nice_tops(min(tops), max(tops)):
        artists["ax1"].set_ylim(0, top)
        artists["height"].key = 0.0, top
        artists["height"].store(renderer)
    for label, texts in [(artists["neurons"][0],
                          {str(n) for row in table.values() for n in row[0]}),
                         (artists["words"][0], {w for row in table.values() for w in row[2]})]:
        for text in sorted(texts):
            label.set_text(text)
            label.store(renderer)
    artists["stored"] = True


def update(fig, artists, subject, ablate):
    """Show the subject (the first update, which show() makes, stores the images first); return
    what changed, so that a move repaints only these."""
    if not artists.get("stored"):
        _store(fig, artists)
    return _show(artists, subject, ablate)


def make():
    _table()   # every subject computed now, so that the first look at one is a redraw
    controls = {
        "subject": Dropdown(options=[c for c, _ in facts.FACTS], value="france",
                            description="subject"),
        "ablate": Checkbox(value=False, description=said("zero the top {top} neurons", top=TOP)),
    }
    return LiveFigure(draw, controls, figsize=(9.0, 3.4), title=said("Top neurons for a subject"),
                      update=update)
