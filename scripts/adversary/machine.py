"""The adversary as a Hypothesis state machine: each rule is one ordinary move of a user or an
administrator against the running stack (sign up, confirm, sign in, refresh, delete the account,
sign up again with the same email, call POST /questions with a fresh key, retry it, reuse its key
with another body, a burst of parallel calls, a tier change, the clock moved forward, GET
/usage), and every answer is judged against the model (model.py) as it comes; the table and GET
/usage are judged after every step, and what the sequence left in the logs, the recordings and
the table at its end. Hypothesis shrinks a failing sequence to its shortest; its last run prints
every exchange it made.

A violation is noted where it happens and raised at the end of the sequence (the first one
noted; with a deleted account's working token, the cheapest hole, raised together with it, so
neither hides the other). So what Hypothesis draws never depends on whether or when the stack
misbehaved (a race in a burst, say), which it would call flaky. For the same reason every rule
adds the same values to its bundles whatever the stack answered (a refused sign-in adds a "no
token" that later calls send without one), and no rule has a precondition on the stack's answers.

Limits change as an owner changes them: `change_limits` rewrites the limits file that serve
(`--limits`) and the `bootstrap` it starts (INKRA_LIMITS_FILE) read again once INKRA_LIMITS_MAX_AGE
has passed on the stack's clock, as the deployed runtime reads INKRA_LIMITS_PARAMETER, and moves
the clock just past that max age, within API Gateway's authorizer cache; every sequence starts
on its phase's own limits, so a replay of it starts where the first run did."""

import datetime
import json
import os
import time

import hypothesis.strategies as st
from hypothesis.control import current_build_context
from hypothesis.stateful import Bundle, RuleBasedStateMachine, initialize, invariant, multiple, rule

import leaks
from client import claims
from model import (LIMIT_CHANGES, LIMITS_MAX_AGE, WINDOWS, Account, Call, DeletedTokenAnswered, Leak, Ledger, Mischarged, OverLimit, Replay, Token,
                   Unexpected, check_charged, check_shown, counters_from_items, counters_from_usage, limits_for, utc,
                   windows_of)

# Each a few seconds past a whole step, so that no token's expiry or record's end falls within a
# few seconds of an instant the model judges (the clock also flows in real time between steps).
ADVANCES = ["PT30M10S", "PT1H10S", "PT3H10S", "P1DT10S", "next-month"]  # the first keeps tokens valid
PEOPLE = 2  # emails per sequence: one to attack with, one to be "another user"


class HarnessError(RuntimeError):
    """Something the harness needs failed (serve gone, a window crossed mid-step): not a finding."""


class Run:
    """What every sequence of a run shares: the stack, the clients, the figures, the secrets seen."""

    def __init__(self, serve, pool, api, table, counter, limits, seed, places):
        self.serve, self.pool, self.api, self.table, self.counter = serve, pool, api, table, counter
        self.limits, self.seed, self.places = limits, seed, places
        self.phase_limits = limits  # what each sequence starts with
        self.secrets = leaks.Secrets()
        self.examples = self.steps = self.checks = 0
        self.violations = {}  # invariant -> violations noted (shrinking's runs included)
        self.unjudged = 0  # answers the model left unjudged (an instant within MARGIN of an expiry)
        self.documented = {}  # kind -> findings in recordings that docs/emulator.md puts there
        self.final_traces = []  # (invariant, exchanges) of each shortest failing sequence's last run
        self.phase = ""
        self.verbose = False  # print every sequence's exchanges (run.py --verbose)


    def set_limits(self, limits):
        """Rewrites the limits file serve and its bootstrap read (whole, by a rename, so that no
        reader sees half of it) and holds the model to them."""
        if limits == self.limits:
            return
        path = self.serve.limits_file
        with open(path + ".new", "w") as f:
            json.dump(limits, f)
        os.replace(path + ".new", path)
        self.limits = limits


RUN = None  # set by run.py before the state machine runs


class Adversary(RuleBasedStateMachine):
    tokens = Bundle("tokens")
    calls = Bundle("calls")

    def __init__(self):
        super().__init__()
        RUN.examples += 1
        self.number = RUN.examples
        self.ns = f"adv{RUN.seed}{RUN.phase}x{self.number}"
        self.ledger = Ledger(RUN.limits)
        self.people = {p: [] for p in range(PEOPLE)}
        self.emails = {p: f"{self.ns}p{p}@adv-example.com" for p in range(PEOPLE)}
        self.secrets = leaks.Secrets()
        self.trace, self.found, self.issued, self.raised = [], [], [], None
        self.made = {"account": 0, "token": 0, "call": 0}
        self.now = self.windows = None
        self.moved = False
        self.dirty = True  # an API call since the last check: the table and usage are read again
        self.began = time.monotonic()
        RUN.places.mark()

    # -- bookkeeping --------------------------------------------------------------------------------

    def note(self, text):
        self.trace.append(f"{utc(self.now).strftime('%m-%dT%H:%M:%S') if self.now else '--'}  {text}")

    def step(self, text):
        RUN.steps += 1
        self.tick()
        self.note(text)

    def skip(self, text):
        RUN.steps += 1
        self.note(f"{text}: nothing to do")

    def tick(self):
        self.now = RUN.serve.clock()
        self.windows = windows_of(self.now)

    def check(self):
        RUN.checks += 1

    def violate(self, kind, text):
        """Notes a violation (once per text); teardown raises it."""
        if any(text == t for _, t in self.found):
            return
        RUN.violations[kind.invariant] = RUN.violations.get(kind.invariant, 0) + 1
        self.note(f"VIOLATION [{kind.invariant}] {text}")
        self.found.append((kind, text))

    def email(self, person):
        return self.emails[person]

    def new_call(self, suffix=""):
        n = self.made["call"]
        self.made["call"] += 1
        topic, key = f"{self.ns}-topic{n}{suffix}-t", f"{self.ns}-key{n}-k"  # no one a prefix of another
        self.secrets.add("topic", topic)
        self.secrets.add("key", key)
        return Call(f"c{n}", key, topic, json.dumps({"topic": topic, "count": 2, "length": "short"}).encode())

    def adopt(self, result, account, error=None):
        """A Token from a pool answer (or, for a refused one, a token-less stand-in)."""
        n = self.made["token"]
        self.made["token"] += 1
        if result is None:
            return Token(f"t{n}", account, None, None, None, {}, refused=error)
        token = Token(f"t{n}", account, result["IdToken"], result.get("AccessToken"),
                      result.get("RefreshToken"), claims(result["IdToken"]))
        self.secrets.add_token("id-token", token.id_token)
        self.secrets.add_token("access-token", token.access_token)
        self.secrets.add_token("refresh-token", token.refresh_token)
        self.issued.append(token)
        return token

    def never_deleted(self, email):
        return all(a.live for accounts in self.people.values() for a in accounts if a.email == email)

    def describe(self, token):
        if token.id_token is None:
            return f"{token.label} [no token: {token.refused}]"
        account = token.account
        return (f"{token.label} [{account!r}, {'deleted' if not account.live else 'live'}, {token.tier}, "
                f"{token.state_at(self.now)}]")

    # -- the clock ----------------------------------------------------------------------------------

    @initialize(target=tokens, at=st.sampled_from(["next-hour", "day-end", "month-end"]), ask=st.booleans())
    def start(self, at, ask):
        """Every sequence starts 5 minutes into an hour (so no step straddles a window): the next
        hour, 23:05 of a day (an hour's step crosses the day), or 23:05 of a month's last day (it
        crosses the month); then person 0 signs up, confirms with the code, signs in and, with
        `ask`, asks for questions once, as the app's first use does."""
        now = utc(RUN.serve.clock())
        hour = (now + datetime.timedelta(hours=1)).replace(minute=5, second=0, microsecond=0)
        if at == "next-hour":
            instant = hour
        elif at == "day-end":
            instant = hour.replace(hour=23) + datetime.timedelta(days=1 if hour.replace(hour=23) <= now else 0)
        else:
            instant = last_day(now).replace(hour=23, minute=5, second=0, microsecond=0)
            if instant <= now:
                instant = last_day(instant + datetime.timedelta(days=1)).replace(hour=23, minute=5, second=0)
        # The phase's own limits, before the clock moves past their max age (10 minutes at least).
        RUN.set_limits(RUN.phase_limits)
        self.ledger.limits = RUN.limits
        RUN.counter.add("clock")
        RUN.serve.clock({"set": instant.strftime("%Y-%m-%dT%H:%M:%SZ")})
        self.step(f"start at {instant.strftime('%Y-%m-%dT%H:%MZ')} ({at}); person 0 signs up, confirms, signs in"
                  + (", asks for questions" if ask else ""))
        self.enrol(0, "code")
        token = self.log_in(0)
        if ask and token.id_token is not None:
            call = self.new_call()
            self.post(token, call, f"{call.label} (fresh key)")
        return token

    @rule(by=st.sampled_from(ADVANCES))
    def advance(self, by):
        """The clock moved forward (it never goes back); next-month goes to 00:20 on the 1st."""
        RUN.counter.add("clock")
        if by == "next-month":
            first = last_day(utc(RUN.serve.clock())) + datetime.timedelta(days=1)
            RUN.serve.clock({"set": first.replace(hour=0, minute=20, second=0, microsecond=0)
                             .strftime("%Y-%m-%dT%H:%M:%SZ")})
        else:
            RUN.serve.clock({"advance": by})
        self.moved = True
        self.step(f"clock advanced {by}")

    @rule(change=st.sampled_from(sorted(LIMIT_CHANGES) + ["phase"]))
    def change_limits(self, change):
        """An owner changes the limits (lowered, raised, or back to the phase's), and the clock
        moves 10 s past their max age: the next call of every function holds to them, though API
        Gateway may still cache the caller's authorizer answer (300 s). Where that would land a
        step within 5 minutes of an hour's edge, the clock moves 30 minutes instead."""
        limits = RUN.phase_limits if change == "phase" else LIMIT_CHANGES[change]
        RUN.counter.add("limits-change")
        RUN.set_limits(limits)
        self.ledger.limits = limits
        RUN.counter.add("clock")
        now = utc(RUN.serve.clock())
        by = f"PT{LIMITS_MAX_AGE + 10}S"
        if (now + datetime.timedelta(seconds=LIMITS_MAX_AGE + 10)).minute >= 55:
            by = "PT30M10S"
        RUN.serve.clock({"advance": by})
        self.moved = True
        self.step(f"owner changes the limits to {change} {json.dumps(limits, separators=(',', ':'))}; "
                  f"clock advanced {by}")

    # -- the user pool ------------------------------------------------------------------------------

    @rule(person=st.integers(0, PEOPLE - 1), confirm=st.sampled_from(["code", "admin", None]))
    def sign_up(self, person, confirm):
        """SignUp with the person's email: a new account (a new sub), also after a deletion. A
        person whose account lives is not signed up again: the pool refuses the email, and its
        password hashing costs half a second a try."""
        if any(a.live for a in self.people[person]):
            return self.skip(f"sign up person {person} (has a live account)")
        self.step(f"sign up person {person} ({self.email(person)}), confirm: {confirm}")
        self.enrol(person, confirm)

    def enrol(self, person, confirm):
        email = self.email(person)
        password = f"Adv{RUN.seed}x{self.number}p{person}n{self.made['account']}Pw"
        self.secrets.add("email", email)
        self.secrets.add("password", password)
        sub, error = RUN.pool.sign_up(email, password)
        if error:
            self.note(f"  → {error}")
            self.check()
            if error == "UsernameExistsException":
                self.violate(Unexpected, f"every account of {email} was deleted (DELETE /account answered 204), yet "
                                         f"the pool still holds the email")
                return
            raise HarnessError(f"sign-up of {email}, who has no account, failed: {error}")
        account = self.adopt_account(person, email, password, sub, confirmed=False)
        self.note(f"  → {account!r}, sub {sub}")
        if confirm:
            self.confirm_account(account, confirm)

    def adopt_account(self, person, email, password, sub, confirmed=True):
        self.emails[person] = email
        self.secrets.add("email", email)
        self.secrets.add("password", password)
        account = Account(person, email, password, sub, len(self.people[person]))
        account.confirmed = confirmed
        self.made["account"] += 1
        self.people[person].append(account)
        self.ledger.note_account(email, sub)
        return account

    def confirm_account(self, account, how):
        if how == "code":
            codes = RUN.serve.confirmation_codes(account.sub, at_least=1)
            error = RUN.pool.confirm_with_code(account.email, codes[-1])
            if error == "ExpiredCodeException":  # the clock moved past its life: ask for another
                self.note("  the code expired; ResendConfirmationCode")
                RUN.pool.resend_code(account.email)
                codes = RUN.serve.confirmation_codes(account.sub, at_least=len(codes) + 1)
                error = RUN.pool.confirm_with_code(account.email, codes[-1])
        else:
            error = RUN.pool.confirm_by_admin(account.email, account.password)
        self.note(f"  confirmed by {how} → {error or 'ok'}")
        if error:
            raise HarnessError(f"confirming {account!r} by {how} failed: {error}")
        account.confirmed = True

    @rule(person=st.integers(0, PEOPLE - 1))
    def confirm(self, person):
        """ConfirmSignUp with the code serve printed, for the person's latest account."""
        account = self.people[person][-1] if self.people[person] else None
        if account is None or not account.live or account.confirmed:
            return self.skip(f"confirm person {person} (no unconfirmed account)")
        self.step(f"confirm {account!r} with the code serve printed")
        self.confirm_account(account, "code")

    @rule(target=tokens, person=st.integers(0, PEOPLE - 1))
    def sign_in(self, person):
        """InitiateAuth USER_PASSWORD_AUTH with the person's email and latest password."""
        if not self.people[person]:
            self.skip(f"sign in person {person} (no account)")
            return self.adopt(None, None, "no account")
        self.step(f"sign in person {person} with the password of {self.people[person][-1]!r}")
        return self.log_in(person)

    def log_in(self, person):
        latest = self.people[person][-1] if self.people[person] else None
        if latest is None:
            return self.adopt(None, None, "no account")
        result, error = RUN.pool.sign_in(latest.email, latest.password)
        self.check()
        if not result:
            self.note(f"  → {error}")
            if latest.live and latest.confirmed:
                self.violate(Unexpected, f"{latest!r}, confirmed and live, could not sign in: {error}")
            return self.adopt(None, latest, error)
        sub = claims(result["IdToken"]).get("sub")
        account = next((a for a in self.people[person] if a.sub == sub), None)
        if account is None:
            raise HarnessError(f"signing in {latest.email} gave a token of an unknown sub {sub}")
        token = self.adopt(result, account)
        self.note(f"  → {self.describe(token)}, expires {utc(token.exp).strftime('%m-%dT%H:%M:%S')}")
        if not account.live:
            self.violate(DeletedTokenAnswered, f"the pool signed in {account!r}, deleted, and issued {token.label}")
        self.check_tier(token)
        return token

    @rule(target=tokens, token=tokens)
    def refresh(self, token):
        """InitiateAuth REFRESH_TOKEN_AUTH: an id token with the account's attributes as they are now."""
        if token.refresh_token is None:
            self.skip(f"refresh {self.describe(token)}")
            return self.adopt(None, token.account, token.refused)
        self.step(f"refresh {self.describe(token)}")
        result, error = RUN.pool.refresh(token.refresh_token)
        self.check()
        if not result:
            self.note(f"  → {error}")
            return self.adopt(None, token.account, error)
        fresh = self.adopt(dict(result, RefreshToken=result.get("RefreshToken") or token.refresh_token), token.account)
        self.note(f"  → {self.describe(fresh)}")
        if not token.account.live:
            self.violate(DeletedTokenAnswered, f"the pool refreshed {token.label} of {token.account!r}, deleted: "
                                               f"{fresh.label}")
        if claims(fresh.id_token).get("sub") != token.account.sub:
            raise HarnessError(f"a refresh of {token.label} gave a token of another sub")
        self.check_tier(fresh)
        return fresh

    def check_tier(self, token):
        self.check()
        if token.tier != token.account.tier:
            self.violate(Unexpected, f"{token.label} carries tier {token.tier}; an administrator set "
                                     f"{token.account.tier} before it was issued")

    @rule(person=st.integers(0, PEOPLE - 1), tier=st.sampled_from(["premium", "free"]))
    def set_tier(self, person, tier):
        """AdminUpdateUserAttributes custom:subscription_tier on the person's latest account
        (tokens issued before keep their tier; a refresh or a sign-in carries the new one)."""
        account = self.people[person][-1] if self.people[person] else None
        if account is None:
            return self.skip(f"set the tier of person {person} (no account)")
        self.step(f"administrator sets {account!r} to {tier}")
        error = RUN.pool.set_tier(account.sub, tier)
        self.note(f"  → {error or 'ok'}")
        if not error:
            account.tier = tier
        elif account.live:
            raise HarnessError(f"AdminUpdateUserAttributes on {account!r} failed: {error}")

    # -- the API --------------------------------------------------------------------------------------

    @rule(token=tokens)
    def delete_account(self, token):
        """DELETE /account with the token."""
        self.step(f"DELETE /account with {self.describe(token)}")
        self.delete_with(token)

    @rule(target=tokens, token=tokens)
    def come_back(self, token):
        """The attacker's cheapest way to a fresh allowance, if there is one: DELETE /account with
        the token, sign up again with the same email (a new sub), confirm and sign in."""
        account = token.account
        if account is None or token.id_token is None:
            self.skip(f"come back with {self.describe(token)}")
            return self.adopt(None, account, token.refused)
        self.step(f"come back: DELETE /account with {self.describe(token)}, sign up again as {account.email}, "
                  f"confirm, sign in")
        self.delete_with(token)
        if any(a.live for a in self.people[account.person]):
            self.note("  (the person's account lives: not signed up again)")
        else:
            self.enrol(account.person, "code")
        return self.log_in(account.person)

    def delete_with(self, token):
        self.dirty = True
        status, body, _ = RUN.api.delete_account(token.id_token)
        self.note(f"  → {status}")
        account, state = token.account, token.state_at(self.now)
        self.check()
        if status == 204:
            if state in ("expired", "none"):
                self.violate(Unexpected, f"DELETE /account answered 204 to {self.describe(token)}")
            if account is not None:
                if account.live:
                    account.deleted_at = self.now
                self.ledger.erase(account.sub)
        elif status is None or status >= 500:
            self.violate(Unexpected, f"DELETE /account answered {status}: {body}")
        elif state == "valid" and account.live:
            self.violate(Unexpected, f"DELETE /account answered {status} to {token.label}, valid and live: {body}")

    @rule(target=calls, token=tokens, count=st.integers(1, 3))
    def generate(self, token, count):
        """POST /questions, `count` times in a row, each a new intended call with a fresh key."""
        self.step(f"POST /questions ×{count} with {self.describe(token)}, fresh keys")
        made = [self.new_call() for _ in range(count)]
        for call in made:
            self.post(token, call, f"{call.label} (fresh key)")
        return multiple(*made)

    @rule(call=calls, token=tokens)
    def retry(self, call, token):
        """The same key and body again (a retry after a lost answer, a double tap)."""
        self.step(f"POST /questions again: {call.label}'s key and body, with {self.describe(token)}")
        self.post(token, call, f"{call.label} (retry)")

    @rule(target=calls, call=calls, token=tokens)
    def reuse_key(self, call, token):
        """The same key with another body: 422 while the key's answer is remembered, else a new call."""
        other = self.new_call("b")
        reused = Call(f"{call.label}b", call.key, other.topic, other.body)
        self.step(f"POST /questions with {call.label}'s key and another body ({reused.label}), with "
                  f"{self.describe(token)}")
        self.post(token, reused, f"{reused.label} (key of {call.label}, other body)")
        return reused

    @rule(target=calls, token=tokens, size=st.integers(2, 6), same_key=st.booleans())
    def burst(self, token, size, same_key):
        """`size` POST /questions at once, a thread each: fresh keys, or one key and body."""
        self.step(f"burst of {size} parallel POST /questions with {self.describe(token)}, "
                  f"{'one key' if same_key else 'fresh keys'}")
        made = [self.new_call()] if same_key else [self.new_call() for _ in range(size)]
        requests = [(made[0].key, made[0].body)] * size if same_key else [(c.key, c.body) for c in made]
        self.dirty = True
        self.judge_burst(token, made, requests, RUN.api.burst(token.id_token, requests))
        return multiple(*made)

    @rule(token=tokens)
    def check_usage(self, token):
        """GET /usage with any token (a deleted account's and an expired one's included)."""
        self.step(f"GET /usage with {self.describe(token)}")
        status, body, _ = RUN.api.usage(token.id_token)
        self.note(f"  → {status} {short_usage(body)}")
        self.judge_usage(token, status, body, "GET /usage")

    # -- judging answers -------------------------------------------------------------------------------

    def post(self, token, call, label):
        self.dirty = True
        status, body, headers = RUN.api.questions(token.id_token, call.key, call.body)
        replayed = headers.get("idempotent-replayed") == "true"
        self.note(f"  {label} → {status}{' replayed' if replayed else ''} {short_answer(body)}")
        self.judge_post(token, call, status, body, replayed)

    def judge_common(self, token, status, body, what):
        """Invariant 3 and the token's expiry, for any answer of any function. True when the
        answer is one the model follows further (a 200 or 4xx other than 401/403)."""
        account, state = token.account, token.state_at(self.now)
        self.check()
        if state == "none":
            if status not in (401, 403):
                self.violate(Unexpected, f"{what} without a token answered {status}: {short_answer(body)}")
            return False
        if status == 200 and not account.live:
            self.violate(DeletedTokenAnswered,
                         f"{what} answered 200 to {token.label}, a token of {account!r}, deleted by DELETE /account "
                         f"at {utc(account.deleted_at).strftime('%H:%M:%S')} (the token expires at "
                         f"{utc(token.exp).strftime('%H:%M:%S')})")
        if status == 200 and state == "expired":
            self.violate(Unexpected, f"{what} answered 200 to {token.label}, expired at "
                                     f"{utc(token.exp).strftime('%m-%dT%H:%M:%S')}")
        if status is None or status >= 500:
            self.violate(Unexpected, f"{what} answered {status}: {body}")
            return False
        if status in (401, 403):
            if state == "valid" and account.live:
                self.violate(Unexpected, f"{what} refused {token.label}, valid and live, with {status}: {body}")
            return False
        if state == "unknown":
            RUN.unjudged += 1
        return True

    def judge_post(self, token, call, status, body, replayed):
        if not self.judge_common(token, status, body, f"POST /questions ({call.label})"):
            return
        account, state = token.account, token.state_at(self.now)
        record = self.ledger.record(account.sub, call.key)
        record_state = record.state_at(self.now) if record else None
        if record_state == "expired":
            self.ledger.forget(account.sub, call.key)
            record, record_state = None, None
        same_body = record is not None and record.body == call.body
        self.check()
        if status == 200:
            questions = body.get("questions") if isinstance(body, dict) else None
            for question in questions or []:
                self.secrets.add("question", question)
            if record is not None and replayed:
                if not same_body:
                    self.violate(Replay, f"{call.label} reused an answered call's key with another body and got the "
                                         f"first answer replayed (expected 422)")
                elif questions != record.questions:
                    self.violate(Replay, f"{call.label} was replayed with other questions than its first 200")
                return
            if record is not None and record_state == "live":
                self.violate(Replay, f"{call.label}: its key, answered 200 at "
                                     f"{utc(record.answered_at).strftime('%H:%M:%S')}, was answered 200 again without "
                                     f"Idempotent-Replayed ({'the same' if same_body else 'another'} body): charged "
                                     f"twice for one intended call")
            if record is not None:
                if record_state == "unknown":
                    RUN.unjudged += 1
                self.ledger.forget(account.sub, call.key)
            if replayed:
                self.violate(Replay, f"{call.label} was answered as a replay, but its key has no answered call")
            self.admit(token, call, body, questions)
        elif status == 429:
            if same_body and record_state == "live":
                self.violate(Replay, f"{call.label}, answered 200 before, was refused 429 when sent again: the first "
                                     f"answer is promised for 24 hours")
            self.judge_refusal(token, body)
        elif status == 422:
            if record is None and state == "valid" and account.live:
                self.violate(Unexpected, f"{call.label} answered 422 but its key has no answered call: {body}")
            elif same_body and record_state == "live":
                self.violate(Unexpected, f"{call.label}, the same body again, answered 422: {body}")
        else:
            self.violate(Unexpected, f"POST /questions ({call.label}) answered {status}: {body}")

    def admit(self, token, call, body, questions):
        """A new call answered 200: invariant 1 at its admission, then the month's usage its
        answer shows against invariant 2."""
        account = token.account
        self.check()
        problems = self.ledger.admit(account, call.key, self.windows, token.tier, call.body, questions, self.now)
        if problems:
            self.violate(OverLimit, problems[0])
        usage = body.get("usage") if isinstance(body, dict) else None
        if isinstance(usage, dict):
            self.check()
            window = ("month", self.windows["month"])
            if account.live:
                found = check_shown(self.ledger, account.email, {window: usage.get("used")},
                                    f"the 200's usage for {call.label}")
            else:
                found = check_charged(self.ledger, account.sub, account.email, {window: usage.get("used")},
                                      f"the 200's usage for {call.label}", only=[window])
            if found:
                self.violate(Mischarged, found[0])

    def judge_refusal(self, token, body):
        """A 429 for a person who never deleted an account must be one the limits call for, and
        name the window the model finds full first (month, day, hour)."""
        account = token.account
        if not (account.live and token.state_at(self.now) == "valid" and self.never_deleted(account.email)):
            return
        self.check()
        expected, window = self.ledger.prediction(account.email, self.windows, token.tier)
        if expected == 200:
            self.violate(Unexpected, f"{account.email} was refused {short_answer(body)} with room in every window "
                                     f"of the {token.tier} tier: {self.room(account.email, token.tier)}")
        elif isinstance(body, dict) and body.get("window") != window:
            self.violate(Unexpected, f"the 429 names the {body.get('window')} window; the model finds the {window} "
                                     f"full first ({self.room(account.email, token.tier)})")

    def room(self, email, tier):
        limits = limits_for(self.ledger.limits, tier)
        return ", ".join(f"{w} {self.ledger.answered(email, (w, self.windows[w]))}/{limits[w]}" for w in WINDOWS)

    def judge_burst(self, token, made, requests, answers):
        account, oks, statuses = token.account, {}, []
        for (key, body), (status, answer, headers) in zip(requests, answers):
            replayed = headers.get("idempotent-replayed") == "true"
            statuses.append(f"{status}{'r' if replayed else ''}")
            if not self.judge_common(token, status, answer, "a burst's POST /questions"):
                continue
            if status == 200:
                questions = answer.get("questions") if isinstance(answer, dict) else None
                for question in questions or []:
                    self.secrets.add("question", question)
                oks.setdefault(key, []).append((replayed, questions, body))
            elif status == 409 and len(made) > 1:
                self.violate(Unexpected, f"a burst of fresh keys got 409 (each key was sent once): {answer}")
            elif status not in (409, 429):
                self.violate(Unexpected, f"a burst's POST /questions answered {status}: {answer}")
        self.note(f"  answers: {' '.join(statuses)}")
        if account is None:
            return
        for key, answered in oks.items():
            self.check()
            if len({json.dumps(q) for _, q, _ in answered}) > 1:
                self.violate(Replay, f"one key sent {len(requests)} times at once was answered 200 with different "
                                     f"questions")
            if sum(1 for r, _, _ in answered if not r) > 1:
                self.violate(Replay, f"one key sent {len(requests)} times at once was answered 200 "
                                     f"{sum(1 for r, _, _ in answered if not r)} times without Idempotent-Replayed")
        fresh = [k for k in oks if self.ledger.record(account.sub, k) is None]
        self.check()
        problems = self.ledger.admit_burst(account, fresh, self.windows, token.tier,
                                           {k: (oks[k][0][2], oks[k][0][1]) for k in fresh}, self.now)
        if problems:
            self.violate(OverLimit, problems[0])
        if len(made) > 1 and account.live and token.state_at(self.now) == "valid" and \
                self.never_deleted(account.email) and all(s in ("200", "429") for s in statuses):
            limits = limits_for(self.ledger.limits, token.tier)
            room = min(limits[w] - (self.ledger.answered(account.email, (w, self.windows[w])) - len(fresh))
                       for w in WINDOWS)
            self.check()
            if len(fresh) < min(len(made), max(room, 0)):
                self.violate(Unexpected, f"a burst of {len(made)} fresh keys got {len(fresh)} answers 200 with room "
                                         f"for {room} ({self.room(account.email, token.tier)})")

    def judge_usage(self, token, status, body, what):
        if not self.judge_common(token, status, body, what):
            return
        if status != 200 or not isinstance(body, dict):
            self.violate(Unexpected, f"{what} answered {status}: {body}")
            return
        self.check()
        counters = counters_from_usage(body, self.windows)
        if token.account.live:
            found = check_shown(self.ledger, token.account.email, counters, what)
        else:
            found = check_charged(self.ledger, token.account.sub, token.account.email, counters, what,
                                  only=list(counters))
        if found:
            self.violate(Mischarged, found[0])
        self.check()
        if body.get("tier") != token.tier or body.get("limit") != limits_for(self.ledger.limits, token.tier)["month"]:
            self.violate(Unexpected, f"{what} with {token.label} ({token.tier}) answered tier {body.get('tier')}, "
                                     f"limit {body.get('limit')}")

    # -- after every step -----------------------------------------------------------------------------

    @invariant()
    def charged_as_answered(self):
        """Invariant 2 on the table (every account of the sequence, live or deleted), and on GET
        /usage for each live account with a valid token, after each step that called the API or
        moved the clock. (Invariant 1 is judged at each answer 200, against the count before it;
        3 at each answer.)"""
        if self.now is None:
            return
        before = self.windows
        self.tick()
        if not self.moved and before != self.windows:
            raise HarnessError(f"the stack's clock crossed a window within a step ({before} → {self.windows})")
        if not (self.dirty or self.moved):
            return  # a step of the pool alone: nothing the table holds or GET /usage shows has changed
        self.moved = self.dirty = False
        for accounts in self.people.values():
            for account in accounts:
                self.check()
                found = check_charged(self.ledger, account.sub, account.email,
                                      counters_from_items(RUN.table.items_of(account.sub)), "the table")
                if found:
                    self.violate(Mischarged, found[0])
        latest = {}
        for token in self.issued:
            if token.account.live and token.state_at(self.now) == "valid":
                latest[token.account.sub] = token
        for token in latest.values():
            status, body, _ = RUN.api.usage(token.id_token, kind="usage-check")
            self.judge_usage(token, status, body, f"GET /usage after the step ({token.label})")

    def raise_found(self):
        """Raises the first violation noted (the others are in the trace). A deleted account's
        working token is the cheapest hole, met in most sequences that delete: when another
        violation was noted too, both are raised together (an exception group, which Hypothesis
        tells apart from either alone), so neither hides the other."""
        if not self.found or self.raised:
            return
        other = next(((k, t) for k, t in self.found if k is not DeletedTokenAnswered), None)
        deleted = next(((k, t) for k, t in self.found if k is DeletedTokenAnswered), None)
        if other and deleted:
            error = ViolationGroup(f"{other[0].invariant} and {deleted[0].invariant}",
                                   [other[0](other[1]), deleted[0](deleted[1])])
        else:
            kind, text = other or deleted
            error = kind(text)
        self.raised = invariant_of(error)
        if is_final():
            RUN.final_traces.append((self.raised, list(self.trace)))
        raise error

    # -- at the end of the sequence -------------------------------------------------------------------

    def teardown(self):
        RUN.secrets.merge(self.secrets)
        if self.now is not None:
            items = [item for accounts in self.people.values() for a in accounts for item in RUN.table.items_of(a.sub)]
            judged, documented = leaks.scan(self.secrets, RUN.places, since_mark=True, table_items=items)
            self.check()
            for finding in documented:
                RUN.documented[finding.kind] = RUN.documented.get(finding.kind, 0) + 1
            if judged:
                self.violate(Leak, f"{len(judged)} string(s) sent or received kept where an operator reads; first: "
                                   f"{judged[0]}")
        if RUN.verbose:
            print(f"-- sequence {self.number} ({time.monotonic() - self.began:.1f} s)" +
                  (f" [{self.found[0][0].invariant}]" if self.found else ""), flush=True)
            for line in self.trace:
                print(f"   {line}")
        self.raise_found()


class ViolationGroup(ExceptionGroup):
    """Two violations of one sequence, raised together."""


def invariant_of(error):
    """`1-limits`, or `2-charged+3-deleted` for a group."""
    if isinstance(error, BaseExceptionGroup):
        return "+".join(invariant_of(e) for e in error.exceptions)
    return getattr(error, "invariant", type(error).__name__)


def is_final():
    try:
        return current_build_context().is_final
    except Exception:  # outside a test (the self-test): never final
        return False


def last_day(moment):
    following = (moment.replace(day=28) + datetime.timedelta(days=4)).replace(day=1)
    return following - datetime.timedelta(days=1)


def short_answer(body):
    if isinstance(body, dict):
        if "questions" in body:
            usage = body.get("usage") or {}
            return f"({len(body['questions'] or [])} questions, month used {usage.get('used')}/{usage.get('limit')})"
        if "code" in body:
            return f"({body.get('code')}{', ' + body['window'] if body.get('window') else ''})"
    return "" if body is None else f"({str(body)[:60]})"


def short_usage(body):
    if isinstance(body, dict) and "used" in body:
        return (f"(month {body.get('used')}/{body.get('limit')}, day {(body.get('daily') or {}).get('used')}, "
                f"hour {(body.get('hourly') or {}).get('used')}, {body.get('tier')})")
    return short_answer(body)
