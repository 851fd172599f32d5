#!/usr/bin/env python3
"""Proves the documentation checks are not blind: each case copies the repository's documents,
breaks one thing and expects an error naming it."""
import argparse
import os
import shutil
import sys
import tempfile

import check_docs


def append(path, text):
    def apply(repo):
        with open(os.path.join(repo, path), "a", encoding="utf-8") as f:
            f.write(text)
    return apply


def replace(path, old, new):
    def apply(repo):
        full = os.path.join(repo, path)
        with open(full, encoding="utf-8") as f:
            text = f.read()
        if old not in text:
            raise SystemExit(f"selftest: {path} no longer contains {old!r}; update the case")
        with open(full, "w", encoding="utf-8") as f:
            f.write(text.replace(old, new, 1))
    return apply


def first_option(repo):
    return check_docs.load_options(repo)[0][0]


def drop_option_from_reference(repo):
    option = first_option(repo)
    path = os.path.join(repo, "docs", "configuration.md")
    with open(path, encoding="utf-8") as f:
        kept = [line for line in f if option not in line]
    with open(path, "w", encoding="utf-8") as f:
        f.writelines(kept)


CASES = [
    ("a missing file", append("docs/deploying.md", "\nSee [nowhere](no-such-page.md).\n"),
     "no-such-page.md does not exist"),
    ("a missing anchor", append("README.md", "\nSee [the doctor](docs/prometheus.md#no-such-heading).\n"),
     "no heading #no-such-heading"),
    ("a missing anchor in the same page", append("docs/troubleshooting.md", "\n[up](#nowhere-at-all)\n"),
     "no heading #nowhere-at-all"),
    ("a broken link in a results page", append("bench/RESULTS.md", "\n[gone](results/gone.svg)\n"),
     "gone.svg does not exist"),
    ("an invented setting", append("docs/scheduler.md", "\nSet `NETSCORE_NO_SUCH_SETTING=1`.\n"),
     "NETSCORE_NO_SUCH_SETTING is not a setting"),
    ("an invented family", append("README.md", "\nEvery `NETSCORE_NOWHERE_*` setting.\n"),
     "no setting starts with NETSCORE_NOWHERE_"),
    ("an undocumented setting", drop_option_from_reference, "does not document"),
    ("another demo command", replace("README.md", "bash scripts/demo.sh", "bash scripts/demo2.sh"),
     "README.md's first block runs"),
    ("CI runs something else", replace(".ci/run", "bash scripts/test.sh", "bash scripts/other.sh"),
     ".ci/run does not call"),
    ("no demo script", lambda repo: os.remove(os.path.join(repo, "scripts", "demo.sh")),
     "scripts/demo.sh, which does not exist"),
    ("a long README", append("README.md", "\n" * check_docs.README_MAX_LINES), "README.md has"),
    ("a long page", append("docs/observability.md", "\n" * check_docs.DOCS_PAGE_MAX_LINES),
     "docs/observability.md has"),
]


def copy_documents(repo, into):
    """The files the checks read: every Markdown file, what the links point at, the option table,
    .ci/run and the scripts."""
    def ignore(directory, names):
        return [n for n in names if n.startswith((".", "build")) and n != ".ci"]
    for name in os.listdir(repo):
        source = os.path.join(repo, name)
        if name.startswith("build") or (name.startswith(".") and name != ".ci"):
            continue
        if os.path.isdir(source):
            shutil.copytree(source, os.path.join(into, name), ignore=ignore)
        else:
            shutil.copy2(source, into)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repo", required=True)
    args = parser.parse_args()
    failures = [f"the real repository: {e}" for e in check_docs.check(args.repo)]
    for name, breaks, expected in CASES:
        with tempfile.TemporaryDirectory() as scratch:
            copy_documents(args.repo, scratch)
            breaks(scratch)
            errors = check_docs.check(scratch)
        if not any(expected in e for e in errors):
            failures.append(f"{name}: no error containing {expected!r}, got {errors}")
    for f in failures:
        print("FAIL:", f)
    if failures:
        return 1
    print(f"ok: {len(CASES)} broken copies refused")
    return 0


if __name__ == "__main__":
    sys.exit(main())
