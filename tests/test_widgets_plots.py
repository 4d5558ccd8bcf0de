"""Live figures and the labelled-figure rule."""

import asyncio
import io
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pytest
from ipywidgets import IntSlider
from matplotlib.figure import Figure

from helpers import demos, plots, widgets
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


def test_a_title_wider_than_the_figure_is_wrapped_inside_it():
    plots.use_course_style()
    fig, ax = plt.subplots(figsize=(7.5, 4.0), layout="constrained")
    ax.plot([1, 2], [1, 2])
    long = ("GELU's off share grows with the scale of h: 1% at std(h) = 0.57, 10% at 1, 26% at 2\n"
            "ReLU's stays at half, whatever the scale")
    ax.set_title(long)
    plots.fit_titles(fig)
    fig.canvas.draw()
    box = ax.title.get_window_extent(fig.canvas.get_renderer())
    assert box.x0 >= 0 and box.x1 <= fig.bbox.width, f"the title spans {box.x0:.0f}-{box.x1:.0f} px of {fig.bbox.width:.0f}"
    assert ax.get_title().replace("\n", " ") == long.replace("\n", " "), "wrapping changed the words"
    ax.set_title("short")
    plots.fit_titles(fig)
    assert ax.get_title() == "short"
    plt.close(fig)
    bare = Figure(figsize=(3, 2))            # outside pyplot, without a canvas of its own
    bare.add_subplot().set_title(long)
    plots.fit_titles(bare)
    assert bare.axes[0].get_title().count("\n") >= 2, "a bare Figure's title was not wrapped"


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


def texts(fig):
    """Every title, label and tick label of a figure, drawn (tick labels exist once drawn)."""
    fig.canvas.draw()
    return [t.get_text() for ax in fig.axes for t in
            [ax.title, ax.xaxis.label, ax.yaxis.label, *ax.get_xticklabels(), *ax.get_yticklabels()]
            if t.get_text()]


@pytest.mark.parametrize("notebook", [n for n in WITH_NOTEBOOK if demos.load(n).make().update is not None])
def test_a_demo_updated_in_place_shows_what_a_fresh_draw_shows(notebook):
    module = demos.load(notebook)
    updated = module.make()
    first = updated.render()
    assert updated.render(**module.SAMPLE) is first, "update drew a new figure instead of changing it"
    fresh = module.make()
    fresh.update = None
    assert texts(first) == texts(fresh.render(**module.SAMPLE))


def pixels(data):
    """An image's RGB pixels as integers."""
    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(data["image/png"])).convert("RGB")).astype(int)


def share_differing(a, b):
    """The share of pixels that differ visibly (by more than 32 of 255 in a channel)."""
    assert a.shape == b.shape, f"images of {a.shape} and {b.shape} pixels"
    return float(np.mean(np.abs(a - b).max(axis=2) > 32))


@pytest.fixture(params=[False, True], ids=["normal", "projector"])
def screen(request):
    """Normal mode, or projector mode (figures drawn at another resolution, often not a whole dpi)."""
    plots.use_course_style()
    plots.presentation(request.param)
    yield request.param
    plots.presentation(False)


@pytest.mark.parametrize("notebook", [n for n in WITH_NOTEBOOK if demos.load(n).make().update is not None])
def test_a_demo_repainted_in_place_shows_what_a_fresh_draw_shows(notebook, screen):
    """The drafts a move sends, and the sharp image after them, look like a fresh drawing of the
    same setting: an artist that changed but was not returned, or axes that moved, would not."""
    module = demos.load(notebook)
    live = module.make()
    live.render()
    live.prepare()
    default = live.values()
    fresh = module.make()
    fresh.update = None
    for setting in (module.SAMPLE, default, module.SAMPLE):
        live.render(**setting)
        draft, _ = live.image(sharp=False)
        fresh.render(**setting)
        share = share_differing(pixels(draft), pixels(fresh.image(sharp=False)[0]))
        assert share <= 0.001, f"the draft of {setting}: {share:.2%} of its pixels differ from a fresh drawing"
    share = share_differing(pixels(live.image(sharp=True)[0]), pixels(fresh.image(sharp=True)[0]))
    assert share <= 0.001, f"the sharp image: {share:.2%} of its pixels differ from a fresh drawing"
    live.render(**default)      # a draft after a sharp image (drawn at twice the size) is still right
    fresh.render(**default)
    share = share_differing(pixels(live.image(sharp=False)[0]), pixels(fresh.image(sharp=False)[0]))
    assert share <= 0.001, f"a draft after the sharp image: {share:.2%} of its pixels differ"


def draw_two_lines(fig, n):
    ax = fig.add_subplot()
    ax.set(xlim=(0, 10), ylim=(0, 10), title="a line of n points", xlabel="i", ylabel="value")
    (moving,) = ax.plot(range(n), label="moves")
    ax.plot([0, 10], [5, 5], label="stays")
    return {"ax": ax, "moving": moving, "legend": ax.legend()}


def test_an_update_that_returns_its_artists_repaints_only_those():
    def update(fig, state, n):
        state["moving"].set_data(range(n), range(n))
        return [state["moving"]]

    live = LiveFigure(draw_two_lines, {"n": IntSlider(value=3, min=1, max=10)}, update=update)
    live.render()
    live.prepare()
    drawn = []
    original = live.figure.draw_artist
    live.figure.draw_artist = lambda artist: drawn.append(artist) or original(artist)
    live.render(n=8)
    live.image(sharp=False)
    assert drawn == [live._state["moving"]], drawn
    assert not live._state["ax"].lines[1].get_animated()


def test_a_move_never_repaints_over_a_background_an_earlier_move_left_stale():
    """Two renders with no image between, the second changing less than the first, or an update
    that returned None (anything changed): the next draft still shows what a fresh drawing does."""
    def update(fig, state, n, level):
        changed = []
        if state.get("n") != n:
            state["moving"].set_data(range(n), range(n))
            changed.append(state["moving"])
        if state.get("level") != level:
            state["ax"].lines[1].set_ydata([level, level])
            changed.append(state["ax"].lines[1])
        state.update(n=n, level=level)
        title = "a line at the top" if level == 9 else "a line of n points"
        if state["ax"].get_title() != title:     # the title changes: None says "redraw everything"
            state["ax"].set_title(title)
            return None
        return changed

    def draw(fig, n, level):
        state = draw_two_lines(fig, n)
        update(fig, state, n, level)
        return state

    def controls():
        return {"n": IntSlider(value=2, min=1, max=10), "level": IntSlider(value=5, min=0, max=10)}

    live = LiveFigure(draw, controls(), update=update)
    fresh = LiveFigure(draw, controls())
    live.render()
    live.prepare()
    for moves in ([{"n": 4}], [{"level": 8}, {"n": 6}], [{"n": 3}], [{"level": 9}], [{"n": 5}], [{"level": 2}],
                  [{"level": 9}, {"n": 4}], [{"n": 7}]):
        for move in moves:
            live.render(**move)
        fresh.render(**live.values())
        share = share_differing(pixels(live.image(sharp=False)[0]), pixels(fresh.image(sharp=False)[0]))
        assert share <= 0.001, f"after the moves {moves}: {share:.2%} of the pixels differ"


def test_a_whole_axes_can_be_repainted_and_the_sharp_image_still_holds_it():
    """An Axes returned by update is left out of the background; the figure leaves animated
    children out of every draw, saved ones too, so the sharp and stored images draw it again."""
    def draw(fig, n):
        left, right = fig.subplots(1, 2)
        left.set(title="stays", xlabel="i", ylabel="value")
        right.bar(range(n), range(1, n + 1))
        right.set(title=f"{n} bars", xlabel="i", ylabel="value", xlim=(-1, 10), ylim=(0, 11))
        return right

    def update(fig, right, n):
        right.clear()
        right.bar(range(n), range(1, n + 1))
        right.set(title=f"{n} bars", xlabel="i", ylabel="value", xlim=(-1, 10), ylim=(0, 11))
        return [right]

    live = LiveFigure(draw, {"n": IntSlider(value=3, min=1, max=10)}, update=update, figsize=(6, 3))
    fresh = LiveFigure(draw, {"n": IntSlider(value=3, min=1, max=10)}, figsize=(6, 3))
    live.render()
    live.prepare()
    live.render(n=7)
    fresh.render(n=7)
    for sharp in (False, True):
        share = share_differing(pixels(live.image(sharp=sharp)[0]), pixels(fresh.image(sharp=sharp)[0]))
        assert share <= 0.001, f"sharp={sharp}: {share:.2%} of the pixels differ from a fresh drawing"


@pytest.mark.parametrize("returned, error, words", [
    (lambda s: [s["legend"].get_texts()[0]], ValueError, "part of another artist"),
    (lambda s: ["moves"], TypeError, "must return the artists it changed"),
    (lambda s: [plt.figure().add_subplot().plot([1])[0]], ValueError, "not in this figure"),
])
def test_an_update_must_return_artists_it_can_repaint(returned, error, words):
    live = LiveFigure(draw_two_lines, {"n": IntSlider(value=3, min=1, max=10)},
                      update=lambda fig, state, n: returned(state))
    live.render()
    with pytest.raises(error, match=words):
        live.render(n=4)
    plt.close("all")


def test_update_changes_the_figure_in_place_and_draw_runs_once():
    calls = []

    def draw(fig, n):
        calls.append(n)
        ax = fig.add_subplot()
        (line,) = ax.plot(range(n))
        ax.set(title=f"{n} points", xlabel="i", ylabel="value")
        return line

    def update(fig, line, n):
        line.set_data(range(n), range(n))
        fig.axes[0].set_title(f"{n} points")

    live = LiveFigure(draw, {"n": IntSlider(value=3, min=1, max=10)}, update=update)
    fig = live.render()
    assert live.render(n=7) is fig and fig.axes[0].get_title() == "7 points"
    assert calls == [3] and len(fig.axes[0].lines[0].get_xdata()) == 7
    with pytest.raises(TypeError, match="update must be a function"):
        LiveFigure(draw, {"n": IntSlider()}, update="no")


def test_a_move_sends_a_draft_then_the_sharp_image_once_the_controls_rest(monkeypatch):
    monkeypatch.setattr(widgets, "SHARP_AFTER_S", 0.05)
    live = LiveFigure(draw_line, {"n": IntSlider(value=3, min=1, max=10)}, figsize=(4, 2))
    sent = []

    class Handle:
        def update(self, data, metadata, raw):
            sent.append(int.from_bytes(data["image/png"][16:20], "big"))   # the PNG's width in pixels

    live._handle = Handle()
    live.render()
    width = round(4 * live.figure.dpi)

    async def moves():
        live.controls["n"].value = 5
        live.controls["n"].value = 6      # a second move before the first rests: one sharp image
        await asyncio.sleep(0.2)

    asyncio.run(moves())
    assert sent == [width, width, width * plots.RETINA], sent
    live.controls["n"].value = 7           # no event loop (a script): the sharp image at once
    assert sent[-1] == width * plots.RETINA


def test_show_says_the_demo_needs_a_kernel_until_it_redraws(monkeypatch):
    shown = []
    monkeypatch.setattr(widgets, "display", lambda *a, **k: shown.append((a, k)))
    live = LiveFigure(draw_line, {"n": IntSlider(value=3, min=1, max=10)})
    live.show()
    assert "need a running kernel" in live.note.value and live.note.layout.display != "none"
    stand_in = shown[0][0][0]
    assert stand_in["text/plain"].startswith("Live demo: controls n")
    live.controls["n"].value = 4
    assert live.note.layout.display == "none", "the note stays after the kernel answered"


def test_projector_mode_enlarges_the_controls(monkeypatch):
    """The demo's style is shown in both modes (its figure sizes itself to the window); only in
    projector mode do the controls carry the class that enlarges them."""
    shown = []
    monkeypatch.setattr(widgets, "display", lambda *a, **k: shown.append(a[0]))
    plots.use_course_style()
    live = LiveFigure(draw_line, {"n": IntSlider(value=3, min=1, max=10)})
    live.show()
    assert "course-projector" not in live.box._dom_classes
    assert "course-demo" in live.box._dom_classes and "course-controls-1" in live.box._dom_classes
    try:
        plots.presentation()
        assert plots.projector_mode()
        live.show()
    finally:
        plots.presentation(False)
    assert "course-projector" in live.box._dom_classes
    css = [s.data for s in shown if isinstance(s, widgets.HTML)]
    assert len(css) == 2 and all("--jp-widgets-font-size: 20px" in c and "100vw" in c for c in css)
    assert not plots.projector_mode()


def test_a_demo_figure_is_shown_at_most_400_px_tall():
    assert widgets.fit_on_screen({"image/png": {"width": 1080, "height": 540}}) == \
        {"image/png": {"width": 800, "height": 400}}
    assert widgets.fit_on_screen({"image/png": {"width": 630, "height": 360}}) == \
        {"image/png": {"width": 630, "height": 360}}


def png_size(data):
    """(width, height) of a PNG, from its header."""
    png = data["image/png"]
    return int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")


def test_projector_mode_draws_figures_and_demos_larger():
    plots.use_course_style()
    live = LiveFigure(draw_line, {"n": IntSlider(value=3, min=1, max=10)}, figsize=(4, 2))
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


def test_a_tall_demo_in_projector_mode_is_drawn_at_the_size_it_shows():
    """1.5x of a 5-inch-tall figure is 675 px, more than projector mode draws: the figure is drawn
    640 px tall (the style sizes it to the window), so that a draft has no more pixels than a
    1080p screen shows (fewer to paint, encode and send)."""
    plots.use_course_style()
    def update(fig, state, n):
        state["moving"].set_data(range(n), range(n))
        return [state["moving"]]

    live = LiveFigure(draw_two_lines, {"n": IntSlider(value=3, min=1, max=10)}, update=update, figsize=(8, 5))
    try:
        plots.presentation()
        live.render()
        live.prepare()
        for sharp, ratio in ((False, 1), (True, plots.RETINA)):
            live.render(n=4)
            data, metadata = live.image(sharp=sharp)
            shown = metadata["image/png"]["width"], metadata["image/png"]["height"]
            assert shown == (1024, 640), f"sharp={sharp}: shown at {shown}, expected 1024x640 (1080x675 capped)"
            assert png_size(data) == (1024 * ratio, 640 * ratio), \
                f"sharp={sharp}: a {png_size(data)} PNG, expected {ratio} PNG pixels per screen pixel"
    finally:
        plots.presentation(False)


@pytest.mark.parametrize("notebook", WITH_NOTEBOOK)
def test_every_label_a_demo_shows_draws_its_string(notebook):
    """A Label (text drawn from an image of it) that an Axes clips, or that sits off its canvas,
    draws nothing, in the fresh drawing as in the drafts: each visible one must have an image."""
    from helpers.demos.stamps import Label

    module = demos.load(notebook)
    live = module.make()
    fig = live.render(**module.SAMPLE)
    live.image(sharp=False)
    renderer = fig.canvas.get_renderer()
    blank = [label.get_text() for label in fig.findobj(Label)
             if label.get_visible() and label.get_text().strip() and label._stored(renderer)[0] is None]
    assert blank == [], f"these Labels draw nothing: {blank} (clipped by their Axes? pass clip_on=False)"


@pytest.mark.parametrize("limits", [(-4.2, 4.2), (-8.4, 2.4), (-0.013, 0.02), (0.95, 1.05), (-1e-3, 1e-3),
                                    (1000.0, 1000.5), (3.0, -2.0)])
def test_following_tick_labels_say_and_sit_where_the_axis_own_would(limits):
    """The ticks and strings FollowingTickLabels shows are those matplotlib's axis shows for the
    same limits (its own locator and formatter, offsets and minus signs included), in the same place."""
    from helpers.demos.stamps import FollowingTickLabels

    fig = plt.figure(figsize=(6, 3))
    own, stamped = fig.subplots(1, 2)
    for ax in (own, stamped):
        ax.locator_params(nbins=4)
        ax.set_ylim(*limits)
    ticks = FollowingTickLabels(stamped.yaxis)
    ticks.follow()
    fig.canvas.draw()
    low, high = sorted(limits)
    own_labels = [t for t in own.get_yticklabels()    # the ones inside the limits, which the axis draws
                  if t.get_text() and low - 1e-9 * (high - low) <= t.get_position()[1] <= high + 1e-9 * (high - low)]
    expected = [(t.get_position()[1], t.get_text()) for t in own_labels]
    shown = [(label.get_position()[1], label.get_text()) for label in ticks.shown]
    assert shown == expected, f"for limits {limits}: shown {shown}, the axis itself shows {expected}"
    assert stamped.get_ylim() == own.get_ylim(), "following the ticks moved the limits"
    assert all(t.get_text() == "" for t in stamped.get_yticklabels()), "the axis still draws its own tick labels"
    for label, tick in zip(ticks.shown, own_labels, strict=True):    # side by side: the same height, the same gap
        x, y = label.get_transform().transform(label.get_position())
        own_x, own_y = tick.get_transform().transform(tick.get_position())
        assert abs(y - own_y) < 1e-6 and abs((x - stamped.bbox.x0) - (own_x - own.bbox.x0)) < 1e-6, \
            f"{label.get_text()!r} sits at {(x, y)}, the axis' own at {(own_x, own_y)} (left of the other axes)"
    plt.close(fig)


def test_following_tick_labels_say_when_there_are_too_few_labels():
    from helpers.demos.stamps import FollowingTickLabels

    fig, ax = plt.subplots()
    ticks = FollowingTickLabels(ax.xaxis, most=3)
    ax.set_xlim(0, 10)
    with pytest.raises(ValueError, match="more than the 3 Labels.*most=6"):
        ticks.follow()
    plt.close(fig)


def draw_counted(fig, n):
    from helpers.demos.stamps import Label

    ax = fig.add_subplot()
    ax.set(xlim=(0, 10), ylim=(0, 10), title="a count", xlabel="i", ylabel="value")
    return {"count": ax.add_artist(Label(5, 5, f"{n} points, counted", ha="center"))}


def update_counted(fig, state, n):
    state["count"].set_text(f"{n} points, counted")
    return [state["count"]]


def test_ahead_makes_the_images_of_those_settings_when_the_figure_shows(monkeypatch):
    """After show()'s prepare, a first look at a setting named in `ahead` makes no image of text,
    the controls have not moved, and the figure shows the controls' setting, as a fresh drawing."""
    from helpers.demos import stamps

    def make(ahead=()):
        return LiveFigure(draw_counted, {"n": IntSlider(value=3, min=1, max=10)}, update=update_counted,
                          figsize=(4, 2), ahead=ahead)

    live = make(ahead=[{"n": n} for n in range(1, 11)])
    live.render()
    live.prepare()
    assert live.values() == {"n": 3}, "storing ahead moved a control"
    fresh = make()
    fresh.update = None
    fresh.render()
    share = share_differing(pixels(live.image(sharp=False)[0]), pixels(fresh.image(sharp=False)[0]))
    assert share <= 0.001, f"after storing ahead the figure shows another setting: {share:.2%} of pixels differ"
    made = []
    original = stamps.Label._drawn_at
    monkeypatch.setattr(stamps.Label, "_drawn_at", lambda self, *a: made.append(self.get_text()) or original(self, *a))
    for n in (7, 1, 10):
        live.render(n=n)
        live.image(sharp=False)
    assert made == [], f"a first look at a setting stored ahead laid out {made}"
    live.render(n=3)
    live.ahead = []
    not_ahead = make()
    not_ahead.render()
    not_ahead.prepare()
    not_ahead.render(n=9)
    not_ahead.image(sharp=False)
    assert made == [], "the images are shared by every figure: a string made once is not made again"
    wrong = make(ahead=[{"m": 1}])
    wrong.render()
    with pytest.raises(ValueError, match=r"ahead names \['m'\], which are not controls"):
        wrong.prepare()


@pytest.mark.parametrize("shape", [(1, 1), (3, 5), (40, 33)])
def test_a_quick_png_holds_exactly_its_pixels(shape):
    """Any RGBA pixels, rows that repeat or not, come back from the PNG as they went in."""
    from PIL import Image

    rng = np.random.default_rng(0)
    pixels = rng.integers(0, 256, (*shape, 4), dtype=np.uint8)
    pixels[shape[0] // 2:] = pixels[shape[0] // 2]          # half the rows repeat, as a figure's do
    back = np.asarray(Image.open(io.BytesIO(plots.quick_png(pixels))).convert("RGBA"))
    assert back.shape == pixels.shape and np.array_equal(back, pixels), "the PNG does not hold the pixels it was given"
