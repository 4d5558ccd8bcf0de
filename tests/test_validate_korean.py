"""helpers.validate's errors speak the notebook's language: in Korean they name the same argument, expected
and actual value; in English they are the sentences they always were."""

import pytest

from helpers import language, validate


@pytest.fixture
def korean():
    language.MISSES.clear()
    language.use("ko")
    yield
    language.use("en")


def test_a_validate_error_reads_in_korean(korean):
    with pytest.raises(ValueError) as err:
        validate.positive_int(16.0, "d_ff")
    assert str(err.value) == "d_ff는 양의 정수여야 합니다. 받은 값: 16.0 (float입니다. 16이라고 쓰세요)"
    with pytest.raises(ValueError) as err:
        validate.choice("relux", "activation", {"relu", "gelu"})
    assert str(err.value) == "알 수 없는 activation 'relux': ['gelu', 'relu'] 중에서 고르세요"
    assert not language.MISSES


def test_a_validate_error_in_english_is_unchanged():
    with pytest.raises(ValueError, match=r"^d_ff must be a positive integer, got 16.0 \(a float; write 16\)$"):
        validate.positive_int(16.0, "d_ff")
    with pytest.raises(TypeError, match=r"^bias must be True or False, got 'no' \(str\)$"):
        validate.boolean("no", "bias")
    with pytest.raises(ValueError, match=r"^unknown activation 'relux'; choose one of \['gelu', 'relu'\]$"):
        validate.choice("relux", "activation", {"relu", "gelu"})
