#!/usr/bin/env python3
"""Proves check_runtime_libs.py is not blind: against a copy of the Dockerfile whose runtime
stage lacks one package the binary links, the check must fail and name that package; with
--exact, an extra unneeded package must fail too."""
import os
import subprocess
import sys
import tempfile

CHECK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "check_runtime_libs.py")


def run(dockerfile_text, binary, *flags):
    with tempfile.NamedTemporaryFile("w", suffix=".Dockerfile") as f:
        f.write(dockerfile_text)
        f.flush()
        return subprocess.run([sys.executable, CHECK, "--dockerfile", f.name, *flags, binary],
                              capture_output=True, text=True)


def main():
    dockerfile_path, binary = sys.argv[1], sys.argv[2]
    with open(dockerfile_path, encoding="utf-8") as f:
        text = f.read()
    failures = []
    if " libfmt9 " not in text:
        failures.append("the Dockerfile no longer installs libfmt9; update this self-test")
    else:
        result = run(text.replace(" libfmt9 ", " ", 1), binary)
        if result.returncode != 1 or "libfmt9" not in result.stdout:
            failures.append(f"a runtime stage without libfmt9 passed: {result.stdout}")
    result = run(text.replace(" libfmt9 ", " libfmt9 libyaml-0-2 ", 1), binary, "--exact")
    if result.returncode != 1 or "libyaml-0-2" not in result.stdout:
        failures.append(f"--exact accepted an unneeded package: {result.stdout}")
    for f in failures:
        print(f"check_runtime_libs_selftest: {f}")
    print("check_runtime_libs_selftest: ok" if not failures else "check_runtime_libs_selftest: FAILED")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
