"""The invariants, checked against what the table holds and what the clients were told.

1. charged: each user's month `interviewCount`, and the sums of the day and the hour
   `requestCount`s, equal the user's distinct keys answered 200 at least once;
2. replay: every acknowledged key, sent again with the same body, answers 200 with
   `Idempotent-Replayed: true` and the questions of its first 200 (and a replay charges nothing);
3. in-progress: no `IDEMPOTENCY#` record is `INPROGRESS` after the repair;
4. answered: every intended call ends with 200 or 429 within its bounded retries (a 5xx the
   retries could not get past is a 5xx where the deadline left room to retry), and no attempt is
   answered 503 once the user's limit is known to be used up (a refusal must be 429);
5. kept: nothing a client was told was stored is missing after a restart (checked by the
   scenario that restarts: usage through 1, signed-up users in serve's Cognito pool).
"""

import os
import sys
import boto3
from boto3.dynamodb.types import TypeDeserializer
from botocore.config import Config

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from partition import user_partition  # noqa: E402  scripts/partition.py: the table names users by a keyed pseudonym

_deserialize = TypeDeserializer().deserialize


class Table:
    """Reads the usage table directly (moto, or serve's own DynamoDB endpoint), never through the proxy."""

    def __init__(self, endpoint, name):
        self.name = name
        self.client = boto3.client("dynamodb", endpoint_url=endpoint, region_name="us-east-1",
                                   aws_access_key_id="testing", aws_secret_access_key="testing",
                                   config=Config(retries={"max_attempts": 5, "mode": "standard"}))

    def items(self, user):
        items, start = [], None
        while True:
            arguments = dict(TableName=self.name, KeyConditionExpression="PK = :pk", ConsistentRead=True,
                             ExpressionAttributeValues={":pk": {"S": user_partition(user)}})
            if start:
                arguments["ExclusiveStartKey"] = start
            page = self.client.query(**arguments)
            items += [{k: _deserialize(v) for k, v in item.items()} for item in page["Items"]]
            start = page.get("LastEvaluatedKey")
            if not start:
                return items

    def charged(self, user):
        """(month, day, hour) units charged to `user`, summed over every window of its partition."""
        month = day = hour = 0
        in_progress, leases = [], []
        for item in self.items(user):
            sort = item["SK"]
            if sort.startswith("USAGE#"):
                month += int(item.get("interviewCount", 0))
            elif sort.startswith("RATELIMIT#") and "T" in sort[len("RATELIMIT#"):]:
                hour += int(item.get("requestCount", 0))
            elif sort.startswith("RATELIMIT#"):
                day += int(item.get("requestCount", 0))
            elif sort.startswith("IDEMPOTENCY#") and item.get("status") == "INPROGRESS":
                in_progress.append(sort)
                leases.append(int(item.get("expiresAt", 0)))
        return (month, day, hour), in_progress, leases


class Report:
    """Violations by invariant, each with a line saying what was seen."""

    def __init__(self):
        self.violations = []

    def add(self, invariant, detail):
        self.violations.append((invariant, detail))

    def by_invariant(self):
        counts = {}
        for invariant, _ in self.violations:
            counts[invariant] = counts.get(invariant, 0) + 1
        return counts


def answered_keys(ledger, user):
    return {call.key for call in ledger if call.user == user and call.first_ok()}


def check_charged(report, table, ledger, users):
    """Invariant 1. Returns each user's charges and the in-progress records found (invariant 3)."""
    charges, remaining = {}, {}
    for user in users:
        (month, day, hour), in_progress, _ = table.charged(user)
        expected = len(answered_keys(ledger, user))
        if (month, day, hour) != (expected, expected, expected):
            report.add("charged", f"{user}: month {month}, day {day}, hour {hour} charged; "
                                  f"{expected} keys answered 200")
        charges[user], remaining[user] = (month, day, hour), in_progress
    return charges, remaining


def check_replays_charged_nothing(report, table, users, before):
    """Invariant 1 again, after the replays: a replay must not move a counter."""
    for user in users:
        after = table.charged(user)[0]
        if after != before[user]:
            report.add("charged", f"{user}: the replays moved month, day, hour from {before[user]} to {after}")


def check_in_progress(report, remaining):
    for user, records in remaining.items():
        for record in records:
            report.add("in-progress", f"{user}: {record[:24]}… still INPROGRESS after the repair")


def check_answers(report, ledger, limits, refusals_judged):
    """Invariant 4: final answers, and 503s for a user whose limit the clients saw used up."""
    for call in ledger:
        if call.final not in (200, 429):
            last = call.attempts[-1]
            report.add("answered", f"{call.user} {call.key}: gave up after {len(call.attempts)} tries, "
                                   f"last {last.status or 'no answer'} {str(last.body)[:120]}")
    if not refusals_judged:
        return
    for call in ledger:
        limit = limits.get(call.user)
        if limit is None:
            continue
        refused = []
        for attempt in call.attempts:
            if attempt.status != 503:
                continue
            earlier = {other.key for other in ledger if other.user == call.user and other.key != call.key
                       and any(a.status == 200 and a.received < attempt.sent for a in other.attempts)}
            if len(earlier) >= limit:
                refused.append(attempt)
        if refused:
            report.add("refusal-503", f"{call.user} {call.key}: {len(refused)} answer(s) 503 although {limit} calls "
                                      f"(the limit) were already answered 200: {str(refused[0].body)[:120]}")


def check_same_questions(report, ledger):
    """Invariant 2, within the load: two 200s for one key must carry the same questions."""
    for call in ledger:
        answers = {tuple(a.questions or ()) for a in call.attempts if a.status == 200}
        if len(answers) > 1:
            report.add("replay", f"{call.user} {call.key}: answered 200 with {len(answers)} different sets of questions")


def check_replays(report, ledger, send):
    """Invariant 2, afterwards: `send(call)` sends the call again, faults off; returns its Attempt."""
    replays = 0
    for call in ledger:
        first = call.first_ok()
        if not first:
            continue
        replays += 1
        again = send(call)
        if again.status != 200 or not again.replayed or again.questions != first.questions:
            report.add("replay", f"{call.user} {call.key}: sent again, answered {again.status} "
                                 f"(replayed: {again.replayed}, same questions: {again.questions == first.questions})")
    return replays
