"""A study group's report: the members' progress files merged (`python -m helpers progress --merge
...`).

Each member sends the course-progress.jsonl the checks wrote beside their notebooks; the leader
names them alice.jsonl, bob.jsonl, ... (or keeps one folder per member) and merges them: members
by exercises, and per notebook the three mistakes the group made most often, each with the
sentence the check said and the cell to discuss. Whatever is odd about the files (empty, damaged,
no records at all, not a file, too big, the same file twice, one member's two files, another course
version, exercises this version lacks) is said in one line each, and the rest is reported. A
member's Korean edition file from before both editions shared one (alice/ko/course-progress.jsonl
beside alice/course-progress.jsonl) counts as that member's.
"""

import hashlib
import json
from collections import Counter
from pathlib import Path

import helpers
from helpers import language, study, study_files
from helpers.checks import recording
from helpers.language import say
from helpers.study import shown


def files(paths):
    """The progress files named: each file as given, and every *.jsonl file inside a folder (not in
    a link's)."""
    found = []
    for path in map(Path, paths):
        found += sorted(p for p in path.rglob("*.jsonl")
                        if not p.is_dir()) if path.is_dir() else [path]
    return found


def _member_name(path):
    """alice.jsonl -> 'alice'; alice/course-progress.jsonl and alice/ko/course-progress.jsonl ->
    'alice'."""
    folder = path.resolve().parent
    if path.name == recording.FILE_NAME and folder.name == "ko" \
            and (folder.parent / recording.FILE_NAME).exists():
        folder = folder.parent   # the Korean edition's file of before: the same member
    if path.name == recording.FILE_NAME and folder.name:
        return shown(folder.name, 40)
    return shown(path.stem, 40)


def _key(entry):
    return json.dumps(entry, sort_keys=True)


def load(paths):
    """({member: records}, [one Text per oddity]) from the members' progress files."""
    members, first_file, learners, digests, notes = {}, {}, {}, {}, []
    for path in files(paths):
        label = shown(path, 200)
        data, problem = study_files.read(path)
        if problem is not None:
            notes.append(say("{problem}; left out.", problem=problem))
            continue
        if not data.strip():
            notes.append(say("{name}: an empty file, left out.", name=label))
            continue
        digest = hashlib.sha1(data).hexdigest()
        if digest in digests:
            notes.append(say("{name}: the same file as {other}, counted once.", name=label,
                             other=digests[digest]))
            continue
        digests[digest] = label
        records, said, every = study_files.records(data, label)
        notes += said
        if not every:   # random bytes, or another program's file: no member
            notes.append(say("{name}: no progress records in it, so no member; left out.",
                             name=label))
            continue
        versions = sorted({shown(r.get("course"), 20) for r in records} - {helpers.__version__})
        if versions:
            notes.append(say("{name}: records from course version {version} (this is {current}); "
                             "exercises are matched by notebook and number.", name=label,
                             version=", ".join(versions[:3]), current=helpers.__version__))
        learner = next((str(r["learner"]) for r in records if r.get("learner")), None)
        korean = path.name == recording.FILE_NAME and path.resolve().parent.name == "ko"
        member = learners.get(learner) or (_member_name(path) if korean
                                           and _member_name(path) in members else None)
        if member is not None:
            notes.append(say("{name} and {other} come from the same member: their records count "
                             "once, as "
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
    """The group's report as data: members by exercises per notebook, the three commonest
    mistakes."""
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
        notebooks.append({"notebook": notebook, "number": study._name(notebook)[0],
                          "name": study._name(notebook)[1],
                          "exercises": rows,
                          "mistakes": _mistakes(members, notebook, listed, lang)})
    return {"course": helpers.__version__, "lang": lang, "members": list(members),
            "notes": [language.translate(note, lang) for note in notes], "notebooks": notebooks}


def _mistakes(members, notebook, listed, lang, top=3):
    """The `top` mistakes most often recorded in a notebook, each with its sentence and cell."""
    counts, who = Counter(), {}
    for name, records in members.items():
        for r in records:
            if r["notebook"] == notebook and r["verdict"] == "mistake":
                # an id is 60 characters or so
                key = (r["exercise"], shown(r.get("mistake", "unnamed"), 120))
                counts[key] += 1
                who.setdefault(key, set()).add(name)
    exercises = {ex.number: ex for ex in listed}
    found = []
    for (number, mistake), count in sorted(counts.items(),
                                           key=lambda kv: (-kv[1], -len(who[kv[0]]), kv[0]))[:top]:
        ex = exercises[number]
        heading = say("Exercise {number} ({kind})", number=number, kind=say(ex.kind))
        found.append({"exercise": number, "title": ex.title, "mistake": mistake, "count": count,
                      "members": len(who[(number, mistake)]),
                      "sentence": study.sentence(mistake, lang,
                                                 study.check_values(notebook, number)),
                      "cell": {"tag": f"exercise-{number}",
                               "heading": language.translate(heading, lang)}})
    return found


def said_often(mistake, lang):
    """'3 times, by 2 members, in Exercise 2 (...): the sentence' (once, by one member: said so)."""
    template = ("once, by one member, in {exercise}: {sentence}" if mistake["count"] == 1 else
                "{count} times, by one member, in {exercise}: {sentence}" if mistake["members"] == 1
                else "{count} times, by {members} members, in {exercise}: {sentence}")
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
        lines += ["", t("Notebook {number} ({name})", number=notebook["number"],
                        name=notebook["name"])]
        lines.append("  " + study.pad(t("exercise"), 56) + "".join(study.pad(n, 13) for n in names))
        for row in notebook["exercises"]:
            title = study.pad(t(row["kind"]), 8) + "  " + language.translate(row["title"], lang)
            cells = [study.status_words(c["status"], c["tries"], lang, short=True)
                     for c in row["members"].values()]
            lines.append("  " + study.pad(title, 56) + "".join(study.pad(c, 13) for c in cells)
                         + "  " + t("done by {done} of {members} members", done=row["done"],
                             members=len(names)))
        if not notebook["mistakes"]:
            lines.append(t("No mistakes recorded in notebook {number}.", number=notebook["number"]))
            continue
        lines.append(t("The mistakes made most often in notebook {number}:",
                       number=notebook["number"]))
        for i, m in enumerate(notebook["mistakes"], 1):
            lines.append(f"  {i}. " + said_often(m, lang))
            lines.append("     " + t("discuss at the cell tagged {tag} ({heading})", **m["cell"]))
    return "\n".join(lines)
