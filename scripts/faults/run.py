"""Runs the fault scenarios against the built bootstrap and inkra-emulator; see scripts/faults.sh --help."""

import argparse
import datetime
import json
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
import traceback

import boto3

import checks
import clients
import stack
from model import ModelStub
from proxy import FaultProxy
from scenarios import FREE_DAILY, LIMITS, SCENARIOS
from schedule import Schedule, unit

GATEWAY_TIMEOUT = 3  # INKRA_GATEWAY_TIMEOUT given to every runtime
INVOCATION_TIMEOUT = 8  # serve --timeout: Lambda's deadline for an invocation
USAGE_TRIES = 4  # GET /usage tries under (f), honouring Retry-After between them, as a client would
POOL = "us-east-1_InkraLocal"


def iso(instant):
    return datetime.datetime.fromtimestamp(instant, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


class Run:
    """One scenario: its stack, its load, its faults, its checks."""

    def __init__(self, scenario, options, work):
        self.scenario, self.options, self.work = scenario, options, work
        self.schedule = Schedule(options.seed, scenario.name, scenario.rules)
        self.schedule.enabled = False
        self.emulator = stack.Emulator(options.emulator, work)
        self.report = checks.Report()
        self.crashes, self.started, self.lost_users = 0, [], set()
        tag = f"{scenario.name}-{options.seed}-{options.run_id}"
        self.free = [f"free{i}-{tag}" for i in range(scenario.free)]
        self.premium = [f"premium{i}-{tag}" for i in range(scenario.premium)]
        self.users = self.free + self.premium
        self.tokens = {u: self.emulator.token(u, "free" if u in self.free else "premium") for u in self.users}
        self.limits = {u: FREE_DAILY for u in self.free}
        self.sandboxes = scenario.sandboxes or options.clients

    # -- the stack ----------------------------------------------------------------------------------

    def up(self):
        limits = stack.write_json(os.path.join(self.work, "limits.json"), LIMITS)
        name = self.scenario.name
        if self.scenario.store == "moto":
            # A table per scenario and run: moto copies a whole table in every transaction.
            self.table_name, self.table_endpoint = f"inkra-faults-{name}-{self.options.run_id}", self.options.moto
            self.emulator.create_table(self.options.moto, self.table_name)
            upstream = self.options.moto.split("//", 1)[1].rstrip("/")
            self.proxy = self.keep(FaultProxy(upstream, self.schedule, moto=True).start())
            serve_arguments = ["--dynamodb-endpoint", self.proxy.url, "--table", self.table_name, "--no-cognito"]
        else:
            self.table_name, dynamodb_port, cognito_port = "inkra-usage", stack.free_port(), stack.free_port()
            self.table_endpoint = f"http://127.0.0.1:{dynamodb_port}"
            self.proxy = self.keep(FaultProxy(f"127.0.0.1:{dynamodb_port}", self.schedule).start())
            self.state = os.path.join(self.work, f"{name}.state.json")
            serve_arguments = ["--state", self.state, "--dynamodb-port", str(dynamodb_port),
                               "--cognito-port", str(cognito_port)]
            self.cognito_endpoint = f"http://127.0.0.1:{cognito_port}"
        self.model = self.keep(ModelStub(self.schedule).start())
        self.serve = self.keep(stack.Serve(self.options.emulator, self.work, name, [
            *serve_arguments, "--limits", limits, "--timeout", str(INVOCATION_TIMEOUT),
            "--runtime-function", self.scenario.function]).start())
        environment = {
            "INKRA_TABLE_NAME": self.table_name, "AWS_ENDPOINT_URL_DYNAMODB": self.proxy.url,
            "INKRA_GATEWAY_TIMEOUT": str(GATEWAY_TIMEOUT), "INKRA_LIMITS_FILE": limits, "INKRA_CLOCK": "system",
            "INKRA_LLM_BASE_URL": self.model.url, "INKRA_LLM_MODEL": "fault-stub",
        }
        self.runtimes = [self.keep(stack.Runtime(self.options.bootstrap, self.work, f"{name}.runtime{i}", self.serve,
                                                 self.scenario.function, environment).start())
                         for i in range(self.sandboxes)]
        stack.wait_for_runtimes(self.serve, self.sandboxes)

    def keep(self, thing):
        self.started.append(thing)
        return thing

    def down(self):
        for thing in reversed(self.started):
            try:
                thing.stop()
            except Exception:  # cleanup goes on whatever one part did
                pass
        if self.scenario.store == "moto" and hasattr(self, "table_name"):
            try:
                self.table().client.delete_table(TableName=self.table_name)
            except Exception:  # a table that was never created, or moto gone: nothing to clean
                pass

    # -- crashes ------------------------------------------------------------------------------------

    def crasher(self, done):
        """SIGKILLs at moments the seed chooses (1.5 to 4.5 s after the stack is whole again), until
        the load is done or `limit` crashes (3 quick, 8 otherwise)."""
        k, limit = 0, 3 if self.options.quick else 8
        while self.crashes < limit and not done.wait(1.5 + 3.0 * unit(self.options.seed, self.scenario.name, "crash", k)):
            if self.scenario.crash == "runtime":
                runtime = self.runtimes[k % self.sandboxes]
                runtime.kill()
                runtime.start()
                stack.wait_for_runtimes(self.serve, self.sandboxes)
            else:
                if self.crashes == 0:
                    self.sign_up("before-kill")
                self.serve.kill()
                for runtime in self.runtimes:
                    runtime.kill()
                self.serve.start()
                for runtime in self.runtimes:
                    runtime.start()
                stack.wait_for_runtimes(self.serve, self.sandboxes)
                self.check_pool("after SIGKILL and restart")
            self.crashes += 1
            k += 1

    def cognito(self):
        return boto3.client("cognito-idp", endpoint_url=self.cognito_endpoint, region_name="us-east-1",
                            aws_access_key_id="testing", aws_secret_access_key="testing")

    def sign_up(self, label):
        self.signed_up = []
        for i in range(2):
            email = f"{label}-{i}-{self.options.run_id}@example.com"
            self.cognito().sign_up(ClientId="inkra-local-client", Username=email, Password="Faults-2026-pass!",
                                   UserAttributes=[{"Name": "email", "Value": email}])
            self.signed_up.append(email)

    def check_pool(self, when):
        for email in getattr(self, "signed_up", []):
            found = self.cognito().list_users(UserPoolId=POOL, Filter=f'email = "{email}"')["Users"]
            if not found and email not in self.lost_users:
                self.lost_users.add(email)
                self.report.add("kept", f"{when}: {email} was signed up (SignUp answered 200) and is gone")

    # -- the run ------------------------------------------------------------------------------------

    def go(self):
        self.up()
        quick = self.options.quick
        calls = self.scenario.calls[0 if quick else 1]
        if self.scenario.function == "checkUsage":
            return self.go_usage(calls)
        load = clients.Load(self.options.seed, self.scenario.name, self.serve.api_port, self.users, self.tokens,
                            clients=self.options.clients, calls=calls)
        done = threading.Event()
        crasher = threading.Thread(target=self.crasher, args=(done,), daemon=True) if self.scenario.crash else None
        self.schedule.enabled = True
        if crasher:
            crasher.start()
        ledger = load.run()
        done.set()
        if crasher:
            crasher.join(timeout=120)
        self.schedule.enabled = False
        self.ledger = ledger
        self.after_load(load)

    def after_load(self, load):
        checks.check_answers(self.report, self.ledger, self.limits, self.scenario.refusals_judged)
        checks.check_same_questions(self.report, self.ledger)
        # The repair runs at the later of now and the last lease, so every lease it should end has ended.
        leases = [lease for user in self.users for lease in self.table().charged(user)[2]]
        now = max([time.time()] + [lease + 1 for lease in leases])
        ok, repaired, message = self.emulator.repair(self.table_endpoint, self.table_name, iso(now))
        self.repair = f"repaired {repaired}" if ok else f"failed ({message})"
        if not ok:
            self.report.add("repair", f"inkra-emulator admin repair: {message}")
        charges, remaining = checks.check_charged(self.report, self.table(), self.ledger, self.users)
        checks.check_in_progress(self.report, remaining)
        self.replays = checks.check_replays(self.report, self.ledger, lambda call: self.send_again(load, call))
        checks.check_replays_charged_nothing(self.report, self.table(), self.users, charges)
        if self.scenario.crash == "serve":
            self.check_pool("at the end")

    def send_again(self, load, call):
        again = clients.Call(call.user, call.key, call.body)
        load.send(again, 999_999)
        return again.attempts[-1]

    def table(self):
        return checks.Table(self.table_endpoint, self.table_name)

    def go_usage(self, calls):
        """(f): units charged first (no faults), then GET /usage from every client under the faults."""
        load = clients.Load(self.options.seed, self.scenario.name, self.serve.api_port, self.users, self.tokens,
                            clients=self.options.clients, calls=1)
        self.ledger = load.run()
        charged = {u: len(checks.answered_keys(self.ledger, u)) for u in self.users}
        self.schedule.enabled = True
        self.usage_answers = []
        lock = threading.Lock()

        def client(c):
            for i in range(calls):
                user = self.users[int(unit(self.options.seed, self.scenario.name, "usage-user", c * 1000 + i) * len(self.users))]
                # As for POST (invariant 4): a 503 that used its deadline is an answer a client
                # retries after Retry-After; the call must end with its usage within its tries,
                # and no single answer may come after API Gateway's timeout.
                for attempt in range(USAGE_TRIES):
                    sent = time.time()
                    status, body, _ = clients.request(self.serve.api_port, "GET", "/usage", self.tokens[user])
                    elapsed = time.time() - sent
                    with lock:
                        self.usage_answers.append(status)
                    used = body.get("used") if isinstance(body, dict) else None
                    late = elapsed > GATEWAY_TIMEOUT
                    if status == 503 and not late and attempt + 1 < USAGE_TRIES:
                        retry_after = body.get("retryAfter", 2) if isinstance(body, dict) else 2
                        time.sleep(min(float(retry_after), 2.0))
                        continue
                    if status != 200 or late or used != charged[user]:
                        self.report.add("usage", f"{user}: GET /usage answered {status} in {elapsed:.2f} s "
                                                 f"(try {attempt + 1} of {USAGE_TRIES}), used {used} "
                                                 f"(charged {charged[user]}): {str(body)[:120]}")
                    break

        threads = [threading.Thread(target=client, args=(c,), daemon=True) for c in range(self.options.clients)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.schedule.enabled = False
        self.after_load(load)

    # -- the figures --------------------------------------------------------------------------------

    def figures(self):
        attempts = [a for call in getattr(self, "ledger", []) for a in call.attempts]
        statuses = {}
        for a in attempts + [clients.Attempt(0, 0, s, None, False) for s in getattr(self, "usage_answers", [])]:
            statuses[str(a.status or "lost")] = statuses.get(str(a.status or "lost"), 0) + 1
        return {
            "scenario": self.scenario.name,
            "calls": len(getattr(self, "ledger", [])),
            "requests": len(attempts) + len(getattr(self, "usage_answers", [])),
            "answers": dict(sorted(statuses.items())),
            "answered200": sum(1 for call in getattr(self, "ledger", []) if call.first_ok()),
            "faults": dict(sorted(self.schedule.injected.items())),
            "crashes": self.crashes,
            "proxyIncidents": dict(getattr(getattr(self, "proxy", None), "incidents", {})),
            "repair": getattr(self, "repair", "not run"),
            "violations": self.report.by_invariant(),
            # Informational (issue #36, item 6): how long the runtime waited before sending
            # UnprocessedKeys again; near 0 ms means no backoff.
            "unprocessedResendGapsMs": sorted(round(g * 1000, 1) for g in getattr(getattr(self, "proxy", None), "unprocessed_gaps", []))[:50],
            "details": [f"[{i}] {d}" for i, d in self.report.violations],
            # Each intended call's answers in order ("lost" for none), to see how retries went.
            "callAnswers": [{"user": call.user, "answers": [a.status or "lost" for a in call.attempts]}
                      for call in getattr(self, "ledger", [])],
        }


def stop_on_sigterm():
    """SIGTERM ends the run as Ctrl-C does, so every scenario's `finally` stops what it started."""
    def handler(signum, frame):
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, handler)


def main():
    stop_on_sigterm()
    parser = argparse.ArgumentParser(prog="scripts/faults.sh", description=__doc__)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--scenario", action="append", default=None)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--moto", required=True)
    parser.add_argument("--emulator", required=True)
    parser.add_argument("--bootstrap", required=True)
    parser.add_argument("--json", default=None, help="write the figures here")
    parser.add_argument("--keep", action="store_true", help="keep the work folder (logs of serve and the runtimes)")
    options = parser.parse_args()
    if options.seed is None:
        options.seed = int.from_bytes(os.urandom(4), "big")
    options.run_id = f"{int(time.time())}"
    chosen = [s for s in SCENARIOS if not options.scenario or s.name in options.scenario]
    unknown = set(options.scenario or []) - {s.name for s in SCENARIOS}
    if unknown:
        print(f"unknown scenario {', '.join(sorted(unknown))}; known: {', '.join(s.name for s in SCENARIOS)}", file=sys.stderr)
        return 2
    work = tempfile.mkdtemp(prefix="inkra-faults-")
    print(f"== fault harness: seed {options.seed}, {'quick' if options.quick else 'full'}, "
          f"{len(chosen)} scenario(s), {options.clients} clients; logs in {work}")
    results, failed = [], False
    for scenario in chosen:
        run = Run(scenario, options, work)
        started = time.monotonic()
        try:
            run.go()
        except Exception as error:
            run.report.add("harness", f"the scenario could not run: {error}")
            traceback.print_exc()
        finally:
            run.down()
        figures = run.figures()
        figures["seconds"] = round(time.monotonic() - started, 1)
        results.append(figures)
        print_figures(figures)
        failed = failed or bool(figures["violations"])
    if options.json:
        with open(options.json, "w") as f:
            json.dump({"seed": options.seed, "quick": options.quick, "scenarios": results}, f, indent=2)
    total = sum(sum(r["violations"].values()) for r in results)
    print(f"== {len(results)} scenario(s), {sum(r['requests'] for r in results)} requests, "
          f"{sum(sum(r['faults'].values()) for r in results)} faults injected, {total} violation(s)")
    if failed:
        names = " ".join(f"--scenario {r['scenario']}" for r in results if r["violations"])
        print(f"FAILED with seed {options.seed}; replay: scripts/faults.sh --seed {options.seed} "
              f"{'--quick ' if options.quick else ''}{names}")
    if not options.keep and not failed:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0


def print_figures(f):
    faults = ", ".join(f"{k} {v}" for k, v in f["faults"].items()) or "none"
    violations = ", ".join(f"{k} {v}" for k, v in f["violations"].items()) or "0"
    print(f"-- {f['scenario']}: {f['calls']} calls, {f['requests']} requests ({f['answered200']} calls answered 200; "
          f"answers {f['answers']}), {f['seconds']} s")
    print(f"   faults: {faults}; crashes: {f['crashes']}; repair: {f['repair']}")
    if f["proxyIncidents"]:
        print(f"   proxy incidents (not injected: the upstream failed or took over 5 s): {f['proxyIncidents']}")
    gaps = f["unprocessedResendGapsMs"]
    if gaps:
        print(f"   UnprocessedKeys sent again after {gaps[len(gaps) // 2]} ms (median of {len(gaps)}; "
              f"informational, issue #36 item 6)")
    print(f"   violations: {violations}")
    for line in f["details"][:12]:
        print(f"     {line}")
    if len(f["details"]) > 12:
        print(f"     … and {len(f['details']) - 12} more")


if __name__ == "__main__":
    sys.exit(main())
