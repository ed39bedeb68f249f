#!/usr/bin/env python3
"""Builds every Swift code sample of README.md, docs/ and the DocC catalogs, runs the ones that
assert, and runs the shell samples marked runnable under `inkra-emulator exec` (issue #48).

  python3 scripts/samples.py              # all of it (.ci/run runs this after `swift test`)
  python3 scripts/samples.py --list       # each block and what is done with it; nothing is built
  python3 scripts/samples.py --swift      # the Swift samples only
  python3 scripts/samples.py --shell      # the shell samples only (builds inkra-emulator if need be)
  python3 scripts/samples.py --self-test  # breaks samples on purpose: each failure must name its line

A ```swift block becomes a file under .build/samples/<target>/, named after its page and line
(README.md:109 is README_md_109.swift), in one of two test targets that Package.swift declares only
when INKRA_SAMPLES=1 is set, which this script sets:
  - PublicSamples: README.md, docs/ and the catalogs of the library products' modules. It is built
    with `packageAccess: false`, so, as in a package that depends on this one, `package`
    declarations are out of reach: a sample may use only what a newcomer has.
  - PackageSamples: the catalogs of the other modules, which document `package` declarations for
    this package's own developers.
Both reuse what `swift build` built. A package depending on this one by path builds it all again
(measured on 2 cores: 6 min of CPU, 18 min beside other builds, for the samples' first build;
here about 45 s after `swift build`, 90 s beside other builds), and its PublicSamples compiled
and passed there as here.

In the file, the block's imports go first, and the rest goes line for line into a struct of its own:
statements into a method, declarations (struct, enum, func, @Test…) as they are, but for an
`@main` line, dropped (a test target has no entry point). `#sourceLocation` maps every line back
to the markdown, so the compiler says `README.md:122:82: error: …`. A block that asserts
(`#expect`, `#require`, `precondition`) is a test, and runs; the others are compiled only, as they
talk to AWS, the app's API or a Lambda sandbox.

An HTML comment on the line before a fence says more (neither GitHub nor DocC shows it):
  <!-- sample: skip REASON -->    not compiled; the count says why (a Package.swift fragment)
  <!-- sample: continued -->      the block goes on from the page's previous Swift block, in the same
                                  method: a walkthrough compiles, and runs, as one
  <!-- sample: given              Swift the prose takes as given (the app's `auth`, a type another
  let auth = …                    page defines), put before the block, never shown to the reader
  -->
  <!-- sample: exec OPTIONS -->   a ```sh block runs in a scratch folder under
                                  `inkra-emulator exec OPTIONS -- bash -euo pipefail`, and must
                                  exit 0; the ```text block that follows it, if any, is its standard
                                  output, `…` standing for any text (a line of `…` alone: any lines).
                                  `swift run inkra-emulator` runs the built binary. A session
                                  on serve's default ports (README's) needs them free.
Other shell blocks are not run: they deploy, need Docker, or start a server in a terminal.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / ".build" / "samples"
ASSERTS = re.compile(r"#expect|#require|\bprecondition\(|\bassert\(")
DECLARATION = re.compile(
    r"(@\w+|struct|enum|final|class|actor|protocol|extension|func|typealias|public|private|fileprivate)\b")
IMPORT = re.compile(r"^(@\w+ )?import \w+")
MARKER = re.compile(r"<!-- sample:\s*(\w+)\s*(.*?)\s*(-->)?$")


@dataclass
class Block:
    page: str  # relative to the repository
    line: int  # the fence's line, 1-based
    language: str
    lines: list  # the code, without the fence's indentation
    marker: str = ""  # skip, continued, given, exec or ""
    argument: str = ""  # skip's reason, exec's options
    given: list = field(default_factory=list)  # (line, text) of a given comment
    output: "Block | None" = None  # the ```text block after an exec block

    @property
    def name(self):
        return f"{self.page}:{self.line}"


def pages():
    found = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    found += sorted((ROOT / "Sources").glob("*/*.docc/**/*.md"))
    return found


def parse(path, root=ROOT):
    """The fenced blocks of a markdown file, each with the marker comment right before it."""
    text = path.read_text(encoding="utf-8").split("\n")
    page = str(path.relative_to(root)) if path.is_relative_to(root) else path.name
    blocks, index = [], 0
    while index < len(text):
        opening = re.match(r"^(\s*)```(\S*)\s*$", text[index])
        if not opening:
            index += 1
            continue
        indent, language = len(opening.group(1)), opening.group(2)
        end = index + 1
        while end < len(text) and not re.match(r"^\s*```\s*$", text[end]):
            end += 1
        block = Block(page, index + 1, language, [line[indent:] for line in text[index + 1:end]])
        marker(block, text, index)
        blocks.append(block)
        index = end + 1
    for previous, block in zip(blocks, blocks[1:]):
        if previous.marker == "exec" and block.language == "text" and not block.marker:
            if all(not line.strip() for line in text[previous.line + len(previous.lines) + 1:block.line - 1]):
                previous.output = block
    return blocks


def marker(block, text, fence):
    """Reads the `<!-- sample: … -->` comment that ends on the line before the fence, if any."""
    end = fence - 1
    if end < 0 or not text[end].strip().endswith("-->"):
        return
    start = end
    while start > 0 and "<!--" not in text[start]:
        start -= 1
    found = MARKER.match(text[start].strip())
    if not found:
        return
    block.marker, block.argument = found.group(1), found.group(2).lstrip(",:; ")
    if block.marker not in ("skip", "continued", "given", "exec"):
        sys.exit(f"{block.page}:{start + 1}: unknown sample marker '{block.marker}' (skip, continued, given, exec)")
    if block.marker == "given":
        block.given = [(number + 1, text[number]) for number in range(start + 1, end)]


def public_modules():
    """The modules of Package.swift's library products: what a package depending on this one gets."""
    manifest = (ROOT / "Package.swift").read_text(encoding="utf-8")
    modules = set()
    for targets in re.findall(r"\.library\(name: \"\w+\", targets: \[([^\]]*)\]\)", manifest):
        modules.update(re.findall(r"\"(\w+)\"", targets))
    return modules


def target_of(page, public):
    docc = re.match(r"Sources/(\w+)/", page)
    return "PackageSamples" if docc and docc.group(1) not in public else "PublicSamples"


def swift_files(blocks, public):
    """Groups the Swift blocks (a block and the ones continued from it) into files: returns the
    files' text by target and name, the count of files, of blocks joined, and the skipped blocks."""
    groups, skipped, last = [], [], {}
    for block in blocks:
        if block.language != "swift":
            continue
        if block.marker == "skip":
            skipped.append(f"{block.name}: {block.argument or 'no reason given'}")
        elif block.marker == "continued":
            if block.page not in last:
                sys.exit(f"{block.name}: 'continued', but no Swift block comes before it on the page")
            last[block.page].append(block)
        else:
            last[block.page] = [block]
            groups.append(last[block.page])
    files = {"PublicSamples": {}, "PackageSamples": {}}
    for group in groups:
        head = group[0]
        stem = re.sub(r"\W", "_", head.page.replace("Sources/", "")) + f"_{head.line}"
        files[target_of(head.page, public)][stem + ".swift"] = source(group, stem)
    joined = sum(len(group) - 1 for group in groups)
    return files, len(groups), joined, skipped


def source(group, stem):
    imports, body = set(), []
    for block in group:
        lines = [(number, text) for number, text in block.given]
        lines += [(block.line + 1 + offset, text) for offset, text in enumerate(block.lines)]
        kept = []
        for number, text in lines:
            if IMPORT.match(text):
                imports.add(text.strip())
                text = ""
            elif text.strip() == "@main":
                text = ""  # a test target has no entry point: the type is compiled, not started
            kept.append((number, text))
        # One location directive per run of consecutive lines.
        for index, (number, text) in enumerate(kept):
            if index == 0 or kept[index - 1][0] + 1 != number:
                body.append(f'#sourceLocation(file: "{block.page}", line: {number})')
            body.append(text)
    body.append("#sourceLocation()")
    code = [text for block in group for _, text in block.given] + [text for block in group for text in block.lines]
    first = next((text for text in group[0].lines if text.strip() and not text.lstrip().startswith("//")
                  and not IMPORT.match(text)), "")
    header = [f"// Written by scripts/samples.py from {group[0].name}: edit the markdown, not this file."]
    header += sorted(imports) + [""]
    if DECLARATION.match(first):
        return "\n".join(header + [f"struct {stem} {{"] + body + ["}", ""])
    test = f'    @Test("{group[0].name}")' if any(ASSERTS.search(text) for text in code) else ""
    if test and "import Testing" not in imports:
        header.insert(-1, "import Testing")
    method = [f"struct {stem} {{", test, "    func sample() async throws {"]
    return "\n".join(header + method + body + ["    }", "}", ""])


def write(files):
    """Writes the targets' files, leaving an unchanged file untouched so that it is not compiled again."""
    for target, sources in files.items():
        folder = SAMPLES / target
        folder.mkdir(parents=True, exist_ok=True)
        if not sources:
            sources = {"Empty.swift": "// No sample of this kind.\n"}
        for stale in set(os.listdir(folder)) - set(sources):
            (folder / stale).unlink()
        for name, text in sources.items():
            if not (folder / name).exists() or (folder / name).read_text(encoding="utf-8") != text:
                (folder / name).write_text(text, encoding="utf-8")


def run(command, environment=None, quiet=False, echo=True):
    print("$ " + " ".join(command), flush=True)
    result = subprocess.run(command, cwd=ROOT, env=environment, text=True, capture_output=True)
    if not quiet or (echo and result.returncode != 0):
        sys.stdout.write(result.stdout)
        sys.stderr.write(result.stderr)
    return result


def check_swift(blocks):
    public = public_modules()
    files, compiled, joined, skipped = swift_files(blocks, public)
    write(files)
    print(f"== Swift samples: {compiled} files compiled ({joined} more blocks joined to the one before); "
          f"{len(skipped)} skipped" + "".join(f"\n   skipped {line}" for line in skipped))
    environment = dict(os.environ, INKRA_SAMPLES="1")
    built = run(["swift", "build", "--build-tests"], environment, quiet=True, echo=False)
    if built.returncode != 0:
        # The compiler reports a file's errors again in each job of its module: print them once.
        paragraphs = "\n".join(line for line in (built.stdout + built.stderr).split("\n")
                                if not re.match(r"\[\d+/\d+\]|warning: 'swift-distributed-tracing'|    /", line))
        diagnostics = re.split(r"\n(?=\S+:\d+:\d+: (?:error|warning|note): )", paragraphs)
        sys.stderr.write("\n".join(dict.fromkeys(chunk.strip("\n") + "\n" for chunk in diagnostics)))
        places = sorted(set(re.findall(r"^(\S+\.md:\d+):\d+: error", built.stdout + built.stderr, re.M)))
        print("error: samples that do not compile: " + (", ".join(places) or "(see the build's output)"),
              file=sys.stderr)
        return False
    tested = run(["swift", "test", "--skip-build", "--filter", "PublicSamples|PackageSamples"], environment)
    if tested.returncode != 0:
        # Swift Testing names the file alone (TestingYourHandlers.md:84): give it its folder again.
        folders = {Path(block.page).name: block.page for block in blocks}
        places = sorted(set(folders.get(name, name) + ":" + line for name, line in
                            re.findall(r"(\S+\.md):(\d+):\d+", tested.stdout + tested.stderr)))
        print("error: samples whose tests fail: " + (", ".join(places) or "(see the output above)"), file=sys.stderr)
        return False
    return True


def expected_pattern(lines):
    """A regular expression for an expected output: `…` is any text, a line of `…` alone any lines."""
    parts = []
    for line in lines:
        if line.strip() == "…":
            parts.append(r"(?:[^\n]*\n)*?")
        else:
            parts.append("[^\n]*".join(re.escape(piece) for piece in line.split("…")) + "\n")
    return re.compile("".join(parts))


def check_shell(blocks, emulator):
    runnable = [block for block in blocks if block.marker == "exec"]
    others = sum(1 for block in blocks if block.language in ("sh", "bash", "shell") and block.marker != "exec")
    print(f"== shell samples: {len(runnable)} run under inkra-emulator exec; {others} not marked to run")
    failed = []
    for block in runnable:
        with tempfile.TemporaryDirectory(prefix="inkra-sample-") as scratch:
            script = Path(scratch) / "sample.sh"
            # `swift run inkra-emulator` is the built binary: the block runs as written, without a
            # build check per command.
            script.write_text(
                f'swift() {{ if [ "${{1:-}} ${{2:-}}" = "run inkra-emulator" ]; then shift 2; "{emulator}" "$@"; '
                'else command swift "$@"; fi; }\n' + "\n".join(block.lines) + "\n", encoding="utf-8")
            command = [str(emulator), "exec", *block.argument.split(), "--", "bash", "-euo", "pipefail", str(script)]
            print(f"-- {block.name}: inkra-emulator exec {block.argument}", flush=True)
            result = subprocess.run(command, cwd=scratch, text=True, capture_output=True)
        sys.stdout.write("".join("   " + line for line in result.stdout.splitlines(keepends=True)))
        problem = None
        if result.returncode != 0:
            problem = f"exited {result.returncode}"
        elif block.output and not expected_pattern(block.output.lines).fullmatch(result.stdout):
            problem = f"printed other than {block.output.name} shows"
        if problem:
            print(f"{block.name}: error: the sample {problem}; the stack's and its standard error:\n"
                  f"{result.stderr[-4000:]}", file=sys.stderr)
            failed.append(block.name)
    if failed:
        print("error: shell samples that fail: " + ", ".join(failed), file=sys.stderr)
    return not failed


def emulator_binary():
    built = run(["swift", "build", "--product", "inkra-emulator"], quiet=True)
    if built.returncode != 0:
        sys.exit("error: inkra-emulator does not build")
    path = run(["swift", "build", "--show-bin-path"], quiet=True).stdout.strip()
    return Path(path) / "inkra-emulator"


def listing(blocks, public):
    for block in blocks:
        if block.language == "swift":
            what = {"skip": f"skipped: {block.argument}", "continued": "joined to the block before"}.get(
                block.marker, f"compiled in {target_of(block.page, public)}")
        elif block.marker == "exec":
            what = f"run: inkra-emulator exec {block.argument}"
            what += f", its output {block.output.name}" if block.output else ""
        else:
            continue
        print(f"{block.name}: {block.language}: {what}")


SELF_TEST = [
    # Samples that do not compile, two as README's once did: one build reports them all.
    ("ManualClock is not callable (README's Example once called clock()); "
     "usageTracker is internal (README's InkraClient sample once read it); "
     "a `package` declaration is out of reach", r"""
```swift
import InkraHandlers
import InkraTesting

let clock = ManualClock("2026-03-10T10:00:00Z")
let context = InvocationContext(time: clock())
```

```swift
import Foundation
import InkraClient

let tracker = UsageTracker(now: { Date() })
let client = InkraClient(baseURL: URL(string: "https://api.example.com")!, usageTracker: tracker) { _ in "" }
let left = await client.usageTracker.snapshot?.monthly?.remaining
```

```swift
import InkraAuth

let error = AuthError(.keysUnavailable, "a package declaration, out of a newcomer's reach")
```
""", ["broken.md:7", "broken.md:16", "broken.md:22"], "--swift"),
    # A walkthrough that compiles and does not do what it says, as the DocC article's once did: it
    # made a scripted generator and never gave it to the function.
    ("a scripted generator never given to the function (InkraTesting's article once did this)", r"""
```swift
import InkraHandlers
import InkraTesting
import Testing

let clock = ManualClock("2026-03-10T10:00:00Z")
let generate = GenerateQuestions(store: InMemoryUsageStore(now: clock.closure), generator: TemplateQuestionGenerator())
let post = ProxyEvent.rest(caller: Caller("ada"), body: #"{"topic":"my first job"}"#)
```

<!-- sample: continued -->
```swift
let generator = ScriptedGenerator([.failure, .questions(["Where did it start?"])])
let failed = try await ProxyResult(generate.handle(post, context: clock.context))
#expect(failed.statusCode == 502)
#expect(generator.requests.count == 2)
```
""", ["broken.md:16", "broken.md:17"], "--swift"),
    # A session whose output is not the one the page shows.
    ("a shell session that prints other than its page shows", r"""
<!-- sample: exec --no-cognito --no-console -->
```sh
curl -s -o /dev/null -w '%{http_code}\n' -X POST "$INKRA_API_URL/questions"
```

```text
200
```
""", ["broken.md:3"], "--shell"),
]


def self_test():
    """Runs this script on pages of its own with samples broken as past releases broke them: each
    run must fail, naming the page and line of each broken sample."""
    ok = True
    for title, page, places, kind in SELF_TEST:
        with tempfile.TemporaryDirectory(prefix="inkra-samples-self-test-") as folder:
            path = Path(folder) / "broken.md"
            path.write_text("# A page" + page, encoding="utf-8")
            result = subprocess.run([sys.executable, __file__, kind, "--pages", str(path)], cwd=ROOT,
                                    text=True, capture_output=True)
        output = result.stdout + result.stderr
        missing = [place for place in places if place not in output]
        passed = result.returncode != 0 and not missing
        print(f"{'ok' if passed else 'FAILED'}: {title}: exit {result.returncode}, "
              + (f"not naming {', '.join(missing)}" if missing else f"naming {', '.join(places)}"))
        if not passed:
            ok = False
            sys.stdout.write(output[-4000:])
    # Put back the package's own samples, so that the next build does not compile the broken ones.
    write(swift_files([block for page in pages() for block in parse(page)], public_modules())[0])
    return ok


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--list", action="store_true", help="print each block and what is done with it")
    parser.add_argument("--swift", action="store_true", help="the Swift samples only")
    parser.add_argument("--shell", action="store_true", help="the shell samples only")
    parser.add_argument("--pages", nargs="+", type=Path, help="these markdown files instead of the package's")
    parser.add_argument("--self-test", action="store_true", help="check that broken samples fail, naming their line")
    arguments = parser.parse_args()
    if arguments.self_test:
        sys.exit(0 if self_test() else 1)
    blocks = [block for page in (arguments.pages or pages()) for block in parse(page.resolve())]
    public = public_modules()
    if arguments.list:
        listing(blocks, public)
        return
    ok = True
    if not arguments.shell:
        ok = check_swift(blocks) and ok
    if not arguments.swift:
        ok = check_shell(blocks, emulator_binary()) and ok
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
