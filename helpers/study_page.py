"""The study group's report as one web page for the projector: inline CSS and an inline SVG chart,
no network.

`page(data)` takes the report `helpers.study_group.report` makes and returns the HTML text.
"""

from html import escape

from helpers import language, study, study_group
from helpers.language import say

# Okabe-Ito blue and sky blue (helpers.plots.COLORS), colour-blind safe
DONE, TRIED = "#0072B2", "#56B4E9"
# px: one bar's row, the labels' column, a full bar (every member)
ROW, LABEL, BAR = 22, 320, 420

CSS = """
body { font: 16px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 1100px; color: #222; }
h1 { font-size: 1.7em; } h2 { font-size: 1.3em; margin-top: 1.6em; }
table { border-collapse: collapse; margin: .6em 0; }
th, td { border: 1px solid #ccc; padding: .25em .6em; text-align: left; }
td.done { background: #cfe6f5; } td.attempted { background: #fdf1c7; } td.kind { color: #666; }
.notes li, .mistakes li { margin: .3em 0; } .cell { color: #555; font-size: .92em; }
svg text { font: 13px system-ui, sans-serif; fill: #222; }
"""


def chart(data, lang):
    """An SVG bar chart: for each exercise, the members who finished it (dark) and tried it
    (light)."""
    rows = [(nb["number"], row) for nb in data["notebooks"] for row in nb["exercises"]]
    members = max(len(data["members"]), 1)
    height = ROW * len(rows) + 40
    title = language.translate(say("Members who finished each exercise (light: tried, not "
                                   "finished yet)"), lang)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" role="img" width="{LABEL + BAR + 60}" '
             f'height="{height}" aria-label="{escape(title)}"><title>{escape(title)}</title>']
    for i, (number, row) in enumerate(rows):
        y = 10 + i * ROW
        label = f"{number} · " + language.translate(row["title"], lang)
        label = label if len(label) <= 42 else label[:41] + "…"
        done, tried = BAR * row["done"] / members, BAR * row["attempted"] / members
        parts.append(f'<text x="{LABEL - 6}" y="{y + 14}" text-anchor="end">{escape(label)}</text>')
        parts.append(f'<rect class="done" x="{LABEL}" y="{y + 2}" width="{done:.1f}" '
                     f'height="{ROW - 6}" fill="{DONE}"/>')
        parts.append(f'<rect class="tried" x="{LABEL + done:.1f}" y="{y + 2}" width="{tried:.1f}" '
                     f'height="{ROW - 6}" fill="{TRIED}"/>')
        parts.append(f'<text x="{LABEL + done + tried + 6:.1f}" y="{y + 14}">{row["done"]}</text>')
    axis = 10 + len(rows) * ROW
    parts.append(f'<line x1="{LABEL}" y1="{axis}" x2="{LABEL + BAR}" y2="{axis}" stroke="#888"/>')
    parts.append(f'<text x="{LABEL + BAR}" y="{axis + 18}" text-anchor="end">{members} '
                 f'{escape(language.translate(say("members"), lang))}</text></svg>')
    return "\n".join(parts)


def page(data):
    """The whole report (helpers.study_group.report's data) as one self-contained HTML page."""
    lang = data["lang"]
    t = lambda template, **values: escape(  # noqa: E731
        language.translate(say(template, **values), lang))
    head = t("Study group: {members} members, from {files} files", members=len(data["members"]),
             files=data.get("files", len(data["members"])))
    out = [f'<!DOCTYPE html><html lang="{lang}"><head><meta charset="utf-8">',
           f"<title>{t('Study group progress')}</title><style>{CSS}</style></head><body>",
           f"<h1>{t('Study group progress')}</h1><p>{head}</p>", chart(data, lang)]
    if data["notes"]:
        out.append(f"<h2>{t('About the files')}</h2><ul class=\"notes\">"
                   + "".join(f"<li>{escape(note)}</li>" for note in data["notes"]) + "</ul>")
    for nb in data["notebooks"]:
        out.append(
            f"<h2>{t('Notebook {number} ({name})', number=nb['number'], name=nb['name'])}</h2>")
        out.append("<table><tr><th></th><th>" + t("exercise") + "</th>"
                   + "".join(f"<th>{escape(name)}</th>" for name in data["members"]) + "</tr>")
        for row in nb["exercises"]:
            cells = "".join(
                f'<td class="{c["status"].replace(" ", "-")}">'
                f'{escape(study.status_words(c["status"], c["tries"], lang, short=True))}</td>'
                for c in row["members"].values())
            out.append(f'<tr><td class="kind">{t(row["kind"])}</td>'
                       f'<td>{escape(language.translate(row["title"], lang))}</td>{cells}</tr>')
        out.append("</table>")
        if not nb["mistakes"]:
            out.append(
                f"<p>{t('No mistakes recorded in notebook {number}.', number=nb['number'])}</p>")
            continue
        out.append(
            f"<p>{t('The mistakes made most often in notebook {number}:', number=nb['number'])}</p>"
            "<ol class=\"mistakes\">")
        for m in nb["mistakes"]:
            said = escape(study_group.said_often(m, lang))
            cell = t("discuss at the cell tagged {tag} ({heading})", **m["cell"])
            out.append(f'<li>{said}<br><span class="cell">{cell}</span></li>')
        out.append("</ol>")
    out.append("</body></html>")
    return "\n".join(out)
