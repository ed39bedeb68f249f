#!/usr/bin/env python3
"""Cold start of one or more `bootstrap` binaries, alternating: from spawning the process to its first
`GET /2018-06-01/runtime/invocation/next` on a loopback socket (a Runtime API that never answers).

    python3 scripts/cold-start.py [--runs N] [--handler NAME] [--env NAME=VALUE ...] BOOTSTRAP [BOOTSTRAP ...]

Each run starts every binary once, in turn, so load on the machine falls on all of them alike; it
prints each binary's lowest, median and highest time. The environment is the benchmark's (the
in-memory store, a JWKS file) plus --env, e.g. AWS_XRAY_DAEMON_ADDRESS=127.0.0.1:2000 to start the
runtime as Lambda does with active tracing.
"""
import argparse
import json
import os
import socket
import statistics
import subprocess
import tempfile
import time


def once(binary, environment):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    port = listener.getsockname()[1]
    env = dict(environment, AWS_LAMBDA_RUNTIME_API=f"127.0.0.1:{port}")
    started = time.perf_counter()
    child = subprocess.Popen([binary], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    connection, _ = listener.accept()
    received = b""
    while b"\r\n\r\n" not in received:
        chunk = connection.recv(4096)
        if not chunk:
            break
        received += chunk
    elapsed = time.perf_counter() - started
    child.kill()
    child.wait()
    connection.close()
    listener.close()
    if not received.startswith(b"GET /2018-06-01/runtime/invocation/next"):
        raise SystemExit(f"{binary} asked for something else first: {received[:80]!r}")
    return elapsed * 1000


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("binaries", nargs="+")
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--handler", default="generateQuestions")
    parser.add_argument("--env", action="append", default=[], help="NAME=VALUE added to the environment")
    args = parser.parse_args()
    jwks = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
    json.dump({"keys": []}, jwks)
    jwks.close()
    environment = {"_HANDLER": args.handler, "INKRA_STORE": "memory",
                   "INKRA_SERVER_SECRET": "inkra development secret: public, never for production", "COGNITO_USER_POOL_ID": "us-east-1_InkraLocal",
                   "COGNITO_REGION": "us-east-1", "INKRA_JWKS_FILE": jwks.name, "PATH": "/usr/bin:/bin"}
    for pair in args.env:
        name, _, value = pair.partition("=")
        environment[name] = value
    times = {binary: [] for binary in args.binaries}
    for _ in range(args.runs):
        for binary in args.binaries:
            times[binary].append(once(binary, environment))
    os.unlink(jwks.name)
    for binary, samples in times.items():
        print(f"{binary}: min {min(samples):.2f} ms, median {statistics.median(samples):.2f} ms, "
              f"max {max(samples):.2f} ms ({len(samples)} runs, {args.handler})")


if __name__ == "__main__":
    main()
