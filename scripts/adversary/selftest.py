"""The adversary's own checks flag planted violations, with no server: a judge that cannot fail
proves nothing. Run by scripts/adversary.sh before the run; exits 1 naming the check that let a
planted violation through."""

import json
import sys

import leaks
import machine
from model import (SMALL_LIMITS, Account, Ledger, Record, Token, check_charged, check_shown, counters_from_items,
                   counters_from_usage, limits_for, windows_of)

T0 = 1_800_000_300.0  # 2027-01-15T08:05:00Z
FAILED = []


def expect(condition, what):
    if not condition:
        FAILED.append(what)


def windows():
    w = windows_of(T0)
    expect(w == {"month": "2027-01", "day": "2027-01-15", "hour": "2027-01-15T08"}, f"windows_of: {w}")
    expect(windows_of(T0 + 16 * 86400 + 16 * 3600)["month"] == "2027-02", "windows_of crosses the month")
    expect(limits_for(SMALL_LIMITS, "premium")["hour"] == SMALL_LIMITS["premium"]["hourly"], "limits_for premium")
    expect(limits_for(SMALL_LIMITS, "anything")["month"] == SMALL_LIMITS["free"]["monthly"], "limits_for free")


def limits_across_accounts():
    """Invariant 1 per person: a second account of the same email does not get a fresh window."""
    ledger = Ledger(SMALL_LIMITS)
    first = Account(0, "p@x", "pw", "sub-1", 0)
    ledger.note_account("p@x", "sub-1")
    w = windows_of(T0)
    expect(not ledger.admit(first, "k1", w, "free", b"b1", ["q"], T0), "a first call within the limit is flagged")
    first.deleted_at = T0
    ledger.erase("sub-1")
    second = Account(0, "p@x", "pw2", "sub-2", 1)
    ledger.note_account("p@x", "sub-2")
    expect(ledger.admit(second, "k2", w, "free", b"b2", ["q"], T0),
           "invariant 1 let a second account of the same email past the free hour's limit of 1")
    # A deleted account's token answered 200 is invariant 3's, not counted against invariant 1 here.
    ledger2 = Ledger(SMALL_LIMITS)
    gone = Account(0, "g@x", "pw", "sub-g", 0)
    gone.deleted_at = T0
    ledger2.admit(gone, "k1", w, "free", b"b", [], T0)
    expect(not ledger2.admit(gone, "k2", w, "free", b"b", [], T0), "a deleted account's call judged by invariant 1")
    # A burst under one token: the calls answered together count against the limit together.
    ledger3 = Ledger(SMALL_LIMITS)
    live = Account(0, "b@x", "pw", "sub-b", 0)
    expect(ledger3.admit_burst(live, ["a", "b"], w, "free", {"a": (b"1", []), "b": (b"2", [])}, T0),
           "invariant 1 let a burst get 2 calls in an hour whose limit is 1")
    expect(ledger3.prediction("b@x", w, "free") == (429, "day"), "the prediction after a full day and hour")


def charged():
    """Invariant 2: the table's counters and what GET /usage shows, against calls answered 200."""
    ledger = Ledger(SMALL_LIMITS)
    a = Account(0, "c@x", "pw", "sub-c", 0)
    w = windows_of(T0)
    ledger.admit(a, "k1", w, "premium", b"b", [], T0)
    month = ("month", w["month"])
    right = {(kind, w[kind]): 1 for kind in ("month", "day", "hour")}
    expect(not check_charged(ledger, "sub-c", "c@x", right, "t"), "a right counter flagged")
    expect(check_charged(ledger, "sub-c", "c@x", {**right, month: 2}, "t"), "a unit charged twice not flagged")
    expect(check_charged(ledger, "sub-c", "c@x", {**right, month: 0}, "t"),
           "a unit answered and not charged not flagged")
    expect(check_charged(ledger, "sub-c", "c@x", {}, "t"), "a missing counter not flagged")
    ledger.erase("sub-c")
    b = Account(0, "c@x", "pw2", "sub-d", 1)
    ledger.note_account("c@x", "sub-d")
    shown = counters_from_usage({"used": 0, "daily": {"used": 0}, "hourly": {"used": 0}}, w)
    expect(check_shown(ledger, "c@x", shown, "t"), "a fresh month shown to a second account of the email not flagged")
    expect(not check_charged(ledger, "sub-d", "c@x", {month: 0}, "t"), "the new account's own table counter flagged")
    items = [{"PK": {"S": "USER#s"}, "SK": {"S": "USAGE#2027-01"}, "interviewCount": {"N": "3"}},
             {"PK": {"S": "USER#s"}, "SK": {"S": "RATELIMIT#2027-01-15"}, "requestCount": {"N": "2"}},
             {"PK": {"S": "USER#s"}, "SK": {"S": "RATELIMIT#2027-01-15T08"}, "requestCount": {"N": "1"}},
             {"PK": {"S": "USER#s"}, "SK": {"S": "IDEMPOTENCY#ab"}, "status": {"S": "COMPLETED"}}]
    expect(counters_from_items(items) == {("month", "2027-01"): 3, ("day", "2027-01-15"): 2,
                                          ("hour", "2027-01-15T08"): 1}, "counters_from_items")


def instants():
    token = Token("t0", None, "h.p.s", None, None, {"exp": T0 + 3600})
    expect(token.state_at(T0) == "valid", "a fresh token")
    expect(token.state_at(T0 + 3600) == "expired", "a token at its exp")
    expect(token.state_at(T0 + 3598) == "unknown", "a token within the margin of its exp")
    expect(Token("t1", None, None, None, None, {}, refused="x").state_at(T0) == "none", "a stand-in")
    record = Record(0, b"b", [], T0)
    expect(record.state_at(T0 + 86410) == "expired" and record.state_at(T0 + 3600) == "live", "a record's 24 hours")


def leak_search():
    secrets = leaks.Secrets()
    secrets.add("email", "adv1ax3p0@adv-example.com")
    secrets.add("key", "adv1ax3-key1-k")
    secrets.add_token("id-token", "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhYmMifQxx.c2lnbmF0dXJlLXNpZ25hdHVyZQ")
    line = ('info user=adv1ax3p0@adv-example.com. "Idempotency-Key": "adv1ax3-key1-k" auth=Bearer '
            'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhYmMifQxx.c2lnbmF0dXJlLXNpZ25hdHVyZQ adv1ax3-key10-k')
    kinds = sorted({f.kind for f in leaks.search_words(secrets, line, "log")})
    expect(kinds == ["email", "id-token", "key"], f"search_words found {kinds}")
    expect(sorted({f.kind for f in leaks.search(secrets, line, "log")}) == kinds, "search and search_words differ")
    expect(not leaks.search_words(secrets, "adv1ax3-key10-k adv1ax3p0@adv-example.co", "log"),
           "a longer key or a shorter email taken for a secret")

    class Places:
        def logs(self, since_mark):
            yield "serve.err", "nothing here"

        def recordings(self, since_mark):
            yield "recording/a.json", json.dumps({"headers": {"Idempotency-Key": "adv1ax3-key1-k"},
                                                  "email": "adv1ax3p0@adv-example.com"})

    judged, documented = leaks.scan(secrets, Places(), since_mark=True)
    expect([f.kind for f in judged] == ["email"], "an email in a recording not judged")
    expect([f.kind for f in documented] == ["key"], "a key in a recording not counted as documented")
    item = {"PK": {"S": "USER#s"}, "SK": {"S": "IDEMPOTENCY#x"}, "note": {"S": "adv1ax3-key1-k"}}
    judged, _ = leaks.scan(secrets, Places(), since_mark=False, table_items=[item])
    expect(any(f.kind == "key" and f.place.startswith("table") for f in judged), "a key in a table item not judged")


def groups():
    from model import DeletedTokenAnswered, OverLimit
    group = machine.ViolationGroup("x", [OverLimit("a"), DeletedTokenAnswered("b")])
    expect(machine.invariant_of(group) == "1-limits+3-deleted", f"invariant_of a group: {machine.invariant_of(group)}")


def main():
    for check in (windows, limits_across_accounts, charged, instants, leak_search, groups):
        check()
    if FAILED:
        for what in FAILED:
            print(f"selftest: {what}")
        return 1
    print("selftest: the adversary's checks flag every planted violation")
    return 0


if __name__ == "__main__":
    sys.exit(main())
