"""The sentences of helpers/checks/cases.py and guesses.py (notebooks 05 and 06 use them) in Korean.

`filled` serves a notebook's catalog: a check that holds a sentence already filled with its numbers
(a prediction's why, a success line) is looked up by that English, so the catalog holds it too.
"""

from helpers.checks.show import Text, fill

MESSAGES = {
    # cases.pair: an answer that is a pair
    "returned {got}; expected a pair ({first}, {second})":
        "{got}을(를) 반환했습니다. 기대한 것은 쌍 ({first}, {second})입니다",
    "gives {what} {problem}": "반환한 {what} {problem}",
    # guesses.NamedPrediction: the typical wrong guess named before the why
    "you predicted {guess}, {answer} {actual}. {mistake} {why}":
        "여러분의 예측은 {guess}이고, {answer} {actual}입니다. {mistake} {why}",
}


def korean(text, messages):
    """text in Korean from messages: a Text through its template, the Texts among its values too; a
    catalogued phrase as its entry; anything else as it is."""
    if isinstance(text, Text):
        return fill(messages[text.template], [korean(a, messages) for a in text.args],
                    {k: korean(v, messages) for k, v in text.values.items()})
    return messages.get(text, text) if isinstance(text, str) else text


def filled(messages, *sentences):
    """{English as a check holds it: Korean} for each of sentences that is a Text filled with values."""
    return {str(s): korean(s, messages) for s in sentences if isinstance(s, Text)}


def named(messages, *cases):
    """{'<name>': '<Korean name>'} for cases shown by their name (cases.Named), as a call shows them."""
    return {repr(c): "<" + korean(c.name, messages) + ">" for c in cases}
