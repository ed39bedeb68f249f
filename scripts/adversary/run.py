"""Runs the adversary (machine.py) against a built `inkra-emulator serve`; see scripts/adversary.sh --help."""

import argparse
import json
import os
import shutil
import signal
import sys
import tempfile
import time
import traceback

import hypothesis
import hypothesis.internal.conjecture.engine as engine
from hypothesis import HealthCheck, settings
from hypothesis.internal.conjecture.shrinker import Shrinker
from hypothesis.reporting import with_reporter
from hypothesis.stateful import run_state_machine_as_test

import client
import leaks
import machine
import serve as stack
import shorten
from model import DEFAULT_LIMITS, SMALL_LIMITS, Violation

# Each phase is one serve process with one limits file, which every sequence starts on (machine.py):
# (name, limits, sequences, steps per sequence at most).
BOUNDED = [("small-limits", SMALL_LIMITS, 40, 10)]
LONG = [("small-limits", SMALL_LIMITS, 150, 16), ("default-limits", DEFAULT_LIMITS, 60, 24)]
SHRINK_SECONDS = {False: 30, True: 180}  # per phase; Hypothesis' own bound is 300 s
SHORTEN_SECONDS = {False: 30, True: 120}  # per failure, deleting steps afterwards (shorten.py)


def tune_hypothesis(long):
    """Hypothesis is tuned for tests that run in milliseconds; a sequence here costs a second of a
    real server (the pool hashes a password for half a second per sign-up). So, on its internals
    (pinned in .ci/requirements.txt for that reason):
    - shrinking stops after SHRINK_SECONDS (its own bound is 300 s);
    - generation goes on to max_examples after a failure (its own stops 10 s after the first one,
      so the cheapest hole would end the search for the others);
    - its shrinker's first pass is skipped: before deleting any step it tries every earlier rule
      in place of each step, three random continuations each, hundreds of runs of one sequence,
      which used the whole budget before a step was deleted. Deleting steps and lowering values,
      the passes that remain, give the shortest sequence."""
    engine.MAX_SHRINKING_SECONDS = SHRINK_SECONDS[long]
    engine.ConjectureRunner.should_generate_more = generate_all
    Shrinker.initial_coarse_reduction = lambda self: None


def generate_all(runner):
    """ConjectureRunner.should_generate_more, less its early stop once a failure is found."""
    invalid = runner.invalid_examples + runner.overrun_examples
    return (runner.valid_examples < runner.settings.max_examples
            and invalid <= engine.INVALID_THRESHOLD_BASE + engine.INVALID_PER_VALID * runner.valid_examples)


def main():
    stop_on_sigterm()
    parser = argparse.ArgumentParser(prog="scripts/adversary.sh", description=__doc__)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--long", action="store_true")
    parser.add_argument("--emulator", required=True)
    parser.add_argument("--bootstrap", default=None)
    parser.add_argument("--examples", type=int, default=None, help="sequences per phase (default: by --long)")
    parser.add_argument("--steps", type=int, default=None, help="steps per sequence at most (default: by --long)")
    parser.add_argument("--json", default=None, help="also write the figures here")
    parser.add_argument("--keep", action="store_true", help="keep the work folder (serve's logs and recording)")
    parser.add_argument("--verbose", action="store_true", help="print every sequence's exchanges")
    options = parser.parse_args()
    if options.seed is None:
        options.seed = int.from_bytes(os.urandom(4), "big") % 1_000_000_000
    tune_hypothesis(options.long)
    phases = LONG if options.long else BOUNDED
    work = tempfile.mkdtemp(prefix="inkra-adversary-")
    print(f"== adversary: seed {options.seed}, {'long' if options.long else 'bounded'} run, generateQuestions "
          f"{'on the runtime ' + options.bootstrap if options.bootstrap else 'in serve'}; work folder {work}",
          flush=True)
    started = time.monotonic()
    results = []
    for index, (name, limits, examples, steps) in enumerate(phases):
        results.append(run_phase(options, work, "abcdefgh"[index], name, limits, options.examples or examples,
                                 options.steps or steps))
    noted = sum(sum(r["violationsNoted"].values()) + r["leaksAtEnd"] for r in results)
    failures = sum(len(r["failures"]) for r in results)
    harness = sum(r["harnessErrors"] for r in results)
    print(f"== {len(results)} phase(s), {sum(r['sequences'] for r in results)} sequences, "
          f"{sum(r['steps'] for r in results)} steps, {sum(r['checks'] for r in results)} invariant checks, "
          f"{noted} violation(s) noted, {failures} failure(s) after shrinking, {harness} harness error(s), "
          f"{time.monotonic() - started:.0f} s; seed {options.seed}")
    if options.json:
        with open(options.json, "w") as f:
            json.dump({"seed": options.seed, "long": options.long, "phases": results}, f, indent=2)
    failed = noted > 0 or failures > 0
    if failed or harness:
        print(f"FAILED with seed {options.seed}; replay: scripts/adversary.sh --seed {options.seed}"
              f"{' --long' if options.long else ''}")
    if options.keep or failed or harness:
        print(f"work folder kept: {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else (2 if harness else 0)


def run_phase(options, work, phase, name, limits, examples, steps):
    folder = os.path.join(work, name)
    os.makedirs(folder)
    limits_file = os.path.join(folder, "limits.json")
    with open(limits_file, "w") as f:
        json.dump(limits, f)
    print(f"-- phase {name}: limits {json.dumps(limits)}; {examples} sequences of up to {steps} steps", flush=True)
    serve = stack.Serve(options.emulator, folder, limits_file, bootstrap=options.bootstrap).start()
    counter = client.Counter()
    run = machine.Run(serve, client.Pool(serve.cognito, counter), client.Api(serve.api_port, counter),
                      client.Table(serve.dynamodb, counter), counter, limits, options.seed, leaks.Places(serve))
    run.phase, run.verbose = phase, options.verbose
    machine.RUN = run
    failures = []
    started = time.monotonic()
    try:
        hypothesis.seed(options.seed)(machine.Adversary)
        with with_reporter(reporter):
            run_state_machine_as_test(machine.Adversary, settings=settings(
                max_examples=examples, stateful_step_count=steps, deadline=None, database=None,
                suppress_health_check=list(HealthCheck), report_multiple_bugs=True, print_blob=False))
    except KeyboardInterrupt:
        serve.stop()
        raise
    except BaseException as error:  # one failing sequence, or several (a group): each shrunk
        failures = list(error.exceptions) if type(error) in (ExceptionGroup, BaseExceptionGroup) else [error]
    shortened = {}
    try:
        for failure in failures:
            if is_violation(failure):
                shortened[id(failure)] = shorten_failure(failure, SHORTEN_SECONDS[options.long])
        judged, documented = final_scan(run)
    finally:
        serve.stop()
    for finding in documented:
        run.documented[finding.kind] = run.documented.get(finding.kind, 0) + 1
    harness = 0
    for failure in failures:
        if is_violation(failure):
            print_failure(run, failure, options, shortened[id(failure)])
        else:
            harness += 1
            print(f"   HARNESS ERROR (not a finding): {type(failure).__name__}: {failure}")
            print("".join(traceback.format_exception(failure)[-6:]))
    if judged:
        print(f"   VIOLATION [4-leak] at the end of the phase: {len(judged)} string(s) sent or received kept where an "
              f"operator reads:")
        for finding in judged[:12]:
            print(f"     {finding}")
    figures = {
        "phase": name, "limits": limits, "sequences": run.examples, "steps": run.steps,
        "operations": dict(sorted(counter.counts.items())), "checks": run.checks,
        "violationsNoted": dict(sorted(run.violations.items())), "leaksAtEnd": len(judged),
        "failures": [f"[{machine.invariant_of(f)}] {describe(f)}" for f in failures if is_violation(f)],
        "harnessErrors": harness, "unjudged": run.unjudged,
        "documentedInRecordings": dict(sorted(run.documented.items())),
        "stringsTracked": len(run.secrets.kind), "scannedAtEnd": getattr(run, "scanned", {}),
        "seconds": round(time.monotonic() - started, 1),
    }
    print_figures(figures)
    return figures


def reporter(text):
    """Hypothesis' messages, but for its warning that shrinking took five minutes: here it stops
    after SHRINK_SECONDS by design."""
    if "working to shrink a failing example" in str(text):
        print(f"   (Hypothesis' shrinking stopped after its {engine.MAX_SHRINKING_SECONDS} s budget; the sequences "
              f"below are the shortest it found by then, then shortened by deleting steps)")
        return
    print(text)


def final_scan(run):
    """Invariant 4 over everything the phase wrote: the whole logs, every recording, a full table
    scan, and the console's request list (for tokens: the console shows requests by design, with
    every Authorization header redacted)."""
    console = []
    status, listing, _ = stack.exchange(run.serve.console_port, "GET", "/api/requests")
    if status == 200:
        console.append(("console /api/requests", json.dumps(listing)))
        entries = listing.get("requests", []) if isinstance(listing, dict) else listing
        for entry in entries[:500] if isinstance(entries, list) else []:
            number = entry.get("id") if isinstance(entry, dict) else None
            if number is not None:
                status, detail, _ = stack.exchange(run.serve.console_port, "GET", f"/api/requests/{number}")
                if status == 200:
                    console.append((f"console /api/requests/{number}", json.dumps(detail)))
    run.checks += 1
    items = run.table.scan()
    run.scanned = {"log bytes": sum(len(text) for _, text in run.places.logs(False)),
                   "recording files": len(run.serve.recording_files()), "table items": len(items),
                   "console entries": max(len(console) - 1, 0)}
    return leaks.scan(run.secrets, run.places, since_mark=False, table_items=items, console=console)


def is_violation(error):
    return isinstance(error, (Violation, machine.ViolationGroup))


def describe(error):
    if isinstance(error, machine.ViolationGroup):
        return " AND ".join(f"[{machine.invariant_of(e)}] {e}" for e in error.exceptions)
    return str(error)


def shorten_failure(failure, seconds):
    """(steps, exchanges, runs, reproduced): Hypothesis' sequence with every step deleted that the
    failure does not need (shorten.py)."""
    steps = shorten.steps_of(getattr(failure, "__notes__", []))
    if not steps:
        return None
    return shorten.shorten(steps, machine.invariant_of(failure), seconds)


def print_failure(run, failure, options, shortened):
    invariant = machine.invariant_of(failure)
    print(f"   VIOLATION [{invariant}] {describe(failure)}")
    steps = shorten.steps_of(getattr(failure, "__notes__", []))
    trace = next((t for i, t in run.final_traces if i == invariant), [])
    if shortened:
        short, short_trace, runs, reproduced = shortened
        if reproduced and len(short) < len(steps):
            print(f"     Hypothesis' sequence ({len(steps)} steps), then every step it did not need deleted "
                  f"({len(short)} left, {runs} runs):")
            steps, trace = short, short_trace
        elif not reproduced:
            print("     (the sequence did not fail the same way when run again: a race; as Hypothesis printed it)")
    print("     state = Adversary()")
    for line in steps:
        print(f"     {line}")
    print("     state.teardown()")
    if trace:
        print("     what it sent and was told:")
        for line in trace:
            print(f"       {line}")
    print(f"     replay: scripts/adversary.sh --seed {options.seed}{' --long' if options.long else ''}")


def print_figures(f):
    operations = ", ".join(f"{k} {v}" for k, v in f["operations"].items())
    noted = ", ".join(f"{k} {v}" for k, v in f["violationsNoted"].items()) or "0"
    print(f"   figures: {f['sequences']} sequences (shrinking's and shortening's runs included), {f['steps']} steps, "
          f"{f['checks']} invariant checks, {f['seconds']} s")
    print(f"   operations: {operations}")
    print(f"   violations noted: {noted}; leaks at the end: {f['leaksAtEnd']}; failures after shrinking: "
          f"{len(f['failures'])}; harness errors: {f['harnessErrors']}")
    documented = ", ".join(f"{k} {v}" for k, v in f["documentedInRecordings"].items()) or "none"
    scanned = ", ".join(f"{v} {k}" for k, v in f["scannedAtEnd"].items())
    print(f"   invariant 4 at the end: {f['stringsTracked']} strings looked for in {scanned}; found in --record "
          f"files, as docs/emulator.md says they are: {documented}")
    print(f"   not judged: {f['unjudged']} answers within 5 s of an expiry", flush=True)


def stop_on_sigterm():
    """SIGTERM ends the run as Ctrl-C does, so serve is stopped on the way out."""
    def handler(signum, frame):
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, handler)


if __name__ == "__main__":
    sys.exit(main())
