#!/usr/bin/env python3
"""Checks the Dockerfile against the build without a container engine:
the builder installs exactly scripts/install-deps.sh's build_packages, the stages use the
intended Debian images, the image runs as the numeric UID the manifests use, the entrypoint is
exec form, the OCI labels are there, and the binaries land where deploy/ runs them from."""
import argparse
import os
import subprocess
import sys

import yaml

import dockerfile

EXPECTED_UID = "65532"
BINARIES = ("netscore-collector", "netscore-extender")
REQUIRED_LABELS = ("org.opencontainers.image.title", "org.opencontainers.image.description")


def build_packages(install_deps):
    script = ('eval "$(sed -n "/^build_packages=(/,/^)/p" "$1")"; '
              '[ ${#build_packages[@]} -gt 0 ] || exit 3; printf "%s\\n" "${build_packages[@]}"')
    out = subprocess.run(["bash", "-c", script, "bash", install_deps], check=True, capture_output=True, text=True)
    return out.stdout.split()


def check(repo):
    errors = []
    stages = dockerfile.parse(os.path.join(repo, "Dockerfile"))
    if len(stages) != 2:
        return [f"expected a builder and a runtime stage, found {len(stages)} stages"]
    builder, runtime = stages
    if builder.base != "debian:bookworm":
        errors.append(f"builder stage is {builder.base}, expected debian:bookworm")
    if runtime.base != "debian:bookworm-slim":
        errors.append(f"runtime stage is {runtime.base}, expected debian:bookworm-slim")

    wanted = build_packages(os.path.join(repo, "scripts", "install-deps.sh"))
    got = builder.apt_packages()
    if sorted(got) != sorted(wanted):
        errors.append(f"builder packages {sorted(got)} != install-deps.sh build_packages {sorted(wanted)}")

    runs = " ".join(builder.args_of("RUN"))
    for flag in ("cmake --preset default", "-DNETSCORE_BUILD_TESTS=OFF", "-DNETSCORE_BUILD_BENCH=OFF"):
        if flag not in runs:
            errors.append(f"builder does not run {flag!r}")
    for binary in BINARIES:
        if f"/out/{binary}" not in runs:
            errors.append(f"builder does not install {binary} into /out/")
    if "--from=builder /out/ /usr/local/bin/" not in " ".join(runtime.args_of("COPY")):
        errors.append("runtime stage does not COPY --from=builder /out/ /usr/local/bin/")
    if runtime.apt_packages() and any("install" in r and "--no-install-recommends" not in r
                                      for r in runtime.args_of("RUN")):
        errors.append("runtime apt-get install lacks --no-install-recommends")

    users = runtime.args_of("USER")
    if not users or users[-1] != f"{EXPECTED_UID}:{EXPECTED_UID}":
        errors.append(f"runtime USER is {users[-1] if users else None}, expected numeric {EXPECTED_UID}:{EXPECTED_UID}")
    entry = runtime.args_of("ENTRYPOINT")
    if not entry or dockerfile.exec_form(entry[-1]) is None:
        errors.append("ENTRYPOINT missing or not exec form")
    elif dockerfile.exec_form(entry[-1])[0] not in (f"/usr/local/bin/{b}" for b in BINARIES):
        errors.append(f"ENTRYPOINT {entry[-1]} is not one of the installed binaries")
    present = dockerfile.labels(runtime)
    errors += [f"missing OCI label {key}" for key in REQUIRED_LABELS if not present.get(key)]

    with open(os.path.join(repo, ".dockerignore"), encoding="utf-8") as f:
        ignored = {line.strip() for line in f if line.strip() and not line.startswith("#")}
    errors += [f".dockerignore does not exclude {p}" for p in (".git", "build") if p not in ignored]

    with open(os.path.join(repo, "deploy", "base", "pod-template.yaml"), encoding="utf-8") as f:
        pod = yaml.safe_load(f)["spec"]["template"]["spec"]
    if str(pod["securityContext"].get("runAsUser")) != EXPECTED_UID:
        errors.append("deploy/base pod runAsUser differs from the image's USER")
    for container in pod["containers"]:
        command = container.get("command", [])
        if not command or command[0] != f"/usr/local/bin/netscore-{container['name']}":
            errors.append(f"container {container['name']} runs {command}, not the image's binary")
    return errors


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repo", required=True)
    errors = check(parser.parse_args().repo)
    for e in errors:
        print(f"check_dockerfile: {e}")
    if not errors:
        print("check_dockerfile: ok")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
