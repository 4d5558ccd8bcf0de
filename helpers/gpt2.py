"""GPT-2 from Hugging Face transformers, with the course's MLP put inside it.

    model, tokenizer, real = gpt2.load()          # GPT-2 small online, a tiny random GPT-2 offline
    gpt2.replace_mlps(model, gpt2.mlp_from_hf)    # every block's MLP is now a course FFN

Online (Colab, or with the weights in the local Hugging Face cache) `load` gives GPT-2 small's
trained weights. Offline it builds a tiny GPT-2 with random weights from a config, with a tokenizer
trained on the course's text sample (helpers.gpt2_tiny), saves both once into a cache folder
(COURSE_CACHE) and loads them with the same `from_pretrained` call. It decides which from the
environment; only fetching GPT-2 small touches the network, with a bound in time on every step
(helpers.hub), and when the weights cannot be fetched it says so in one sentence and runs on the
tiny model, unless COURSE_GPT2=real asked for GPT-2 small, which then stops in words. Set
COURSE_GPT2=tiny or =real to choose, or to the path of a saved model folder: one that holds GPT-2
small's trained weights runs as GPT-2 small (`holds_gpt2_small` says how that is decided).

GPT-2's checkpoint stores each MLP weight as a Conv1D, (in, out): x @ W + b. nn.Linear, and so the
course's FFN, stores (out, in). `mlp_from_hf` copies the transpose.
"""

import os
import shutil
import sys
from pathlib import Path

import torch
from torch import nn

from helpers import activations, hub, lab_extra, language, validate
from helpers.device import pick_device
from helpers.ffn import FFN
from helpers.gpt2_tiny import (  # noqa: F401 - exported
    BUILD,
    END,
    SAMPLE,
    TINY,
    TINY_FILES,
    TINY_VOCAB,
    build_tiny,
    cache_dir,
    init_weights,
    no_progress_bars,
    sample_lines,
    train_tokenizer,
)
from helpers.language import say

REAL = "openai-community/gpt2"
ModelError, holds_gpt2_small = hub.ModelError, hub.holds_gpt2_small   # part of this module's API
ENV_VAR = "COURSE_GPT2"          # auto (default), real, tiny, or a model folder


def blocks(model):
    """The transformer blocks of a GPT2LMHeadModel (or a GPT2Model): model.transformer.h."""
    body = getattr(model, "transformer", model)
    if not hasattr(body, "h"):
        raise TypeError("model must be a Hugging Face GPT-2 (with .transformer.h), got "
                        f"{type(model).__name__}")
    return body.h


# --- The MLP: GPT-2's Conv1D weights into the course's FFN ---

def activation_name(act):
    """The course's name ("gelu_tanh", "gelu", ...) of an activation module, found by evaluating
    it."""
    validate.function(act, "act")
    x = torch.linspace(-6.0, 6.0, 241, dtype=torch.float64)
    with torch.no_grad():
        y = act(x)
    for name in ("gelu_tanh", "gelu", "relu", "silu"):
        if torch.allclose(y, activations.get(name)(x), rtol=0, atol=1e-6):
            return name
    raise ValueError(f"the activation {type(act).__name__} is none of gelu_tanh, gelu, relu, silu")


def mlp_from_hf(hf_mlp):
    """A course FFN holding the weights of Hugging Face's GPT2MLP (c_fc, act, c_proj), same device
    and dtype."""
    for part in ("c_fc", "act", "c_proj"):
        if not hasattr(hf_mlp, part):
            raise TypeError("hf_mlp must be a Hugging Face GPT2MLP (with c_fc, act and c_proj), "
                            f"got {type(hf_mlp).__name__}, which has no {part}")
    if type(hf_mlp.c_fc).__name__ != "Conv1D":
        raise TypeError(f"hf_mlp.c_fc must be GPT-2's Conv1D (weights stored (in, out)), got "
                        f"{type(hf_mlp.c_fc).__name__}: pass a Hugging Face GPT-2 block's mlp")
    # Conv1D: (d_model, d_ff), (d_ff, d_model)
    up, down = hf_mlp.c_fc.weight, hf_mlp.c_proj.weight
    d_model, d_ff = up.shape
    name = activation_name(hf_mlp.act)
    # no random init: every weight is copied
    with torch.device("meta"):
        ffn = FFN(d_model, d_ff, activation=name)
    ffn = ffn.to_empty(device=up.device).to(up.dtype)
    with torch.no_grad():
        ffn.c_fc.weight.copy_(up.T)                                # nn.Linear stores (out, in)
        ffn.c_fc.bias.copy_(hf_mlp.c_fc.bias)
        ffn.c_proj.weight.copy_(down.T)
        ffn.c_proj.bias.copy_(hf_mlp.c_proj.bias)
    return ffn.train(hf_mlp.training)


def replace_mlps(model, build):
    """Swap build(block.mlp) into every block (on the block's device and dtype); return the
    model."""
    if not callable(build):
        raise TypeError(f"build must be a function mlp -> nn.Module, got {type(build).__name__}")
    for i, block in enumerate(blocks(model)):
        new = build(block.mlp)
        if not isinstance(new, nn.Module):
            raise TypeError(f"build(block.mlp) returned {type(new).__name__} for block {i}; "
                            "expected an nn.Module")
        weight = next(block.mlp.parameters())
        block.mlp = new.to(weight.device, weight.dtype)
    return model


# --- Which model: decided from the environment; the network only with a bound on every step ---

def choose(name=REAL):
    """("real" | "tiny" | a folder, why): which model load() will use, and the reason in words."""
    wanted = os.environ.get(ENV_VAR, "auto").strip() or "auto"
    if wanted not in ("auto", "real", "tiny"):
        if not Path(wanted).is_dir():
            raise ModelError(f"{ENV_VAR}={wanted!r} is none of auto, real, tiny, nor a model "
                             "folder (no folder is at that path). Set it to one of these, or "
                             "unset it.")
        hub.check_folder(Path(wanted), ENV_VAR)
        return wanted, say("{var} names this folder", var=ENV_VAR)
    if wanted != "auto":
        return wanted, say("{var}={wanted}", var=ENV_VAR, wanted=wanted)
    if hub.cached(name):
        return "real", say("its weights are in the local Hugging Face cache")
    if os.environ.get("HF_HUB_OFFLINE", "0").lower() in ("1", "true", "yes", "on"):
        return "tiny", say("HF_HUB_OFFLINE is set and the weights are not in the local cache")
    if "google.colab" in sys.modules:
        return "real", say("Colab is online: downloading GPT-2 small once (about 550 MB)")
    return "tiny", say("offline here (set {var}=real to download GPT-2 small)", var=ENV_VAR)


def _from_folder(where, local=True):
    """(model, tokenizer) saved in `where` (a folder or a cached hub name), never asking the
    network."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    with no_progress_bars():
        return (AutoModelForCausalLM.from_pretrained(where, local_files_only=local),
                AutoTokenizer.from_pretrained(where, local_files_only=local))


def _first_line(err):
    return f"{type(err).__name__}: " + (str(err).strip().splitlines() or [""])[0]


def _load_tiny():
    """The tiny model from its cache folder; a damaged folder is built again once, else named."""
    folder = build_tiny()
    try:
        return _from_folder(str(folder))
    except Exception as err:  # noqa: BLE001 - a half-written or damaged cache: build it again
        damage = _first_line(err)
    shutil.rmtree(folder, ignore_errors=True)
    print(f"The tiny model's cache in {folder} was damaged ({damage}): building it again.")
    try:
        return _from_folder(str(build_tiny()))
    except Exception as err:  # noqa: BLE001
        raise ModelError(f"The tiny model's cache in {folder} cannot be loaded "
                         f"({_first_line(err)}). Delete that folder and run again, or set "
                         "COURSE_CACHE to another folder.") from None


def _fetch_real(name, why):
    """("real", why) once GPT-2 small is in the local cache, else ("tiny", why) or a ModelError if
    asked for."""
    if hub.cached(name):
        return "real", why
    offline = os.environ.get("HF_HUB_OFFLINE", "0").lower() in ("1", "true", "yes", "on")
    problem = ("HF_HUB_OFFLINE is set and they are not in the local Hugging Face cache" if offline
               else hub.fetch(name))
    if problem is None and hub.cached(name):
        return "real", why
    problem = problem or "its files are not complete in the cache after fetching"
    if os.environ.get(ENV_VAR, "").strip() == "real":
        raise ModelError(f"{ENV_VAR}=real asks for GPT-2 small, whose weights cannot be fetched: "
                         f"{problem}. Connect to the network and run again, or set {ENV_VAR}=tiny "
                         "(or to a folder holding a saved GPT-2) to go on without it.")
    print(f"GPT-2 small's weights cannot be fetched ({problem}): this runs on the tiny model "
          f"instead (set {ENV_VAR}=real to insist, or {ENV_VAR}=tiny to skip trying).")
    return "tiny", say("GPT-2 small's weights could not be fetched")


def load(name=REAL, device=None, verbose=True):
    """(model, tokenizer, real): GPT-2 small (real=True) or the tiny random GPT-2, in eval mode on
    device."""
    validate.instance_of(name, "name", str, '(a Hugging Face model id, "tiny" or a model folder)')
    lab_extra.need()
    source, why = choose(name)
    if source == "real":
        source, why = _fetch_real(name, why)
    if source == "tiny":
        model, tokenizer = _load_tiny()
    elif source == "real":
        model, tokenizer = _from_folder(name)
    else:
        try:
            model, tokenizer = _from_folder(source)
        except Exception as err:  # noqa: BLE001 - transformers' words, put into a sentence
            raise ModelError(f"{ENV_VAR}={source!r} names a folder that transformers cannot load "
                             f"as a model ({_first_line(err)}). Save it again with "
                             f"save_pretrained, or set {ENV_VAR}=tiny.") from None
    real = source == "real" or (source != "tiny" and hub.holds_gpt2_small(source))
    if real and source not in ("real", "tiny"):
        why = say("{var} names this folder, which holds GPT-2 small's trained weights", var=ENV_VAR)
    model = model.to(pick_device(device)).eval()
    model.config._name_or_path = name if real else ("tiny-random-gpt2" if source == "tiny"
                                                    else source)
    if verbose:
        print(language.translate(banner(model, real, why)))   # in the notebook's language
    return model, tokenizer, real


def banner(model, real, why=""):
    """Two lines: which model runs (GPT-2 small's weights, or random ones), then why this one.

    A show.Text, so that language.translate says it in the notebook's language (the Korean edition's
    sentences are in the checks' catalog)."""
    c = model.config
    shape = say("{n_layer} blocks, d_model = {n_embd}, d_ff = {d_ff}, {vocab:,} tokens",
                n_layer=c.n_layer,
                n_embd=c.n_embd, d_ff=c.n_inner or 4 * c.n_embd, vocab=c.vocab_size)
    if real:
        line = say("Model: GPT-2 small with its trained weights ({shape}).", shape=shape)
    elif c.n_embd < hub.SMALL["n_embd"]:
        line = say("Model: a tiny GPT-2 with RANDOM weights ({shape}). Numbers marked (real "
                   "weights) mean something only on GPT-2 small.", shape=shape)
    else:
        line = say("Model: a GPT-2 with RANDOM weights ({shape}). Numbers marked (real weights) "
                   "mean something only on GPT-2 small.", shape=shape)
    return say("{line}\nWhy this model: {why}.", line=line, why=why or say("chosen by the caller"))




def tokens_of(tokenizer, ids):
    """Each id as its text, e.g. [' Paris', ' is']: GPT-2's tokens often start with a space."""
    if not callable(getattr(tokenizer, "decode", None)):
        raise TypeError("tokenizer must be a tokenizer with .decode (from gpt2.load), got "
                        f"{type(tokenizer).__name__}")
    validate.ndim(torch.as_tensor(ids), "ids", 1)
    ids = [int(i) for i in ids]
    size = len(tokenizer) if hasattr(tokenizer, "__len__") else None
    outside = [i for i in ids if i < 0 or (size is not None and i >= size)]
    if outside:                                            # decode would give '' for it, silently
        raise ValueError(f"ids holds {outside[0]}, which is not a token id of this tokenizer (0 to "
                         f"{size - 1:,})" if size
                         else f"ids holds {outside[0]}, a negative token id")
    return [tokenizer.decode([i]) for i in ids]


def registered_hooks(model):
    """How many forward hooks and pre-hooks the model's modules hold (0 once every `with` has
    ended)."""
    validate.instance_of(model, "model", nn.Module)
    return sum(len(m._forward_hooks) + len(m._forward_pre_hooks) for m in model.modules())
