#!/usr/bin/env python3
"""Measures what each Lambda memory size would cost a request of the packaged `bootstrap`.

Lambda gives a function CPU in proportion to its memory (1,769 MB is one vCPU). This script runs
the packaged binary under a Linux CPU quota of that share for each size (a cgroup v1 `cpu`
controller, so it needs root), serves it a Runtime API on loopback, and times each invocation
from the moment its event is handed out on `/next` to the moment its answer arrives, which is
what Lambda bills as Duration. It also times the cold start (spawn to the first `/next`).
Nothing here needs AWS. The table is the in-memory one, so a duration is the function's own CPU
work under the quota; in AWS each request also waits for DynamoDB (a few milliseconds), which
costs the same time at any size and so adds (wait x memory) to the bill. (moto is no stand-in for
that wait: its latency grows with its table, so it measures moto.)

    scripts/memory-size.py [--bootstrap .build/lambda/bootstrap] [--sizes 128,256,512,1024,1769]
                           [--invocations 300]

Prints a Markdown table per function: duration (mean, p50, p99), billed GB-seconds and the cost
per million requests at x86_64 prices (us-east-1: $0.20 per million, $0.0000166667 per GB-s).
SCALING.md records a run and the choice made from it.
"""
import argparse
import http.server
import json
import math
import os
import queue
import statistics
import subprocess
import sys
import threading
import time
import uuid

PRICE_PER_GB_SECOND = 0.0000166667
PRICE_PER_MILLION_REQUESTS = 0.20
CGROUP_ROOT = "/sys/fs/cgroup/cpu"


class RuntimeAPI:
    """A Runtime API that hands out one event at a time and times each answer."""

    def __init__(self):
        self.events = queue.Queue()
        self.answers = queue.Queue()
        self.first_next = threading.Event()
        self.handed_out = {}
        api = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # Headers and body go out as separate writes; with Nagle on, the second waits for a
            # delayed ACK (40 ms) and every duration would measure that.
            disable_nagle_algorithm = True

            def log_message(self, *args):
                pass

            def do_GET(self):
                api.first_next.set()
                event = api.events.get()
                if event is None:
                    self.send_response(410)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                request_id = str(uuid.uuid4())
                body = json.dumps(event).encode()
                self.send_response(200)
                self.send_header("Lambda-Runtime-Aws-Request-Id", request_id)
                self.send_header("Lambda-Runtime-Deadline-Ms", str(int(time.time() * 1000) + 30_000))
                self.send_header("Lambda-Runtime-Invoked-Function-Arn", "arn:aws:lambda:us-east-1:0:function:f")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                api.handed_out[request_id] = time.perf_counter()
                self.wfile.write(body)
                self.wfile.flush()

            def do_POST(self):
                arrived = time.perf_counter()
                length = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(length)
                request_id = self.path.split("/")[-2]
                self.send_response(202)
                self.send_header("Content-Length", "0")
                self.end_headers()
                started = api.handed_out.pop(request_id, arrived)
                api.answers.put((self.path.endswith("/response"), arrived - started, body))

        class Server(http.server.ThreadingHTTPServer):
            def handle_error(self, request, client_address):
                pass  # the runtime's connection is cut when it is killed after a size

        self.server = Server(("127.0.0.1", 0), Handler)
        self.address = "127.0.0.1:%d" % self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def invoke(self, event):
        self.events.put(event)
        return self.answers.get(timeout=60)


def cgroup(size):
    path = os.path.join(CGROUP_ROOT, "inkra-memory-%d" % size)
    os.makedirs(path, exist_ok=True)
    period = 100_000
    with open(os.path.join(path, "cpu.cfs_period_us"), "w") as f:
        f.write(str(period))
    with open(os.path.join(path, "cpu.cfs_quota_us"), "w") as f:
        f.write(str(max(1000, int(period * size / 1769))))
    return path


def event(function, user):
    context = {"principalId": user, "userId": user, "tier": "free"}
    if function == "checkUsage":
        return {"resource": "/usage", "path": "/usage", "httpMethod": "GET", "headers": {}, "body": None,
                "requestContext": {"httpMethod": "GET", "resourcePath": "/usage", "stage": "prod",
                                   "authorizer": context}}
    return {"resource": "/questions", "path": "/questions", "httpMethod": "POST",
            "headers": {"Content-Type": "application/json"}, "body": json.dumps({"topic": "a first job"}),
            "requestContext": {"httpMethod": "POST", "resourcePath": "/questions", "stage": "prod",
                               "authorizer": context}}


def measure(args, function, size):
    api = RuntimeAPI()
    group = cgroup(size)
    environment = {
        "PATH": "/usr/bin:/bin", "AWS_LAMBDA_RUNTIME_API": api.address, "_HANDLER": function,
        "AWS_LAMBDA_FUNCTION_NAME": function, "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": str(size),
        "AWS_REGION": "us-east-1", "LOG_LEVEL": "warning", "INKRA_STORE": "memory",
        "INKRA_SERVER_SECRET": "inkra development secret: public, never for production",
    }
    started = time.perf_counter()
    child = subprocess.Popen(
        ["sh", "-c", 'echo $$ > "$1/cgroup.procs" && exec "$2"', "sh", group, args.bootstrap],
        env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if not api.first_next.wait(30):
        child.kill()
        sys.exit("bootstrap did not reach /next: %s" % child.stderr.read().decode(errors="replace"))
    cold = time.perf_counter() - started
    durations = []
    for index in range(args.warmup + args.invocations):
        ok, seconds, body = api.invoke(event(function, "memory-%d-%s-%d" % (size, uuid.uuid4().hex[:6], index)))
        status = json.loads(body).get("statusCode") if ok else None
        if status != 200:
            child.kill()
            sys.exit("%s at %d MB answered %s: %s" % (function, size, status, body[:300]))
        if index >= args.warmup:
            durations.append(seconds * 1000)
    api.events.put(None)
    child.kill()
    child.wait()
    api.server.shutdown()
    durations.sort()
    billed = statistics.mean(math.ceil(d) for d in durations)
    cost = billed / 1000 * size / 1024 * PRICE_PER_GB_SECOND * 1e6 + PRICE_PER_MILLION_REQUESTS
    return {"size": size, "cold": cold * 1000, "mean": statistics.mean(durations),
            "p50": durations[len(durations) // 2], "p99": durations[int(len(durations) * 0.99) - 1],
            "billed": billed, "cost": cost}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bootstrap", default=".build/lambda/bootstrap")
    parser.add_argument("--sizes", default="128,256,512,1024,1769")
    parser.add_argument("--functions", default="generateQuestions,checkUsage")
    parser.add_argument("--invocations", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=20)
    args = parser.parse_args()
    if not os.access(os.path.join(CGROUP_ROOT, "cgroup.procs"), os.W_OK):
        sys.exit("needs root and a cgroup v1 cpu controller at %s" % CGROUP_ROOT)
    print("%d invocations per size after %d warm-up, the in-memory table, %s" % (
        args.invocations, args.warmup, args.bootstrap))
    for function in args.functions.split(","):
        print("\n%s\n" % function)
        print("| memory | vCPU share | cold start | mean | p50 | p99 | billed (mean) | $ per million |")
        print("| --- | --- | --- | --- | --- | --- | --- | --- |")
        for size in (int(s) for s in args.sizes.split(",")):
            r = measure(args, function, size)
            print("| %d MB | %.3f | %.1f ms | %.2f ms | %.2f ms | %.2f ms | %.2f ms | $%.3f |" % (
                size, size / 1769, r["cold"], r["mean"], r["p50"], r["p99"], r["billed"], r["cost"]))
            sys.stdout.flush()


if __name__ == "__main__":
    main()
