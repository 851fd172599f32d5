#!/usr/bin/env python3
"""Checks that binaries built on this host run on the Dockerfile's runtime stage:
every shared library `ldd` lists resolves, and the Debian package owning it (`dpkg -S`) is
installed by the runtime stage. With --exact (all binaries of the image given), every package
the runtime stage installs must also be needed, apart from NON_LIBRARY_PACKAGES.

    check_runtime_libs.py --dockerfile Dockerfile [--exact] BINARY...
"""
import argparse
import os
import re
import subprocess
import sys

import dockerfile

# Installed for data, not linked: the collector verifies https Prometheus against system CAs.
NON_LIBRARY_PACKAGES = {"ca-certificates"}

LDD_RESOLVED = re.compile(r"^\s*(\S+)\s+=>\s+(\S+)\s+\(0x[0-9a-f]+\)$")
LDD_NOT_FOUND = re.compile(r"^\s*(\S+)\s+=>\s+not found")
LDD_DIRECT = re.compile(r"^\s*(/\S+)\s+\(0x[0-9a-f]+\)$")


def libraries(binary):
    """(resolved paths, unresolved sonames) of a dynamically linked binary."""
    out = subprocess.run(["ldd", binary], check=True, capture_output=True, text=True).stdout
    paths, missing = [], []
    for line in out.splitlines():
        if m := LDD_NOT_FOUND.match(line):
            missing.append(m.group(1))
        elif m := LDD_RESOLVED.match(line):
            paths.append(m.group(2))
        elif m := LDD_DIRECT.match(line):
            paths.append(m.group(1))
    if not paths:
        raise SystemExit(f"check_runtime_libs: ldd listed no libraries for {binary}:\n{out}")
    return paths, missing


def owners(paths):
    """Debian package owning each library (None if none); with merged /usr, dpkg may know a
    library under another path. One dpkg call for all of them: each call reads dpkg's whole file
    list, which took most of this check's time."""
    candidates = {}
    for path in paths:
        candidates[path] = [path, os.path.realpath(path)]
        if path.startswith("/lib"):
            candidates[path].append("/usr" + path)
    queried = sorted({c for cs in candidates.values() for c in cs})
    out = subprocess.run(["dpkg", "-S", *queried], capture_output=True, text=True).stdout
    known = {}
    for line in out.splitlines():
        package, separator, found = line.partition(": ")
        if separator:
            known.setdefault(found.strip(), package.split(":", 1)[0].strip())
    return {path: next((known[c] for c in cs if c in known), None) for path, cs in candidates.items()}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dockerfile", required=True)
    parser.add_argument("--exact", action="store_true")
    parser.add_argument("binaries", nargs="+")
    args = parser.parse_args()

    runtime = dockerfile.parse(args.dockerfile)[-1]
    installed = set(runtime.apt_packages())
    errors, needed = [], set()
    linked = {}
    for binary in args.binaries:
        paths, missing = libraries(binary)
        errors += [f"{binary}: {soname} does not resolve" for soname in missing]
        linked[binary] = paths
    owner = owners({path for paths in linked.values() for path in paths})
    for binary, paths in linked.items():
        for path in paths:
            package = owner[path]
            if package is None:
                errors.append(f"{binary}: {path} belongs to no Debian package")
                continue
            needed.add(package)
            if package not in installed:
                errors.append(f"{binary}: {path} comes from {package}, which the runtime stage does not install")
    if args.exact:
        errors += [f"runtime stage installs {p}, which no binary links" for p in
                   sorted(installed - needed - NON_LIBRARY_PACKAGES)]
    for e in errors:
        print(f"check_runtime_libs: {e}")
    if not errors:
        print(f"check_runtime_libs: ok, {len(args.binaries)} binaries need {sorted(needed)}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
