"""The progress record's sentences (helpers/checks/recording.py, helpers/study.py) in Korean."""

MESSAGES = {
    # recording: said once, when the progress file cannot be used
    "could not write your progress to {path} ({reason}). Your checks work as before; recording stops for this "
    "session.":
        "진행 기록을 {path}에 쓰지 못했습니다({reason}). 검사는 전과 똑같이 동작하고, 이번 세션의 기록만 "
        "멈춥니다.",
    "{path} has {n} lines that are not progress records: they are skipped, and recording goes on after them.":
        "{path}에 진행 기록이 아닌 줄이 {n}개 있습니다: 그 줄은 건너뛰고, 기록은 그 뒤에 이어서 씁니다.",
    "no progress recorded yet: {path} appears after your first exercise check.":
        "아직 기록된 진행 상황이 없습니다: 연습 검사를 처음 실행하면 {path} 파일이 생깁니다.",
    "your progress file is {path}: send it to your study group's leader.":
        "진행 기록 파일은 {path}입니다: 이 파일을 스터디 그룹의 리더에게 보내세요.",
    # a learner's own table
    "Your progress: {path} (course version {version})": "나의 진행 상황: {path} (코스 버전 {version})",
    "Notebook {number} ({name})": "노트북 {number} ({name})",
    "core": "핵심",
    "stretch": "도전",
    "done": "완료",
    "done at the first try": "완료 (첫 시도)",
    "done after {n} tries": "완료 (시도 {n}번)",
    "attempted, 1 try": "시도 1번, 아직 완료 전",
    "attempted, {n} tries": "시도 {n}번, 아직 완료 전",
    "not started": "시작 전",
    "core: {done} of {total} done; stretch: {stretch_done} of {stretch_total} done.":
        "핵심: {total}개 중 {done}개 완료, 도전: {stretch_total}개 중 {stretch_done}개 완료.",
    "Next: notebook {number}, {exercise}.": "다음: 노트북 {number}, {exercise}.",
    "Every exercise is done. Well done.": "모든 연습을 마쳤습니다. 잘했습니다.",
    "No progress recorded in {path} yet: run an exercise's check in a notebook, then ask again.":
        "{path}에 아직 기록된 진행 상황이 없습니다: 노트북에서 연습 검사를 실행한 뒤 다시 확인하세요.",
    # the leader's merge
    "Study group: {members} members, from {files} files": "스터디 그룹: 멤버 {members}명, 파일 {files}개",
    "{name}: an empty file, left out.": "{name}: 빈 파일이라 제외했습니다.",
    "{name}: no such file, left out.": "{name}: 파일이 없어 제외했습니다.",
    "{name}: could not be read ({reason}), left out.": "{name}: 읽을 수 없어 제외했습니다({reason}).",
    "{name}: the same file as {other}, counted once.": "{name}: {other} 파일과 같은 파일이라 한 번만 셉니다.",
    "{name} and {other} come from the same member: their records count once, as {member}.":
        "{name} 파일과 {other} 파일은 같은 멤버의 기록이라 {member} 한 명으로 합쳐 셉니다.",
    "{name}: {n} lines that are not records, skipped.": "{name}: 기록이 아닌 줄 {n}개를 건너뛰었습니다.",
    "{name}: 1 line that is not a record, skipped.": "{name}: 기록이 아닌 줄 1개를 건너뛰었습니다.",
    "{name}: 1 record of an exercise this version does not have ({which}), left out.":
        "{name}: 이 버전에 없는 연습의 기록 1개를 제외했습니다({which}).",
    "once, by one member, in {exercise}: {sentence}": "{exercise}에서 1번, 멤버 1명: {sentence}",
    "{count} times, by one member, in {exercise}: {sentence}": "{exercise}에서 {count}번, 멤버 1명: {sentence}",
    "{name}: records from course version {version} (this is {current}); exercises are matched by notebook and "
    "number.":
        "{name}: 코스 버전 {version}의 기록입니다(지금 버전은 {current}). 연습은 노트북과 번호로 맞춥니다.",
    "{name}: {n} records of exercises this version does not have ({which}), left out.":
        "{name}: 이 버전에 없는 연습의 기록 {n}개를 제외했습니다({which}).",
    "no progress files to merge: give each member's course-progress.jsonl, or a folder that holds them.":
        "합칠 진행 기록 파일이 없습니다: 멤버마다 받은 course-progress.jsonl 파일이나, 그 파일들이 있는 폴더를 "
        "주세요.",
    "exercise": "연습",
    "tried {n}": "시도 {n}",
    "done by {done} of {members} members": "멤버 {members}명 중 {done}명 완료",
    "The mistakes made most often in notebook {number}:": "노트북 {number}에서 가장 자주 나온 실수:",
    "No mistakes recorded in notebook {number}.": "노트북 {number}에는 기록된 실수가 없습니다.",
    "{count} times, by {members} members, in {exercise}: {sentence}":
        "{exercise}에서 {count}번, 멤버 {members}명: {sentence}",
    "discuss at the cell tagged {tag} ({heading})": "함께 볼 셀: 태그 {tag} ({heading})",
    "Exercise {number} ({kind})": "연습 {number} ({kind})",
    "a mistake this version of the course no longer names ({id})":
        "이 버전의 코스에는 더 이상 없는 실수입니다({id})",
    # the leader's page
    "Study group progress": "스터디 그룹 진행 상황",
    "Members who finished each exercise (light: tried, not finished yet)":
        "연습마다 마친 멤버 수 (옅은 색: 시도했지만 아직 마치지 않음)",
    "members": "멤버",
    "About the files": "파일에 관한 메모",
    "The page is in {path}.": "페이지를 {path}에 저장했습니다.",
}
