"""The checks' language: helpers.language, the package's translation layer, under its former name
(code written against `helpers.checks.language` keeps working). See helpers.language and
helpers.particles."""

from helpers.checks.show import Text, fill  # noqa: F401 - the checks' Text, which describes arrays
from helpers.language import (  # noqa: F401 - re-exported
    DOMAIN,
    LANGUAGES,
    LOCALE_DIR,
    MISSES,
    Messages,
    _current,
    _no_words,
    _translated,
    _value,
    catalog,
    current,
    from_environment,
    translate,
    use,
)
from helpers.particles import PARTICLES, particle, reading  # noqa: F401 - re-exported


def with_particles(template, args=(), values=None):
    """template filled as a check fills it (show.fill), each two-form particle chosen by the value
    shown."""
    from helpers import language

    return language.with_particles(template, args, values, Text.shown)
