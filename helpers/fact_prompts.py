"""The fact set as a model reads it: words to ids (Vocab) and a batch of prompts (Prompts).

make_prompts turns every (fact, template) pair of helpers.facts into one right-padded batch, with
the positions a reading needs: the last word (where the answer is read) and the subject's word.
Notebook 12's fact model (helpers.kv_memory, which names these too) trains and is tested on them.
"""

from dataclasses import dataclass

import torch

from helpers import facts, validate


class Vocab:
    """Word <-> id for the fact set; id 0 is padding."""

    def __init__(self, words):
        self.words = list(words)
        self.ids = {w: i for i, w in enumerate(self.words)}
        if len(self.ids) != len(self.words):
            raise ValueError("words must be unique")

    def __len__(self):
        return len(self.words)

    def encode(self, words):
        if isinstance(words, str):
            raise TypeError(f"words must be a list of words, got the string {words!r}; split it: "
                            f"{words!r}.split()")
        missing = [w for w in words if w not in self.ids]
        if missing:
            raise KeyError(f"unknown word(s) {missing}; the vocabulary has {len(self)} words")
        return [self.ids[w] for w in words]


@dataclass
class Prompts:
    """A right-padded batch of prompts: idx (N, T), last (N,), subject (N,), answer (N,)."""

    idx: torch.Tensor
    last: torch.Tensor      # position of each prompt's last word (where the answer is read)
    subject: torch.Tensor   # position of the subject word (the subject's last token)
    answer: torch.Tensor    # id of the correct capital
    fact: torch.Tensor      # row of facts.FACTS
    template: list

    def to(self, device):
        """The same prompts with every tensor on `device` (the model's), as nn.Module.to moves
        weights."""
        return Prompts(self.idx.to(device), self.last.to(device), self.subject.to(device),
                       self.answer.to(device), self.fact.to(device), self.template)


def make_prompts(vocab, templates, fact_rows=None, answers=None):
    """Every (fact, template) pair as one batch; answers overrides the capital of some facts."""
    validate.instance_of(vocab, "vocab", Vocab)
    if isinstance(templates, str):
        raise TypeError("templates must be a list of phrasings such as facts.TRAIN_TEMPLATES, got "
                        f"the string {templates!r}; wrap one in a list: [template]")
    if not templates:
        raise ValueError(f"templates must hold at least one phrasing, got {templates!r}")
    rows = range(len(facts.FACTS)) if fact_rows is None else fact_rows
    for r in rows:
        validate.index(r, "each of fact_rows", len(facts.FACTS))
    answers = answers or {}
    for r, word in answers.items():
        if word not in vocab.ids:
            raise KeyError(f"answers[{r!r}] is {word!r}, not a word of the vocabulary "
                           f"({len(vocab)} words)")
    encoded, last, subject, answer, fact, template = [], [], [], [], [], []
    for t in templates:
        for r in rows:
            country, capital = facts.FACTS[r]
            words, s = facts.prompt_words(t, country)
            encoded.append(vocab.encode(words))
            last.append(len(words) - 1)
            subject.append(s)
            answer.append(vocab.ids[answers.get(r, capital)])
            fact.append(r)
            template.append(t)
    idx = torch.zeros(len(encoded), max(map(len, encoded)), dtype=torch.long)
    for i, ids in enumerate(encoded):
        idx[i, : len(ids)] = torch.tensor(ids)
    return Prompts(idx, torch.tensor(last), torch.tensor(subject), torch.tensor(answer),
                   torch.tensor(fact), template)
