"""Live figures and the labelled-figure rule."""

from pathlib import Path

import matplotlib.pyplot as plt
import pytest
from ipywidgets import IntSlider

from helpers import demos, plots
from helpers.widgets import LiveFigure


def draw_line(fig, n):
    ax = fig.add_subplot()
    ax.plot(range(n))
    ax.set(title=f"{n} points", xlabel="i", ylabel="value")


def test_render_follows_the_controls():
    live = LiveFigure(draw_line, {"n": IntSlider(value=3, min=1, max=10)})
    assert live.render().axes[0].get_title() == "3 points"
    assert live.render(n=7).axes[0].get_title() == "7 points"
    assert live.values() == {"n": 7}
    with pytest.raises(ValueError, match="unknown control 'm'"):
        live.render(m=1)


def test_moving_a_control_redraws():
    live = LiveFigure(draw_line, {"n": IntSlider(value=3, min=1, max=10)})
    live.render()
    live.controls["n"].value = 5
    assert live.figure.axes[0].get_title() == "5 points"


def test_show_refuses_unlabelled_figures():
    fig, ax = plt.subplots()
    ax.plot([1, 2])
    with pytest.raises(ValueError, match="no title.*no x label.*no y label"):
        plots.show(fig)
    plt.close(fig)


NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
WITH_NOTEBOOK = [n for n in sorted(demos.DEMOS) if (NOTEBOOKS / f"{n}.ipynb").exists()]


@pytest.mark.parametrize("notebook", WITH_NOTEBOOK)
def test_every_demo_draws_its_sample_labelled(notebook):
    module = demos.load(notebook)
    live = module.make()
    live.render()
    fig = live.render(**module.SAMPLE)
    assert plots.unlabelled(fig) == []
    assert live.redraw_seconds() > 0
