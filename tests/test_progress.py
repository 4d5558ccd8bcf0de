"""The progress bar's summary line: what a finished loop leaves in a notebook, in the notebook's language."""

import pytest

from helpers import language, progress


@pytest.fixture
def korean():
    before = language.current()
    language.use("ko")
    yield
    language.use(before)


def test_the_summary_line_says_how_many_were_done_and_how_long_it_took():
    assert progress.summary("fitting", 24, 24, 2.31) == "fitting: 24 of 24 done in 2.31 s"
    assert progress.summary("fitting", 3, None, 0.5) == "fitting: 3 done in 500.00 ms"


def test_the_korean_edition_reads_the_summary_line_in_korean(korean):
    assert progress.summary("SAE 학습", 3, 3, 6.21) == "SAE 학습: 3개 중 3개 완료 (6.21 s)"
    assert progress.summary("맞추기", 3, None, 0.5) == "맞추기: 3개 완료 (500.00 ms)"


def test_a_description_that_is_not_a_string_is_named():
    with pytest.raises(TypeError, match="desc must be a string"):
        list(progress.progress([1, 2], desc=3))
