"""Progress bars: a widget bar in Jupyter and Colab, text elsewhere."""

from tqdm.auto import tqdm


def progress(iterable, desc=None, total=None):
    """Wrap an iterable in a progress bar (tqdm); use it on any loop over a few seconds."""
    return tqdm(iterable, desc=desc, total=total, leave=True)
