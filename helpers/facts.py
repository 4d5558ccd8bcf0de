"""The synthetic fact set of notebook 12: countries, their capitals, and phrasings.

Every name is one word-level token (multi-word names are joined: "new_delhi").
Six phrasings train the model; two more, built from the same words in new
combinations, are held out to test whether a fact survives a paraphrase.
"""

# (country, capital): one attribute per subject.
FACTS = [
    ("france", "paris"), ("germany", "berlin"), ("italy", "rome"), ("spain", "madrid"),
    ("portugal", "lisbon"), ("united_kingdom", "london"), ("ireland", "dublin"),
    ("netherlands", "amsterdam"), ("belgium", "brussels"), ("switzerland", "bern"),
    ("austria", "vienna"), ("poland", "warsaw"), ("czechia", "prague"),
    ("slovakia", "bratislava"), ("hungary", "budapest"), ("romania", "bucharest"),
    ("bulgaria", "sofia"), ("greece", "athens"), ("turkey", "ankara"), ("serbia", "belgrade"),
    ("croatia", "zagreb"), ("slovenia", "ljubljana"), ("bosnia_and_herzegovina", "sarajevo"),
    ("albania", "tirana"), ("north_macedonia", "skopje"), ("montenegro", "podgorica"),
    ("ukraine", "kyiv"), ("belarus", "minsk"), ("russia", "moscow"), ("lithuania", "vilnius"),
    ("latvia", "riga"), ("estonia", "tallinn"), ("finland", "helsinki"),
    ("sweden", "stockholm"), ("norway", "oslo"), ("denmark", "copenhagen"),
    ("iceland", "reykjavik"), ("moldova", "chisinau"), ("georgia", "tbilisi"),
    ("armenia", "yerevan"), ("azerbaijan", "baku"), ("kazakhstan", "astana"),
    ("uzbekistan", "tashkent"), ("turkmenistan", "ashgabat"), ("kyrgyzstan", "bishkek"),
    ("tajikistan", "dushanbe"), ("afghanistan", "kabul"), ("pakistan", "islamabad"),
    ("india", "new_delhi"), ("nepal", "kathmandu"), ("bangladesh", "dhaka"),
    ("bhutan", "thimphu"), ("china", "beijing"), ("mongolia", "ulaanbaatar"),
    ("japan", "tokyo"), ("south_korea", "seoul"), ("north_korea", "pyongyang"),
    ("vietnam", "hanoi"), ("laos", "vientiane"), ("cambodia", "phnom_penh"),
    ("thailand", "bangkok"), ("myanmar", "naypyidaw"), ("malaysia", "kuala_lumpur"),
    ("indonesia", "jakarta"), ("philippines", "manila"), ("australia", "canberra"),
    ("new_zealand", "wellington"), ("fiji", "suva"), ("iran", "tehran"), ("iraq", "baghdad"),
    ("syria", "damascus"), ("lebanon", "beirut"), ("jordan", "amman"),
    ("saudi_arabia", "riyadh"), ("oman", "muscat"), ("qatar", "doha"),
    ("united_arab_emirates", "abu_dhabi"), ("egypt", "cairo"), ("libya", "tripoli"),
    ("tunisia", "tunis"), ("algeria", "algiers"), ("morocco", "rabat"), ("sudan", "khartoum"),
    ("ethiopia", "addis_ababa"), ("kenya", "nairobi"), ("uganda", "kampala"),
    ("rwanda", "kigali"), ("nigeria", "abuja"), ("ghana", "accra"), ("senegal", "dakar"),
    ("mali", "bamako"), ("niger", "niamey"), ("cameroon", "yaounde"), ("angola", "luanda"),
    ("zambia", "lusaka"), ("zimbabwe", "harare"), ("mozambique", "maputo"),
    ("madagascar", "antananarivo"), ("namibia", "windhoek"), ("botswana", "gaborone"),
    ("somalia", "mogadishu"), ("canada", "ottawa"), ("united_states", "washington"),
    ("mexico", "mexico_city"), ("cuba", "havana"), ("jamaica", "kingston"),
    ("honduras", "tegucigalpa"), ("nicaragua", "managua"), ("costa_rica", "san_jose"),
    ("colombia", "bogota"), ("venezuela", "caracas"), ("ecuador", "quito"), ("peru", "lima"),
    ("chile", "santiago"), ("argentina", "buenos_aires"), ("uruguay", "montevideo"),
    ("paraguay", "asuncion"), ("brazil", "brasilia"),
]

# "{}" marks the subject. The model predicts the capital as the next word.
TRAIN_TEMPLATES = [
    "the capital of {} is",
    "the capital city of {} is",
    "{} 's capital is",
    "{} has its capital in",
    "the seat of government of {} is in",
    "in {} the capital is",
]
HELD_OUT_TEMPLATES = [
    "{} 's capital city is",
    "in {} the capital city is",
]


def prompt_words(template, subject):
    """The words of one prompt, and the index of the subject among them."""
    if not isinstance(template, str) or not isinstance(subject, str):
        raise TypeError(f"template and subject must be strings, got {type(template).__name__} "
                        f"{template!r} and {type(subject).__name__} {subject!r}")
    if template.count("{}") != 1:
        raise ValueError(f"template must hold exactly one '{{}}' for the subject, got {template!r}")
    words = template.format(subject).split()
    return words, words.index(subject)


def vocabulary():
    """Every word of the fact set, sorted: template words, then countries, then capitals."""
    template_words = sorted({w for t in TRAIN_TEMPLATES + HELD_OUT_TEMPLATES
                             for w in t.split() if w != "{}"})
    countries = [c for c, _ in FACTS]
    capitals = [c for _, c in FACTS]
    return ["<pad>"] + template_words + countries + capitals
