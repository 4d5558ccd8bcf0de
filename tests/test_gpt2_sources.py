"""Where notebook 13's GPT-2 comes from: no network state hangs it, and every way it can fail is said
in a sentence that names the setting to change.

The Hub is stood in for by sockets on 127.0.0.1: one that accepts connections and never answers, and
a port where nothing listens (no network). Nothing is downloaded.
"""

import json
import socket
import sys
import threading
import time

import pytest
import torch

pytest.importorskip("transformers")
from huggingface_hub import constants  # noqa: E402
from safetensors.torch import save_file  # noqa: E402
from transformers import GPT2Config  # noqa: E402

from helpers import gpt2, hub  # noqa: E402


@pytest.fixture
def hub_at(monkeypatch, tmp_path):
    """Point the Hub at an address; an empty Hugging Face cache and a course cache in tmp_path."""
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hf-cache"))
    monkeypatch.setenv("COURSE_CACHE", str(tmp_path / "course-cache"))
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("COURSE_GPT2", raising=False)

    def point(address):
        monkeypatch.setenv("HF_ENDPOINT", f"http://{address[0]}:{address[1]}")
    return point


@pytest.fixture
def silent_server():
    """A server on 127.0.0.1 that accepts every connection and never answers."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    held, stop = [], threading.Event()

    def accept():
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield server.getsockname()
    stop.set()
    thread.join()
    for conn in held:
        conn.close()
    server.close()


def closed_port():
    """An address on 127.0.0.1 where nothing listens: a connection is refused at once."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()


def test_a_hub_that_never_answers_stops_real_after_the_bound(hub_at, silent_server, monkeypatch):
    hub_at(silent_server)
    monkeypatch.setenv("COURSE_GPT2", "real")
    start = time.monotonic()
    with pytest.raises(gpt2.ModelError) as info:
        gpt2.load(device="cpu")
    took = time.monotonic() - start
    assert took < hub.CONNECT_S + hub.ANSWER_S + 5, f"gave up after {took:.1f} s"
    assert str(info.value) == (
        "COURSE_GPT2=real asks for GPT-2 small, whose weights cannot be fetched: 127.0.0.1 accepted a "
        f"connection but did not answer within {hub.ANSWER_S:g} s. Connect to the network and run again, or set "
        "COURSE_GPT2=tiny (or to a folder holding a saved GPT-2) to go on without it.")
    assert info.value._render_traceback_() == [str(info.value)]


def test_no_network_with_real_asked_stops_in_words(hub_at, monkeypatch):
    hub_at(closed_port())
    monkeypatch.setenv("COURSE_GPT2", "real")
    with pytest.raises(gpt2.ModelError, match=r"COURSE_GPT2=real asks for GPT-2 small, whose weights cannot be "
                                              r"fetched: 127.0.0.1 cannot be reached \(.*\): no network here\."):
        gpt2.load(device="cpu")


def test_real_with_hf_hub_offline_stops_without_touching_the_network(hub_at, monkeypatch):
    def no_network(*args, **kwargs):
        raise AssertionError("HF_HUB_OFFLINE is set: nothing may reach for the network")

    hub_at(closed_port())
    monkeypatch.setattr(hub, "fetch", no_network)
    monkeypatch.setenv("COURSE_GPT2", "real")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(gpt2.ModelError, match="cannot be fetched: HF_HUB_OFFLINE is set and they are not in the "
                                              "local Hugging Face cache. Connect"):
        gpt2.load(device="cpu")


def test_no_network_in_colab_runs_on_the_tiny_model_in_one_sentence(hub_at, monkeypatch, capsys):
    hub_at(closed_port())
    monkeypatch.setitem(sys.modules, "google.colab", object())
    assert gpt2.choose()[0] == "real"
    model, _, real = gpt2.load(device="cpu")
    out = capsys.readouterr()
    assert not real and model.config.n_layer == gpt2.TINY["n_layer"] and out.err == ""
    first, banner, why = out.out.splitlines()
    assert first.startswith("GPT-2 small's weights cannot be fetched (127.0.0.1 cannot be reached (")
    assert first.endswith("): this runs on the tiny model instead (set COURSE_GPT2=real to insist, or "
                          "COURSE_GPT2=tiny to skip trying).")
    assert "RANDOM weights" in banner and why == "Why this model: GPT-2 small's weights could not be fetched."


def test_the_probe_of_a_silent_hub_is_bounded_by_its_own_timeouts(hub_at, silent_server, monkeypatch):
    hub_at(silent_server)
    monkeypatch.setattr(hub, "ANSWER_S", 1.0)
    start = time.monotonic()
    assert hub.probe(gpt2.REAL) == "127.0.0.1 accepted a connection but did not answer within 1 s"
    assert time.monotonic() - start < 5


@pytest.fixture
def tiny_cache(hub_at, monkeypatch):
    monkeypatch.setenv("COURSE_GPT2", "tiny")
    return gpt2.build_tiny()


def test_a_damaged_tiny_cache_is_built_again(tiny_cache, capsys):
    weights = tiny_cache / "model.safetensors"
    whole = weights.read_bytes()
    weights.write_bytes(whole[: len(whole) // 3])             # a save cut short
    model, tokenizer, real = gpt2.load(device="cpu")
    said = capsys.readouterr().out.splitlines()
    assert said[0].startswith(f"The tiny model's cache in {tiny_cache} was damaged (")
    assert said[0].endswith("): building it again.") and len(said) == 3
    assert weights.read_bytes() == whole and not real
    (tiny_cache / "tokenizer.json").unlink()                  # a part missing: built again, quietly
    assert gpt2.build_tiny() == tiny_cache and (tiny_cache / "tokenizer.json").is_file()


def test_a_tiny_cache_that_cannot_be_mended_is_named(tiny_cache, monkeypatch):
    def broken(where, local=True):
        raise OSError("Unable to load weights from safetensors file")

    monkeypatch.setattr(gpt2, "_from_folder", broken)
    with pytest.raises(gpt2.ModelError, match=f"The tiny model's cache in {tiny_cache} cannot be loaded "
                                              r"\(OSError: Unable to load weights.*\)\. Delete that folder"):
        gpt2.load(device="cpu")


def test_bad_course_gpt2_folders_are_refused_naming_the_variable(monkeypatch, tmp_path):
    def refused(value, words):
        monkeypatch.setenv("COURSE_GPT2", str(value))
        with pytest.raises(gpt2.ModelError, match=words):
            gpt2.load(device="cpu")

    refused(tmp_path / "nowhere", "COURSE_GPT2='.*nowhere' is none of auto, real, tiny, nor a model folder")
    refused(tmp_path, "COURSE_GPT2='.*' names a folder without a config.json")
    (tmp_path / "config.json").write_text("{not json")
    refused(tmp_path, "COURSE_GPT2='.*': its config.json cannot be read")
    GPT2Config(n_layer=1, n_embd=8, n_head=2, vocab_size=10).to_json_file(tmp_path / "config.json")
    refused(tmp_path, "COURSE_GPT2='.*' holds a config.json but no weights")
    (tmp_path / "model.safetensors").write_bytes(b"not a safetensors file")
    refused(tmp_path, "COURSE_GPT2='.*' names a folder that transformers cannot load as a model")


def test_bad_course_cache_values_are_refused_naming_the_variable(monkeypatch, tmp_path):
    monkeypatch.setenv("COURSE_GPT2", "tiny")
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    for value in (a_file, a_file / "below"):
        monkeypatch.setenv("COURSE_CACHE", str(value))
        with pytest.raises(gpt2.ModelError, match=f"COURSE_CACHE='{value}' cannot be a folder"):
            gpt2.load(device="cpu")


def small_folder(folder, ln_f, **config):
    """A folder with GPT-2 small's config (transformers' defaults are GPT-2 small) and one tensor of its weights."""
    folder.mkdir()
    GPT2Config(**config).to_json_file(folder / "config.json")
    save_file({"transformer.ln_f.weight": ln_f}, folder / "model.safetensors")
    return folder


def test_a_folder_holding_gpt2_small_trained_weights_is_real(tmp_path):
    assert json.loads(GPT2Config().to_json_string())["n_embd"] == 768
    trained = torch.linspace(0.5, 1.5, 768)
    assert gpt2.holds_gpt2_small(small_folder(tmp_path / "trained", trained))
    assert not gpt2.holds_gpt2_small(small_folder(tmp_path / "fresh", torch.ones(768)))
    assert not gpt2.holds_gpt2_small(small_folder(tmp_path / "medium", torch.linspace(0.5, 1.5, 1024), n_embd=1024))
    assert not gpt2.holds_gpt2_small(small_folder(tmp_path / "wider", trained, n_inner=4096))


def test_load_announces_a_folder_of_gpt2_small_as_gpt2_small(tmp_path, monkeypatch, capsys):
    folder = small_folder(tmp_path / "gpt2-small", torch.linspace(0.5, 1.5, 768))
    stand_in = gpt2._from_folder(str(gpt2.build_tiny(tmp_path / "tiny")))   # 500 MB of weights are not needed
    monkeypatch.setattr(gpt2, "_from_folder", lambda where, local=True: stand_in)
    monkeypatch.setenv("COURSE_GPT2", str(folder))
    _, _, real = gpt2.load(device="cpu")
    banner, why = capsys.readouterr().out.splitlines()
    assert real and banner.startswith("Model: GPT-2 small with its trained weights")
    assert why == "Why this model: COURSE_GPT2 names this folder, which holds GPT-2 small's trained weights."


@pytest.fixture
def fake_hub(tmp_path):
    """A Hub on 127.0.0.1 that serves the tiny model's files as openai-community/gpt2 (HEAD and GET)."""
    import hashlib
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    files = gpt2.build_tiny(tmp_path / "served")

    class Hub(BaseHTTPRequestHandler):
        def answer(self, body):
            name = self.path.rsplit("/", 1)[-1]
            path = files / name
            self.send_response(200 if path.is_file() else 404)
            self.send_header("X-Repo-Commit", "a" * 40)
            if not path.is_file():
                self.send_header("X-Error-Code", "EntryNotFound")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            data = path.read_bytes()
            self.send_header("ETag", f'"{hashlib.sha256(data).hexdigest()}"')
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            if body:
                self.wfile.write(data)

        def do_HEAD(self):  # noqa: N802 - http.server's name
            self.answer(body=False)

        def do_GET(self):  # noqa: N802
            self.answer(body=True)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Hub)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address
    server.shutdown()
    server.server_close()


def test_fetching_says_what_it_fetches_with_progress_then_loads_from_the_cache(hub_at, fake_hub, monkeypatch,
                                                                              capsys):
    hub_at(fake_hub)
    monkeypatch.setenv("COURSE_GPT2", "real")
    monkeypatch.setenv("TQDM_POSITION", "-1")     # draw the bars as in a terminal or a notebook, not a pipe
    model, tokenizer, real = gpt2.load(device="cpu")
    out = capsys.readouterr()
    fetching = out.out.splitlines()[0]
    assert fetching == (f"Fetching {gpt2.REAL} from http://{fake_hub[0]}:{fake_hub[1]} into the Hugging Face cache, "
                        f"once: {', '.join(hub.FILES)}.")
    assert "model.safetensors" in out.err and "100%" in out.err, out.err      # huggingface_hub's progress bars
    assert real and hub.cached(gpt2.REAL) and len(tokenizer) == gpt2.TINY_VOCAB
