"""A study group's report: the members' progress files merged (`python -m helpers progress --merge ...`).

Each member sends the course-progress.jsonl the checks wrote beside their notebooks; the leader
names them alice.jsonl, bob.jsonl, ... (or keeps one folder per member) and merges them: members
by exercises, and per notebook the three mistakes the group made most often, each with the
sentence the check said and the cell to discuss. Whatever is odd about the files (empty, damaged,
the same file twice, one member's two files, another course version, exercises this version
lacks) is said in one line each, and the rest is reported.
"""

import hashlib
import json
from collections import Counter
from pathlib import Path

import helpers
from helpers import language, study
from helpers.checks import recording
from helpers.language import say


def files(paths):
    """The progress files named: each file as given, and every *.jsonl file inside a folder."""
    found = []
    for path in map(Path, paths):
        found += sorted(path.rglob("*.jsonl")) if path.is_dir() else [path]
    return found


def _member_name(path):
    """alice.jsonl -> 'alice'; alice/course-progress.jsonl -> 'alice'."""
    if path.stem == Path(recording.FILE_NAME).stem and path.resolve().parent.name:
        return path.resolve().parent.name
    return path.stem


def _key(entry):
    return json.dumps(entry, sort_keys=True)


def load(paths):
    """({member: records}, [one Text per oddity]) from the members' progress files."""
    known = {(nb, ex.number) for nb, listed in study.exercises().items() for ex in listed}
    members, first_file, learners, digests, notes = {}, {}, {}, {}, []
    for path in files(paths):
        label = str(path)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            notes.append(say("{name}: no such file, left out.", name=label))
            continue
        except OSError as err:
            notes.append(say("{name}: could not be read ({reason}), left out.", name=label,
                             reason=type(err).__name__))
            continue
        if not data.strip():
            notes.append(say("{name}: an empty file, left out.", name=label))
            continue
        digest = hashlib.sha1(data).hexdigest()
        if digest in digests:
            notes.append(say("{name}: the same file as {other}, counted once.", name=label, other=digests[digest]))
            continue
        digests[digest] = label
        records, bad = recording.parse(data.decode("utf-8", errors="replace").splitlines())
        if bad:
            notes.append(say("{name}: 1 line that is not a record, skipped.", name=label) if bad == 1 else
                         say("{name}: {n} lines that are not records, skipped.", name=label, n=bad))
        versions = sorted({str(r.get("course")) for r in records} - {helpers.__version__})
        if versions:
            notes.append(say("{name}: records from course version {version} (this is {current}); exercises are "
                             "matched by notebook and number.", name=label, version=", ".join(versions),
                             current=helpers.__version__))
        unknown = sorted({f"{r['notebook']} {r['exercise']}" for r in records if (r["notebook"], r["exercise"])
                          not in known})
        if unknown:
            n = sum(f"{r['notebook']} {r['exercise']}" in unknown for r in records)
            which = ", ".join(unknown[:3]) + (", ..." if len(unknown) > 3 else "")
            notes.append(say("{name}: 1 record of an exercise this version does not have ({which}), left out.",
                             name=label, which=which) if n == 1 else
                         say("{name}: {n} records of exercises this version does not have ({which}), left out.",
                             name=label, n=n, which=which))
            records = [r for r in records if (r["notebook"], r["exercise"]) in known]
        learner = next((str(r["learner"]) for r in records if r.get("learner")), None)
        if learner in learners:
            member = learners[learner]
            notes.append(say("{name} and {other} come from the same member: their records count once, as "
                             "{member}.", name=label, other=first_file[member], member=member))
            seen = {_key(r) for r in members[member]}
            members[member] += [r for r in records if _key(r) not in seen]
            members[member].sort(key=lambda r: str(r.get("time", "")))
            continue
        name, n = _member_name(path), 2
        while name in members:
            name, n = f"{_member_name(path)} ({n})", n + 1
        members[name], first_file[name] = records, label
        if learner:
            learners[learner] = name
    return members, notes


def report(members, notes, lang):
    """The group's report as data: members by exercises per notebook, the three commonest mistakes."""
    grouped = {name: study._by_exercise(records) for name, records in members.items()}
    started = {r["notebook"] for records in members.values() for r in records}
    notebooks = []
    for notebook, listed in study.exercises().items():
        if notebook not in started:
            continue
        rows = []
        for ex in listed:
            cells = {}
            for name in members:
                status, tries = study._status(grouped[name].get((notebook, ex.number), []))
                cells[name] = {"status": status, "tries": tries}
            rows.append({"number": ex.number, "title": ex.title, "kind": ex.kind, "members": cells,
                         "done": sum(c["status"] == "done" for c in cells.values()),
                         "attempted": sum(c["status"] == "attempted" for c in cells.values())})
        notebooks.append({"notebook": notebook, "number": study._name(notebook)[0], "name": study._name(notebook)[1],
                          "exercises": rows, "mistakes": _mistakes(members, notebook, listed, lang)})
    return {"course": helpers.__version__, "lang": lang, "members": list(members),
            "notes": [language.translate(note, lang) for note in notes], "notebooks": notebooks}


def _mistakes(members, notebook, listed, lang, top=3):
    """The `top` mistakes most often recorded in a notebook, each with its sentence and cell."""
    counts, who = Counter(), {}
    for name, records in members.items():
        for r in records:
            if r["notebook"] == notebook and r["verdict"] == "mistake":
                key = (r["exercise"], str(r.get("mistake", "unnamed")))
                counts[key] += 1
                who.setdefault(key, set()).add(name)
    exercises = {ex.number: ex for ex in listed}
    found = []
    for (number, mistake), count in sorted(counts.items(), key=lambda kv: (-kv[1], -len(who[kv[0]]), kv[0]))[:top]:
        ex = exercises[number]
        heading = say("Exercise {number} ({kind})", number=number, kind=say(ex.kind))
        found.append({"exercise": number, "title": ex.title, "mistake": mistake, "count": count,
                      "members": len(who[(number, mistake)]), "sentence": study.sentence(mistake, lang, study.check_values(notebook, number)),
                      "cell": {"tag": f"exercise-{number}", "heading": language.translate(heading, lang)}})
    return found


def said_often(mistake, lang):
    """'3 times, by 2 members, in Exercise 2 (...): the sentence' (once, by one member: said so)."""
    template = ("once, by one member, in {exercise}: {sentence}" if mistake["count"] == 1 else
                "{count} times, by one member, in {exercise}: {sentence}" if mistake["members"] == 1 else
                "{count} times, by {members} members, in {exercise}: {sentence}")
    return language.translate(say(template, count=mistake["count"], members=mistake["members"],
                                  exercise=language.translate(mistake["title"], lang),
                                  sentence=mistake["sentence"]), lang)


def show_report(data):
    """The group's report as text."""
    lang = data["lang"]
    t = lambda template, **values: language.translate(say(template, **values), lang)  # noqa: E731
    names = [name[:12] for name in data["members"]]
    lines = [t("Study group: {members} members, from {files} files", members=len(names),
               files=data.get("files", len(names)))]
    lines += ["  - " + note for note in data["notes"]]
    for notebook in data["notebooks"]:
        lines += ["", t("Notebook {number} ({name})", number=notebook["number"], name=notebook["name"])]
        lines.append("  " + study.pad(t("exercise"), 56) + "".join(study.pad(n, 13) for n in names))
        for row in notebook["exercises"]:
            title = study.pad(t(row["kind"]), 8) + "  " + language.translate(row["title"], lang)
            cells = [study.status_words(c["status"], c["tries"], lang, short=True) for c in row["members"].values()]
            lines.append("  " + study.pad(title, 56) + "".join(study.pad(c, 13) for c in cells) + "  "
                         + t("done by {done} of {members} members", done=row["done"], members=len(names)))
        if not notebook["mistakes"]:
            lines.append(t("No mistakes recorded in notebook {number}.", number=notebook["number"]))
            continue
        lines.append(t("The mistakes made most often in notebook {number}:", number=notebook["number"]))
        for i, m in enumerate(notebook["mistakes"], 1):
            lines.append(f"  {i}. " + said_often(m, lang))
            lines.append("     " + t("discuss at the cell tagged {tag} ({heading})", **m["cell"]))
    return "\n".join(lines)


def main(args):
    """The merge, from `python -m helpers progress --merge PATHS [--html FILE] [--json] [--lang ko]`."""
    paths = files(args.paths)
    members, notes = load(args.paths)
    records = [r for rs in members.values() for r in rs]
    lang = study.language_of(records, args.lang)
    if not members:
        for note in notes:
            print(language.translate(note, lang))
        print(language.translate(say("no progress files to merge: give each member's course-progress.jsonl, or a "
                                     "folder that holds them."), lang))
        return 1
    data = {**report(members, notes, lang), "files": len(paths)}
    print(json.dumps(data, ensure_ascii=False, indent=1) if args.json else show_report(data))
    if args.html:
        from helpers import study_page

        Path(args.html).write_text(study_page.page(data), encoding="utf-8")
        if not args.json:
            print(language.translate(say("The page is in {path}.", path=args.html), lang))
    return 0
