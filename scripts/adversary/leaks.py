"""Invariant 4: nothing a caller sent or was sent back is kept where an operator reads — serve's
standard output (the access log) and standard error (its log and the runtime's), the `--record`
folder, the table, the console's request list. Every string the harness sent or received is
registered here with its kind, and the places are searched for it exactly: the strings are made
distinctive (`adv…` topics, keys, emails and passwords; tokens are signed, questions name their
topic), so a match means the string was written there.

`serve --record` writes each request's event (its body and token as sent) and its answer, for
replay: docs/emulator.md says so, and `--record` refuses a real pool for that reason. A topic, key,
id token or question found in a recording is therefore counted as documented, not judged; an
email, a password, an access or a refresh token there is judged like anywhere else."""

import json
import os
import re

KINDS = ("email", "password", "topic", "key", "id-token", "access-token", "refresh-token", "question")
RECORDING_DOCUMENTED = {"topic", "key", "id-token", "question"}
CONSOLE_JUDGED = {"id-token", "access-token", "refresh-token", "password"}  # the console redacts tokens


class Secrets:
    """Every string to look for, with its kind."""

    def __init__(self):
        self.kind = {}

    def add(self, kind, text):
        if isinstance(text, str) and len(text) >= 8:
            self.kind.setdefault(text, kind)

    def add_token(self, kind, token):
        """A JWT is looked for whole and by its payload and signature (a log that cut the token
        would still hold them); an opaque token, whole."""
        if not isinstance(token, str):
            return
        self.add(kind, token)
        parts = token.split(".")
        if len(parts) == 3:
            self.add(kind, parts[1])
            self.add(kind, parts[2])

    def merge(self, other):
        for text, kind in other.kind.items():
            self.kind.setdefault(text, kind)


class Finding:
    def __init__(self, place, kind, text, context):
        self.place, self.kind, self.text, self.context = place, kind, text, context

    def __str__(self):
        return f"{self.place}: a {self.kind} ({short(self.text)}) in …{self.context}…"


def short(text):
    return text if len(text) <= 40 else text[:18] + "…" + text[-18:]


def finding(place, kind, text, whole, start):
    context = whole[max(0, start - 60):min(len(whole), start + len(text) + 20)].replace("\n", "⏎")
    return Finding(place, kind, text, context)


def search(secrets, text, place, kinds=None):
    """Every secret of `kinds` found in `text` as a substring: for a sequence's few secrets."""
    found = []
    for secret, kind in secrets.kind.items():
        if kinds is None or kind in kinds:
            at = text.find(secret)
            if at >= 0:
                found.append(finding(place, kind, secret, text, at))
    return found


# Words a secret can stand in: the topics, keys, emails and passwords are made of [A-Za-z0-9-@.],
# tokens of base64url (JWTs, split at their dots) or base64 (refresh tokens).
WORDS = (re.compile(r"[A-Za-z0-9_\-@.]+"), re.compile(r"[A-Za-z0-9_\-@.+/=]+"))


def search_words(secrets, text, place, kinds=None):
    """Every secret of `kinds` found in `text` as a whole word (or a dot-separated part of one):
    for a run's thousands of secrets, in one pass over the text each. Questions hold spaces and
    are not words: each names its topic, which is looked for instead."""
    lookup = {s: k for s, k in secrets.kind.items() if kinds is None or k in kinds}
    found, seen = [], set()
    for words in WORDS:
        for match in words.finditer(text):
            word = match.group(0)
            for candidate in {word, word.strip("."), *word.split(".")}:
                kind = lookup.get(candidate)
                if kind and (candidate, match.start()) not in seen:
                    seen.add((candidate, match.start()))
                    found.append(finding(place, kind, candidate, text, match.start()))
    return found


class Places:
    """Reads what serve wrote, from offsets, so a sequence's scan reads only what came after it
    started and the run's scan reads everything."""

    def __init__(self, serve):
        self.serve = serve
        self.offsets = {}
        self.seen_recordings = set()

    def mark(self):
        """Remembers where the logs end and which recordings exist, for `since_mark`."""
        self.offsets = {path: size(path) for path in self.serve.log_files()}
        self.seen_recordings = set(self.serve.recording_files())

    def logs(self, since_mark):
        for path in self.serve.log_files():
            start = self.offsets.get(path, 0) if since_mark else 0
            with open(path, "rb") as f:
                f.seek(start)
                yield os.path.basename(path), f.read().decode(errors="replace")

    def recordings(self, since_mark):
        for path in self.serve.recording_files():
            if since_mark and path in self.seen_recordings:
                continue
            try:
                with open(path, errors="replace") as f:
                    yield os.path.join("recording", os.path.basename(path)), f.read()
            except OSError:
                continue


def size(path):
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def scan(secrets, places, since_mark, table_items=(), console=()):
    """(judged findings, documented findings): the logs and table for every kind, the recordings
    for what docs/emulator.md does not put there, the console for tokens and passwords. A
    sequence's scan (`since_mark`) looks for its own secrets as substrings; the run's, for all of
    them as words."""
    judged, documented = [], []
    look = search if since_mark else search_words
    for name, text in places.logs(since_mark):
        judged += look(secrets, text, name)
    for name, text in places.recordings(since_mark):
        for found in look(secrets, text, name):
            (documented if found.kind in RECORDING_DOCUMENTED else judged).append(found)
    for item in table_items:
        pk = item.get("PK", {}).get("S", "?")
        sk = item.get("SK", {}).get("S", "?")
        judged += look(secrets, json.dumps(item), f"table item {pk} {sk}")
    for name, text in console:
        judged += look(secrets, text, name, CONSOLE_JUDGED)
    return judged, documented
