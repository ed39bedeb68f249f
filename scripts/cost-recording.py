#!/usr/bin/env python3
"""Writes a month of free-tier traffic as a JSON-lines recording, for SCALING.md's bill.

    scripts/cost-recording.py --users 100 --out /tmp/month.jsonl
    swift run inkra-emulator replay bill /tmp/month.jsonl

pricing/free-month.jsonl is this script's `--users 5` output: SCALING.md's operator's month is the
bill of it (scripts/check-scaling-bill.sh).

SCALING.md's user: a free user who uses the free tier fully in a month, in 10 sessions on 10
different days (each at a random minute from 08:00 to 21:59 UTC). Every session reads the usage
(`GET /usage`) at its start and two minutes later; the first five sessions also ask for questions
(`POST /questions`) one minute in: 5 generateQuestions, 20 checkUsage and, with API Gateway's 300 s
authorizer cache, 10 authorizer runs a month. Each user has one development token (minted by
`inkra-emulator token`, valid for the whole month), so the authorizer runs once per session, when
the cache has let the previous session's answer go. Events are REST API events (template.yaml's
API), in time order; the same --seed writes the same file.

--emulator names the inkra-emulator binary (default: .build/debug/inkra-emulator, built by
`swift build --product inkra-emulator`).
"""
import argparse
import calendar
import datetime
import json
import random
import subprocess
import sys


def main():
    parser = argparse.ArgumentParser(description="Write a month of free-tier traffic as JSON lines.")
    parser.add_argument("--users", type=int, default=100, help="how many free users (default 100)")
    parser.add_argument("--month", default="2026-11", help="the month, YYYY-MM (default 2026-11)")
    parser.add_argument("--seed", type=int, default=40, help="the random seed (default 40)")
    parser.add_argument("--emulator", default=".build/debug/inkra-emulator", help="the inkra-emulator binary")
    parser.add_argument("--out", required=True, help="the JSON-lines file to write")
    arguments = parser.parse_args()

    year, month = (int(part) for part in arguments.month.split("-"))
    start = datetime.datetime(year, month, 1, tzinfo=datetime.timezone.utc)
    days = calendar.monthrange(year, month)[1]
    stamp = start.strftime("%Y-%m-%dT%H:%M:%SZ")

    def emulator(*command):
        result = subprocess.run([arguments.emulator, *command], capture_output=True, text=True)
        if result.returncode != 0:
            sys.exit(f"{arguments.emulator} {command[0]}: {result.stderr.strip()}")
        return result.stdout

    templates = {
        kind: json.loads(emulator("generate-event", kind, "--sub", "template", "--no-token", "--now", stamp))
        for kind in ("rest-generate", "rest-usage")
    }
    generator = random.Random(arguments.seed)
    events = []
    for number in range(arguments.users):
        user = f"free-user-{number:05d}"
        token = emulator(
            "token", "--sub", user, "--expires-in", str(days * 86400 + 3600), "--now", stamp
        ).strip()
        for session, day in enumerate(sorted(generator.sample(range(days), 10))):
            begins = start + datetime.timedelta(days=day, minutes=generator.randrange(8 * 60, 22 * 60))
            calls = [(0, "rest-usage"), (120, "rest-usage")]
            if session < 5:
                calls.append((60, "rest-generate"))
            for seconds, kind in calls:
                events.append((begins + datetime.timedelta(seconds=seconds), user, kind, token))
    events.sort(key=lambda event: (event[0], event[1]))
    with open(arguments.out, "w") as out:
        for index, (instant, user, kind, token) in enumerate(events):
            event = json.loads(json.dumps(templates[kind]))
            event["headers"]["Authorization"] = f"Bearer {token}"
            event["multiValueHeaders"]["Authorization"] = [f"Bearer {token}"]
            context = event["requestContext"]
            context["requestTimeEpoch"] = int(instant.timestamp() * 1000)
            context["requestTime"] = instant.strftime("%d/%b/%Y:%H:%M:%S +0000")
            context["requestId"] = f"cost-{index:07d}"
            out.write(json.dumps(event, separators=(",", ":")) + "\n")
    print(f"{len(events)} events of {arguments.users} users written to {arguments.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
