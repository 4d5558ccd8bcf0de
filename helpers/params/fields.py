"""Read a config.json safely: the file itself, then each field with its type checked.

A config is refused, with the file or the field named, rather than counted wrongly:

- file problems: not found, a directory without config.json, no permission, too big or
  binary (a checkpoint such as model.safetensors passed by mistake), not UTF-8, not JSON,
  nested too deep, an integer too long to read, not a JSON object;
- field problems: a count that is not a whole number from 1 to MAX_COUNT (floats, strings,
  null, booleans and huge values are refused), a switch that is not a JSON true/false.
"""

import json
from pathlib import Path

from helpers.data import data_dir, data_path

MAX_COUNT = 2**24  # 16,777,216: far above any real width, depth, head or vocabulary count
MAX_FILE_BYTES = 2**22  # 4 MiB: a config.json is a few kilobytes
REQUIRED = object()  # default of a field that must be given


class ConfigError(ValueError):
    """A config.json that the calculator cannot read: names the file or the field that is wrong."""


def shipped_configs():
    """Names of the configs shipped in data/configs/, e.g. ['deepseek-v3', 'gpt2', ...]."""
    return sorted(p.stem for p in (data_dir() / "configs").glob("*.json"))


def load_config(source):
    """A config dict from a dict, a config.json (or its folder), or a shipped name like 'gpt2'."""
    if isinstance(source, dict):
        return dict(source)
    if not isinstance(source, (str, Path)):
        raise TypeError(f"source must be a dict, a path or a config name, got {type(source).__name__}")
    path = Path(source)
    if not path.exists():
        if str(source) not in shipped_configs():
            raise FileNotFoundError(
                f"{str(source)!r} is neither a file nor a shipped config; "
                f"shipped configs: {', '.join(shipped_configs())}")
        path = data_path(f"configs/{source}.json")
    if path.is_dir():
        if not (path / "config.json").is_file():
            raise ConfigError(f"{path} is a folder without a config.json in it")
        path = path / "config.json"
    config = _parse(path, _read_text(path))
    config.setdefault("_name_or_path", path.parent.name if path.name == "config.json" else path.stem)
    return config


def _read_text(path):
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise ConfigError(f"{path} is {size:,} bytes, too big for a config.json "
                              f"(at most {MAX_FILE_BYTES:,}); is it a checkpoint?")
        raw = path.read_bytes()
    except PermissionError:
        raise ConfigError(f"{path} cannot be read: no permission") from None
    except OSError as err:
        raise ConfigError(f"{path} cannot be read: {err.strerror or err}") from None
    if b"\0" in raw:
        raise ConfigError(f"{path} is a binary file, not a config.json "
                          "(a checkpoint such as model.safetensors?)")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise ConfigError(f"{path} is not UTF-8 text (byte {err.start} is 0x{raw[err.start]:02x}); "
                          "a config.json is UTF-8 JSON") from None


def _parse(path, text):
    try:
        config = json.loads(text)
    except json.JSONDecodeError as err:
        raise ConfigError(f"{path} is not valid JSON: {err}") from None
    except RecursionError:
        raise ConfigError(f"{path} holds JSON nested too deep to read") from None
    except ValueError as err:  # e.g. an integer of thousands of digits
        raise ConfigError(f"{path} holds a value too large to read: {err}") from None
    if not isinstance(config, dict):
        raise ConfigError(f"{path} holds a {type(config).__name__}, expected a JSON object")
    return config


def shown(value):
    """A field's value as it reads in JSON: null, true, "64", 1e+30 (long values shortened)."""
    try:
        text = json.dumps(value)
    except (TypeError, ValueError, RecursionError):
        text = repr(value) if not isinstance(value, (list, dict)) else type(value).__name__
    return text if len(text) <= 40 else text[:37] + "..."


class Fields:
    """Typed reads of one config's fields; each refuses a wrong type or value by name."""

    def __init__(self, config):
        self.config = config
        self.kind = config.get("model_type")

    def _lookup(self, name, aliases):
        """(key, value) of the first of name, *aliases present; (None, None) if none is."""
        present = [(key, self.config[key]) for key in (name, *aliases) if key in self.config]
        if any(v != present[0][1] or type(v) is not type(present[0][1]) for _, v in present):
            listed = " and ".join(f"{k}={shown(v)}" for k, v in present)
            raise ConfigError(f"config gives {listed}: the same setting twice, with different values")
        return present[0] if present else (None, None)

    def count(self, name, meaning, default=REQUIRED, aliases=(), minimum=1, null=REQUIRED):
        """config[name] as a whole number from minimum to MAX_COUNT.

        default: used when the field is absent (REQUIRED: absence is an error);
        null: used when the field is JSON null (REQUIRED: null is an error).
        """
        key, value = self._lookup(name, aliases)
        if key is None:
            if default is REQUIRED:
                raise ConfigError(f"config (model_type {self.kind!r}) lacks the field {name!r} ({meaning})")
            return default
        if value is None and null is not REQUIRED:
            return null
        if isinstance(value, bool) or not isinstance(value, int) or not minimum <= value <= MAX_COUNT:
            raise ConfigError(f"config field {key!r} ({meaning}) must be a whole number from {minimum} "
                              f"to {MAX_COUNT:,}, got {shown(value)}")
        return value

    def flag(self, name, meaning, default):
        """config[name] as a bool; it must be JSON true or false (absent: default)."""
        if name not in self.config:
            return default
        value = self.config[name]
        if not isinstance(value, bool):
            raise ConfigError(f"config field {name!r} ({meaning}) must be true or false, got {shown(value)}")
        return value

    def layer_list(self, name, meaning, n_layers):
        """config[name] as a set of layer indices, each from 0 to n_layers - 1 (absent or null: empty)."""
        value = self.config.get(name)
        if value is None:
            return set()
        if not isinstance(value, list) or not all(
                isinstance(i, int) and not isinstance(i, bool) and 0 <= i < n_layers for i in value):
            raise ConfigError(f"config field {name!r} ({meaning}) must be a list of layer indices "
                              f"from 0 to {n_layers - 1}, got {shown(value)}")
        return set(value)

    def divides(self, whole, whole_name, part, part_name):
        """Require whole to be a multiple of part, naming both fields."""
        if whole % part:
            raise ConfigError(f"{whole_name}={whole} must be a multiple of {part_name}={part}")

    def heads(self, d_model, n_heads, kv_default=None, head_dim=True, head_dim_default=None):
        """(n_kv_heads, head_dim) of grouped-query attention.

        kv_default: num_key_value_heads when absent (None: n_heads, as in Llama); null means n_heads.
        head_dim: whether the model reads a head_dim field; without one (or when it is null or
        absent and head_dim_default is None) a head is d_model / n_heads wide.
        """
        n_kv = self.count("num_key_value_heads", "key/value heads",
                          default=n_heads if kv_default is None else kv_default, null=n_heads)
        self.divides(n_heads, "num_attention_heads", n_kv, "num_key_value_heads")
        width = None
        if head_dim:
            width = self.count("head_dim", "width of one head", default=head_dim_default,
                               null=head_dim_default)
        if width is None:
            self.divides(d_model, "hidden_size", n_heads, "num_attention_heads")
            width = d_model // n_heads
        return n_kv, width
