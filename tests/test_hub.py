"""helpers.hub's choice of real models never waits on an absent network, and its loader and
down_projections read GPT-2 and OPT alike (checked on tiny random models built here, offline)."""

import sys
import time
import urllib.error
import urllib.request

import pytest
import torch

from helpers import gpt2, hub, lab_extra


def test_real_models_are_skipped_without_touching_the_network(monkeypatch):
    monkeypatch.setenv("HF_ENDPOINT", "http://192.0.2.1:9")           # a documentation address: never answers
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delitem(sys.modules, "google.colab", raising=False)
    monkeypatch.setenv("COURSE_GPT2", "tiny")
    assert hub.why_not_real() == "COURSE_GPT2=tiny"
    monkeypatch.delenv("COURSE_GPT2")
    assert hub.why_not_real() == "not in Colab, and COURSE_GPT2 is not real"
    monkeypatch.setenv("COURSE_GPT2", "/some/folder")
    assert "names a folder" in hub.why_not_real()
    monkeypatch.setenv("COURSE_GPT2", "real")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert hub.why_not_real() == "HF_HUB_OFFLINE is set"


def test_an_unreachable_hub_is_given_up_within_the_bound(monkeypatch):
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")            # nothing listens on port 9 here
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setitem(sys.modules, "google.colab", object())          # Colab, auto: it would try
    monkeypatch.delenv("COURSE_GPT2", raising=False)
    start = time.perf_counter()
    problem = hub.why_not_real()
    assert problem and "127.0.0.1" in problem, problem
    assert time.perf_counter() - start < hub.CONNECT_S + hub.ANSWER_S + 1


def tiny_opt(folder):
    """A tiny random OPT (ReLU) saved with the tiny GPT-2's tokenizer: the layout of facebook/opt-125m."""
    from transformers import AutoTokenizer, OPTConfig, OPTForCausalLM

    tokenizer = AutoTokenizer.from_pretrained(str(gpt2.build_tiny()))
    config = OPTConfig(vocab_size=len(tokenizer), hidden_size=32, ffn_dim=128, num_hidden_layers=2,
                       num_attention_heads=4, word_embed_proj_dim=32, max_position_embeddings=64)
    with torch.random.fork_rng(devices=[]), gpt2.no_progress_bars():
        OPTForCausalLM(config).save_pretrained(folder)
        tokenizer.save_pretrained(folder)
    return folder


@pytest.mark.parametrize("kind", ["gpt2", "opt"])
def test_down_projections_receive_the_mlps_hidden_units(kind, tmp_path):
    folder = str(gpt2.build_tiny()) if kind == "gpt2" else str(tiny_opt(tmp_path / "opt"))
    model, tokenizer = hub.load_causal_lm(folder)
    downs = hub.down_projections(model)
    assert len(downs) == model.config.num_hidden_layers
    seen = []
    handles = [d.register_forward_pre_hook(lambda m, args: seen.append(args[0])) for d in downs]
    try:
        with torch.no_grad():
            model(**tokenizer("the capital of france is", return_tensors="pt"))
    finally:
        for h in handles:
            h.remove()
    d_ff = model.config.n_inner if kind == "gpt2" else model.config.ffn_dim
    assert [h.shape[-1] for h in seen] == [d_ff] * len(downs)
    if kind == "opt":                                    # ReLU: exact zeros, and nothing negative
        assert all((h >= 0).all() and (h == 0).any() for h in seen)


def test_down_projections_refuses_another_model():
    with pytest.raises(TypeError, match=r"model must be a GPT-2, OPT or Llama-style model .*got Linear"):
        hub.down_projections(torch.nn.Linear(2, 2))
    with pytest.raises(TypeError, match=r"model must be a Hugging Face model \(an nn.Module\), got str"):
        hub.down_projections("gpt2")
    with pytest.raises(TypeError, match=r"name must be a Hugging Face model id or a folder \(str\), got int"):
        hub.load_causal_lm(125)


def test_a_proxy_only_network_is_reached_through_its_proxy(monkeypatch):
    import http.server
    import threading

    seen = []

    class Proxy(http.server.BaseHTTPRequestHandler):
        def do_HEAD(self):   # a forward proxy answers for the Hub: the request names the Hub's whole address
            seen.append(self.path)
            self.send_response(404)
            self.end_headers()

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Proxy)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        for name in ("http_proxy", "HTTP_PROXY", "no_proxy", "NO_PROXY"):
            monkeypatch.delenv(name, raising=False)
        try:   # an earlier request, made before the proxy was set, must not fix the route of later ones
            urllib.request.urlopen(f"http://127.0.0.1:{server.server_port}/", timeout=10).close()
        except urllib.error.HTTPError:
            pass
        seen.clear()
        monkeypatch.setenv("HF_ENDPOINT", "http://hub.invalid")   # a name no resolver knows: only the proxy helps
        for name in ("http_proxy", "HTTP_PROXY"):
            monkeypatch.setenv(name, f"http://127.0.0.1:{server.server_port}")
        for name in ("no_proxy", "NO_PROXY"):
            monkeypatch.delenv(name, raising=False)
        assert hub.first_hop("http://hub.invalid")[:2] == ("127.0.0.1", server.server_port)
        assert hub.probe("openai-community/gpt2") is None
        assert seen and seen[0].startswith("http://hub.invalid/openai-community/gpt2/"), seen
        monkeypatch.setenv("https_proxy", "http://127.0.0.1:1")   # HTTPS_PROXY names the proxy to try
        assert hub.first_hop("https://huggingface.co")[:3] == ("127.0.0.1", 1, "the proxy 127.0.0.1")
    finally:
        server.shutdown()


def test_a_hub_that_stalls_is_given_up_within_the_bound(monkeypatch):
    import threading

    import huggingface_hub

    release = threading.Event()
    monkeypatch.setattr(hub, "probe", lambda name: None)
    monkeypatch.setattr(hub, "STALL_S", 1.0)
    monkeypatch.setattr(huggingface_hub, "hf_hub_download", lambda *a, **k: release.wait(60))   # headers, then nothing
    start = time.perf_counter()
    try:
        problem = hub.fetch("nobody/stalls", files=["config.json"])
    finally:
        release.set()
    assert problem and "sent nothing for 1 s" in problem, problem
    assert time.perf_counter() - start < 5


def test_a_course_without_the_lab_extra_says_which_extra_to_install(monkeypatch):
    import importlib.util

    found = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "transformers" else found(name, *a))
    for call in (lambda: gpt2.load("tiny"), lambda: hub.load_causal_lm("x"), lambda: gpt2.build_tiny("/nowhere")):
        with pytest.raises(lab_extra.MissingExtra, match=r"lacks transformers.*inside-transformer-mlp\[lab\]"):
            call()
    monkeypatch.setenv("COURSE_GPT2", "real")
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    assert "lab extra is not installed (transformers)" in hub.why_not_real()
