"""The claims ledger is current and every claim of the source posts still has a checking cell."""

import claims
from course_paths import NOTEBOOK_DIR, notebook_paths


def test_every_claim_has_a_checking_cell():
    missing = [c.text for c, hits in claims.ledger(notebook_paths()) if not hits]
    assert not missing, f"claims no notebook checks any more: {missing}"


def test_every_key_a_cell_names_is_a_claim():
    assert not claims.unknown_keys(notebook_paths()), "a cell's metadata names a claim the ledger lacks"


def test_ledger_file_is_current():
    expected = claims.render(claims.ledger(notebook_paths()))
    assert claims.LEDGER.read_text() == expected, "run `python tools/claims.py`"


def test_a_removed_check_is_noticed(tmp_path):
    import nbformat

    nb = nbformat.read(NOTEBOOK_DIR / "01_matrix_multiply.ipynb", as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.source = cell.source.replace("assert ", "print(")  # no cell asserts any more
    nbformat.write(nb, tmp_path / "01_matrix_multiply.ipynb")
    rows = claims.ledger([tmp_path / "01_matrix_multiply.ipynb"])
    assert all(not hits for _, hits in rows)


def test_a_renamed_variable_keeps_the_claim(tmp_path):
    import nbformat

    nb = nbformat.read(NOTEBOOK_DIR / "01_matrix_multiply.ipynb", as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.source = cell.source.replace("column_3", "third_column")
    nbformat.write(nb, tmp_path / "01_matrix_multiply.ipynb")
    rows = dict((c.key, hits) for c, hits in claims.ledger([tmp_path / "01_matrix_multiply.ipynb"]))
    assert rows["dot-product-0.5"], "the claim's cell is found by its metadata, not by its code"
