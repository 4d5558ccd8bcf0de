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


def test_projector_mode_draws_figures_and_demos_larger():
    plots.use_course_style()
    live = LiveFigure(draw_line, {"n": IntSlider(value=3, min=1, max=10)})
    try:
        _, normal = plots.png_output(live.render())
        assert "on" in plots.presentation()
        _, large = plots.png_output(live.render())
    finally:
        plots.presentation(False)
    assert large["image/png"]["width"] == round(1.5 * normal["image/png"]["width"])


def test_figures_are_sent_at_twice_their_size_with_alt_text():
    fig, ax = plt.subplots(figsize=(4, 2), dpi=90)
    ax.plot([1, 2])
    ax.set(title="A rising line", xlabel="x", ylabel="y")
    data, meta = plots.png_output(fig)
    png = data["image/png"]
    width = int.from_bytes(png[16:20], "big")        # the PNG header's width field
    assert meta["image/png"]["width"] == 360 and width == 720
    assert meta["image/png"]["alt"] == "Figure: A rising line"
    plt.close(fig)


def test_show_refuses_text_too_small_for_a_projector():
    fig, ax = plt.subplots()
    ax.plot([1, 2])
    ax.set(title="t", xlabel="x", ylabel="y")
    ax.text(1, 1, "tiny", fontsize=7)
    with pytest.raises(ValueError, match="'tiny' is 7 pt"):
        plots.show(fig)
    plt.close(fig)


def test_sliders_redraw_on_release_and_labels_are_not_clipped():
    slider = IntSlider(value=3, min=1, max=10, description="a long description")
    LiveFigure(draw_line, {"n": slider})
    assert slider.continuous_update is False
    assert slider.style.description_width == "initial"
