"""Notebook 16's demo: pick a fact; MLP 1's 256 neurons beside the SAE's 512 features, for that
fact.

The model and the SAE run once, on every fact together, when the demo is made; a redraw moves two
lines (one vertical stroke per neuron or feature, NaN-separated, so each panel is one artist) and a
title drawn as a Label. The axes are fixed: each panel's height is its largest value over all facts.
"""

from functools import lru_cache

import numpy as np
import torch
from ipywidgets import Dropdown

from helpers import facts, kv_memory, sae
from helpers.capacity import one_thread
from helpers.checks.state import kept
from helpers.demos.stamps import in_place
from helpers.language import said
from helpers.plots import COLORS
from helpers.widgets import LiveFigure

TEMPLATE = "the capital of {} is"
LAYER = 1
SAMPLE = {"subject": "japan"}


@lru_cache(maxsize=1)
def _model():
    with kept():   # building the model draws from torch's generator before its weights load
        return kv_memory.load()


@lru_cache(maxsize=1)
def _trained_sae():
    """The notebook's SAE: 512 features, l1 0.5, 300 steps at lr 1e-2 on MLP 1 over the training
    prompts."""
    model, vocab = _model()
    with one_thread():
        acts = sae.mlp_activations(model, kv_memory.make_prompts(vocab, facts.TRAIN_TEMPLATES),
                                   LAYER)
        return sae.train_sae(acts, 512, 0.5, steps=300, lr=1e-2)[0]


def _table(autoencoder):
    """(neurons (118, 256), features (118, 512)) at the last word of "the capital of X is"."""
    model, vocab = _model()
    prompts = kv_memory.make_prompts(vocab, [TEMPLATE])
    with torch.no_grad(), one_thread():
        neurons = sae.mlp_activations(model, prompts, LAYER)
        features = autoencoder.encode(neurons.to(autoencoder.W_enc))
    return neurons.numpy().astype(float), features.detach().numpy().astype(float)


def _strokes(values):
    """x, y of one vertical stroke per unit, from 0 to its value, NaN between strokes."""
    n = len(values)
    x = np.repeat(np.arange(n, dtype=float), 3)
    y = np.zeros(3 * n)
    y[1::3] = values
    y[2::3] = np.nan
    return x, y


def _count(values, peaks):
    """How many units exceed half their own peak over every fact: section 2's rule, for neurons and
    features alike."""
    return int(((values > 0.5 * peaks) & (peaks > 0)).sum())


def make(autoencoder=None):
    """The demo, on the notebook's SAE (autoencoder) or, without one, on the same SAE trained
    here."""
    neurons, features = _table(autoencoder if autoencoder is not None else _trained_sae())
    rows = {country: i for i, (country, _) in enumerate(facts.FACTS)}
    # each unit's peak over the facts
    peaks = neurons.max(0), features.max(0)

    def text(subject):
        r = rows[subject]
        return said("{subject}: {neurons} of {n_neurons} neurons and {features} of {n_features} "
                    "features above half "
                    "their peak", subject=subject, neurons=_count(neurons[r], peaks[0]),
                    n_neurons=neurons.shape[1],
                    features=_count(features[r], peaks[1]), n_features=features.shape[1])

    def draw(fig, subject):
        ax1, ax2 = fig.subplots(1, 2)
        fig.subplots_adjust(left=0.08, right=0.98, bottom=0.16, top=0.84, wspace=0.25)
        ax1.set(xlim=(-2, neurons.shape[1] + 1),
                ylim=(min(0.0, neurons.min()) * 1.05, neurons.max() * 1.05),
                xlabel=said("neuron of MLP {layer}", layer=LAYER),
                ylabel=said("activation at the last word"))
        ax2.set(xlim=(-4, features.shape[1] + 3), ylim=(0, features.max() * 1.05),
                xlabel=said("SAE feature"), ylabel=said("code f"))
        ax1.set_title(said("MLP {layer}'s neurons", layer=LAYER), y=1.0)
        ax2.set_title(said("the SAE's features"), y=1.0)
        title = fig.suptitle(text(subject), y=0.97)
        r = rows[subject]
        state = {"neurons": ax1.plot(*_strokes(neurons[r]), color=COLORS["mlp"], lw=1.0)[0],
                 "features": ax2.plot(*_strokes(features[r]), color=COLORS["neutral"], lw=1.0)[0]}
        state["title"] = in_place(title)
        return state

    def update(fig, state, subject):
        r = rows[subject]
        state["neurons"].set_data(*_strokes(neurons[r]))
        state["features"].set_data(*_strokes(features[r]))
        state["title"].set_text(text(subject))
        return [state["neurons"], state["features"], state["title"]]

    controls = {"subject": Dropdown(options=list(rows), value="france",
                                    description=said("fact (subject)"))}
    return LiveFigure(draw, controls, figsize=(9.0, 3.4),
                      title=said("A fact's neurons beside its features"), update=update)
