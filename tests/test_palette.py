"""The course palette stays readable for colour-blind learners.

Each colour is passed through Machado, Oliveira and Fernandes (2009)'s
simulation of deuteranopia and protanopia (severity 1, applied in linear
RGB) and compared in CIELAB: every pair of colours that a figure draws
together must stay at least 20 apart (CIE76 delta E), as they are for
normal vision.
"""

import itertools

import numpy as np
import pytest

from helpers import plots

MACHADO_2009 = {
    "normal vision": np.eye(3),
    "deuteranopia": np.array([[0.367322, 0.860646, -0.227968],
                              [0.280085, 0.672501, 0.047413],
                              [-0.011820, 0.042940, 0.968881]]),
    "protanopia": np.array([[0.152286, 1.052583, -0.204868],
                            [0.114503, 0.786281, 0.099216],
                            [-0.003882, -0.048116, 1.051998]]),
}
MIN_DELTA_E = 20


def linear_rgb(hex_colour):
    srgb = np.array([int(hex_colour[i:i + 2], 16) for i in (1, 3, 5)]) / 255
    return np.where(srgb <= 0.04045, srgb / 12.92, ((srgb + 0.055) / 1.055) ** 2.4)


def cielab(rgb):
    xyz = np.array([[0.4124, 0.3576, 0.1805],
                    [0.2126, 0.7152, 0.0722],
                    [0.0193, 0.1192, 0.9505]]) @ np.clip(rgb, 0, 1)
    t = xyz / np.array([0.95047, 1.0, 1.08883])  # D65 white
    f = np.where(t > (6 / 29) ** 3, np.cbrt(t), t / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def delta_e(a, b, vision):
    m = MACHADO_2009[vision]
    return float(np.linalg.norm(cielab(m @ linear_rgb(a)) - cielab(m @ linear_rgb(b))))


def test_the_simulation_reproduces_the_known_failure():
    # The old pair: ReLU red and SiLU green become the same olive for a deuteranope.
    assert delta_e("#d62728", "#2ca02c", "normal vision") > 100
    assert delta_e("#d62728", "#2ca02c", "deuteranopia") < 10


PAIRS = sorted({(group, a, b) for group, names in plots.GROUPS.items()
                for a, b in itertools.combinations(names, 2)})


@pytest.mark.parametrize("vision", list(MACHADO_2009))
@pytest.mark.parametrize(("group", "a", "b"), PAIRS)
def test_colours_drawn_together_stay_apart(group, a, b, vision):
    d = delta_e(plots.COLORS[a], plots.COLORS[b], vision)
    assert d >= MIN_DELTA_E, f"{a} and {b} ({group}) are only {d:.1f} apart for {vision}"


def test_every_course_colour_is_in_a_group():
    grouped = {name for names in plots.GROUPS.values() for name in names}
    assert set(plots.COLORS) == grouped
