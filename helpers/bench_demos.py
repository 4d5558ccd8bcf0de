"""The benchmark's demo rows: each notebook's live demo redrawn in the kernel, timed.

The target is 150 ms from a control's release to the image sent, on one torch thread
and on two (a laptop in a room runs either). tools/bench_browser.py times the same
demos in a browser, from the event to the frame painted.
"""

import statistics
import time

import torch

from helpers import demos
from helpers.bench_table import row
from helpers.timing import format_seconds


def demo_seconds(demo_module, repeat):
    """Kernel-side seconds of one demo: make(), prepare() (what show() does after the stored figure
    is sent: the background, and the images of the settings stored ahead), the first look at its
    sample setting (a demo just shown), then the median release (the draft image a move sends)
    and sharp image over `repeat` redraws that alternate between the sample and the default
    setting."""
    start = time.perf_counter()
    demo = demo_module.make()
    made = time.perf_counter() - start
    default = demo.values()
    demo.redraw_seconds()                                   # the stored figure: drawn by show()
    start = time.perf_counter()
    demo.prepare()                      # and what show() draws and stores after it
    prepared = time.perf_counter() - start
    first = demo.redraw_seconds(**demo_module.SAMPLE)
    settings = [default if i % 2 else demo_module.SAMPLE for i in range(repeat)]
    release = statistics.median(demo.redraw_seconds(**s) for s in settings)
    sharp = statistics.median(demo.redraw_seconds(sharp=True, **s) for s in settings)
    return {"make": made, "prepare": prepared, "first look": first, "release": release,
            "sharp": sharp}


def demo_rows(repeat, thread_counts=(1, 2)):
    """Each notebook's demo, kernel side, on one torch thread and on two (a laptop in a room runs
    either): the image sent on release (a draft at screen resolution), the sharp image that follows
    once the controls rest, the first look at a setting, and make() (once, when the cell runs)."""
    rows = []
    before = torch.get_num_threads()
    for name in demos.DEMOS:
        demo_module = demos.load(name)
        seconds = {}
        try:
            for threads in thread_counts:
                torch.set_num_threads(threads)
                seconds[threads] = demo_seconds(demo_module, repeat)
        except Exception as err:  # a broken demo is a finding, not a reason to stop
            rows.append(row(f"demo redraw {name}", f"error: {type(err).__name__}: {err}",
                            "<= 150 ms", False))
            continue
        finally:
            torch.set_num_threads(before)
        measured = "; ".join(
            f"{n} thread{'s' * (n > 1)}: release {format_seconds(t['release'])}, first look "
            f"{format_seconds(t['first look'])}, sharp {format_seconds(t['sharp'])}, make() "
            f"{format_seconds(t['make'])}, after show {format_seconds(t['prepare'])}"
            for n, t in seconds.items())
        worst = max(max(t["release"], t["first look"]) for t in seconds.values())
        rows.append(row(f"demo redraw {name} (kernel)", measured, "<= 150 ms", worst <= 0.150))
    return rows
