"""Answers are read as a person writes them: word answers in any case, with surrounding punctuation and
spaces, or an obvious synonym; a number in brackets or quotes judged as the number it holds; a percent
where a fraction is asked named as such."""

import pytest

from helpers.checks import nb01_matrix_multiply as nb01
from helpers.checks import nb07_position_wise as nb07
from helpers.checks.runner import Prediction


@pytest.mark.parametrize("written", ["Falls.", " falls ", "FALLS!", "decreases", "It falls.", "goes down"])
def test_a_word_answer_is_read_as_meant(written):
    assert nb01.check_time_guess(written, "falls")


@pytest.mark.parametrize("written", ["grows", "rises", "stays the same"])
def test_a_wrong_word_answer_is_still_wrong(written):
    assert nb01.check_time_guess(written, "falls").status == "wrong"


def test_a_choice_of_several_words_is_read_with_its_punctuation():
    assert nb07.check_linearity_guess("Linear in V only.", "linear in V only")


def test_a_number_in_brackets_that_is_wrong_is_told_so():
    fb = nb01.check_rows_moved([3], 1)
    assert fb.status == "wrong" and "not right either" in str(fb) and "the run gives 1" in str(fb), str(fb)
    fb = nb01.check_rows_moved([1], 1)
    assert fb.status == "wrong" and "without the brackets" in str(fb) and "not right either" not in str(fb)


def test_a_percent_where_a_fraction_is_asked_is_named():
    check = Prediction("Exercise 9 (a share)", why="Because.", variable="my_share", rel=0.1)
    fb = check(64, 0.64)
    assert fb.status == "wrong" and "a percent" in str(fb) and "my_share = 0.64" in str(fb), str(fb)
    assert check(0.64, 0.64) and check(30, 0.64).status == "wrong" and "a percent" not in str(check(30, 0.64))
