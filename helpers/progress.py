"""Progress bars: a live bar while a loop runs, one summary line once it is done.

In Jupyter and Colab the bar is an ipywidgets bar that disappears when the loop
ends, leaving "fitting: 24 of 24 done in 2.31 s", so that a stored notebook
(GitHub, a projector) never shows a bar frozen at 0%. Elsewhere (a script, a
test) it is a tqdm bar on stderr. The summary line is in the course's language
(helpers.language); the notebook's `desc` comes translated from its Korean cell.
"""

import time

from helpers import validate
from helpers.language import said
from helpers.timing import format_seconds

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def _in_kernel():
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and hasattr(shell, "kernel")


def progress(iterable, desc=None, total=None):
    """Wrap a loop over a few seconds or more: yields the items, shows how far it is."""
    if not hasattr(iterable, "__iter__"):
        raise TypeError(f"iterable must be something a for loop walks through (a list, a range), "
                        f"got {type(iterable).__name__} {iterable!r}")
    if total is not None:
        validate.non_negative_int(total, "total")
    if desc is not None and not isinstance(desc, str):
        raise TypeError(f"desc must be a string (the bar's label), got {type(desc).__name__}")
    if total is None and hasattr(iterable, "__len__"):
        total = len(iterable)
    if not _in_kernel():
        from tqdm import tqdm

        yield from tqdm(iterable, desc=desc, total=total)
        return
    yield from _widget_progress(iterable, desc or said("in progress"), total)


def _widget_progress(items, desc, total):
    from IPython.display import display
    from ipywidgets import HBox, IntProgress, Label

    bar = IntProgress(min=0, max=max(total or 1, 1), description=desc,
                      style={"description_width": "initial"})
    label = Label("")
    box = HBox([bar, label])
    model = {"model_id": box.model_id, "version_major": 2, "version_minor": 0}
    # text/plain stays "" before and after, so that the stored output and a fresh run agree.
    handle = display({WIDGET_VIEW: model, "text/plain": ""}, raw=True, display_id=True)
    start = time.perf_counter()
    done = 0
    try:
        for item in items:
            yield item
            done += 1
            bar.value = done
            label.value = f"{done}/{total}" if total else f"{done}"
    finally:
        handle.update({"text/plain": ""}, raw=True)  # the bar goes; its line stays empty
        for widget in (label, bar, box):
            widget.close()
    print(summary(desc, done, total, time.perf_counter() - start))


def summary(desc, done, total, seconds):
    """The line a finished bar leaves: "fitting: 24 of 24 done in 2.31 s" (total None: "24 done in
    ...")."""
    if total:
        return said("{desc}: {done} of {total} done in {time}", desc=desc, done=done, total=total,
                    time=format_seconds(seconds))
    return said("{desc}: {done} done in {time}", desc=desc, done=done, time=format_seconds(seconds))
