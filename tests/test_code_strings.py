"""Code cells in Korean where a learner reads them (tools/code_strings.py): comments and the strings a
cell prints or draws come from code.po, the code stays the English code (a token comparison with
string literals and comments set aside), an untranslated string keeps its English, and a changed one
is reported with its previous English."""

import nbformat
import pytest

import code_strings
import translations
from course_paths import notebook_paths

CELL = '''x = d_model * 4  # the hidden width, d_ff
%timeit ffn(x)
print(f"{n:,} rows dropped", sep="")
ax.set_title("Weights per layer"); ax.legend(["ReLU", "the GELU curve"])
slider = widgets.IntSlider(description="tokens T")
assert y > 0, ("y must be "
               "positive")
name = "not shown to anyone"  # noqa: F841
'''


def _texts(source):
    return [text for _, _, text in code_strings.spans(source)]


def test_the_pieces_a_learner_reads_are_found_and_nothing_else():
    assert _texts(CELL) == ["# the hidden width, d_ff", 'f"{n:,} rows dropped"', '"Weights per layer"',
                            '"the GELU curve"', '"tokens T"', '"y must be "\n               "positive"']
    assert _texts('ax.legend(["ReLU", "up_proj"]); ax.set_ylabel("GB/s"); ax.set_xlabel("tokens")') == ['"tokens"']


@pytest.mark.parametrize("changed, same", [
    (CELL.replace("# the hidden width, d_ff", "# 은닉 폭, d_ff"), True),
    (CELL.replace('"y must be "\n               "positive"', '"y는 양수여야 합니다"'), True),
    (CELL.replace('f"{n:,} rows dropped"', 'f"{n:,}개 행을 버렸습니다"'), True),
    (CELL.replace("d_model * 4", "d_model * 3"), False),
    (CELL.replace("y > 0", "y >= 0"), False),
    (CELL.replace('sep=""', 'end=""'), False),
    (CELL.replace("ax.set_title", "ax.set_xlabel"), False),
])
def test_two_cells_are_the_same_code_once_strings_and_comments_are_set_aside(changed, same):
    assert code_strings.same_code(CELL, changed) is same


def test_a_translation_goes_in_and_an_untranslated_piece_keeps_its_english():
    korean = code_strings.translated_source(CELL, {'"Weights per layer"': '"층마다의 가중치"',
                                                   "# the hidden width, d_ff": "# 은닉 폭, d_ff"})
    assert 'ax.set_title("층마다의 가중치")' in korean and "# 은닉 폭, d_ff" in korean
    assert 'f"{n:,} rows dropped"' in korean and code_strings.same_code(CELL, korean)


def test_a_changed_english_string_turns_fuzzy_with_its_previous_english_and_is_reported():
    cell = nbformat.v4.new_code_cell(CELL)
    cell.id = "abc"
    catalog = translations.new_catalog("code")
    code_strings.update(catalog, code_strings.cell_entries("99_x.ipynb", cell))
    catalog.get('"Weights per layer"', context="99_x.ipynb#abc").string = '"층마다의 가중치"'
    assert '"층마다의 가중치"' in code_strings.translated_source(
        CELL, code_strings.cell_state("99_x.ipynb", cell, catalog)[0])
    cell.source = CELL.replace("Weights per layer", "Weight bytes per layer")
    code_strings.update(catalog, code_strings.cell_entries("99_x.ipynb", cell))
    use, untranslated, changed = code_strings.cell_state("99_x.ipynb", cell, catalog)
    assert changed == [('"Weight bytes per layer"', '"Weights per layer"')]
    assert '"층마다의 가중치"' not in code_strings.translated_source(cell.source, use), "fuzzy keeps the English"
    assert len(untranslated) == 5


def test_code_po_holds_every_piece_the_english_code_cells_show():
    catalog = translations.read_catalog(translations.CODE_PO)
    missing = [(m.context, m.id) for m in code_strings.template(notebook_paths(), translations._is_setup)
               if catalog.get(m.id, context=m.context) is None]
    assert not missing, f"{len(missing)} code strings not in code.po (run `make ko-extract`), e.g. {missing[:3]}"


def test_a_translated_code_string_reaches_the_generated_korean_cell_and_status_names_the_stale_one(tmp_path,
                                                                                                   monkeypatch):
    path = notebook_paths(["01"])[0]
    catalog = translations.read_catalog(translations.CODE_PO)
    nb = nbformat.read(path, as_version=4)
    index, cell, text = next((i, c, code_strings.spans(c.source)[0][2]) for i, c in enumerate(nb.cells)
                             if c.cell_type == "code" and not translations._is_setup(c) and code_strings.spans(c.source))
    catalog.get(text, context=f"{path.name}#{cell.id}").string = "# 번역된 주석" if text.startswith("#") else '"번역됨"'
    translations.write_catalog(tmp_path / "code.po", catalog)
    monkeypatch.setattr(translations, "CODE_PO", tmp_path / "code.po")
    korean = translations.generate(path).cells[index].source
    assert korean != cell.source and "번역" in korean and code_strings.same_code(cell.source, korean)
    found = translations.code_problems(path)
    assert [(kind, at) for kind, at, _, _ in found] == [("code", index)], "the committed Korean cell is now stale"


def test_the_literals_an_expression_joins_chooses_or_puts_together_are_found_but_not_those_code_reads():
    cell = '''print("Expected: " + ("within 2x" if cpu else "about as fast") + ", at T=1.")
print(", ".join(f"at T={T} fused is {r}" for T, r in ratios.items()))
print(f"{'':<17}{'neurons':<19}{t['dense']}")
print(f"{t['dense']:.1f} {x}")
for n in progress(items, desc="training SAEs"):
    pass
assert ok, "got " + ("less than 1e-12" if gap < 1e-12 else f"up to {gap:.2f}")
print(layouts["gathered by columns"])
def fused_is(r):
    return f"{r:.2f}x faster" if r >= 1 else "same"
def kind(gated):
    return "gated" if gated else "relu"
'''
    assert _texts(cell) == ['"Expected: "', '"within 2x"', '"about as fast"', '", at T=1."',
                            'f"at T={T} fused is {r}"', "f\"{'':<17}{'neurons':<19}{t['dense']}\"",
                            '"training SAEs"', '"got "', '"less than 1e-12"', 'f"up to {gap:.2f}"',
                            'f"{r:.2f}x faster"', '"same"']


def test_the_docstring_of_a_function_or_class_the_cell_defines_is_found_like_a_comment():
    cell = '''def mlp(x):
    """(T, d) -> (T, d): up-projection, GELU, down-projection, token by token."""
    return x


class Block:
    """Attention, then the MLP."""

    def forward(self, x):
        """x: (T, d)."""
        return x


"""A bare string: no docstring."""
'''
    assert _texts(cell) == ['"""(T, d) -> (T, d): up-projection, GELU, down-projection, token by token."""',
                            '"""Attention, then the MLP."""']   # "x: (T, d)." has no word to translate
    korean = code_strings.translated_source(cell, {'"""Attention, then the MLP."""': '"""어텐션, 그다음 MLP."""'})
    assert '"""어텐션, 그다음 MLP."""' in korean and code_strings.same_code(cell, korean)
