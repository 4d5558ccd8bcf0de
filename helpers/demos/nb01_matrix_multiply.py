"""Notebook 01's demo: pick T, d, m and see X @ W = Z drawn to scale."""

from ipywidgets import IntSlider
from matplotlib.patches import Rectangle

from helpers.widgets import LiveFigure

SAMPLE = {"T": 16, "d": 32, "m": 128}


def _block(ax, x, y, w, h, label, color):
    ax.add_patch(Rectangle((x, y), w, h, facecolor=color, edgecolor="black", alpha=0.6))
    ax.text(x + w / 2, y + h / 2, label, ha="center", va="center", fontsize=10)


def draw(fig, T, d, m):
    """Rectangles for X (T x d), W (d x m) and Z (T x m), with FLOPs and parameters."""
    ax = fig.add_subplot(1, 1, 1)
    gap = 0.15 * max(d, m)
    _block(ax, 0, -T, d, T, f"X\n{T} x {d}", "#9ecae1")
    _block(ax, d + gap, -d, m, d, f"W\n{d} x {m}", "#fdae6b")
    _block(ax, d + m + 2 * gap, -T, m, T, f"Z\n{T} x {m}", "#a1d99b")
    ax.text(d + gap / 2, -T / 2, "@", ha="center", va="center", fontsize=14)
    ax.text(d + m + 1.5 * gap, -T / 2, "=", ha="center", va="center", fontsize=14)
    ax.set_xlim(-gap / 2, d + 2 * m + 2.5 * gap)
    ax.set_ylim(-max(T, d) - gap / 2, gap / 2)
    ax.set_aspect("equal")
    ax.set_xlabel("columns (features)")
    ax.set_ylabel("rows (tokens for X and Z)")
    flops = 2 * T * d * m
    ax.set_title(f"X @ W: {flops:,} FLOPs (2*T*d*m), W holds {d * m:,} weights")


def make():
    controls = {
        "T": IntSlider(value=4, min=1, max=64, description="T (tokens)", continuous_update=False),
        "d": IntSlider(value=4, min=1, max=64, description="d", continuous_update=False),
        "m": IntSlider(value=8, min=1, max=256, description="m", continuous_update=False),
    }
    return LiveFigure(draw, controls, figsize=(8.0, 3.5), title="X @ W = Z")
