"""Data-flow pictures: boxes joined by arrows, with the shape each arrow carries.

`mlp(ax, d_model, d_ff)` draws the plain FFN of notebook 03: x -> up-projection -> activation
-> down-projection, one box each, with the shape between every two.
`gated_mlp(ax, d_model, d_ff)` draws the gated MLP (SwiGLU) of notebook 05: x goes to
gate_proj and up_proj side by side, SiLU on the gate, the entry-by-entry product, then
down_proj; with fused=True gate and up are one gate_up_proj followed by a split.
`moe_routing` draws notebook 11's router and experts for a few tokens; `kv_lookup` and `kv_edit`
draw notebook 12's MLP as a key-value memory and ROME's edit of it.
"""

from matplotlib.patches import FancyBboxPatch

from helpers import validate
from helpers.language import said
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
                arrowprops={"arrowstyle": "-|>", "color": "black", "lw": 1.2, "shrinkA": 0,
                            "shrinkB": 0})
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
    # the entry-by-entry product
    ax.text(7.3, mid_y, "\u2299", ha="center", va="center", fontsize=20)
    arrow(ax, (7.55, mid_y), (8.5, mid_y), f"g * u\n(T, {m})", offset=(0, 0.05))
    box(ax, 9.5, mid_y, f"down_proj\n{m} -> {d}", "white")
    arrow(ax, (10.45, mid_y), (11.1, mid_y))
    _output(ax, (11.55, mid_y), d, right=12.1, top=3.3)


TOKEN_COLORS = [OKABE_ITO["blue"], OKABE_ITO["vermillion"], OKABE_ITO["bluish_green"],
                OKABE_ITO["reddish_purple"]]
TOKEN_STYLES = ["-", "--", "-.", ":"]


def _free_spot(start, end, placed, apart=(0.55, 0.3)):
    """A point along start -> end (as near the end as it can) that keeps a label clear of those
    placed."""
    for f in (0.75, 0.6, 0.45, 0.88, 0.3):
        x, y = start[0] + f * (end[0] - start[0]), start[1] + f * (end[1] - start[1])
        if all(abs(x - px) > apart[0] or abs(y - py) > apart[1] for px, py in placed):
            return x, y
    return start[0] + 0.75 * (end[0] - start[0]), start[1] + 0.75 * (end[1] - start[1])


def moe_routing(ax, chosen, weights, n_experts):
    """Draw tokens -> router -> their top-k experts -> weighted sum, for up to 4 tokens (axes turned
    off).

    chosen: (n_tokens, k) expert ids, weights: (n_tokens, k) their router weights (lists or
    tensors).
    """
    validate.positive_int(n_experts, "n_experts")
    chosen = [[int(e) for e in row] for row in chosen]
    weights = [[float(w) for w in row] for row in weights]
    n = len(chosen)
    if not 1 <= n <= len(TOKEN_COLORS) or len(weights) != n:
        raise ValueError(f"chosen and weights must hold 1 to {len(TOKEN_COLORS)} tokens each, got "
                         f"{n} and {len(weights)}")
    top, bottom = 4.8, 0.4
    token_y = [top - (i + 0.5) * (top - bottom) / n for i in range(n)]
    expert_y = [top - (e + 0.5) * (top - bottom) / n_experts for e in range(n_experts)]
    used = {e for row in chosen for e in row}
    for t, y in enumerate(token_y):
        box(ax, 0.8, y, said("token {t}\nx (d_model)", t=t), "white", width=1.4, height=0.8)
        arrow(ax, (1.5, y), (2.3, y))
    box(ax, 3.05, (top + bottom) / 2,
        said("router\n(d_model\n-> E\nscores)\n\ntop k,\nsoftmax\nover k"),
        COLORS["embedding"], width=1.5, height=top - bottom)
    for e, y in enumerate(expert_y):
        idle = e not in used
        name = said("expert {e} (idle)", e=e) if idle else said("expert {e}", e=e)
        box(ax, 7.0, y, name, "white" if idle else COLORS["mlp"], width=1.7,
            height=0.8 * (top - bottom) / n_experts)
    placed = []   # where the weight labels went, so that none hides another
    for t, (ty, row, ws) in enumerate(zip(token_y, chosen, weights, strict=True)):
        color, style = TOKEN_COLORS[t], TOKEN_STYLES[t]
        for e, w in zip(row, ws, strict=True):
            ey = expert_y[e]
            ax.annotate("", xy=(6.15, ey), xytext=(3.8, ty),
                        arrowprops={"arrowstyle": "-|>", "color": color, "lw": 1.4, "ls": style})
            ax.plot([7.85, 9.45], [ey, ty], color=color, lw=1.4, ls=style)
            spot = _free_spot((3.8, ty), (6.15, ey), placed)
            placed.append(spot)
            ax.text(*spot, f"{w:.2f}", color=color, ha="center", va="center", fontsize=9,
                    fontweight="bold",
                    bbox={"boxstyle": "round,pad=0.1", "facecolor": "white", "edgecolor": "none"})
        ax.text(9.75, ty, "\u03a3", ha="center", va="center", fontsize=16)
        arrow(ax, (10.05, ty), (10.6, ty))
        ax.text(11.3, ty, said("out {t}\nsum of w x\nexpert(x)", t=t), ha="center", va="center",
                fontsize=9)
    ax.set_xlim(0.0, 12.1)
    ax.set_ylim(0.2, 5.0)
    ax.axis("off")


def kv_lookup(ax, neurons):
    """Draw one MLP as a key-value memory: x -> keys (rows of c_fc) -> h = GELU -> values (columns
    of c_proj) -> sum of h_i v_i. neurons: up to 4 rows (neuron id, activation h_i, word its value
    promotes)."""
    rows = list(neurons)
    if not 1 <= len(rows) <= 4:
        raise ValueError(f"neurons must hold 1 to 4 (id, h, word) rows, got {len(rows)}")
    ys = [3.4 - 0.95 * i for i in range(len(rows))]
    mid = (ys[0] + ys[-1]) / 2
    ax.text(0.55, mid, "ln_2(x)\n(d_model)\nthe\nnormalised\nresidual", ha="center", va="center",
            fontsize=10)
    for (i, h, word), y in zip(rows, ys, strict=True):
        line(ax, [1.15, 1.5, 1.5], [mid, mid, y])
        arrow(ax, (1.5, y), (1.9, y))
        box(ax, 2.9, y, f"key {i}\nrow {i} of c_fc", COLORS["embedding"], width=2.0, height=0.75)
        arrow(ax, (3.9, y), (4.75, y))
        ax.text(5.45, y, f"h = {h:.2f}", ha="center", va="center", fontsize=10)
        arrow(ax, (6.15, y), (6.6, y))
        box(ax, 7.95, y, f"value {i}\ncolumn {i} of c_proj\npromotes {word}", COLORS["mlp"],
            width=2.7, height=0.8)
        line(ax, [9.3, 9.7, 9.7], [y, y, mid])
    ax.text(4.3, ys[0] + 0.45, "k_i . x", ha="center", va="bottom", fontsize=9)
    ax.text(5.45, ys[0] + 0.45, "GELU", ha="center", va="bottom", fontsize=9)
    ax.text(9.8, mid, "\u03a3", ha="left", va="center", fontsize=16)
    arrow(ax, (10.2, mid), (10.6, mid))
    ax.text(11.4, mid, "sum of\nh_i x value i\n(d_model)", ha="center", va="center", fontsize=10)
    ax.set_xlim(0.0, 12.3)
    ax.set_ylim(ys[-1] - 0.6, ys[0] + 1.0)
    ax.axis("off")


def kv_edit(ax, subject, old, new):
    """Draw ROME's edit: the subject's key k* used to give the value for `old`; after W' = W +
    update, k* gives v* (`new`), and a key the update is C^-1-orthogonal to keeps its value."""
    for name, word in [("subject", subject), ("old", old), ("new", new)]:
        validate.instance_of(word, name, str, "(a word)")
    box(ax, 1.4, 2.4, f"k*\nthe key of\n'{subject}'", COLORS["embedding"], width=2.0, height=1.1)
    box(ax, 1.4, 0.6, "another key k\nk^T C^-1 k* = 0", COLORS["embedding"], width=2.3, height=0.9)
    box(ax, 4.6, 2.4, "W (before)", "white", width=1.6, height=0.8)
    box(ax, 4.6, 0.6, "W' = W + the\nrank-one update", "white", width=2.2, height=0.9)
    arrow(ax, (2.4, 2.4), (3.8, 2.4))
    ax.text(8.3, 2.4, f"W k* + b = v0: says {old}", ha="left", va="center", fontsize=10)
    arrow(ax, (5.4, 2.4), (8.2, 2.4))
    line(ax, [2.4, 3.0, 3.0], [2.1, 2.1, 0.9])
    arrow(ax, (3.0, 0.9), (3.5, 0.9))
    arrow(ax, (2.55, 0.45), (3.5, 0.45))
    arrow(ax, (5.7, 0.9), (8.2, 1.2))
    ax.text(8.3, 1.25, f"W' k* + b = v*: says {new}", ha="left", va="center", fontsize=10,
            fontweight="bold")
    arrow(ax, (5.7, 0.4), (8.2, 0.3))
    ax.text(8.3, 0.3, "W' k = W k: unchanged", ha="left", va="center", fontsize=10)
    ax.set_xlim(0.0, 12.0)
    ax.set_ylim(-0.1, 3.2)
    ax.axis("off")
