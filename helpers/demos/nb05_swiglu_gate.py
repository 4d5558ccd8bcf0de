"""Notebook 05's demo: move the up value u and the gate pre-activation z, see SiLU(z) * u."""

import numpy as np
from ipywidgets import FloatSlider

from helpers import activations
from helpers.language import said
from helpers.plots import COLORS, NEUTRAL
from helpers.widgets import LiveFigure

SAMPLE = {"up": -1.0, "gate_pre": -1.28}
Z = np.linspace(-6.0, 6.0, 241)   # gate pre-activations drawn on the x axis


def _title(up, gate_pre):
    g = float(activations.silu(np.array(gate_pre)))
    if g > 1:
        template = "g = SiLU({z:.2f}) = {g:.3f} enlarges u:  {g:.3f} x {u:.2f} = {out:.3f}"
    elif g < 0:
        template = "g = SiLU({z:.2f}) = {g:.3f} flips the sign of u:  {g:.3f} x {u:.2f} = {out:.3f}"
    else:
        template = "g = SiLU({z:.2f}) = {g:.3f} shrinks u:  {g:.3f} x {u:.2f} = {out:.3f}"
    return g, said(template, z=gate_pre, g=g, u=up, out=g * up)


def draw(fig, up, gate_pre):
    """The curve SiLU(z) * up over z, the gate SiLU(z) itself, and the current point.
    Returns the artists that `update` moves."""
    ax = fig.add_subplot(1, 1, 1)
    gate = activations.silu(Z)
    g, title = _title(up, gate_pre)
    ax.axhspan(0.0, 1.0, color=NEUTRAL, alpha=0.15, lw=0, zorder=0,
               label=said("a switch would stay in [0, 1]"))
    ax.plot(Z, gate, "--", color=COLORS["silu"], label=said("gate g = SiLU(z)"))
    (output,) = ax.plot(Z, gate * up, color=COLORS["mlp"], label=said("output g * u"))
    (point,) = ax.plot([gate_pre], [g * up], "o", color="black", markersize=8)
    (gate_point,) = ax.plot([gate_pre], [g], "o", color=COLORS["silu"], markersize=6)
    u_line = ax.axhline(up, color=NEUTRAL, linewidth=0.8, linestyle=":",
                        label=said("u itself (gate = 1)"))
    ax.set_ylim(-4.0, 6.5)
    ax.set_xticks([-6, -3, 0, 3, 6])
    ax.set_yticks([-4, -2, 0, 2, 4, 6])
    ax.set_xlabel(said("gate pre-activation z = (x @ W_gate)[j]"))
    ax.set_ylabel(said("value of feature j"))
    ax.set_title(title)
    ax.legend(loc="upper left")
    return {"ax": ax, "output": output, "point": point, "gate_point": gate_point, "u_line": u_line}


def update(fig, artists, up, gate_pre):
    """Move the curve, the points and the line of u and rewrite the title (which states u);
    return what changed, so that a move repaints only these."""
    g, title = _title(up, gate_pre)
    artists["output"].set_ydata(activations.silu(Z) * up)
    artists["point"].set_data([gate_pre], [g * up])
    artists["gate_point"].set_data([gate_pre], [g])
    artists["u_line"].set_ydata([up, up])
    artists["ax"].set_title(title)
    return [artists["output"], artists["point"], artists["gate_point"], artists["u_line"],
            artists["ax"].title]


def make():
    controls = {
        "up": FloatSlider(value=2.0, min=-3.0, max=3.0, step=0.1, description=said("u (up)"),
                          continuous_update=False),
        "gate_pre": FloatSlider(value=0.18, min=-6.0, max=6.0, step=0.01,
                                description=said("z (gate in)"), continuous_update=False),
    }
    return LiveFigure(draw, controls, figsize=(7.5, 4.0), title=said("SiLU(gate) * up"),
                      update=update)
