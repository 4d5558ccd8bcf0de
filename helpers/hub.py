"""Fetching a model from the Hugging Face Hub, with a bound in time on every network step.

    problem = hub.fetch("openai-community/gpt2")    # None once its files are in the local cache

First a probe: a connection to the Hub's host (CONNECT_S seconds) and one small HTTP request
(ANSWER_S seconds), each in a thread the caller waits for no longer than that, name lookup included.
A network that is absent fails the first; one that accepts connections and never answers fails the
second. Then each file is fetched with huggingface_hub, which draws a progress bar, with its own
timeouts for the first answer (ETAG_S) and for each read (READ_S). What went wrong comes back as a
phrase ("huggingface.co did not answer within 10 s"), for the caller to put in a sentence.
"""

import os
import socket
import threading
import urllib.error
import urllib.request
from urllib.parse import urlsplit

CONNECT_S = 5.0        # to reach the host: name lookup and TCP connection
ANSWER_S = 10.0        # for the host's first answer to a small request
ETAG_S = 10.0          # huggingface_hub: for a file's first answer
READ_S = 20.0          # huggingface_hub: for each read while downloading
FILES = ["config.json", "generation_config.json", "tokenizer_config.json", "vocab.json", "merges.txt",
         "tokenizer.json", "model.safetensors"]


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
                if filename == "generation_config.json" and "404" in str(err):
                    continue                         # optional
                said = (str(err).strip().splitlines() or [type(err).__name__])[0]
                return f"fetching {filename} failed ({type(err).__name__}: {said})"
    finally:
        constants.HF_HUB_DOWNLOAD_TIMEOUT = saved
    return None
