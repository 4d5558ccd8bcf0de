"""Fetching a model from the Hugging Face Hub, with a bound in time on every network step.

    problem = hub.fetch("openai-community/gpt2")    # None once its files are in the local cache

First a probe: a connection to the Hub's host (CONNECT_S seconds) and one small HTTP request
(ANSWER_S seconds), each in a thread the caller waits for no longer than that, name lookup included.
A network that is absent fails the first; one that accepts connections and never answers fails the
second. Behind a proxy (HTTPS_PROXY) the proxy is the host tried. Then each file is fetched with
huggingface_hub, which draws a progress bar, with its own timeouts for the first answer (ETAG_S)
and for each read (READ_S), and the whole fetch is given up when no byte arrives for STALL_S (a Hub
that sends headers and then nothing, retried). What went wrong comes back as a phrase
("huggingface.co did not answer within 10 s"), for the caller to put in a sentence.

A model can also come from a folder: `check_folder` refuses one that cannot hold a saved model, and
`holds_gpt2_small` tells GPT-2 small's trained weights by what the folder holds (both, with
`cached` and ModelError, live in helpers.hub_local and are named here too).

For a cell that runs only on real models (notebook 15 measures GPT-2 small against OPT-125m):

    why_not = hub.why_not_real()   # None where real models may be fetched, else a phrase
    model, tokenizer = hub.load_causal_lm(name, device)
    hub.down_projections(model)    # each layer's c_proj (GPT-2) or fc2 (OPT): its input is h
"""

import os
import socket
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

import torch

from helpers import hub_local, lab_extra

CONNECT_S = 5.0        # to reach the host: name lookup and TCP connection
ANSWER_S = 10.0        # for the host's first answer to a small request
ETAG_S = 10.0          # huggingface_hub: for a file's first answer
READ_S = 20.0          # huggingface_hub: for each read while downloading
# the whole fetch: given up when no byte has arrived for this long (retries included)
STALL_S = 30.0
FILES = ["config.json", "generation_config.json", "tokenizer_config.json", "vocab.json",
         "merges.txt", "tokenizer.json", "model.safetensors"]
# tokenizer.json holds vocab and merges
OPTIONAL = {"generation_config.json", "vocab.json", "merges.txt"}
# A model already on this machine (helpers.hub_local), named here too.
ModelError, cached, check_folder = hub_local.ModelError, hub_local.cached, hub_local.check_folder
SMALL, WEIGHTS, holds_gpt2_small = hub_local.SMALL, hub_local.WEIGHTS, hub_local.holds_gpt2_small


def endpoint():
    """The Hub's address: $HF_ENDPOINT, else huggingface_hub's (https://huggingface.co)."""
    if os.environ.get("HF_ENDPOINT"):
        return os.environ["HF_ENDPOINT"].rstrip("/")
    from huggingface_hub import constants

    return constants.ENDPOINT.rstrip("/")


def _bounded(work, seconds):
    """work() in a daemon thread, waited for `seconds` at most: (finished in time, the error it
    raised)."""
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


def first_hop(url):
    """(host, port, what to call it) of the first machine a request to url reaches: the proxy that
    HTTPS_PROXY / https_proxy (HTTP_PROXY for http) names, unless NO_PROXY exempts the host; else
    the host."""
    parts = urlsplit(url)
    host = parts.hostname
    proxy = urllib.request.getproxies().get(parts.scheme)
    if proxy and not urllib.request.proxy_bypass(host):
        via = urlsplit(proxy if "://" in proxy else f"http://{proxy}")
        return via.hostname, via.port or (443 if via.scheme == "https"
                                          else 80), f"the proxy {via.hostname}"
    return host, parts.port or (443 if parts.scheme == "https" else 80), host


def probe(name):
    """None when the Hub answers within the bounds, else a phrase: what failed and after how long.

    Behind a proxy (a campus or company lab) the connection tried is the proxy's, and the request
    goes through it, as huggingface_hub's own requests do."""
    url = endpoint()
    host = urlsplit(url).hostname
    hop, port, said = first_hop(url)
    done, err = _bounded(lambda: socket.create_connection((hop, port), timeout=CONNECT_S).close(),
                         CONNECT_S)
    if not done or isinstance(err, (TimeoutError, socket.timeout)):
        return f"{said} could not be reached within {CONNECT_S:g} s"
    if err is not None:
        return (f"{said} cannot be reached ({getattr(err, 'strerror', None) or err}): no network "
                "here")

    def ask():
        request = urllib.request.Request(f"{url}/{name}/resolve/main/config.json", method="HEAD")
        try:
            # a fresh opener reads the proxy settings now; urlopen's keeps those of its first call
            urllib.request.build_opener(urllib.request.ProxyHandler()).open(
                request, timeout=ANSWER_S).close()
        except urllib.error.HTTPError:
            pass                                     # an answer, even 404: the host is there

    done, err = _bounded(ask, ANSWER_S)
    if not done or isinstance(err, (TimeoutError, socket.timeout)) or "timed out" in str(err):
        return f"{host} accepted a connection but did not answer within {ANSWER_S:g} s"
    if err is not None:
        return f"{host} did not answer ({getattr(err, 'reason', None) or err})"
    return None


def fetch(name, files=FILES):
    """Fetch `files` of the model into the local Hugging Face cache, with progress; None, or a
    phrase."""
    lab_extra.need()
    problem = probe(name)
    if problem:
        return problem
    from huggingface_hub import constants, hf_hub_download

    print(f"Fetching {name} from {endpoint()} into the Hugging Face cache, once: "
          f"{', '.join(files)}.", flush=True)
    saved = constants.HF_HUB_DOWNLOAD_TIMEOUT
    constants.HF_HUB_DOWNLOAD_TIMEOUT = READ_S   # read at each download; put back afterwards
    box = {"problem": None}

    def download():
        for filename in files:
            try:
                hf_hub_download(name, filename, etag_timeout=ETAG_S, endpoint=endpoint())
            except Exception as err:  # noqa: BLE001 - network, HTTP or disk: said in words
                # the Hub has no such file
                if filename in OPTIONAL and "EntryNotFound" in type(err).__name__:
                    continue
                said = (str(err).strip().splitlines() or [type(err).__name__])[0]
                box["problem"] = f"fetching {filename} failed ({type(err).__name__}: {said})"
                return

    try:
        if not _until_stalled(download, lambda: _bytes_cached(name, constants)):
            return (f"{urlsplit(endpoint()).hostname} sent nothing for {STALL_S:g} s while "
                    f"fetching {name}; the fetch was given up")
    finally:
        constants.HF_HUB_DOWNLOAD_TIMEOUT = saved
    return box["problem"]


def _bytes_cached(name, constants):
    """Bytes of the model's files in the Hugging Face cache so far, those still downloading
    included."""
    blobs = Path(constants.HF_HUB_CACHE) / f"models--{name.replace('/', '--')}" / "blobs"
    try:
        return sum(p.stat().st_size for p in blobs.iterdir())
    except OSError:
        return 0


def _until_stalled(work, progress, poll=0.5):
    """work() in a daemon thread while progress() keeps changing: True when it ended, False when it
    stalled for STALL_S (a Hub that sends headers and then nothing, and the library's retries after
    it)."""
    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    last, since = progress(), time.monotonic()
    while thread.is_alive():
        thread.join(poll)
        now = progress()
        if now != last:
            last, since = now, time.monotonic()
        elif time.monotonic() - since > STALL_S:
            return False
    return True


def why_not_real(name="openai-community/gpt2", setting="COURSE_GPT2"):
    """None when this runtime may fetch real models (Colab, or setting=real) and the Hub answers in
    time, else why not, as a phrase. Never touches the network unless asked; a probe waits CONNECT_S
    + ANSWER_S at most."""
    for value, arg in ((name, "name"), (setting, "setting")):
        if not isinstance(value, str):
            raise TypeError(f"{arg} must be a str (a Hugging Face model id; an environment "
                            f"variable), got {type(value).__name__}")
    wanted = os.environ.get(setting, "auto").strip() or "auto"
    if wanted == "tiny":
        return f"{setting}=tiny"
    if wanted not in ("auto", "real"):
        return f"{setting} names a folder, which holds one model"
    if os.environ.get("HF_HUB_OFFLINE", "0").lower() in ("1", "true", "yes", "on"):
        return "HF_HUB_OFFLINE is set"
    if wanted == "auto" and "google.colab" not in sys.modules:
        return f"not in Colab, and {setting} is not real"
    if lab_extra.missing():
        return f"the course's lab extra is not installed ({lab_extra.missing()})"
    return probe(name)


def load_causal_lm(name, device="cpu"):
    """(model, tokenizer) of a Hugging Face causal language model (a hub name or a saved folder), in
    eval mode on device; transformers' progress bars and notices kept quiet, then put back."""
    import warnings

    lab_extra.need()
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from transformers.utils import logging as hf_logging

    if not isinstance(name, (str, os.PathLike)):
        raise TypeError("name must be a Hugging Face model id or a folder (str), got "
                        f"{type(name).__name__}")
    level, bars = hf_logging.get_verbosity(), hf_logging.is_progress_bar_enabled()
    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()
    try:
        with warnings.catch_warnings():
            # Colab's note on an unset secret
            warnings.filterwarnings("ignore", message=".*HF_TOKEN.*")
            model = AutoModelForCausalLM.from_pretrained(name)
            tokenizer = AutoTokenizer.from_pretrained(name)
    finally:
        hf_logging.set_verbosity(level)
        if bars:
            hf_logging.enable_progress_bar()
    return model.to(device).eval(), tokenizer


def down_projections(model):
    """Each layer's down-projection, whose input is the MLP's hidden units h (..., d_ff): GPT-2's
    mlp.c_proj, OPT's fc2 (Llama-style models: mlp.down_proj)."""
    if not isinstance(model, torch.nn.Module):
        raise TypeError("model must be a Hugging Face model (an nn.Module), got "
                        f"{type(model).__name__}")
    body = next((getattr(model, a) for a in ("model", "transformer")
                 if getattr(model, a, None) is not None), model)
    if hasattr(body, "h"):                                      # GPT-2: transformer.h[i].mlp.c_proj
        return [block.mlp.c_proj for block in body.h]
    if hasattr(getattr(body, "decoder", None), "layers"):       # OPT: model.decoder.layers[i].fc2
        return [layer.fc2 for layer in body.decoder.layers]
    # Llama, Mistral, Qwen: model.layers[i].mlp.down_proj
    if hasattr(body, "layers"):
        return [layer.mlp.down_proj for layer in body.layers]
    raise TypeError("model must be a GPT-2, OPT or Llama-style model (its layers in "
                    ".transformer.h, .model.decoder.layers or .model.layers), got "
                    f"{type(model).__name__}")
