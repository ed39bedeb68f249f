"""Seeded fault decisions: every decision is a pure function of (seed, scenario, stream, n).

A stream is an operation name ("TransactWriteItems"), "model", or "crash"; n counts the calls of
that stream from 0. Because a decision never depends on a shared random generator consumed in
arrival order, the same seed gives the n-th GetItem the same fate in every run, however the
threads interleave (which request is the n-th one can still differ between runs).
"""

import hashlib
import threading


def unit(seed, scenario, stream, n, salt=""):
    """A number in [0, 1) derived from the seed and the call's place in its stream."""
    digest = hashlib.sha256(f"{seed}/{scenario}/{stream}/{n}/{salt}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


class Rule:
    """With `probability`, apply fault `kind` (with `seconds` for a delay or a hang)."""

    def __init__(self, kind, probability, seconds=0.0):
        self.kind, self.probability, self.seconds = kind, probability, seconds


class Schedule:
    """Rules per stream, and counters: the n-th call of a stream gets the n-th decision."""

    def __init__(self, seed, scenario, rules):
        self.seed, self.scenario, self.rules = seed, scenario, rules
        self.enabled = True
        self._lock = threading.Lock()
        self._counters = {}
        self.injected = {}  # "Operation:kind" -> count

    def decide(self, stream):
        """The fault for the next call of `stream`: (kind, seconds, n), kind None for none."""
        with self._lock:
            n = self._counters.get(stream, 0)
            self._counters[stream] = n + 1
            if not self.enabled:
                return None, 0.0, n
        draw, threshold = unit(self.seed, self.scenario, stream, n), 0.0
        for rule in self.rules.get(stream, []):
            threshold += rule.probability
            if draw < threshold:
                return rule.kind, rule.seconds, n
        return None, 0.0, n

    def fraction(self, stream, n, salt):
        """A second number for the same call (which keys to leave unprocessed, a delay's length)."""
        return unit(self.seed, self.scenario, stream, n, salt)

    def count(self, stream, kind):
        with self._lock:
            key = f"{stream}:{kind}"
            self.injected[key] = self.injected.get(key, 0) + 1

    def calls(self):
        with self._lock:
            return dict(self._counters)
