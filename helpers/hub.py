"""Fetching a model from the Hugging Face Hub, with a bound in time on every network step.

    problem = hub.fetch("openai-community/gpt2")    # None once its files are in the local cache

First a probe: a connection to the Hub's host (CONNECT_S seconds) and one small HTTP request
(ANSWER_S seconds), each in a thread the caller waits for no longer than that, name lookup included.
A network that is absent fails the first; one that accepts connections and never answers fails the
second. Then each file is fetched with huggingface_hub, which draws a progress bar, with its own
timeouts for the first answer (ETAG_S) and for each read (READ_S). What went wrong comes back as a
phrase ("huggingface.co did not answer within 10 s"), for the caller to put in a sentence.

A model can also come from a folder: `check_folder` refuses one that cannot hold a saved model, and
`holds_gpt2_small` tells GPT-2 small's trained weights by what the folder holds.
"""

import json
import os
import socket
import threading
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

import torch

CONNECT_S = 5.0        # to reach the host: name lookup and TCP connection
ANSWER_S = 10.0        # for the host's first answer to a small request
ETAG_S = 10.0          # huggingface_hub: for a file's first answer
READ_S = 20.0          # huggingface_hub: for each read while downloading
FILES = ["config.json", "generation_config.json", "tokenizer_config.json", "vocab.json", "merges.txt",
         "tokenizer.json", "model.safetensors"]
OPTIONAL = {"generation_config.json", "vocab.json", "merges.txt"}   # tokenizer.json holds vocab and merges


class ModelError(ValueError):
    """A model that cannot be had, said in sentences that name the setting to change (no traceback in Jupyter)."""

    def _render_traceback_(self):
        return str(self).splitlines()


def cached(name):
    """True when the model's config, weights and tokenizer are in the local Hugging Face cache."""
    from huggingface_hub import try_to_load_from_cache

    def there(filename):
        return isinstance(try_to_load_from_cache(name, filename), str)
    return there("config.json") and there("tokenizer.json") and (
        there("model.safetensors") or there("pytorch_model.bin"))


WEIGHTS = ("model.safetensors", "pytorch_model.bin", "model.safetensors.index.json", "pytorch_model.bin.index.json")


def check_folder(folder, setting="COURSE_GPT2"):
    """Refuse, naming the setting that gave it, a folder that cannot hold a saved model; its config as a dict."""
    said = f"{setting}={str(folder)!r}"
    if not (folder / "config.json").is_file():
        raise ModelError(f"{said} names a folder without a config.json, so it holds no saved model. Set "
                         f"{setting} to a folder written by save_pretrained (the model and its tokenizer), or to "
                         "tiny or real.")
    try:
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ModelError(f"{said}: its config.json cannot be read ({err}). Save the model again, or set "
                         f"{setting}=tiny.") from None
    if not any((folder / w).is_file() for w in WEIGHTS):
        raise ModelError(f"{said} holds a config.json but no weights ({' or '.join(WEIGHTS[:2])}). Save the "
                         f"model again with save_pretrained, or set {setting}=tiny.")
    return config


SMALL = {"model_type": "gpt2", "n_layer": 12, "n_embd": 768, "n_head": 12, "vocab_size": 50257, "n_positions": 1024}


def holds_gpt2_small(folder):
    """True when a model folder holds GPT-2 small's trained weights, decided by what it holds.

    The rule: config.json has GPT-2 small's sizes (SMALL, and d_ff = 4 x 768), and the weights are
    trained, not freshly initialised: the final LayerNorm's weight (768 numbers, read alone) is not
    all ones, which every random initialisation (transformers' and the course's) leaves it at.
    """
    folder = Path(folder)
    config = check_folder(folder)
    if any(config.get(k) != v for k, v in SMALL.items()) or config.get("n_inner") not in (None, 3072):
        return False
    ln_f = None
    for prefix in ("transformer.", ""):
        key = f"{prefix}ln_f.weight"
        if (folder / "model.safetensors").is_file():
            from safetensors import safe_open

            with safe_open(folder / "model.safetensors", framework="pt") as f:
                ln_f = f.get_tensor(key) if key in f.keys() else None
        elif (folder / "pytorch_model.bin").is_file():
            ln_f = torch.load(folder / "pytorch_model.bin", map_location="cpu", mmap=True, weights_only=True).get(key)
        if ln_f is not None:
            break
    return ln_f is not None and not torch.all(ln_f == 1).item()


def endpoint():
    """The Hub's address: $HF_ENDPOINT, else huggingface_hub's (https://huggingface.co)."""
    if os.environ.get("HF_ENDPOINT"):
        return os.environ["HF_ENDPOINT"].rstrip("/")
    from huggingface_hub import constants

    return constants.ENDPOINT.rstrip("/")


def _bounded(work, seconds):
    """work() in a daemon thread, waited for `seconds` at most: (finished in time, the error it raised)."""
    box = {}

    def run():
        try:
            work()
        except Exception as err:  # noqa: BLE001 - handed back to the caller as a phrase
            box["error"] = err

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    return not thread.is_alive(), box.get("error")


def probe(name):
    """None when the Hub answers within the bounds, else a phrase: what failed and after how long."""
    url = endpoint()
    parts = urlsplit(url)
    host, port = parts.hostname, parts.port or (443 if parts.scheme == "https" else 80)
    done, err = _bounded(lambda: socket.create_connection((host, port), timeout=CONNECT_S).close(), CONNECT_S)
    if not done or isinstance(err, (TimeoutError, socket.timeout)):
        return f"{host} could not be reached within {CONNECT_S:g} s"
    if err is not None:
        return f"{host} cannot be reached ({getattr(err, 'strerror', None) or err}): no network here"

    def ask():
        request = urllib.request.Request(f"{url}/{name}/resolve/main/config.json", method="HEAD")
        try:
            urllib.request.urlopen(request, timeout=ANSWER_S).close()
        except urllib.error.HTTPError:
            pass                                     # an answer, even 404: the host is there

    done, err = _bounded(ask, ANSWER_S)
    if not done or isinstance(err, (TimeoutError, socket.timeout)) or "timed out" in str(err):
        return f"{host} accepted a connection but did not answer within {ANSWER_S:g} s"
    if err is not None:
        return f"{host} did not answer ({getattr(err, 'reason', None) or err})"
    return None


def fetch(name, files=FILES):
    """Fetch `files` of the model into the local Hugging Face cache, with progress; None, or a phrase."""
    problem = probe(name)
    if problem:
        return problem
    from huggingface_hub import constants, hf_hub_download

    print(f"Fetching {name} from {endpoint()} into the Hugging Face cache, once: {', '.join(files)}.",
          flush=True)
    saved = constants.HF_HUB_DOWNLOAD_TIMEOUT
    constants.HF_HUB_DOWNLOAD_TIMEOUT = READ_S   # read at each download; put back afterwards
    try:
        for filename in files:
            try:
                hf_hub_download(name, filename, etag_timeout=ETAG_S, endpoint=endpoint())
            except Exception as err:  # noqa: BLE001 - network, HTTP or disk: said in words
                if filename in OPTIONAL and "EntryNotFound" in type(err).__name__:   # the Hub has no such file
                    continue
                said = (str(err).strip().splitlines() or [type(err).__name__])[0]
                return f"fetching {filename} failed ({type(err).__name__}: {said})"
    finally:
        constants.HF_HUB_DOWNLOAD_TIMEOUT = saved
    return None
