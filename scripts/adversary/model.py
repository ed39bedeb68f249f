"""What the stack should have done, kept apart from any server: people (an email each, with one
account after another), their accounts (a `sub` each), the tokens they were given, the calls they
intended (an `Idempotency-Key` each), and every answer 200 counted in the UTC calendar windows of
the stack's clock (docs/limits.md). The checks here are pure functions of this model and of what
the server said, so `selftest.py` can plant violations and see each one flagged."""

import datetime

# docs/limits.md's defaults, and the small limits the bounded run serves with (a limits file, as
# an operator would write one), so that every window of either tier fills within a sequence of
# ten steps: one call fills a free user's hour.
DEFAULT_LIMITS = {"free": {"monthly": 5, "daily": 3, "hourly": 2},
                  "premium": {"monthly": 999999, "daily": 100, "hourly": 20}}
SMALL_LIMITS = {"free": {"monthly": 3, "daily": 2, "hourly": 1},
                "premium": {"monthly": 8, "daily": 4, "hourly": 2}}
# What an owner changes the limits to in the middle of a sequence (machine.py's `change_limits`):
# below what the small limits allow, above it, or back to the phase's own.
LIMIT_CHANGES = {
    "lowered": {"free": {"monthly": 2, "daily": 1, "hourly": 1}, "premium": {"monthly": 4, "daily": 2, "hourly": 1}},
    "raised": {"free": {"monthly": 6, "daily": 4, "hourly": 3}, "premium": {"monthly": 12, "daily": 6, "hourly": 4}},
}
LIMITS_MAX_AGE = 60  # INKRA_LIMITS_MAX_AGE's default: serve and the bootstrap read the file again after it
WINDOWS = ("month", "day", "hour")
LIMIT_NAMES = {"month": "monthly", "day": "daily", "hour": "hourly"}
RECORD_SECONDS = 24 * 3600  # an answered key is replayed for 24 hours (docs/functions.md)
MARGIN = 5.0  # seconds either side of a token's expiry or a record's end where the model does not judge


class Violation(AssertionError):
    """A promise the stack broke. Each invariant has its own class, so Hypothesis tells them apart
    (and shrinks each to its own shortest sequence)."""
    invariant = "violation"


class OverLimit(Violation):
    invariant = "1-limits"


class Mischarged(Violation):
    invariant = "2-charged"


class DeletedTokenAnswered(Violation):
    invariant = "3-deleted"


class Leak(Violation):
    invariant = "4-leak"


class Replay(Violation):
    invariant = "replay"  # an answered key sent again: the first answer, or 422 for another body


class Unexpected(Violation):
    invariant = "model"  # an expired token let through, a refusal within the limits, a 5xx


def utc(epoch):
    return datetime.datetime.fromtimestamp(epoch, datetime.timezone.utc)


def windows_of(epoch):
    """The month, day and hour an instant falls in, named as the table names them."""
    t = utc(epoch)
    return {"month": t.strftime("%Y-%m"), "day": t.strftime("%Y-%m-%d"), "hour": t.strftime("%Y-%m-%dT%H")}


def limits_for(limits, tier):
    """The three limits of a tier (a token's `custom:subscription_tier`, free unless premium)."""
    chosen = limits["premium" if tier == "premium" else "free"]
    return {w: chosen[LIMIT_NAMES[w]] for w in WINDOWS}


class Account:
    """One sign-up: an email's account with its own `sub`."""

    def __init__(self, person, email, password, sub, number):
        self.person, self.email, self.password, self.sub, self.number = person, email, password, sub, number
        self.confirmed, self.deleted_at, self.tier = False, None, "free"

    @property
    def live(self):
        return self.deleted_at is None

    def __repr__(self):
        return f"account {self.number} of person {self.person}"


class Token:
    """An id token (with the access and refresh tokens of the same sign-in), as the pool issued it;
    or, when the pool refused (`refused` says why), a stand-in whose calls carry no token."""

    def __init__(self, label, account, id_token, access_token, refresh_token, claims, refused=None):
        self.label, self.account, self.refused = label, account, refused
        self.id_token, self.access_token, self.refresh_token = id_token, access_token, refresh_token
        self.claims = claims
        self.exp = float(claims.get("exp", 0))
        tier = str(claims.get("custom:subscription_tier", "free")).lower()
        self.tier = "premium" if tier == "premium" else "free"

    def state_at(self, now):
        """`valid`, `expired`, `unknown` within MARGIN of its expiry, or `none` for a stand-in."""
        if self.id_token is None:
            return "none"
        if now >= self.exp:
            return "expired"
        return "valid" if self.exp - now > MARGIN else "unknown"

    def __repr__(self):
        if self.id_token is None:
            return f"{self.label} (no token: {self.refused})"
        return f"{self.label} ({self.tier}, {self.account!r})"


class Call:
    """One intended call: its key and body (a retry sends both again)."""

    def __init__(self, label, key, topic, body):
        self.label, self.key, self.topic, self.body = label, key, topic, body

    def __repr__(self):
        return self.label


class Record:
    """What the stack should remember of a (sub, key) answered 200: the first answer, for 24 hours."""

    def __init__(self, generation, body, questions, answered_at):
        self.generation, self.body, self.questions, self.answered_at = generation, body, questions, answered_at

    def state_at(self, now):
        """`live`, `expired`, or `unknown` within MARGIN of its end."""
        end = self.answered_at + RECORD_SECONDS
        if now >= end + MARGIN:
            return "expired"
        return "live" if end - now > MARGIN + 2 else "unknown"


class Ledger:
    """Every call answered 200, as identities (sub, key, generation) — a key answered again after
    its record ended is a new call — counted per person and window, per account and window, and
    per account since its usage was last erased."""

    def __init__(self, limits):
        self.limits = limits
        self.by_email, self.by_sub, self.since_erase = {}, {}, {}
        self.records, self.generations = {}, {}
        self.erased = set()  # subs whose usage a 204 from DELETE /account erased
        self.subs_of = {}  # email -> every sub it signed up with, in order

    @staticmethod
    def _add(table, owner, window, identity):
        table.setdefault(owner, {}).setdefault(window, set()).add(identity)

    @staticmethod
    def _count(table, owner, window):
        return len(table.get(owner, {}).get(window, ()))

    def identity(self, sub, key):
        return (sub, key, self.generations.get((sub, key), 0))

    def record(self, sub, key):
        return self.records.get((sub, key))

    def answered(self, email, window):
        return self._count(self.by_email, email, window)

    def prediction(self, email, windows, tier):
        """200 when every window of the person has room under the token's tier, else 429."""
        limits = limits_for(self.limits, tier)
        full = [w for w in WINDOWS if self.answered(email, (w, windows[w])) >= limits[w]]
        return (429, full[0]) if full else (200, None)

    def admit(self, account, key, windows, tier, body, questions, at):
        """Counts a new call answered 200 (invariant 1 judged first: the person's count in each
        window before it must be under the token's limit). Returns the violations' texts. A call
        answered to a deleted account's token is counted but not judged here: invariant 3 has
        judged it already."""
        problems = []
        limits = limits_for(self.limits, tier)
        identity = self.identity(account.sub, key)
        for w in WINDOWS:
            window = (w, windows[w])
            before = self.by_email.get(account.email, {}).get(window, set())
            if account.live and identity not in before and len(before) >= limits[w]:
                problems.append(f"{account.email} had {len(before)} calls answered 200 in the {w} {windows[w]} "
                                f"(across {self.accounts_named(account.email)}); the {tier} limit is {limits[w]}, "
                                f"and key {key} was answered 200 too")
            self._add(self.by_email, account.email, window, identity)
            self._add(self.by_sub, account.sub, window, identity)
            self._add(self.since_erase, account.sub, window, identity)
        self.records[(account.sub, key)] = Record(identity[2], body, questions, at)
        return problems

    def admit_burst(self, account, keys, windows, tier, answers, at):
        """Counts the new calls a burst had answered 200 (all under one token, sent at once):
        invariant 1 for the burst as a whole, as its calls raced each other."""
        limits = limits_for(self.limits, tier)
        fresh = [k for k in keys if self.identity(account.sub, k) not in
                 self.by_email.get(account.email, {}).get(("month", windows["month"]), set())]
        problems = []
        for w in WINDOWS:
            before = self.answered(account.email, (w, windows[w]))
            if account.live and fresh and before + len(fresh) > limits[w]:
                problems.append(f"{account.email} had {before} calls answered 200 in the {w} {windows[w]} (across "
                                f"{self.accounts_named(account.email)}); a burst under one {tier} token got "
                                f"{len(fresh)} more, over the limit of {limits[w]}")
        for key in dict.fromkeys(keys):
            identity = self.identity(account.sub, key)
            for w in WINDOWS:
                window = (w, windows[w])
                self._add(self.by_email, account.email, window, identity)
                self._add(self.by_sub, account.sub, window, identity)
                self._add(self.since_erase, account.sub, window, identity)
            body, questions = answers[key]
            if (account.sub, key) not in self.records:
                self.records[(account.sub, key)] = Record(identity[2], body, questions, at)
        return problems

    def forget(self, sub, key):
        """The record ended (24 hours) or was erased: the key runs as a new call next time."""
        if (sub, key) in self.records:
            del self.records[(sub, key)]
            self.generations[(sub, key)] = self.generations.get((sub, key), 0) + 1

    def erase(self, sub):
        """A DELETE /account for `sub` answered 204: its usage and records are gone."""
        self.since_erase.pop(sub, None)
        self.erased.add(sub)
        for (s, key) in [k for k in self.records if k[0] == sub]:
            self.forget(s, key)

    def accounts_named(self, email):
        return f"{len(self.subs_of.get(email, []))} account(s)"

    def note_account(self, email, sub):
        self.subs_of.setdefault(email, []).append(sub)

    def charge_bounds(self, sub, email, window):
        """What a counter of `sub` may hold in `window`: at least the calls answered 200 to it since
        its usage was last erased, at most the calls answered 200 to its person in all its accounts."""
        return self._count(self.since_erase, sub, window), self._count(self.by_email, email, window)

    def windows_of_sub(self, sub):
        return set(self.by_sub.get(sub, {}))


def check_charged(ledger, sub, email, counters, where, only=None):
    """Invariant 2: units charged = calls answered 200. `counters` maps (window kind, name) to what
    the stack holds for `sub`; every window the model counted and every one the stack holds (or
    only those of `only`) is judged against `charge_bounds` (exact when the person never deleted an
    account)."""
    problems = []
    windows = only if only is not None else sorted(set(counters) | ledger.windows_of_sub(sub))
    for window in windows:
        low, high = ledger.charge_bounds(sub, email, window)
        held = counters.get(window, 0)
        if not low <= held <= high:
            expected = f"{low}" if low == high else f"from {low} to {high}"
            problems.append(f"{where}: {email} (sub {sub}) is charged {held} in the {window[0]} {window[1]}; "
                            f"calls answered 200: {expected}")
    return problems


def check_shown(ledger, email, counters, where):
    """Invariant 2 as the person sees it: what GET /usage (or a 200's `usage`) shows a live
    account in a window is what the person was charged there, that is their calls answered 200
    there, whichever of their accounts made them (so a person who deleted an account and signed
    up again with the same email sees what they used, not a fresh month)."""
    problems = []
    for window, held in sorted(counters.items(), key=lambda item: WINDOWS.index(item[0][0])):
        answered = ledger.answered(email, window)
        if held != answered:
            problems.append(f"{where}: {email} is shown {held} used in the {window[0]} {window[1]}; the person's calls "
                            f"answered 200 there: {answered} (over {ledger.accounts_named(email)})")
    return problems


def counters_from_items(items):
    """The month, day and hour counters of one user's table items (docs/table.md)."""
    counters = {}
    for item in items:
        sk = item.get("SK", {}).get("S", "")
        if sk.startswith("USAGE#"):
            counters[("month", sk[6:])] = int(item.get("interviewCount", {}).get("N", "0"))
        elif sk.startswith("RATELIMIT#"):
            name = sk[10:]
            kind = "hour" if "T" in name else "day"
            counters[(kind, name)] = int(item.get("requestCount", {}).get("N", "0"))
    return counters


def counters_from_usage(body, windows):
    """The month, day and hour counters a GET /usage answer shows for the current windows."""
    return {("month", windows["month"]): body.get("used"),
            ("day", windows["day"]): (body.get("daily") or {}).get("used"),
            ("hour", windows["hour"]): (body.get("hourly") or {}).get("used")}
