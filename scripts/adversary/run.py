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
from hypothesis.internal.conjecture.shrinker import Shrinker
from hypothesis import HealthCheck, settings
from hypothesis.reporting import with_reporter
from hypothesis.stateful import run_state_machine_as_test

import client
import leaks
import machine
import serve as stack
from model import DEFAULT_LIMITS, SMALL_LIMITS, Violation

# (name, limits, sequences, steps per sequence): limits are fixed per serve process (machine.py).
BOUNDED = [("small-limits", SMALL_LIMITS, 40, 10)]
LONG = [("small-limits", SMALL_LIMITS, 150, 40), ("default-limits", DEFAULT_LIMITS, 60, 40)]
SHRINK_SECONDS = {False: 90, True: 240}  # Hypothesis' own bound is 300 s


def stop_on_sigterm():
    """SIGTERM ends the run as Ctrl-C does, so serve is stopped on the way out."""
    def handler(signum, frame):
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, handler)


def main():
    stop_on_sigterm()
    parser = argparse.ArgumentParser(prog="scripts/adversary.sh", description=__doc__)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--long", action="store_true")
    parser.add_argument("--emulator", required=True)
    parser.add_argument("--bootstrap", default=None)
    parser.add_argument("--examples", type=int, default=None, help="sequences per phase (default: by --long)")
    parser.add_argument("--steps", type=int, default=None, help="steps per sequence (default: by --long)")
    parser.add_argument("--json", default=None, help="also write the figures here")
    parser.add_argument("--keep", action="store_true", help="keep the work folder (serve's logs and recording)")
    parser.add_argument("--verbose", action="store_true", help="print every sequence's exchanges")
    parser.add_argument("--ahead", action="store_true", help="sign up each sequence's first account ahead")
    options = parser.parse_args()
    if options.seed is None:
        options.seed = int.from_bytes(os.urandom(4), "big") % 1_000_000_000
    # Hypothesis is tuned for tests that run in milliseconds; each run here costs a second of a
    # real server. So (Hypothesis pinned in .ci/requirements.txt, as these are its internals):
    # shrinking stops after our budget (its own is 300 s), and generation goes on to max_examples
    # after a first failure (its own stops 10 s after the first bug, so the cheapest hole would
    # end the search for the others).
    engine.MAX_SHRINKING_SECONDS = SHRINK_SECONDS[options.long]
    engine.ConjectureRunner.should_generate_more = generate_all
    # And one pass of its shrinker: before deleting steps it tries every earlier rule in place of
    # each step, three random continuations each — hundreds of runs of a 15-step sequence, which
    # at a second a run used the whole budget before a single step was deleted. Deleting steps
    # and lowering values (the passes that remain) is what gives the shortest sequence.
    Shrinker.initial_coarse_reduction = lambda self: None
    phases = LONG if options.long else BOUNDED
    work = tempfile.mkdtemp(prefix="inkra-adversary-")
    print(f"== adversary: seed {options.seed}, {'long' if options.long else 'bounded'} run, "
          f"{'bootstrap ' + options.bootstrap if options.bootstrap else 'functions in serve'}; work folder {work}",
          flush=True)
    started = time.monotonic()
    results, harness_failed = [], False
    for index, (name, limits, examples, steps) in enumerate(phases):
        result = run_phase(options, work, index, name, limits, options.examples or examples, options.steps or steps)
        results.append(result)
        harness_failed = harness_failed or result["harnessErrors"] > 0
    total = sum(sum(r["violationsRaised"].values()) + r["leaksAtEnd"] for r in results)
    failures = sum(len(r["failures"]) for r in results)
    print(f"== {len(results)} phase(s), {sum(r['sequences'] for r in results)} sequences, "
          f"{sum(r['steps'] for r in results)} steps, {sum(r['checks'] for r in results)} invariant checks, "
          f"{total} violation(s) raised, {failures} distinct failure(s) after shrinking, "
          f"{time.monotonic() - started:.0f} s; seed {options.seed}")
    if options.json:
        with open(options.json, "w") as f:
            json.dump({"seed": options.seed, "long": options.long, "phases": results}, f, indent=2)
    failed = total > 0 or failures > 0
    if failed or harness_failed:
        print(f"FAILED with seed {options.seed}; replay: scripts/adversary.sh --seed {options.seed}"
              f"{' --long' if options.long else ''}")
    if options.keep or failed or harness_failed:
        print(f"work folder kept: {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else (2 if harness_failed else 0)


def run_phase(options, work, index, name, limits, examples, steps):
    folder = os.path.join(work, name)
    os.makedirs(folder)
    limits_file = os.path.join(folder, "limits.json")
    with open(limits_file, "w") as f:
        json.dump(limits, f)
    print(f"-- phase {name}: limits {json.dumps(limits)}; {examples} sequences of up to {steps} steps", flush=True)
    serve = stack.Serve(options.emulator, folder, limits_file, bootstrap=options.bootstrap).start()
    counter = client.Counter()
    phase = "abcdefgh"[index]
    ready = client.ReadyAccounts(serve, counter, f"adv{options.seed}{phase}").start() if options.ahead else None
    run = machine.Run(serve, client.Pool(serve.cognito, counter), client.Api(serve.api_port, counter),
                      client.Table(serve.dynamodb, counter), counter, limits, options.seed, leaks.Places(serve), ready)
    run.phase = phase
    run.verbose = options.verbose
    machine.RUN = run
    failures, harness_errors = [], 0
    phase_started = time.monotonic()
    try:
        hypothesis.seed(options.seed)(machine.Adversary)
        with with_reporter(reporter):
            run_state_machine_as_test(machine.Adversary, settings=settings(
                max_examples=examples, stateful_step_count=steps, deadline=None, database=None,
                suppress_health_check=list(HealthCheck), report_multiple_bugs=True, print_blob=False,
                verbosity=hypothesis.Verbosity.debug if os.environ.get("ADVERSARY_DEBUG") else hypothesis.Verbosity.normal))
    except KeyboardInterrupt:
        raise
    except BaseException as error:  # a failing sequence (or several): Hypothesis has shrunk each
        for each in getattr(error, "exceptions", [error]):
            failures.append(each)
    try:
        if ready:
            ready.stop()
        if ready and ready.failure:
            print(f"   (accounts made ahead stopped: {ready.failure}; sequences signed up their own)")
        judged, documented = final_scan(run)
    finally:
        serve.stop()
    for finding in documented:
        run.documented[finding.kind] = run.documented.get(finding.kind, 0) + 1
    seconds = time.monotonic() - phase_started
    for failure in failures:
        if isinstance(failure, Violation):
            print_failure(run, failure, options)
        else:
            harness_errors += 1
            print(f"   HARNESS ERROR (not a finding): {type(failure).__name__}: {failure}")
            print("".join(traceback.format_exception(failure)[-6:]))
    if judged:
        print(f"   VIOLATION [4-leak] at the end of the phase: {len(judged)} secret(s) where an operator reads:")
        for finding in judged[:12]:
            print(f"     {finding}")
    figures = {
        "phase": name, "limits": limits, "sequences": run.examples, "steps": run.steps,
        "operations": dict(sorted(counter.counts.items())), "checks": run.checks,
        "violationsRaised": dict(sorted(run.violations.items())), "leaksAtEnd": len(judged),
        "failures": [f"{type(f).__name__}: {f}" for f in failures if isinstance(f, Violation)],
        "harnessErrors": harness_errors, "unjudged": run.unjudged,
        "documentedInRecordings": dict(sorted(run.documented.items())),
        "secretsTracked": len(run.secrets.kind), "seconds": round(seconds, 1),
    }
    print_figures(figures)
    return figures


def generate_all(runner):
    """ConjectureRunner.should_generate_more, less its early stop once a bug is found."""
    invalid = runner.invalid_examples + runner.overrun_examples
    return (runner.valid_examples < runner.settings.max_examples
            and invalid <= engine.INVALID_THRESHOLD_BASE + engine.INVALID_PER_VALID * runner.valid_examples)


def reporter(text):
    """Hypothesis' messages, but for its warning that shrinking took five minutes: here shrinking
    stops after SHRINK_SECONDS by design, which is said once in the figures instead."""
    if "working to shrink a failing example" in str(text):
        print(f"   (shrinking stopped after its {engine.MAX_SHRINKING_SECONDS} s budget; the sequences below are "
              f"the shortest found by then)")
        return
    print(text)


def final_scan(run):
    """Invariant 4 over everything the phase wrote: the whole logs, every recording, a full table
    scan, and the console's request list (tokens only: the console shows requests by design)."""
    console = []
    status, listing, _ = stack.exchange(run.serve.console_port, "GET", "/api/requests")
    if status == 200:
        console.append(("console /api/requests", json.dumps(listing)))
        for entry in (listing if isinstance(listing, list) else listing.get("requests", []))[:500]:
            number = entry.get("id") if isinstance(entry, dict) else None
            if number is None:
                continue
            status, detail, _ = stack.exchange(run.serve.console_port, "GET", f"/api/requests/{number}")
            if status == 200:
                console.append((f"console /api/requests/{number}", json.dumps(detail)))
    run.checks += 1
    return leaks.scan(run.secrets, run.places, since_mark=False, table_items=run.table.scan(), console=console)


def print_failure(run, failure, options):
    print(f"   VIOLATION [{failure.invariant}] {failure}")
    for note in getattr(failure, "__notes__", []):
        for line in note.splitlines():
            # The invariants run after every step by themselves; Hypothesis lists each run.
            if line.strip() != "state.charged_as_answered()":
                print(f"     {line}")
    for invariant, trace in run.final_traces:
        if invariant == failure.invariant:
            print("     what it sent and was told (the shortest sequence, replayed):")
            for line in trace:
                print(f"       {line}")
            break
    print(f"     replay: scripts/adversary.sh --seed {options.seed}{' --long' if options.long else ''}")


def print_figures(f):
    operations = ", ".join(f"{k} {v}" for k, v in f["operations"].items())
    raised = ", ".join(f"{k} {v}" for k, v in f["violationsRaised"].items()) or "0"
    print(f"   figures: {f['sequences']} sequences (shrinking's replays included), {f['steps']} steps, "
          f"{f['checks']} invariant checks, {f['seconds']} s")
    print(f"   operations: {operations}")
    print(f"   violations raised: {raised}; leaks at the end: {f['leaksAtEnd']}; distinct failures after "
          f"shrinking: {len(f['failures'])}; harness errors: {f['harnessErrors']}")
    documented = ", ".join(f"{k} {v}" for k, v in f["documentedInRecordings"].items()) or "none"
    print(f"   not judged: {f['unjudged']} answers within 5 s of an expiry; in --record files as documented: "
          f"{documented}; {f['secretsTracked']} strings tracked", flush=True)


if __name__ == "__main__":
    sys.exit(main())
