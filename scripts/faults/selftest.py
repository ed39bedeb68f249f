"""The harness's own checks, run before the scenarios (`scripts/faults.sh` runs it; a few seconds):
the proxy injects each fault kind in the shape botocore parses as DynamoDB's, the schedule replays
from its seed, and the invariant checks flag a planted violation (a check that cannot fail proves
nothing)."""

import http.server
import json
import sys
import threading

import boto3
from botocore.config import Config

import checks
from clients import Attempt, Call
from proxy import FaultProxy
from schedule import Rule, Schedule
from server import QuietServer


class Upstream(http.server.BaseHTTPRequestHandler):
    """A stand-in DynamoDB that answers every request 200, as an empty success of its operation."""

    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        target = self.headers.get("X-Amz-Target", "").rpartition(".")[2]
        body = {"BatchGetItem": {"Responses": {"t": [{"PK": {"S": "USER#a"}, "SK": {"S": "1"}}]}, "UnprocessedKeys": {}},
                "GetItem": {"Item": {"PK": {"S": "USER#a"}, "SK": {"S": "1"}}}}.get(target, {})
        payload = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-amz-json-1.0")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


def expect(condition, message):
    if not condition:
        print(f"faults self-test FAILED: {message}", file=sys.stderr)
        sys.exit(1)


def error_code(call):
    try:
        call()
        return "ok"
    except Exception as error:  # botocore's error classes are generated per service
        response = getattr(error, "response", None) or {}
        code = response.get("Error", {}).get("Code") or type(error).__name__
        reasons = [r.get("Code") for r in response.get("CancellationReasons", [])]
        return f"{code}{reasons if reasons else ''}"


def main():
    upstream = QuietServer(("127.0.0.1", 0), Upstream)
    threading.Thread(target=upstream.serve_forever, daemon=True).start()
    kinds = ["status-500", "throttling", "throughput", "cancel-throttling", "cancel-conflict", "drop-before", "drop-after"]
    expected = ["InternalServerError", "ThrottlingException", "ProvisionedThroughputExceededException",
                "TransactionCanceledException['ThrottlingError', 'None']",
                "TransactionCanceledException['TransactionConflict', 'None']", "ConnectionClosedError",
                "ConnectionClosedError"]
    for kind, want in zip(kinds, expected):
        schedule = Schedule(1, "self-test", {"TransactWriteItems": [Rule(kind, 1.0)]})
        proxy = FaultProxy(f"127.0.0.1:{upstream.server_address[1]}", schedule).start()
        client = boto3.client("dynamodb", endpoint_url=proxy.url, region_name="us-east-1", aws_access_key_id="x",
                              aws_secret_access_key="x", config=Config(retries={"total_max_attempts": 1}))
        item = {"Put": {"TableName": "t", "Item": {"PK": {"S": "USER#a"}, "SK": {"S": "1"}}}}
        got = error_code(lambda: client.transact_write_items(TransactItems=[item, item]))
        expect(got == want, f"{kind}: botocore saw {got}, expected {want}")
        proxy.stop()
    schedule = Schedule(1, "self-test", {"BatchGetItem": [Rule("unprocessed", 1.0)]})
    proxy = FaultProxy(f"127.0.0.1:{upstream.server_address[1]}", schedule).start()
    client = boto3.client("dynamodb", endpoint_url=proxy.url, region_name="us-east-1", aws_access_key_id="x",
                          aws_secret_access_key="x", config=Config(retries={"total_max_attempts": 1}))
    answer = client.batch_get_item(RequestItems={"t": {"Keys": [{"PK": {"S": "USER#a"}, "SK": {"S": "1"}}]}})
    expect(answer["UnprocessedKeys"].get("t", {}).get("Keys") and not answer["Responses"]["t"],
           f"unprocessed: {answer}")
    proxy.stop()
    upstream.shutdown()

    rules = {"GetItem": [Rule("status-500", 0.5)]}

    def draws(seed):
        schedule = Schedule(seed, "s", rules)
        return [schedule.decide("GetItem")[0] for _ in range(64)]

    expect(draws(42) == draws(42), "the same seed gave two different schedules")
    expect(draws(42) != draws(43), "two seeds gave the same schedule")

    report = checks.Report()
    planted = Call("u", "k1", "{}")
    planted.attempts = [Attempt(0, 1, 200, {"questions": ["a?"]}, False), Attempt(2, 3, 200, {"questions": ["b?"]}, False)]
    refused = Call("u", "k2", "{}")
    refused.attempts = [Attempt(5, 6, 503, {"code": "unavailable"}, False), Attempt(7, 8, 429, {}, False)]
    checks.check_same_questions(report, [planted])
    checks.check_answers(report, [planted, refused], {"u": 1}, refusals_judged=True)
    expect(report.by_invariant() == {"replay": 1, "refusal-503": 1}, f"planted violations: {report.by_invariant()}")
    print("faults self-test: 8 fault kinds as botocore parses them, seeded replay and planted violations as expected")


if __name__ == "__main__":
    main()
