"""Read a config.json safely: whatever path a learner types, one sentence or a dict, never a hang.

Refused, with the path named: a path that does not exist (or a broken link), a folder without
a config.json, anything that is not a regular file (a named pipe, a device such as /dev/zero,
a socket), no permission, a file over MAX_FILE_BYTES (a checkpoint passed by mistake), binary
or UTF-16 bytes, text that is not UTF-8, empty, not JSON, nested too deep, an integer too long
to read, a key given twice with different values, and JSON that is not an object.

The file is opened without blocking and read through its handle, at most MAX_FILE_BYTES + 1
bytes: a pipe or a device never reaches the read, and a file that lies about its size cannot
make it read more.
"""

import json
import math
import os
import stat
from pathlib import Path

from helpers.data import data_dir, data_path

# 32 MiB: a config.json is a few kilobytes, but a classifier's id2label can make it megabytes
# (transformers reads any size); a checkpoint is hundreds of megabytes.
MAX_FILE_BYTES = 2**25
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)  # POSIX: opening a pipe without a writer returns at once
_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a named pipe (FIFO)"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISSOCK, "a socket"))


class ConfigError(ValueError):
    """A config.json that the calculator cannot read: names the file or the field that is wrong."""


class MissingConfig(ConfigError, FileNotFoundError):
    """A path that is neither a file nor a shipped config (still a FileNotFoundError too)."""


def shipped_configs():
    """Names of the configs shipped in data/configs/, e.g. ['deepseek-v3', 'gpt2', ...]."""
    return sorted(p.stem for p in (data_dir() / "configs").glob("*.json"))


def load_config(source):
    """A config dict from a dict, a config.json (or its folder), or a shipped name like 'gpt2'."""
    if isinstance(source, dict):
        return dict(source)
    if isinstance(source, os.PathLike):
        source = os.fspath(source)
    if not isinstance(source, str):
        raise TypeError("source must be a dict, a path or a config name, got "
                        f"{type(source).__name__}")
    if not source.strip():
        raise ConfigError(f"source is {source!r}, an empty name; give a config.json, its folder, "
                          f"or a shipped config: {', '.join(shipped_configs())}")
    path = _find(source)
    if path.is_dir():
        if not os.path.lexists(path / "config.json"):
            raise ConfigError(f"{path} is a folder without a config.json in it")
        path = path / "config.json"  # read_capped refuses it if it is a folder, a pipe, ...
    config = _parse(path, _decode(path, read_capped(path)))
    config.setdefault("_name_or_path", path.parent.name if path.name == "config.json"
                      else path.stem)
    return config


def _find(source):
    """The path of source: the file or folder itself, else the shipped config of that name."""
    path = Path(source)
    if os.path.lexists(path) and not path.exists():
        raise MissingConfig(f"{path} is a link to {os.readlink(path)!r}, which does not exist")
    if path.exists():
        return path
    if source in shipped_configs():
        return data_path(f"configs/{source}.json")
    raise MissingConfig(f"{source!r} is neither a file nor a shipped config; "
                        f"shipped configs: {', '.join(shipped_configs())}")


def _open(path):
    """A read-only file descriptor, opened without blocking (a FIFO without a writer would wait)."""
    return os.open(path, os.O_RDONLY | _NONBLOCK | getattr(os, "O_BINARY", 0))


def read_capped(path, cap=None):
    """The bytes of path, a regular file of at most cap bytes (default MAX_FILE_BYTES)."""
    cap = MAX_FILE_BYTES if cap is None else cap
    try:
        fd = _open(path)
    except PermissionError:
        raise ConfigError(f"{path} cannot be read: no permission") from None
    except OSError as err:
        raise ConfigError(f"{path} cannot be read: {err.strerror or err}") from None
    try:
        info = os.fstat(fd)  # of what was opened, not of what the name pointed to
        kind = next((name for test, name in _KINDS if test(info.st_mode)), None)
        if kind is not None or not stat.S_ISREG(info.st_mode):
            raise ConfigError(f"{path} is {kind or 'not a regular file'}, not a config.json file "
                              f"(a config.json is a regular file of at most {cap:,} bytes)")
        if info.st_size > cap:
            raise ConfigError(f"{path} is {info.st_size:,} bytes, too big for a config.json "
                              f"(at most {cap:,}); is it a checkpoint?")
        with os.fdopen(fd, "rb") as handle:  # buffered: read(n) returns n bytes unless at the end
            fd = None  # the handle closes it now
            raw = handle.read(cap + 1)  # at most one byte past the cap, whatever the size said
    except OSError as err:
        raise ConfigError(f"{path} cannot be read: {err.strerror or err}") from None
    finally:
        if fd is not None:
            os.close(fd)
    if len(raw) > cap:
        raise ConfigError(f"{path} is over {cap:,} bytes, too big for a config.json "
                          f"(at most {cap:,}); is it a checkpoint?")
    return raw


def _decode(path, raw):
    if raw[:2] in (b"\xff\xfe", b"\xfe\xff"):
        raise ConfigError(f"{path} is UTF-16 text; a config.json is UTF-8 JSON (save it as UTF-8)")
    if b"\0" in raw:
        raise ConfigError(f"{path} is a binary file, not a config.json "
                          "(a checkpoint such as model.safetensors?)")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise ConfigError(f"{path} is not UTF-8 text (byte {err.start} is 0x{raw[err.start]:02x}); "
                          "a config.json is UTF-8 JSON") from None
    if not text.strip():
        raise ConfigError(f"{path} is empty; a config.json holds one JSON object")
    return text


def _no_repeats(pairs):
    """A JSON object's dict; a key given twice with two values is refused (json keeps the last)."""
    seen = {}
    for key, value in pairs:
        if key in seen and not same_value(seen[key], value):
            raise ConfigError(f"gives the key {key!r} twice, with different values "
                              f"({shown(seen[key])} and {shown(value)})")
        seen[key] = value
    return seen


def same_value(a, b):
    """Equal JSON values of the same type (1 and 1.0 differ; NaN equals NaN here, not in Python)."""
    if type(a) is not type(b):
        return False
    try:
        return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    except (TypeError, ValueError, RecursionError):
        return a is b


def shown(value):
    """A value as it reads in JSON: null, true, "64", 1e+30 (long values shortened).

    NaN and Infinity, which Python's json reads and writes but JSON itself lacks, are named.
    """
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN (not a number)" if math.isnan(value) else f"{json.dumps(value)} (infinite)"
    try:
        text = json.dumps(value)
    except (TypeError, ValueError, RecursionError):
        text = repr(value) if not isinstance(value, (list, dict)) else type(value).__name__
    return text if len(text) <= 40 else text[:37] + "..."


_JSON_TYPES = {list: "a list", str: "a string", int: "a number", float: "a number",
               bool: "true or false", type(None): "null"}


def _parse(path, text):
    try:
        config = json.loads(text, object_pairs_hook=_no_repeats)
    except ConfigError as err:
        raise ConfigError(f"{path} {err}") from None
    except json.JSONDecodeError as err:
        raise ConfigError(f"{path} is not valid JSON: {err}") from None
    except RecursionError:
        raise ConfigError(f"{path} holds JSON nested too deep to read") from None
    except ValueError as err:  # e.g. an integer of thousands of digits
        raise ConfigError(f"{path} holds a value too large to read: {err}") from None
    if not isinstance(config, dict):
        raise ConfigError(f"{path} holds {_JSON_TYPES.get(type(config), type(config).__name__)}, "
                          "expected a JSON object")
    return config
