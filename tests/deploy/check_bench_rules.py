#!/usr/bin/env python3
"""The benchmarks and simulators run the product's rules, never a copy of them.

Fails when a file under bench/ states again what the product decides in one place: the query's
parts (whether the score is the rate), PromQL built by concatenation, the snapshot, the
prioritize decision, the pricing of measured pods, the placement window's lag, or the time
scale's durations. Each rule names the product function that holds it. --selftest plants each
forbidden form in a copy of a file and requires it to be caught.
"""
import argparse
import pathlib
import re
import sys
import tempfile

# (pattern, what it restates, where the rule lives)
RULES = [
    (r"QueryMode::custom", "whether the score part is the rate",
     "collector/prometheus/query_builder.h score_is_rate"),
    (r"\"(rate|increase|sum_over_time|label_replace)\(\"\s*\+|\+\s*\"\[\d+[smh]\]",
     "PromQL built by concatenation", "collector/prometheus/query_builder.h"),
    (r"model::build_snapshot\(", "the snapshot", "collector/pipeline/publisher (VirtualCollector)"),
    (r"model::prioritize\(|model::score_nodes\(", "the prioritize decision",
     "extender/http/handlers (VirtualExtender)"),
    (r"\.measure_pods\(|\.measure_recent_pods\(", "the pricing of measured pods",
     "collector/pipeline/publisher"),
    (r"\.lag_ms\s*=", "the placement window's lag", "common/model_settings.h load_window"),
    (r"NETSCORE_(REFRESH_INTERVAL|TIME_RANGE)\"\]\s*=", "the time scale's durations",
     "bench/closed_loop/placement/scaled_environment"),
]


def violations(repo: pathlib.Path):
    found = []
    for path in sorted((repo / "bench").rglob("*")):
        if path.suffix not in (".cpp", ".h"):
            continue
        rel = path.relative_to(repo)
        allowed_scale = rel.as_posix() == "bench/closed_loop/placement/scaled_environment.cpp"
        for number, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("//", 1)[0]
            for pattern, what, where in RULES:
                if allowed_scale and "NETSCORE_" in pattern:
                    continue
                if re.search(pattern, code):
                    found.append(f"{rel}:{number}: restates {what} (the rule is in {where}): "
                                 f"{line.strip()}")
    return found


def selftest(repo: pathlib.Path) -> int:
    plants = [
        "bool x = q.mode != QueryMode::custom;",
        'std::string q = "rate(" + metric;',
        "auto s = model::build_snapshot(a, b);",
        "model::prioritize(s, r, p, 0, nullptr, o, q);",
        "ledger.measure_pods(m, w);",
        "model::LoadWindow w{.now_ms = 1, .lag_ms = 15000};",
        'env["NETSCORE_REFRESH_INTERVAL"] = "1s";',
    ]
    missed = 0
    for plant in plants:
        with tempfile.TemporaryDirectory() as tmp:
            root = pathlib.Path(tmp)
            # In a room, as every file under bench/ is: the check walks the folders.
            (root / "bench" / "micro").mkdir(parents=True)
            (root / "bench" / "micro" / "planted.cpp").write_text(f"void f() {{\n  {plant}\n}}\n")
            if not violations(root):
                print(f"not caught: {plant}")
                missed += 1
    if missed or violations(repo):
        print("selftest failed")
        return 1
    print(f"ok: {len(plants)} planted forms caught")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repo", required=True, type=pathlib.Path)
    parser.add_argument("--selftest", action="store_true")
    args = parser.parse_args()
    if args.selftest:
        return selftest(args.repo)
    found = violations(args.repo)
    for line in found:
        print(line)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
