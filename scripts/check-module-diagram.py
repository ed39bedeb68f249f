#!/usr/bin/env python3
"""Checks README.md's module diagram against the sources' import lines.

The diagram (the first code block under "## Modules" in README.md) lists each module of the
package on a line of its own, indented, with the modules it imports after an arrow:

    WHAT SHIPS ...
      InkraHandlers      ──► InkraAuth, InkraJSON, InkraTime, InkraUsage

A list that ends with a comma goes on on the next line. A module that imports none of the
package's modules stands alone on its line. Lines that start in the first column are headings: the
one that names WHAT SHIPS starts the shipped part.

The modules are the folders of Sources/ and the executables' folders bootstrap/ (`bootstrap`) and
emulator/ (`inkra-emulator`); an arrow is an `import` (plain, `@_exported`, `@testable`, with an
access level, or inside `#if`) in one of the module's .swift files of another of these modules.
Imports of modules outside the package (Foundation, NIO, Crypto, ...) are not arrows.

Fails, naming each one, on:
  - an arrow the sources have and the diagram does not (and the file that imports),
  - an arrow the diagram has and no file of the module imports,
  - a module of the sources missing from the diagram, or a diagram line naming no module,
  - an arrow that points up: every module is listed above all the modules it imports, so the
    diagram reads top-down and a shipped module can never import one of what emulates.

    scripts/check-module-diagram.py               check README.md against the sources
    scripts/check-module-diagram.py --self-test   show that the check fails where it should
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXECUTABLES = {"bootstrap": "bootstrap", "emulator": "inkra-emulator"}
ARROW = "──►"
IMPORT = re.compile(
    r"^\s*(?:@\w+\s+)*(?:(?:public|package|internal|fileprivate|private)\s+)?import\s+"
    r"(?:(?:typealias|struct|class|enum|protocol|let|var|func)\s+)?([A-Za-z_][A-Za-z0-9_]*)"
)


def module_folders(root):
    """The package's modules: name -> folder."""
    folders = {}
    sources = os.path.join(root, "Sources")
    for name in sorted(os.listdir(sources)):
        if os.path.isdir(os.path.join(sources, name)):
            folders[name] = os.path.join(sources, name)
    for folder, name in EXECUTABLES.items():
        folders[name] = os.path.join(root, folder)
    return folders


def source_arrows(folders):
    """{(module, imported): 'file:line'} for every import of one of the package's modules."""
    arrows = {}
    for module, folder in folders.items():
        for directory, _, files in sorted(os.walk(folder)):
            for file in sorted(files):
                if not file.endswith(".swift"):
                    continue
                path = os.path.join(directory, file)
                with open(path, encoding="utf-8") as text:
                    for number, line in enumerate(text, 1):
                        match = IMPORT.match(line)
                        if match and match.group(1) in folders and match.group(1) != module:
                            where = f"{os.path.relpath(path, ROOT)}:{number}"
                            arrows.setdefault((module, match.group(1)), where)
    return arrows


def diagram(readme):
    """The diagram's modules in order, whether each ships, its arrows, and its malformed lines."""
    lines = readme.split("\n")
    try:
        start = lines.index("## Modules")
        opening = next(i for i in range(start, len(lines)) if lines[i].startswith("```"))
        closing = next(i for i in range(opening + 1, len(lines)) if lines[i].startswith("```"))
    except (ValueError, StopIteration):
        raise SystemExit('error: README.md has no code block under "## Modules"')
    order, ships, arrows, problems = [], {}, set(), []
    shipping = False
    open_list = None  # the module whose imports the previous line left open with a trailing comma
    for number in range(opening + 1, closing):
        line = lines[number]
        if not line.strip():
            continue
        if not line[0].isspace():
            shipping = shipping or "WHAT SHIPS" in line
            open_list = None
            continue
        if open_list:
            module, imported = open_list, line
        else:
            module, _, imported = line.strip().partition(ARROW)
            module = module.strip()
            if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", module):
                problems.append(f"README.md:{number + 1}: {line.strip()!r} does not start with a module's name")
                continue
            order.append(module)
            ships[module] = shipping
        open_list = module if imported.rstrip().endswith(",") else None
        for name in (part.strip() for part in imported.split(",")):
            if name:
                arrows.add((module, name))
    return order, ships, arrows, problems


def check(folders, arrows_in_sources, order, ships, arrows_in_diagram, problems):
    """The problems, one line each."""
    problems = list(problems)
    listed = set(order)
    for module in folders:
        if module not in listed:
            problems.append(f"{module} is a module of the sources but has no line in README.md's diagram")
    for module in order:
        if module not in folders:
            problems.append(f"README.md's diagram lists {module}, which is no module of the sources")
        if order.count(module) > 1 and order.index(module) != len(order) - 1 - order[::-1].index(module):
            problems.append(f"README.md's diagram lists {module} more than once")
    for (module, imported), where in sorted(arrows_in_sources.items()):
        if (module, imported) not in arrows_in_diagram:
            problems.append(f"missing arrow {module} {ARROW} {imported}: {where} imports it")
    for module, imported in sorted(arrows_in_diagram):
        if (module, imported) not in arrows_in_sources:
            problems.append(f"extra arrow {module} {ARROW} {imported}: no .swift file of {module} imports it")
        elif module in listed and imported in listed and order.index(imported) < order.index(module):
            kind = "a shipped module imports one of what emulates" if ships[module] and not ships[imported] else (
                "it points up")
            problems.append(f"arrow {module} {ARROW} {imported}: {kind} (list {imported} below {module})")
    return problems


def self_test():
    """The check passes a true diagram, and fails each kind of wrong one, naming it."""
    folders = {"Top": "", "Middle": "", "Base": ""}
    sources = {("Top", "Middle"): "Top.swift:1", ("Middle", "Base"): "Middle.swift:2"}

    def run(block):
        readme = "# x\n\n## Modules\n\n```\n" + block + "\n```\n"
        return check(folders, sources, *diagram(readme))

    true = "WHAT EMULATES\n  Top ──► Middle\nWHAT SHIPS\n  Middle ──► Base\n  Base"
    assert run(true) == [], run(true)
    cases = {
        "missing arrow Middle ──► Base": "WHAT EMULATES\n  Top ──► Middle\nWHAT SHIPS\n  Middle\n  Base",
        "extra arrow Top ──► Base": "WHAT EMULATES\n  Top ──► Middle, Base\nWHAT SHIPS\n  Middle ──► Base\n  Base",
        "Base is a module of the sources": "WHAT EMULATES\n  Top ──► Middle\nWHAT SHIPS\n  Middle ──► Base",
        "lists Other, which is no module": true + "\n  Other",
        "a shipped module imports one of what emulates":
            "WHAT EMULATES\n  Base\nWHAT SHIPS\n  Top ──► Middle\n  Middle ──► Base",
        "it points up": "WHAT SHIPS\n  Base\n  Middle ──► Base\n  Top ──► Middle",
        "does not start with a module's name": true + "\n  ► Base",
        "missing arrow Top ──► Middle": "WHAT EMULATES\n  Top ──► Base,\n\nWHAT SHIPS\n  Middle ──► Base\n  Base",
    }
    for expected, block in cases.items():
        found = run(block)
        assert any(expected in problem for problem in found), (expected, found)
    print(f"check-module-diagram self-test: {len(cases) + 1} passed, 0 failed")


def main():
    if sys.argv[1:] == ["--self-test"]:
        self_test()
        return
    folders = module_folders(ROOT)
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as text:
        readme = text.read()
    problems = check(folders, source_arrows(folders), *diagram(readme))
    for problem in problems:
        print(f"error: {problem}", file=sys.stderr)
    if problems:
        sys.exit(1)
    print(f"README.md's module diagram matches the import lines of {len(folders)} modules")


if __name__ == "__main__":
    main()
