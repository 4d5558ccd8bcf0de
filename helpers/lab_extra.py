"""The lab extra (`pip install "inside-transformer-mlp[lab]"`, what `make lab` installs): GPT-2 from
Hugging Face.

Notebooks 13, 14 and 16 load GPT-2 through helpers.gpt2 and helpers.hub, which call `need()` first,
so that a course installed without the extra says which extra to install, in the checks' language,
instead of stopping with ModuleNotFoundError from inside helpers.
"""

import importlib.util

from helpers import language
from helpers.language import say

# what the lab extra adds for GPT-2
LAB = ("transformers", "tokenizers", "huggingface_hub", "safetensors")
NO_LAB = ("This install of the course lacks {modules}, which GPT-2 from Hugging Face needs: "
          "install the course's lab extra, pip install \"inside-transformer-mlp[lab]\" (in the "
          "course's folder: make lab), then restart the kernel.")


class MissingExtra(ImportError):
    """The lab extra is not installed: one sentence, no traceback in Jupyter."""

    def _render_traceback_(self):
        return str(self).splitlines()


def missing(modules=LAB):
    """The lab extra's packages this Python lacks, as 'transformers, tokenizers' ('' when none)."""
    return ", ".join(m for m in modules if importlib.util.find_spec(m) is None)


def need(modules=LAB):
    """Raise MissingExtra, naming the extra to install, when this Python lacks one of the lab
    extra's packages."""
    absent = missing(modules)
    if absent:
        raise MissingExtra(language.translate(say(NO_LAB, modules=absent)))
