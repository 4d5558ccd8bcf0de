"""The tiny GPT-2: GPT-2's architecture at toy size with random weights, and a byte-level BPE
tokenizer trained on the course's text sample, built once into a cache folder.

helpers.gpt2 loads it where GPT-2 small's weights cannot be fetched (COURSE_GPT2=tiny or offline),
so every notebook runs the same code on a model of the same shape, only smaller.
"""

import hashlib
import os
import shutil
from contextlib import contextmanager
from pathlib import Path

import torch

from helpers import lab_extra
from helpers.data import data_path
from helpers.hub_local import ModelError

SAMPLE = "text_sample.txt"       # a few hundred sentences written for the course (data/)
# The tiny model: GPT-2's architecture at toy size. Bump BUILD when what is built here changes.
TINY = {"n_layer": 4, "n_embd": 64, "n_head": 4, "n_inner": 256, "n_positions": 128}
TINY_VOCAB, BUILD, END = 2048, 1, "<|endoftext|>"
TINY_FILES = ("config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json")


@contextmanager
def no_progress_bars():
    """transformers 5 draws a bar on stderr for every save and load: hide it, then restore the
    setting."""
    from transformers.utils import logging as hf_logging

    shown = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        if shown:
            hf_logging.enable_progress_bar()


def sample_lines():
    """The course's text sample: one sentence per line."""
    return [line.strip() for line in data_path(SAMPLE).read_text(encoding="utf-8").splitlines()
            if line.strip()]


def cache_dir():
    """Where built models live: $COURSE_CACHE, else ~/.cache/inside-transformer-mlp (outside the
    repository)."""
    if not os.environ.get("COURSE_CACHE"):
        return Path(os.environ.get("XDG_CACHE_HOME")
                    or Path.home() / ".cache") / "inside-transformer-mlp"
    folder = Path(os.environ["COURSE_CACHE"]).expanduser()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        writable = os.access(folder, os.W_OK | os.X_OK)
    except OSError as err:
        raise ModelError(f"COURSE_CACHE={str(folder)!r} cannot be a folder "
                         f"({err.strerror or err}). Set it to a folder you can write to, or unset "
                         "it to use ~/.cache.") from None
    if not writable:
        raise ModelError(f"COURSE_CACHE={str(folder)!r} is a folder you cannot write to. Set it to "
                         "one you can, or unset it to use ~/.cache.")
    return folder


def _fingerprint():
    import tokenizers
    import transformers

    text = "|".join([data_path(SAMPLE).read_text(encoding="utf-8"), repr(sorted(TINY.items())),
                     str(TINY_VOCAB), str(BUILD), transformers.__version__, tokenizers.__version__])
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def train_tokenizer(lines, vocab_size=TINY_VOCAB):
    """A byte-level BPE tokenizer like GPT-2's, trained on `lines` (deterministic)."""
    lab_extra.need()
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    core = Tokenizer(models.BPE())
    core.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    core.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=[END], show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    core.train_from_iterator(lines, trainer=trainer)
    return PreTrainedTokenizerFast(tokenizer_object=core, bos_token=END, eos_token=END,
                                   unk_token=END, model_max_length=TINY["n_positions"])


def init_weights(model, seed=0, std=0.02):
    """GPT-2's initialisation from a local generator: N(0, 0.02), c_proj N(0, 0.02/sqrt(2 n_layer)),
    norms 1, biases 0."""
    g = torch.Generator().manual_seed(seed)
    scaled = std / (2 * model.config.n_layer) ** 0.5
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith(".bias"):
                p.zero_()
            elif ".ln_" in name:
                p.fill_(1.0)
            else:
                scale = scaled if name.endswith("c_proj.weight") else std
                p.copy_(torch.randn(p.shape, generator=g, dtype=torch.float64) * scale)
    return model


def build_tiny(folder=None):
    """Build the tiny random GPT-2 and its tokenizer once into folder (a cache folder by default);
    its path."""
    lab_extra.need()
    from transformers import GPT2Config, GPT2LMHeadModel

    folder = Path(folder) if folder is not None else cache_dir() / f"tiny-gpt2-{_fingerprint()}"
    if all((folder / f).is_file() for f in TINY_FILES):
        return folder
    if folder.exists():                                    # a part is missing: build it whole again
        shutil.rmtree(folder, ignore_errors=True)
    tokenizer = train_tokenizer(sample_lines())
    end = tokenizer.convert_tokens_to_ids(END)
    config = GPT2Config(vocab_size=len(tokenizer), bos_token_id=end, eos_token_id=end, **TINY)
    # the learner's random generator is left alone
    with torch.random.fork_rng(devices=[]):
        model = GPT2LMHeadModel(config)
    init_weights(model)
    partial = folder.with_name(f"{folder.name}.part-{os.getpid()}")
    with no_progress_bars():
        model.save_pretrained(partial)
        tokenizer.save_pretrained(partial)
    try:
        # atomic: a reader never sees half a model
        partial.replace(folder)
    except OSError:                                        # another process finished first
        shutil.rmtree(partial, ignore_errors=True)
        if not all((folder / f).is_file() for f in TINY_FILES):
            raise
    return folder
