"""Deletes steps from the sequence Hypothesis printed for a failure, as long as the same invariant
still fails: each run of a sequence costs a second of a real server, and Hypothesis' shrinker,
made for millisecond tests, often runs out of its budget before it has deleted every step that
does not matter. The sequence Hypothesis prints is a program (`state = Adversary()`,
`tokens_0 = state.start(...)`, …, `state.teardown()`); this runs it again against the same serve,
the checks after every step included, without one step, then another, and keeps each deletion
that leaves the failure in place, until no single step can go (or the time is up). A step whose
result a later step uses is tried deleted with the later step given an earlier value of the same
bundle instead (`tokens_1` → `tokens_0`)."""

import re
import time

import machine
from model import Violation

STEP = re.compile(r"^(?:(?P<targets>[\w(), ]+?) = )?state\.(?P<rule>\w+)\((?P<arguments>.*)\)$")
CHECK = "charged_as_answered"


def steps_of(notes):
    """The rule calls of Hypothesis' falsifying example, in order, without the checks it lists
    after each (this runs them itself) and without `state = …` and `state.teardown()`."""
    steps, inside = [], False
    for note in notes:
        for line in note.splitlines():
            line = line.strip()
            if line.startswith("Falsifying example"):
                inside = True
                continue
            if not inside or line.startswith("state = "):
                continue
            if line == "state.teardown()":
                return steps
            match = STEP.match(line)
            if match and match.group("rule") != CHECK:
                steps.append(line)
    return steps


def run(steps):
    """Runs the steps on a fresh machine: (the invariant that failed or None, the exchanges). A
    step that fails otherwise (a name a deleted step made, serve gone) makes it no such sequence."""
    namespace = {"Adversary": machine.Adversary}
    exec("state = Adversary()", namespace)
    state = namespace["state"]
    try:
        for line in steps:
            exec(line, namespace)
            getattr(state, CHECK)()
    except Exception:  # noqa: BLE001 — not a violation: the checks note those and teardown raises
        try:
            state.teardown()
        except Exception:  # noqa: BLE001 — the sequence did not run as written: nothing to judge
            pass
        return None, state.trace
    try:
        state.teardown()
    except Exception as error:  # noqa: BLE001 — a violation (or a group of two), or the harness's own
        if isinstance(error, (Violation, machine.ViolationGroup)):
            return machine.invariant_of(error), state.trace
    return None, state.trace


def defined(line):
    """The bundle variables a step's line assigns (`tokens_1`, or `calls_0, calls_1`)."""
    match = STEP.match(line)
    targets = match.group("targets") if match else None
    return [name.strip() for name in (targets or "").strip("()").split(",") if name.strip()]


def without(steps, i):
    """`steps` less step i; then, for each value step i made that a later step uses, the same
    with that value replaced by the latest earlier one of its bundle, and by the first."""
    rest = steps[:i] + steps[i + 1:]
    yield rest
    earlier = [name for line in steps[:i] for name in defined(line)]
    for name in defined(steps[i]):
        used = re.compile(rf"\b{re.escape(name)}\b")
        if not any(used.search(line) for line in steps[i + 1:]):
            continue
        kind = name.rsplit("_", 1)[0]
        same = [e for e in earlier if e.rsplit("_", 1)[0] == kind]
        for stand_in in dict.fromkeys(same[-1:] + same[:1]):
            yield steps[:i] + [used.sub(stand_in, line) for line in steps[i + 1:]]


def shorten(steps, invariant, seconds):
    """The shortest sequence found by deleting steps (the first, `start`, stays), its exchanges,
    and how many runs it took."""
    deadline = time.monotonic() + seconds
    failed, trace = run(steps)
    runs = 1
    if failed != invariant:
        return steps, trace, runs, False  # does not fail the same way again (a race): left as it was
    changed = True
    while changed and time.monotonic() < deadline:
        changed = False
        for i in range(len(steps) - 1, 0, -1):
            if i >= len(steps):
                continue
            for candidate in without(steps, i):
                if time.monotonic() >= deadline:
                    break
                failed, candidate_trace = run(candidate)
                runs += 1
                if failed == invariant:
                    steps, trace, changed = candidate, candidate_trace, True
                    break
    return steps, trace, runs, True
