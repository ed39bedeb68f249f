#!/usr/bin/env python3
"""Finds platform calls that would stop the package building on macOS (Package.swift promises it).

A Swift file may use Glibc (or Musl) only inside `#if canImport(Glibc)` (or Musl), and Darwin only
inside `#if canImport(Darwin)`: a qualified call (`Glibc.connect`), an `import`, or a Linux-only
spelling (`MSG_NOSIGNAL`, `SOCK_STREAM.rawValue`, `SOCK_DGRAM.rawValue`) outside such a block is
reported with its file and line, and the exit status is 1.

    scripts/lint-platform.py [PATH ...]     (default: Sources bootstrap emulator Tests Benchmarks Fuzz)
    scripts/lint-platform.py --self-test    (proves it reports what it must, and only that)
"""
import os
import re
import sys

GUARDED = [
    (re.compile(r"\bGlibc\.|^\s*import\s+Glibc\b|\bMSG_NOSIGNAL\b|\bSOCK_(STREAM|DGRAM)\.rawValue\b"), "Glibc"),
    (re.compile(r"\bMusl\.|^\s*import\s+Musl\b"), "Musl"),
    (re.compile(r"\bDarwin\.|^\s*import\s+Darwin\b"), "Darwin"),
]
CONDITION = re.compile(r"canImport\((\w+)\)|os\((\w+)\)")
PLATFORM_OF_OS = {"Linux": "Glibc", "macOS": "Darwin", "iOS": "Darwin"}


def conditions(text):
    """The platforms a `#if`/`#elseif` line names (canImport(Glibc), os(Linux))."""
    found = set()
    for can_import, os_name in CONDITION.findall(text):
        found.add(can_import or PLATFORM_OF_OS.get(os_name, os_name))
    return found


def lint(path):
    problems = []
    stack = []  # one set of platforms per open #if branch: what holds inside it
    with open(path, encoding="utf-8") as source:
        for number, line in enumerate(source, 1):
            stripped = line.strip()
            if stripped.startswith("#if"):
                stack.append(conditions(stripped) if "!" not in stripped else set())
                continue
            if stripped.startswith("#elseif"):
                stack[-1] = conditions(stripped) if "!" not in stripped else set()
                continue
            if stripped.startswith("#else"):
                stack[-1] = set()
                continue
            if stripped.startswith("#endif"):
                stack.pop()
                continue
            code = line.split("//", 1)[0]
            for pattern, platform in GUARDED:
                if pattern.search(code) and not any(platform in frame for frame in stack):
                    problems.append("%s:%d: %s outside #if canImport(%s): %s" % (
                        path, number, platform, platform, stripped))
    return problems


def self_test():
    import tempfile
    sample = """#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
func guarded() {
    #if canImport(Glibc)
        _ = Glibc.close(3)
    #elseif canImport(Darwin)
        _ = Darwin.close(3)
    #else
        _ = Darwin.close(3)
    #endif
}
func unguarded() { _ = Glibc.send(3, nil, 0, Int32(MSG_NOSIGNAL)) }  // Glibc. in a comment is fine
"""
    with tempfile.NamedTemporaryFile("w", suffix=".swift", delete=False) as file:
        file.write(sample)
    found = [p.split(": ", 1)[0].rsplit(":", 1)[1] for p in lint(file.name)]
    os.unlink(file.name)
    if found != ["12", "15"]:
        sys.exit("self-test: expected reports on lines 12 and 15, got %s" % found)
    print("platform lint self-test: reports an unguarded call and a Darwin call under a bare #else, nothing else")


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    roots = sys.argv[1:] or ["Sources", "bootstrap", "emulator", "Tests", "Benchmarks", "Fuzz"]
    problems = []
    for root in roots:
        for folder, _, files in os.walk(root):
            for name in sorted(files):
                if name.endswith(".swift"):
                    problems += lint(os.path.join(folder, name))
    for problem in problems:
        print(problem)
    if problems:
        print("%d platform call(s) would not build on macOS; guard them with #if canImport(...)" % len(problems))
        sys.exit(1)
    print("platform lint: every Glibc and Darwin use is guarded")


if __name__ == "__main__":
    main()
