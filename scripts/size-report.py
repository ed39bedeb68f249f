#!/usr/bin/env python3
"""What the packaged `bootstrap` is made of: the size of its symbols, grouped by the Swift module or
C library they come from, so a change shows what it costs.

    python3 scripts/size-report.py .build/lambda/bootstrap.debug [--modules N] [--check]

Reads `nm --size-sort -S --defined-only` of the file (the debug file `scripts/package-bootstrap.sh`
keeps beside the zip has every symbol the stripped binary lost) and prints a Markdown table:

- each part (the Swift standard library and runtime, Foundation, Regex, NIO, each BoringSSL,
  swift-crypto's Swift modules, this package's own modules, C and C++ without a module prefix),
  its size and its share of the whole;
- then the N largest modules (default 25) on their own.

A Swift symbol's module is the first name of its mangling (`$s7NIOCore…` is NIOCore's; `$ss…` and
`$sS…` are the standard library's). Reflection strings (`symbolic …`, `associated conformance …`)
count towards the first module they name. The figures are the symbols' sizes in the file: what is
zero-filled at load (`.bss`) is left out, and so are section padding, relocations and the ELF
headers.

With --check, exits 1 when the binary links what must not ship (CI's package stage runs it):
anything of swift-crypto (its BoringSSL, `CCryptoBoringSSL_`, or its Swift modules), since what
ships uses swift-nio-ssl's BoringSSL only; anything of Foundation (FoundationEssentials,
_FoundationCollections, CoreFoundation: 2.7 MB of symbols, for `Date`, `Data` and `URL`, which the
shipped modules have as `Timestamp`, `[UInt8]` and `HTTPURL`); or Regex (`_RegexParser`,
`_StringProcessing`: 0.8 MB, which one call of `contains(_:)` or `firstRange(of:)` on a string
brings in).
"""
import argparse
import os
import re
import subprocess
import sys

PACKAGE = set(os.listdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Sources"))) | {
    "Bootstrap",
    "bootstrap",
}

PARTS = [
    ("the package's own modules", lambda m: m in PACKAGE),
    (
        "Swift standard library and runtime",
        lambda m: m in {"Swift", "_Concurrency", "Synchronization", "Dispatch", "Glibc", "SwiftGlibc", "swift runtime"},
    ),
    ("Foundation (Essentials, Collections, CoreFoundation)", lambda m: "Foundation" in m or m == "CoreFoundation"),
    ("Regex (_RegexParser, _StringProcessing)", lambda m: m in {"_RegexParser", "_StringProcessing"}),
    ("NIO (Core, Posix, HTTP1, Embedded, SSL, …)", lambda m: "NIO" in m and "BoringSSL" not in m),
    ("BoringSSL of swift-nio-ssl (CNIOBoringSSL)", lambda m: m == "CNIOBoringSSL"),
    ("BoringSSL of swift-crypto (CCryptoBoringSSL)", lambda m: m == "CCryptoBoringSSL"),
    (
        "swift-crypto's Swift (Crypto, CryptoExtras, SwiftASN1, wrappers)",
        lambda m: m in {"Crypto", "CryptoExtras", "_CryptoExtras", "SwiftASN1", "CryptoBoringWrapper"},
    ),
    (
        "swift-log, swift-metrics, swift-collections, swift-atomics",
        lambda m: m in {"Logging", "CoreMetrics", "Metrics", "DequeModule", "Atomics", "_AtomicsShims"},
    ),
]
OTHER = "C and C++ without a module prefix"

# What must not ship, by why: swift-crypto's BoringSSL and Swift modules, Foundation, Regex.
FORBIDDEN = {
    "of swift-crypto (what ships uses swift-nio-ssl's BoringSSL, through Sources/InkraCrypto)": [
        "CCryptoBoringSSL", "Crypto", "CryptoExtras", "_CryptoExtras", "SwiftASN1", "CryptoBoringWrapper",
    ],
    "of Foundation (the shipped modules use Timestamp, [UInt8] and HTTPURL)": [
        "FoundationEssentials", "_FoundationCollections", "FoundationInternationalization", "Foundation",
        "CoreFoundation",
    ],
    "of Regex (a string's contains(_:) or firstRange(of:) brings it; search the UTF-8 view)": [
        "_RegexParser", "_StringProcessing",
    ],
}

MODULE = re.compile(r"(\d+)([A-Za-z_][A-Za-z0-9_]*)")


def swift_module(mangled):
    """The module of a `$s…` name, or None."""
    rest = mangled[2:]
    if rest.startswith("s") or (rest.startswith("S") and not rest.startswith("So")):
        return "Swift"
    if rest.startswith("So") or rest.startswith("SC"):
        return None  # an imported C type: counted with what names it next
    match = MODULE.match(rest)
    if not match:
        return None
    length = int(match.group(1))
    name = match.group(2)
    return name[:length] if len(name) >= length else None


def module_of(name):
    """The module or library a symbol belongs to."""
    if name.startswith("$s"):
        return swift_module(name) or OTHER
    if name.startswith(("symbolic ", "associated conformance ", "got.$s")):
        for match in MODULE.finditer(name):
            length, text = int(match.group(1)), match.group(2)
            if len(text) >= length and length > 1:
                return text[:length]
        return "Swift"  # a standard-library type's reflection string
    if name.startswith("l__swift") or name.startswith("swift_") or name.startswith("_swift_"):
        return "swift runtime"
    if "_swift_stdlib_" in name:
        return "Swift"  # the standard library's Unicode tables
    if name.startswith(("_dispatch", "dispatch_")):
        return "Dispatch"
    if name.startswith("_ZN5swift") or name.startswith("_ZN12_GLOBAL__N_1") and "swift" in name:
        return "swift runtime"
    for prefix in ("CNIOBoringSSL", "CCryptoBoringSSL"):
        if name.startswith(prefix) or f"{len(prefix)}{prefix}" in name:
            return prefix
    if name.startswith(("__CF", "_CF", "CF")):
        return "CoreFoundation"
    return OTHER


def part_of(module):
    for part, test in PARTS:
        if test(module):
            return part
    return OTHER


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("binary", help="the unstripped binary or its debug file (bootstrap.debug)")
    parser.add_argument("--modules", type=int, default=25, help="how many of the largest modules to list")
    parser.add_argument(
        "--check", action="store_true", help="fail when swift-crypto, Foundation or Regex is linked"
    )
    args = parser.parse_args()
    if not os.path.isfile(args.binary):
        sys.exit(f"error: {args.binary} does not exist (package it first: bash scripts/package-bootstrap.sh)")
    try:
        output = subprocess.run(
            ["nm", "--size-sort", "-S", "--defined-only", args.binary], capture_output=True, text=True, check=True
        ).stdout
    except FileNotFoundError:
        sys.exit("error: nm not found (binutils)")
    except subprocess.CalledProcessError as error:
        sys.exit(f"error: nm could not read {args.binary}: {error.stderr.strip()}")

    modules, parts = {}, {}
    total = 0
    for line in output.splitlines():
        fields = line.split(" ", 3)
        if len(fields) < 4 or fields[2] in ("b", "B"):
            continue  # zero-filled at load time: no byte of the file
        size = int(fields[1], 16)
        module = module_of(fields[3])
        modules[module] = modules.get(module, 0) + size
        part = part_of(module)
        parts[part] = parts.get(part, 0) + size
        total += size
    if total == 0:
        sys.exit(f"error: {args.binary} has no sized symbols (a stripped binary? give bootstrap.debug)")

    def row(name, size):
        return f"| {name} | {size / 1_000_000:.2f} MB | {100 * size / total:.1f}% |"

    print(f"Symbols of {os.path.basename(args.binary)}: {total / 1_000_000:.2f} MB in all")
    print()
    print("| part | size | share |")
    print("|---|---:|---:|")
    for part, size in sorted(parts.items(), key=lambda item: -item[1]):
        print(row(part, size))
    print()
    print(f"The {args.modules} largest modules:")
    print()
    print("| module | size | share |")
    print("|---|---:|---:|")
    for module, size in sorted(modules.items(), key=lambda item: -item[1])[: args.modules]:
        print(row(module, size))

    if args.check:
        failed = False
        for why, names in FORBIDDEN.items():
            linked = [f"{name} ({modules[name] / 1_000_000:.2f} MB)" for name in names if modules.get(name)]
            if linked:
                print(f"error: {', '.join(linked)} linked: nothing {why} may ship", file=sys.stderr)
                failed = True
        if failed:
            sys.exit(1)
        print("what ships links one BoringSSL (swift-nio-ssl's), no swift-crypto, no Foundation, no Regex")


if __name__ == "__main__":
    main()
