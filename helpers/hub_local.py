"""A model already on this machine: in the local Hugging Face cache, or in a saved model folder.

`cached(name)` says whether a Hub model's files are in the cache; `check_folder` refuses, naming
the setting that gave it, a folder that cannot hold a saved model; `holds_gpt2_small` tells GPT-2
small's trained weights by what a folder holds. ModelError is the error of every way a model
cannot be had (helpers.hub fetches one; helpers.gpt2 loads one).
"""

import json
from pathlib import Path

import torch

from helpers import lab_extra


class ModelError(ValueError):
    """A model that cannot be had, said in sentences that name the setting to change (no traceback
    in Jupyter)."""

    def _render_traceback_(self):
        return str(self).splitlines()


def cached(name):
    """True when the model's config, weights and tokenizer are in the local Hugging Face cache."""
    lab_extra.need()
    from huggingface_hub import try_to_load_from_cache

    def there(filename):
        return isinstance(try_to_load_from_cache(name, filename), str)
    return there("config.json") and there("tokenizer.json") and (
        there("model.safetensors") or there("pytorch_model.bin"))


WEIGHTS = ("model.safetensors", "pytorch_model.bin", "model.safetensors.index.json",
           "pytorch_model.bin.index.json")


def check_folder(folder, setting="COURSE_GPT2"):
    """Refuse, naming the setting that gave it, a folder that cannot hold a saved model; its config
    as a dict."""
    said = f"{setting}={str(folder)!r}"
    if not (folder / "config.json").is_file():
        raise ModelError(f"{said} names a folder without a config.json, so it holds no saved "
                         f"model. Set {setting} to a folder written by save_pretrained (the model "
                         "and its tokenizer), or to tiny or real.")
    try:
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ModelError(f"{said}: its config.json cannot be read ({err}). Save the model again, "
                         f"or set {setting}=tiny.") from None
    if not any((folder / w).is_file() for w in WEIGHTS):
        raise ModelError(f"{said} holds a config.json but no weights ({' or '.join(WEIGHTS[:2])}). "
                         f"Save the model again with save_pretrained, or set {setting}=tiny.")
    return config


SMALL = {"model_type": "gpt2", "n_layer": 12, "n_embd": 768, "n_head": 12, "vocab_size": 50257,
         "n_positions": 1024}


def holds_gpt2_small(folder):
    """True when a model folder holds GPT-2 small's trained weights, decided by what it holds.

    The rule: config.json has GPT-2 small's sizes (SMALL, and d_ff = 4 x 768), and the weights are
    trained, not freshly initialised: the final LayerNorm's weight (768 numbers, read alone) is not
    all ones, which every random initialisation (transformers' and the course's) leaves it at.
    """
    folder = Path(folder)
    config = check_folder(folder)
    if (any(config.get(k) != v for k, v in SMALL.items())
            or config.get("n_inner") not in (None, 3072)):
        return False
    ln_f = None
    for prefix in ("transformer.", ""):
        key = f"{prefix}ln_f.weight"
        if (folder / "model.safetensors").is_file():
            from safetensors import safe_open

            with safe_open(folder / "model.safetensors", framework="pt") as f:
                ln_f = f.get_tensor(key) if key in f.keys() else None
        elif (folder / "pytorch_model.bin").is_file():
            ln_f = torch.load(folder / "pytorch_model.bin", map_location="cpu", mmap=True,
                              weights_only=True).get(key)
        if ln_f is not None:
            break
    return ln_f is not None and not torch.all(ln_f == 1).item()
