"""Data-flow pictures: boxes joined by arrows, with the shape each arrow carries.

`mlp(ax, d_model, d_ff)` draws the plain FFN of notebook 03: x -> up-projection -> activation
-> down-projection, one box each, with the shape between every two.
`gated_mlp(ax, d_model, d_ff)` draws the gated MLP (SwiGLU) of notebook 05: x goes to
gate_proj and up_proj side by side, SiLU on the gate, the entry-by-entry product, then
down_proj; with fused=True gate and up are one gate_up_proj followed by a split.
"""

from matplotlib.patches import FancyBboxPatch

from helpers import validate
from helpers.plots import COLORS, NEUTRAL, OKABE_ITO

BOX_W, BOX_H = 1.9, 0.9


def box(ax, x, y, text, color=NEUTRAL, width=BOX_W, height=BOX_H):
    """A rounded box centred on (x, y) holding `text`; return its (left, right, bottom, top)."""
    ax.add_patch(FancyBboxPatch((x - width / 2, y - height / 2), width, height,
                                boxstyle="round,pad=0.02,rounding_size=0.15", facecolor=color,
                                edgecolor="black", alpha=0.9, linewidth=1.0))
    ax.text(x, y, text, ha="center", va="center", fontsize=10)
    return x - width / 2, x + width / 2, y - height / 2, y + height / 2


def arrow(ax, start, end, label=None, offset=(0.0, 0.18)):
    """An arrow from start to end (x, y), with `label` (a shape, say) beside its middle."""
    ax.annotate("", xy=end, xytext=start,
                arrowprops={"arrowstyle": "-|>", "color": "black", "lw": 1.2, "shrinkA": 0, "shrinkB": 0})
    if label:
        mid = ((start[0] + end[0]) / 2 + offset[0], (start[1] + end[1]) / 2 + offset[1])
        ax.text(*mid, label, ha="center", va="bottom", fontsize=9)


def line(ax, xs, ys):
    """A plain black line through the points (xs, ys): a wire that splits or bends."""
    ax.plot(xs, ys, color="black", lw=1.2, solid_capstyle="butt")


def _output(ax, at, d_model, right, top):
    """The output's label at `at`, then the picture's frame: its limits, equal aspect, no axes."""
    ax.text(*at, f"out\n(T, {d_model})", ha="center", va="center", fontsize=10)
    ax.set_xlim(-0.2, right)
    ax.set_ylim(0.0, top)
    ax.set_aspect("equal")
    ax.axis("off")


def mlp(ax, d_model, d_ff, activation="GELU", up="W1", down="W2"):
    """Draw x -> up-projection -> activation -> down-projection -> out on ax (axes turned off)."""
    d, m = validate.positive_int(d_model, "d_model"), validate.positive_int(d_ff, "d_ff")
    for name, text in (("activation", activation), ("up", up), ("down", down)):
        if not isinstance(text, str) or not text:
            raise TypeError(f"{name} must be the text of its box, a non-empty string, got {text!r}")
    y = 0.8
    ax.text(0.35, y, f"x\n(T, {d})", ha="center", va="center", fontsize=10)
    arrow(ax, (0.85, y), (1.35, y))
    box(ax, 2.6, y, f"up-projection\n{up}: {d} -> {m}", COLORS["mlp"], width=2.5)
    arrow(ax, (3.85, y), (5.05, y), f"h (T, {m})", offset=(0, 0.12))
    box(ax, 5.75, y, activation, OKABE_ITO["sky_blue"], width=1.4)
    arrow(ax, (6.45, y), (7.65, y), f"a (T, {m})", offset=(0, 0.12))
    box(ax, 8.9, y, f"down-projection\n{down}: {m} -> {d}", "white", width=2.5)
    arrow(ax, (10.15, y), (10.65, y))
    _output(ax, (11.15, y), d, right=11.8, top=1.7)


def gated_mlp(ax, d_model, d_ff, fused=False):
    """Draw x -> gate_proj / up_proj -> SiLU, * -> down_proj -> out on ax (axes turned off)."""
    d, m = validate.positive_int(d_model, "d_model"), validate.positive_int(d_ff, "d_ff")
    fused = validate.boolean(fused, "fused")
    gate_y, up_y, mid_y = 2.6, 0.6, 1.6
    ax.text(0.3, mid_y, f"x\n(T, {d})", ha="center", va="center", fontsize=10)
    if fused:
        box(ax, 2.4, mid_y, f"gate_up_proj\n{d} -> 2 x {m}", COLORS["embedding"], width=2.2)
        arrow(ax, (0.75, mid_y), (1.3, mid_y))
        line(ax, [3.5, 3.9, 3.9, 3.9], [mid_y, mid_y, gate_y, up_y])
        ax.text(3.95, mid_y, "split", ha="left", va="center", fontsize=9)
        arrow(ax, (3.9, gate_y), (4.95, gate_y), f"z (T, {m})", offset=(0, 0.08))
    else:
        box(ax, 2.6, gate_y, f"gate_proj\n{d} -> {m}", COLORS["silu"])
        box(ax, 2.6, up_y, f"up_proj\n{d} -> {m}", COLORS["mlp"])
        line(ax, [0.75, 1.1, 1.1, 1.1], [mid_y, mid_y, gate_y, up_y])
        arrow(ax, (1.1, gate_y), (1.65, gate_y))
        arrow(ax, (1.1, up_y), (1.65, up_y))
        arrow(ax, (3.55, gate_y), (4.95, gate_y), f"z (T, {m})", offset=(0, 0.08))
    up_from = 3.9 if fused else 3.55
    line(ax, [up_from, 7.3], [up_y, up_y])
    ax.text((up_from + 7.3) / 2, up_y + 0.08, f"u (T, {m})", ha="center", va="bottom", fontsize=9)
    arrow(ax, (7.3, up_y), (7.3, mid_y - 0.3))
    box(ax, 5.6, gate_y, "SiLU", COLORS["silu"], width=1.3)
    line(ax, [6.25, 7.3], [gate_y, gate_y])
    ax.text(6.78, gate_y + 0.08, f"g (T, {m})", ha="center", va="bottom", fontsize=9)
    arrow(ax, (7.3, gate_y), (7.3, mid_y + 0.3))
    ax.text(7.3, mid_y, "\u2299", ha="center", va="center", fontsize=20)    # the entry-by-entry product
    arrow(ax, (7.55, mid_y), (8.5, mid_y), f"g * u\n(T, {m})", offset=(0, 0.05))
    box(ax, 9.5, mid_y, f"down_proj\n{m} -> {d}", "white")
    arrow(ax, (10.45, mid_y), (11.1, mid_y))
    _output(ax, (11.55, mid_y), d, right=12.1, top=3.3)
