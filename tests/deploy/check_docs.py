#!/usr/bin/env python3
"""Keeps the operator's documentation true to the repository.

    check_docs.py --repo .

Fails when a relative link or #anchor in the Markdown does not resolve (GitHub's heading slugs),
when README.md or docs/ name a NETSCORE_* setting the config loader does not have, when a setting
is missing from docs/configuration.md, when README.md's two commands are not the ones .ci/run and
the demo use, or when README.md or a docs/ page outgrows what an operator reads in one sitting.
"""
import argparse
import os
import re
import sys

README_MAX_LINES = 250
DOCS_PAGE_MAX_LINES = 300
README_COMMANDS = ["bash scripts/demo.sh", "bash scripts/test.sh"]
# Where Markdown lives: the top level, and these folders searched downwards (build trees excluded).
MARKDOWN_DIRS = ["docs", "collector", "extender", "common", "deploy", "bench", "tests", "scripts"]

FENCE = re.compile(r"^\s*(```|~~~)")
INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^()\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_DEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+\"[^\"]*\")?\s*$")
HTML_ANCHOR = re.compile(r"<a\s+(?:id|name)=\"([^\"]+)\"", re.IGNORECASE)
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
# A setting is NETSCORE_ followed by capitals; -DNETSCORE_* (CMake options) and
# netscore_extender_* (metrics) are other things.
SETTING = re.compile(r"(?<![A-Za-z0-9_])NETSCORE_[A-Z0-9_]+")
OPTION_ENTRY = re.compile(r"Option\{\s*\"(NETSCORE_[A-Z0-9_]+)\"")
NAME_LITERAL = re.compile(r"\"(NETSCORE_[A-Z0-9_]+)\"")


def markdown_files(repo):
    found = [os.path.join(repo, f) for f in sorted(os.listdir(repo)) if f.endswith(".md")]
    for top in MARKDOWN_DIRS:
        for root, dirs, files in os.walk(os.path.join(repo, top)):
            dirs[:] = sorted(d for d in dirs if not d.startswith((".", "build")))
            found += [os.path.join(root, f) for f in sorted(files) if f.endswith(".md")]
    return found


def outside_code(text):
    """The lines outside fenced blocks, with inline code spans blanked, numbered from 1."""
    fenced = False
    for number, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            yield number, re.sub(r"(`+)(.+?)\1", lambda m: " " * len(m.group(0)), line)


def slug(heading):
    """GitHub's anchor for a heading: rendered text, lowercased, punctuation but - and _ dropped,
    spaces to hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = re.sub(r"<[^>]+>", "", text).replace("`", "").replace("*", "")
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(text):
    seen = {}
    result = set()
    fenced = False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        if fenced:
            continue
        result.update(HTML_ANCHOR.findall(line))
        match = HEADING.match(line)
        if not match:
            continue
        base = slug(match.group(2))
        count = seen.get(base, 0)
        seen[base] = count + 1
        result.add(base if count == 0 else f"{base}-{count}")
    return result


def link_targets(text):
    """(line, target) of every link outside code."""
    for number, line in outside_code(text):
        for match in INLINE_LINK.finditer(line):
            yield number, match.group(1)
        definition = REFERENCE_DEF.match(line)
        if definition:
            yield number, definition.group(1)


def check_links(repo, files):
    errors = []
    anchor_cache = {}

    def anchors_of(path):
        if path not in anchor_cache:
            with open(path, encoding="utf-8") as f:
                anchor_cache[path] = anchors(f.read())
        return anchor_cache[path]

    for path in files:
        rel = os.path.relpath(path, repo)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for number, target in link_targets(text):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.IGNORECASE):
                continue
            file_part, _, anchor = target.partition("#")
            resolved = path if not file_part else os.path.normpath(
                os.path.join(repo if file_part.startswith("/") else os.path.dirname(path), file_part.lstrip("/")))
            if not os.path.exists(resolved):
                errors.append(f"{rel}:{number}: link {target!r}: {os.path.relpath(resolved, repo)} does not exist")
                continue
            if not anchor:
                continue
            if not resolved.endswith(".md") or os.path.isdir(resolved):
                errors.append(f"{rel}:{number}: link {target!r}: an anchor into a file that is not Markdown")
            elif anchor not in anchors_of(resolved):
                errors.append(f"{rel}:{number}: link {target!r}: no heading #{anchor} in "
                              f"{os.path.relpath(resolved, repo)}")
    return errors


def load_options(repo):
    """(the options the loader reads, every NETSCORE_* name config_options.cpp spells)."""
    with open(os.path.join(repo, "common", "config_options.cpp"), encoding="utf-8") as f:
        source = f.read()
    return OPTION_ENTRY.findall(source), set(NAME_LITERAL.findall(source))


def check_settings(repo):
    options, known = load_options(repo)
    if not options:
        return ["common/config_options.cpp: no Option{\"NETSCORE_...\"} entries found; update check_docs.py"]
    errors = []
    docs = [os.path.join(repo, "README.md")]
    docs_dir = os.path.join(repo, "docs")
    if os.path.isdir(docs_dir):
        docs += [os.path.join(docs_dir, f) for f in sorted(os.listdir(docs_dir)) if f.endswith(".md")]
    for path in docs:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
        for number, line in enumerate(lines, 1):
            for name in SETTING.findall(line):
                if name.endswith("_"):
                    if not any(o.startswith(name) for o in known):
                        errors.append(f"{os.path.relpath(path, repo)}:{number}: no setting starts with {name}")
                elif name not in known:
                    errors.append(f"{os.path.relpath(path, repo)}:{number}: {name} is not a setting "
                                  "(common/config_options.cpp)")
    reference = os.path.join(repo, "docs", "configuration.md")
    if not os.path.exists(reference):
        return errors + ["docs/configuration.md does not exist"]
    with open(reference, encoding="utf-8") as f:
        documented = set(SETTING.findall(f.read()))
    errors += [f"docs/configuration.md does not document {o}" for o in options if o not in documented]
    return errors


def check_commands(repo):
    errors = []
    with open(os.path.join(repo, "README.md"), encoding="utf-8") as f:
        lines = f.read().splitlines()
    if not lines or lines[0] != "# netscore":
        errors.append("README.md must start with '# netscore'")
    fence = [i for i, line in enumerate(lines) if FENCE.match(line)]
    if len(fence) < 2:
        errors.append("README.md has no fenced block of commands")
    else:
        commands = [line.split("#", 1)[0].strip() for line in lines[fence[0] + 1:fence[1]]]
        commands = [c for c in commands if c]
        if commands != README_COMMANDS:
            errors.append(f"README.md's first block runs {commands}, not {README_COMMANDS}")
    ci = os.path.join(repo, ".ci", "run")
    ci_lines = open(ci, encoding="utf-8").read().splitlines() if os.path.exists(ci) else []
    if README_COMMANDS[1] not in (line.strip() for line in ci_lines):
        errors.append(f".ci/run does not call {README_COMMANDS[1]!r}")
    for command in README_COMMANDS:
        script = command.split()[1]
        if not os.path.isfile(os.path.join(repo, script)):
            errors.append(f"README.md runs {script}, which does not exist")
    return errors


def check_lengths(repo):
    errors = []
    pages = [("README.md", README_MAX_LINES)]
    docs_dir = os.path.join(repo, "docs")
    if os.path.isdir(docs_dir):
        pages += [(os.path.join("docs", f), DOCS_PAGE_MAX_LINES) for f in sorted(os.listdir(docs_dir))
                  if f.endswith(".md")]
    for page, limit in pages:
        with open(os.path.join(repo, page), encoding="utf-8") as f:
            count = len(f.read().splitlines())
        if count > limit:
            errors.append(f"{page} has {count} lines, more than {limit}")
    return errors


def check(repo):
    return (check_links(repo, markdown_files(repo)) + check_settings(repo) + check_commands(repo)
            + check_lengths(repo))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repo", required=True)
    args = parser.parse_args()
    errors = check(args.repo)
    for e in errors:
        print("FAIL:", e)
    if errors:
        return 1
    print(f"ok: {len(markdown_files(args.repo))} Markdown files, their links, settings and commands")
    return 0


if __name__ == "__main__":
    sys.exit(main())
