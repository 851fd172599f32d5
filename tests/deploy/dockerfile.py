"""Just enough Dockerfile parsing for the checks: stages, their instructions, apt packages."""
import json
import re
import shlex


class Stage:
    def __init__(self, base, name):
        self.base = base
        self.name = name
        self.instructions = []  # (KEYWORD, argument text)

    def args_of(self, keyword):
        return [arg for kw, arg in self.instructions if kw == keyword]

    def apt_packages(self):
        """Package names after every `apt-get install` in this stage's RUN instructions."""
        packages = []
        for run in self.args_of("RUN"):
            for command in re.split(r"&&|;|\|\|", run):
                words = shlex.split(command)
                if "apt-get" in words and "install" in words:
                    after = words[words.index("install") + 1:]
                    packages += [w for w in after if not w.startswith("-")]
        return packages


def parse(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    logical, pending = [], ""
    for line in text.splitlines():
        stripped = line.strip()
        if not pending and (not stripped or stripped.startswith("#")):
            continue
        if stripped.startswith("#"):
            continue
        if stripped.endswith("\\"):
            pending += stripped[:-1] + " "
            continue
        logical.append(pending + stripped)
        pending = ""
    stages = []
    for line in logical:
        keyword, _, arg = line.partition(" ")
        keyword = keyword.upper()
        if keyword == "FROM":
            words = arg.split()
            name = words[2] if len(words) >= 3 and words[1].upper() == "AS" else None
            stages.append(Stage(words[0], name))
        elif not stages:
            raise ValueError(f"{path}: {keyword} before the first FROM")
        else:
            stages[-1].instructions.append((keyword, arg.strip()))
    return stages


def exec_form(arg):
    """The JSON array of an exec-form ENTRYPOINT/CMD, or None for shell form."""
    try:
        value = json.loads(arg)
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, list) and all(isinstance(v, str) for v in value) else None


def labels(stage):
    found = {}
    for arg in stage.args_of("LABEL"):
        for word in shlex.split(arg):
            key, sep, value = word.partition("=")
            if sep:
                found[key] = value
    return found
