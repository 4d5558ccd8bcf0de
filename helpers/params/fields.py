"""Each field of a config, read with its type checked (helpers.params.files reads the file).

A config is refused, with the field named, rather than counted wrongly: a count that is not
a whole number from 1 to MAX_COUNT (floats, strings, null, booleans, NaN, Infinity and huge
values are refused), a switch that is not a JSON true/false, the same setting given under two
names with two values.
"""

from helpers.params.files import ConfigError, same_value, shown

MAX_COUNT = 2**24  # 16,777,216: far above any real width, depth, head or vocabulary count
REQUIRED = object()  # default of a field that must be given


class Fields:
    """Typed reads of one config's fields; each refuses a wrong type or value by name."""

    def __init__(self, config):
        self.config = config
        self.kind = config.get("model_type")

    def _lookup(self, name, aliases):
        """(key, value) of the first of name, *aliases present; (None, None) if none is."""
        present = [(key, self.config[key]) for key in (name, *aliases) if key in self.config]
        if any(not same_value(v, present[0][1]) for _, v in present):
            listed = " and ".join(f"{k}={shown(v)}" for k, v in present)
            raise ConfigError(f"config gives {listed}: the same setting twice, with different "
                              "values")
        return present[0] if present else (None, None)

    def count(self, name, meaning, default=REQUIRED, aliases=(), minimum=1, null=REQUIRED):
        """config[name] as a whole number from minimum to MAX_COUNT.

        default: used when the field is absent (REQUIRED: absence is an error);
        null: used when the field is JSON null (REQUIRED: null is an error).
        """
        key, value = self._lookup(name, aliases)
        if key is None:
            if default is REQUIRED:
                raise ConfigError(f"config (model_type {self.kind!r}) lacks the field {name!r} "
                                  f"({meaning})")
            return default
        if value is None and null is not REQUIRED:
            return null
        if isinstance(value, bool) or not isinstance(value, int) \
                or not minimum <= value <= MAX_COUNT:
            raise ConfigError(f"config field {key!r} ({meaning}) must be a whole number from "
                              f"{minimum} to {MAX_COUNT:,}, got {shown(value)}")
        return value

    def flag(self, name, meaning, default):
        """config[name] as a bool; it must be JSON true or false (absent: default)."""
        if name not in self.config:
            return default
        value = self.config[name]
        if not isinstance(value, bool):
            raise ConfigError(f"config field {name!r} ({meaning}) must be true or false, got "
                              f"{shown(value)}")
        return value

    def layer_list(self, name, meaning, n_layers):
        """config[name] as a set of layer indices, each from 0 to n_layers - 1 (absent or null:
        empty)."""
        value = self.config.get(name)
        if value is None:
            return set()
        if not isinstance(value, list) or not all(
                isinstance(i, int) and not isinstance(i, bool) and 0 <= i < n_layers
                for i in value):
            raise ConfigError(f"config field {name!r} ({meaning}) must be a list of layer indices "
                              f"from 0 to {n_layers - 1}, got {shown(value)}")
        return set(value)

    def divides(self, whole, whole_name, part, part_name):
        """Require whole to be a multiple of part, naming both fields."""
        if whole % part:
            raise ConfigError(f"{whole_name}={whole} must be a multiple of {part_name}={part}")

    def heads(self, d_model, n_heads, kv_default=None, head_dim=True, head_dim_default=None):
        """(n_kv_heads, head_dim) of grouped-query attention.

        kv_default: num_key_value_heads when absent (None: n_heads, as in Llama); null: n_heads.
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
