"""`python -m helpers params`: a config file from anywhere, a table or JSON, clear errors."""

import json
import os
import subprocess
import sys

import pytest

from helpers import __main__ as cli
from helpers import config_params as cp


def config_file(tmp_path):
    """A small Llama-style config that is not one of the shipped ones."""
    config = {"model_type": "llama", "hidden_size": 512, "intermediate_size": 1376,
              "num_hidden_layers": 4, "num_attention_heads": 8, "num_key_value_heads": 2,
              "vocab_size": 1000, "tie_word_embeddings": True}
    path = tmp_path / "my_model" / "config.json"
    path.parent.mkdir()
    path.write_text(json.dumps(config))
    return path


# 4 layers of (q, o: 512*512; k, v: 512*128; gate, up, down: 3*512*1376; 2 norms) + embedding + final norm
EXPECTED = 4 * (2 * 512 * 512 + 2 * 512 * 128 + 3 * 512 * 1376 + 2 * 512) + 1000 * 512 + 512


def test_table_for_a_config_outside_data(tmp_path, capsys):
    path = config_file(tmp_path)
    assert cli.main(["params", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"{EXPECTED:,}" in out and "my_model (llama, exact)" in out
    assert "unembedding" in out and "mlp" in out


def test_json_for_a_config_outside_data(tmp_path, capsys):
    assert cli.main(["params", str(config_file(tmp_path)), "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["total"] == got["active"] == EXPECTED
    assert got["components"]["unembedding"] == 0
    assert got["mlp_share"] == got["components"]["mlp"] / EXPECTED


def test_shipped_name_and_weights_only(capsys):
    assert cli.main(["params", "gpt3-175b", "--weights-only"]) == 0
    assert "175,181,291,520" in capsys.readouterr().out


def test_runs_as_a_module(tmp_path):
    done = subprocess.run([sys.executable, "-m", "helpers", "params", "mixtral-8x7b", "--json"],
                          capture_output=True, text=True, check=True)
    got = json.loads(done.stdout)
    assert (got["total"], got["active"]) == (46_702_792_704, 12_879_925_248)


def test_errors_are_clear(tmp_path, capsys):
    bad = tmp_path / "config.json"
    bad.write_text(json.dumps({"model_type": "llama", "hidden_size": 64}))
    done = subprocess.run([sys.executable, "-m", "helpers", "params", str(bad)],
                          capture_output=True, text=True)
    assert done.returncode == 2 and "lacks the field 'intermediate_size'" in done.stderr
    assert cli.main(["nope"]) == 2 and "unknown command 'nope'" in capsys.readouterr().err
    assert cli.main([]) == 0 and "params" in capsys.readouterr().out
    assert cp.main(["gpt2"]) == 0 and "124,439,808" in capsys.readouterr().out


def test_a_model_folder_and_the_help(tmp_path, capsys):
    path = config_file(tmp_path)
    assert cli.main(["params", str(path.parent)]) == 0  # the folder a checkpoint was saved to
    assert f"{EXPECTED:,}" in capsys.readouterr().out
    with pytest.raises(SystemExit) as stop:
        cp.main(["--help"])
    out = capsys.readouterr().out
    assert stop.value.code == 0
    for words in ["deepseek_v3", "qwen3_moe", "gpt_neox", "model folder", "exit status 2"]:
        assert words in " ".join(out.split()), words


def test_moe_table_and_json_show_the_active_mlp(capsys):
    assert cli.main(["params", "qwen3-30b-a3b"]) == 0
    out = capsys.readouterr().out
    assert "active per token" in out and "(8 of 128 experts, 3.4B)" in out
    assert "MLP share: 95.0% of all parameters, 54.0% of those one token uses" in out
    assert cli.main(["params", "qwen3-30b-a3b", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["mlp_active_share"] == got["mlp_active"] / got["active"]
    assert got["non_embedding"] == got["total"] - 2 * 151936 * 2048


def test_the_calculator_starts_without_torch():
    """It reads JSON and adds integers: importing torch (a second or more) would only delay it."""
    code = ("import sys, helpers.config_params as cp; cp.count_params('mixtral-8x7b'); "
            "cp.flops_per_token('gpt2', 8); print(sorted({'torch', 'numpy'} & set(sys.modules)))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]", f"the calculator imported {done.stdout.strip()}"


def test_a_full_disk_gives_one_line_not_a_traceback(tmp_path):
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full on this system")
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "helpers", "params", "gpt2"], stdout=full,
                              stderr=subprocess.PIPE, text=True, timeout=120)
    assert done.returncode == 1
    assert done.stderr == "error: could not write the result to standard output: No space left on device\n", \
        done.stderr
