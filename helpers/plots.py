"""Plot style and a `show` that insists every figure is titled and labelled."""

import matplotlib
import matplotlib.pyplot as plt

COLORS = {
    "relu": "#d62728",
    "gelu": "#1f77b4",
    "gelu_tanh": "#17becf",
    "silu": "#2ca02c",
    "attention": "#9467bd",
    "mlp": "#ff7f0e",
    "cpu": "#7f7f7f",
    "gpu": "#2ca02c",
}

STYLE = {
    "figure.figsize": (7.0, 4.0),
    "figure.dpi": 90,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "font.size": 10,
    "svg.hashsalt": "course",
}


def use_course_style():
    """Apply the course's matplotlib settings."""
    matplotlib.rcParams.update(STYLE)


def unlabelled(fig):
    """Descriptions of the axes of fig that miss a title or an axis label."""
    problems = []
    for i, ax in enumerate(fig.axes):
        if not ax.get_visible() or getattr(ax, "_colorbar", None) is not None:
            continue
        if ax.get_label() == "<colorbar>":
            continue
        if not (ax.get_title() or fig._suptitle is not None):
            problems.append(f"axes {i} has no title")
        if ax.axison:
            for axis in ("x", "y") + (("z",) if hasattr(ax, "get_zlabel") else ()):
                if not getattr(ax, f"get_{axis}label")():
                    problems.append(f"axes {i} has no {axis} label")
    return problems


def show(fig=None):
    """Check the figure is titled and labelled, then show it (works in any notebook)."""
    fig = plt.gcf() if fig is None else fig
    problems = unlabelled(fig)
    if problems:
        raise ValueError("figure is not fully labelled: " + "; ".join(problems))
    plt.show()
