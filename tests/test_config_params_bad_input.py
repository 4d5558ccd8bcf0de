"""Bad configs and bad files: each is refused with a message naming the field or the file,
exit status 2 from the command line, never a traceback and never a silently wrong count."""

import json
import os
import pathlib
import re
import subprocess
import sys

import pytest

from helpers import config_params as cp
from helpers.data import data_path
from helpers.params import files

LLAMA = {"model_type": "llama", "hidden_size": 64, "intermediate_size": 96, "num_hidden_layers": 2,
         "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 100}
GPT2 = {"model_type": "gpt2", "n_embd": 64, "n_layer": 2, "n_head": 4, "n_positions": 16,
        "vocab_size": 100}

# (base config, fields changed, the message expected): every field is type-checked by name
BAD_FIELDS = {
    "bool as a string": (LLAMA, {"tie_word_embeddings": "false"},
                         r"'tie_word_embeddings' .* must be true or false, got \"false\""),
    "bool as null": (LLAMA, {"tie_word_embeddings": None}, r"'tie_word_embeddings' .* got null"),
    "bool as 0": (LLAMA, {"tie_word_embeddings": 0}, r"'tie_word_embeddings' .* got 0"),
    "bias switch as a string": (LLAMA, {"attention_bias": "true"}, r"'attention_bias' .* got \"true\""),
    "cross-attention switch as a string": (GPT2, {"add_cross_attention": "yes"},
                                           r"'add_cross_attention' .* got \"yes\""),
    "width as a float": (LLAMA, {"hidden_size": 64.0}, r"'hidden_size' \(d_model\) must be a whole "
                         r"number from 1 to 16,777,216, got 64.0"),
    "width as a string": (LLAMA, {"hidden_size": "64"}, r"'hidden_size' .* got \"64\""),
    "width as null": (LLAMA, {"hidden_size": None}, r"'hidden_size' .* got null"),
    "width as a bool": (LLAMA, {"hidden_size": True}, r"'hidden_size' .* got true"),
    "width 0": (LLAMA, {"hidden_size": 0}, r"'hidden_size' .* got 0"),
    "width a nested list": (LLAMA, {"hidden_size": json.loads("[" * 900 + "]" * 900)},
                            r"'hidden_size' .* got \[\[\["),
    "negative depth": (GPT2, {"n_layer": -2}, r"'n_layer' .* got -2"),
    "width over the limit": (LLAMA, {"hidden_size": 2**24 + 4}, r"'hidden_size' .* got 16777220"),
    "huge vocabulary": (LLAMA, {"vocab_size": 10**30}, r"'vocab_size' .* got 1000000000000000000000000000000"),
    "depth as 1e9": (LLAMA, {"num_hidden_layers": 1e9}, r"'num_hidden_layers' .* got 1000000000.0"),
    "kv heads not a divisor": (LLAMA, {"num_key_value_heads": 3},
                               "num_attention_heads=4 must be a multiple of num_key_value_heads=3"),
    "kv heads as a string": (LLAMA, {"num_key_value_heads": "2"}, r"'num_key_value_heads' .* got \"2\""),
    "negative head_dim": (LLAMA, {"head_dim": -16}, r"'head_dim' .* got -16"),
    "width not a multiple of heads": (GPT2, {"n_embd": 66}, "n_embd=66 must be a multiple of n_head=4"),
    "a field twice, two values": (GPT2, {"hidden_size": 128},
                                  "config gives n_embd=64 and hidden_size=128: the same setting twice"),
    "missing width": (LLAMA, {"intermediate_size": pytest}, "lacks the field 'intermediate_size'"),
    "unknown model type": (LLAMA, {"model_type": "bert"}, "unknown model_type 'bert'"),
    "model type null": (LLAMA, {"model_type": None}, "unknown model_type None"),
    "model type a list": (LLAMA, {"model_type": ["llama"]}, r"unknown model_type \['llama'\]"),
    "multimodal wrapper": (LLAMA, {"model_type": "gemma3", "text_config": {"model_type": "gemma3_text"}},
                           "its language model's config is its text_config"),
}
MIXTRAL = LLAMA | {"model_type": "mixtral", "num_local_experts": 4, "num_experts_per_tok": 2}
QWEN_MOE = LLAMA | {"model_type": "qwen3_moe", "num_experts": 4, "num_experts_per_tok": 2,
                    "moe_intermediate_size": 32}
DEEPSEEK = LLAMA | {"model_type": "deepseek_v3", "n_routed_experts": 4, "num_experts_per_tok": 2,
                    "moe_intermediate_size": 32}
BAD_FIELDS |= {
    "more experts per token than experts": (MIXTRAL, {"num_experts_per_tok": 5},
                                            "num_experts_per_tok=5 exceeds num_local_experts=4"),
    "experts null": (MIXTRAL, {"num_local_experts": None}, r"'num_local_experts' .* got null"),
    "mlp_only_layers out of range": (QWEN_MOE, {"mlp_only_layers": [7]},
                                     r"'mlp_only_layers' .* layer indices from 0 to 1, got \[7\]"),
    "mlp_only_layers a string": (QWEN_MOE, {"mlp_only_layers": "0"}, r"'mlp_only_layers' .* got \"0\""),
    "sparse step 0": (QWEN_MOE, {"decoder_sparse_step": 0}, r"'decoder_sparse_step' .* got 0"),
    "q rank as a string": (DEEPSEEK, {"q_lora_rank": "1536"}, r"'q_lora_rank' .* got \"1536\""),
    "negative shared experts": (DEEPSEEK, {"n_shared_experts": -1},
                                r"'n_shared_experts' .* from 0 to 16,777,216, got -1"),
    "dense blocks as a float": (DEEPSEEK, {"first_k_dense_replace": 1.5},
                                r"'first_k_dense_replace' .* got 1.5"),
    # NaN and Infinity: Python's json reads and writes them, JSON itself has neither
    "width NaN": (LLAMA, {"hidden_size": float("nan")}, r"'hidden_size' \(d_model\) .* got NaN \(not a number\)"),
    "vocabulary Infinity": (LLAMA, {"vocab_size": float("inf")}, r"'vocab_size' .* got Infinity \(infinite\)"),
    "depth -Infinity": (GPT2, {"n_layer": float("-inf")}, r"'n_layer' .* got -Infinity \(infinite\)"),
    "switch NaN": (LLAMA, {"tie_word_embeddings": float("nan")}, r"'tie_word_embeddings' .* got NaN"),
    "NaN under both names": (GPT2, {"n_embd": float("nan"), "hidden_size": float("nan")},
                             r"'n_embd' \(d_model\) .* got NaN \(not a number\)"),
    "width as 64.0 under one name, 64 under the other": (GPT2, {"hidden_size": 64.0},
                                                         "n_embd=64 and hidden_size=64.0: the same setting twice"),
    "model type missing": (LLAMA, {"model_type": pytest}, "config lacks the field 'model_type'"),
}


@pytest.mark.parametrize("name", sorted(BAD_FIELDS))
def test_bad_fields_are_refused_by_name(name):
    base, change, message = BAD_FIELDS[name]
    config = {k: v for k, v in (base | change).items() if v is not pytest}  # pytest: field removed
    with pytest.raises(cp.ConfigError, match=message):
        cp.count_params(config)


def test_the_silent_errors_are_gone():
    """The three wrong totals the probe found: a string bool, ignored cross-attention, Mistral biases."""
    with pytest.raises(cp.ConfigError, match="tie_word_embeddings"):
        cp.count_params(LLAMA | {"tie_word_embeddings": "false"})
    d, plain = 64, cp.count_params(GPT2)
    cross = cp.count_params(GPT2 | {"add_cross_attention": True})
    assert cross.total - plain.total == 2 * (4 * d * d + 4 * d + 2 * d)  # c_attn, q_attn, c_proj, ln
    mistral = LLAMA | {"model_type": "mistral"}
    assert cp.count_params(mistral | {"attention_bias": True, "mlp_bias": True}).total == \
        cp.count_params(mistral).total


def write(tmp_path, content, name="config.json"):
    """content: bytes, text, or a size in bytes (a sparse file of zeros, written in no time)."""
    path = tmp_path / name
    if isinstance(content, int):
        with path.open("wb") as fh:
            fh.truncate(content)
    else:
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
    return path


# (file content, the message expected); each is also run through the command line
BAD_FILES = {
    "not JSON": (b"{not json", "is not valid JSON"),
    "empty": (b"", "is empty; a config.json holds one JSON object"),
    "only spaces": (b" \n\t", "is empty"),
    "a JSON list": (b"[1, 2]", "holds a list, expected a JSON object"),
    "a JSON string": (b'"gpt2"', "holds a string, expected a JSON object"),
    "JSON null": (b"null", "holds null, expected a JSON object"),
    "a key twice": (b'{"model_type": "llama", "hidden_size": 64, "hidden_size": 128}',
                    r"gives the key 'hidden_size' twice, with different values \(64 and 128\)"),
    "UTF-16": ('{"model_type": "llama"}'.encode("utf-16"), "is UTF-16 text; a config.json is UTF-8 JSON"),
    "not UTF-8": ('{"model_type": "llama", "name": "caf\xe9"}'.encode("latin-1"),
                  r"is not UTF-8 text \(byte 36 is 0xe9\)"),
    "binary": (b"\x08\x00\x00\x00\x00\x00\x00\x00{}\x00\x01", "is a binary file, not a config.json"),
    "nested too deep": (b"[" * 100_000 + b"]" * 100_000, "nested too deep"),
    "5000-digit integer": (b'{"vocab_size": 1' + b"0" * 5000 + b"}", "too large to read"),
    "too big": (cp.MAX_FILE_BYTES + 1, f"is {cp.MAX_FILE_BYTES + 1:,} bytes, too big for a config.json"),
}


@pytest.mark.parametrize("name", sorted(BAD_FILES))
def test_bad_files_are_refused_by_name(tmp_path, name):
    content, message = BAD_FILES[name]
    path = write(tmp_path, content)
    if name == "5000-digit integer" and not hasattr(sys, "set_int_max_str_digits"):
        pytest.skip("this Python reads integers of any length; the field check refuses it")
    with pytest.raises(cp.ConfigError, match=message) as err:
        cp.count_params(path)
    assert str(path) in str(err.value)


def test_a_checkpoint_passed_by_mistake():
    path = data_path("fact_model/model.safetensors")
    with pytest.raises(cp.ConfigError, match="model.safetensors is a binary file"):
        cp.load_config(path)


def test_no_permission(tmp_path, monkeypatch):
    path = write(tmp_path, json.dumps(LLAMA))
    path.chmod(0)
    if os.access(path, os.R_OK):  # root reads it anyway: make the open fail as it would for a learner

        def refuse(name):
            raise PermissionError(13, "Permission denied", str(name))

        monkeypatch.setattr(files, "_open", refuse)
    with pytest.raises(cp.ConfigError, match=f"{path} cannot be read: no permission"):
        cp.load_config(path)


def test_folders(tmp_path):
    model = tmp_path / "my-model"
    model.mkdir()
    with pytest.raises(cp.ConfigError, match="my-model is a folder without a config.json"):
        cp.load_config(model)
    write(model, json.dumps(LLAMA))
    b = cp.count_params(model)
    assert b.name == "my-model" and b.total == cp.count_params(LLAMA).total


def test_bad_sources_and_arguments(tmp_path):
    with pytest.raises(FileNotFoundError, match="'gpt-5' is neither a file nor a shipped config"):
        cp.load_config("gpt-5")
    with pytest.raises(cp.ConfigError, match="'gpt-5' is neither a file nor a shipped config"):
        cp.count_params("gpt-5")  # the docstring's promise: a ConfigError names the file
    with pytest.raises(cp.ConfigError, match=r"source is '', an empty name"):
        cp.load_config("")
    (tmp_path / "link.json").symlink_to(tmp_path / "gone.json")
    with pytest.raises(cp.ConfigError, match=r"link.json is a link to '.*gone.json', which does not exist"):
        cp.load_config(tmp_path / "link.json")
    with pytest.raises(TypeError, match="source must be a dict, a path or a config name, got int"):
        cp.load_config(3)
    with pytest.raises(TypeError, match="weights_only must be True or False, got 'yes'"):
        cp.count_params(LLAMA, weights_only="yes")
    for call in (lambda: cp.flops_per_token(LLAMA, 8, causal="no"), lambda: cp.crossover_seq_len(LLAMA, "no")):
        with pytest.raises(TypeError, match=r"causal must be True or False, got 'no' \(str\)"):
            call()
    with pytest.raises(ValueError, match="seq_len must be a positive integer, got 8.0 \\(a float; write 8\\)"):
        cp.flops_per_token(LLAMA, 8.0)
    assert cp.flops_per_token(LLAMA, 8, causal=False)["attention_core"] == \
        2 * cp.flops_per_token(LLAMA, 8, causal=True)["attention_core"]


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "helpers", "params", *map(str, args)],
                          capture_output=True, text=True)


def test_command_line_exits_2_with_a_message(tmp_path, capsys):
    for name, (content, message) in sorted(BAD_FILES.items()):
        path = write(tmp_path, content, f"{name.replace(' ', '_')}.json")
        with pytest.raises(SystemExit) as stop:
            cp.main([str(path)])
        err = capsys.readouterr().err
        assert stop.value.code == 2 and str(path) in err and re.search(message, err), name
    for name, (base, change, message) in sorted(BAD_FIELDS.items()):
        config = {k: v for k, v in (base | change).items() if v is not pytest}
        path = write(tmp_path, json.dumps(config), "field.json")
        with pytest.raises(SystemExit) as stop:
            cp.main([str(path)])
        err = capsys.readouterr().err
        assert stop.value.code == 2 and err.startswith("error: ") and re.search(message, err), name


def test_command_line_prints_no_traceback(tmp_path):
    deep = write(tmp_path, b"[" * 100_000 + b"]" * 100_000, "deep.json")
    for source in [deep, data_path("fact_model/model.safetensors"), tmp_path, "gpt-5"]:
        done = run_cli(source)
        assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
        assert done.stderr.startswith("error: ") and str(source) in done.stderr


def special_files(tmp_path):
    """{what: path} of files that are not regular files, or lie about their size."""
    found = {}
    if hasattr(os, "mkfifo"):
        os.mkfifo(tmp_path / "pipe.json")  # no writer: a blocking open() would wait forever
        found["a named pipe (FIFO)"] = tmp_path / "pipe.json"
    if os.path.exists("/dev/zero"):
        found["a character device"] = pathlib.Path("/dev/zero")  # endless zeros, size field 0
        (tmp_path / "zero.json").symlink_to("/dev/zero")
        found["a link to a character device"] = tmp_path / "zero.json"
    (tmp_path / "model" / "config.json").mkdir(parents=True)
    found["a folder"] = tmp_path / "model"  # the model folder, whose config.json is a folder
    return found


def test_pipes_devices_and_folders_are_refused_by_kind(tmp_path):
    for what, path in special_files(tmp_path).items():
        kind = what.removeprefix("a link to ")
        with pytest.raises(cp.ConfigError, match=f"is {re.escape(kind)}, not a config.json file") as err:
            cp.load_config(path)
        assert f"at most {cp.MAX_FILE_BYTES:,} bytes" in str(err.value), what
    with pytest.raises(cp.ConfigError, match="config.json is a folder without a config.json"):
        cp.load_config(tmp_path / "model" / "config.json")


def test_command_line_refuses_a_pipe_a_device_and_a_huge_file_at_once(tmp_path):
    """Exit status 2 and one line each; a hang or an unbounded read would hit the timeout."""
    sources = dict(special_files(tmp_path))
    sources["100 MB"] = write(tmp_path, 100 * 2**20, "huge.json")  # sparse: no disk used
    for what, path in sources.items():
        done = subprocess.run([sys.executable, "-m", "helpers", "params", str(path)],
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 2 and done.stdout == "", (what, done.stderr)
        assert done.stderr.count("\n") == 1 and str(path) in done.stderr, (what, done.stderr)
        assert f"{cp.MAX_FILE_BYTES:,}" in done.stderr, (what, done.stderr)


@pytest.mark.skipif(not os.path.exists("/proc/self/maps"), reason="needs Linux's /proc")
def test_the_cap_holds_for_a_file_that_gives_its_size_as_0():
    """/proc files report size 0 and still hold text: the read itself stops at the cap."""
    assert pathlib.Path("/proc/self/maps").stat().st_size == 0
    with pytest.raises(cp.ConfigError, match="/proc/self/maps is over 64 bytes, too big"):
        files.read_capped(pathlib.Path("/proc/self/maps"), cap=64)


def test_a_config_of_several_megabytes_is_read(tmp_path):
    """A classifier's config.json with 150,000 labels (id2label and label2id): over 5 MB, valid."""
    labels = {str(i): f"LABEL_{i}_of_a_large_classifier" for i in range(150_000)}
    config = LLAMA | {"id2label": labels, "label2id": {v: int(k) for k, v in labels.items()}}
    path = write(tmp_path, json.dumps(config))
    assert 5_000_000 < path.stat().st_size < cp.MAX_FILE_BYTES
    assert cp.count_params(tmp_path).total == cp.count_params(LLAMA).total
    transformers = pytest.importorskip("transformers")
    read = transformers.AutoConfig.from_pretrained(str(tmp_path))  # a local folder: no download
    assert len(read.id2label) == 150_000 and read.hidden_size == LLAMA["hidden_size"]


def test_a_closed_stdout_ends_quietly(tmp_path):
    """`python -m helpers params gpt2 | head -1`: the reader goes first; no BrokenPipeError traceback."""
    read_end, write_end = os.pipe()
    os.close(read_end)  # every write to write_end now fails with EPIPE
    try:
        for args in (["params", "gpt2"], ["params", "gpt2", "--json"], []):
            done = subprocess.run([sys.executable, "-m", "helpers", *args], stdout=write_end,
                                  stderr=subprocess.PIPE, text=True, timeout=60)
            assert done.stderr == "", (args, done.stderr)
            assert done.returncode == 141, (args, done.returncode)  # 128 + SIGPIPE, as cat ends
    finally:
        os.close(write_end)
