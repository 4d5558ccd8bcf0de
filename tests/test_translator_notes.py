"""Every template or fragment in checks.po carries the translator's comment the extractor writes from the
source (tools/translator_notes.py): where it is shown, what each {field} holds, the particle convention."""

import check_messages
import translations
import translator_notes

CATALOG = [m for m in translations.read_catalog(translations.CHECKS_PO) if m.id]


def test_every_template_and_fragment_of_the_checks_catalog_says_where_it_is_shown_and_what_it_fills():
    bare = []
    for message in CATALOG:
        names = translator_notes.fields(message.id)
        if not names and not translator_notes.is_fragment(message.id):
            continue
        said = " ".join(message.auto_comments)
        if "Shown: " not in said or any(f"{{{name}}}: " not in said for name in names) \
                or (names and "{got}은(는)" not in said):
            bare.append(message.id)
    assert not bare, f"{len(bare)} entries without their translator's comment (run `make ko-extract`): {bare[:3]}"


def test_the_comment_names_the_code_that_fills_a_field_and_the_notebook_that_shows_it(tmp_path):
    checks = tmp_path / "helpers" / "checks"
    checks.mkdir(parents=True)
    (checks / "nb07_planted.py").write_text(
        'from helpers.checks.show import say\n\n'
        'def verdict(layer, value):\n'
        '    return say("{call} gave {ratio:.2f} for {layer}; expected 4", call=layer.name, ratio=value,'
        ' layer=layer.index)\n\n'
        'PLAIN = say("A whole sentence with no field.")\n', encoding="utf-8")
    catalog = check_messages.messages(tmp_path, load=False)
    comments = catalog.get("{call} gave {ratio:.2f} for {layer}; expected 4").auto_comments
    assert comments[0] == ("Shown: notebook 07's check: printed under the exercise cell when the learner runs it.")
    assert "{ratio}: `value` in the code." in comments and "{layer}: `layer.index` in the code." in comments
    assert comments[1].startswith("{call}: the call the check made")
    assert "A fragment, put into another sentence: a phrase, no full stop." in comments
    assert catalog.get("A whole sentence with no field.").auto_comments == []


def test_a_runtime_entry_is_commented_from_the_module_that_holds_its_text():
    comments = translator_notes.runtime_comments("Your progress: {path} (course version {version})",
                                                 translations.ROOT)
    assert comments[0].startswith("Shown: the study group's") and "{version}: " in comments[2]
