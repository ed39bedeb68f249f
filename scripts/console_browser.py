#!/usr/bin/env python3
"""Drives `inkra-emulator serve`'s console in headless Chromium through the DevTools protocol.

The free-tier story of docs/limits.md, told through `serve` with curl and development tokens:
  run 1, --now 2026-03-10T10:00:00Z: alice 200, 200, then 429 (the hour is full); a caller with no
         token (401); a user whose id holds <script> markup (200);
  run 2, the same --state, --now 2026-03-10T11:00:00Z: alice 200 (the day is full now), then 429;
  run 3, --clock virtual from 2026-03-12T09:00:00Z: bob 200, 200, 429; the page's +1 hour button
         moves the clock to 10:00 and bob is admitted again.
Checks, in a real browser:
  - each request appears in the Requests page's live list within a second of its answer;
  - the Users page shows alice's bars (month 3/5, day 3/3, hour 1/2) and, for 2026-03-10, alice
    refused by the day window; the Table page filters by partition key;
  - the user id holding markup is shown as text in every page, and no script of it ran (no dialog,
    no console marker, no element it would have made).
Saves a screenshot of each page (docs/images/console-*.png by default).

Usage: scripts/console_browser.py EMULATOR [--screenshots DIR] [--chromium PATH]
"""
import argparse
import base64
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from partition import user_partition  # noqa: E402  the table names users by a keyed pseudonym

import websocket  # websocket-client

MARKER = "XSS-MARKER"
MARKUP_USER = f'<script>console.log("{MARKER}")</script><img src=x onerror=console.log("{MARKER}")>'
SHOWN_WITHIN = 1.0  # seconds between a request's answer and its line in the live list
passed = 0


def check(condition, what):
    global passed
    if not condition:
        raise AssertionError(what)
    passed += 1
    print(f"ok: {what}")


def wait_for(predicate, what, timeout=10.0, interval=0.02):
    """Polls `predicate` until it returns a true value, failing after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(interval)


class Serve:
    """One `inkra-emulator serve` on free ports."""

    def __init__(self, emulator, state, now, extra=()):
        self.output = tempfile.NamedTemporaryFile("w+", suffix=".out", delete=False)
        self.process = subprocess.Popen(
            [emulator, "serve", "--port", "0", "--lambda-port", "0", "--runtime-api-port", "0",
             "--dynamodb-port", "0", "--console-port", "0", "--no-access-log", "--state", state, "--now", now,
             *extra],
            stdout=self.output, stderr=subprocess.STDOUT, text=True)
        banner = wait_for(lambda: self.banner(), "serve's banner", timeout=30)
        self.api = re.search(r"API Gateway\s+(\S+)", banner).group(1)
        self.console = re.search(r"Console\s+(\S+)", banner).group(1)
        cognito = re.search(r"Cognito\s+(\S+)", banner)
        self.cognito = cognito.group(1) if cognito else None
        check(self.console.startswith("http://127.0.0.1:"), f"the banner names the console on loopback: {self.console}")

    def banner(self):
        if self.process.poll() is not None:
            raise AssertionError(f"serve exited {self.process.returncode}: {open(self.output.name).read()}")
        text = open(self.output.name).read()
        return text if "Press Ctrl-C" in text else None

    def stop(self):
        self.process.terminate()
        code = self.process.wait(timeout=30)
        check(code == 0, f"serve stopped on SIGTERM with status 0, the console's live list open (got {code})")
        os.unlink(self.output.name)


class Browser:
    """Headless Chromium, one page, spoken to over the DevTools protocol."""

    def __init__(self, chromium):
        self.profile = tempfile.mkdtemp(prefix="inkra-console-chromium-")
        self.process = subprocess.Popen(
            [chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
             "--no-first-run", "--no-default-browser-check", "--remote-debugging-address=127.0.0.1",
             "--remote-debugging-port=0", f"--user-data-dir={self.profile}", "--window-size=1280,900",
             "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        port_file = os.path.join(self.profile, "DevToolsActivePort")
        wait_for(lambda: os.path.exists(port_file) and open(port_file).read().strip(), "Chromium's DevTools port", 30)
        port = open(port_file).read().split()[0]
        targets = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10))
        page = next(t for t in targets if t["type"] == "page")
        self.socket = websocket.create_connection(page["webSocketDebuggerUrl"], timeout=30, suppress_origin=True)
        self.next_id = 0
        self.events = []
        self.call("Page.enable")
        self.call("Runtime.enable")
        self.call("Emulation.setDeviceMetricsOverride", width=1280, height=900, deviceScaleFactor=1, mobile=False)

    def call(self, method, **params):
        self.next_id += 1
        self.socket.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.socket.recv())
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise AssertionError(f"{method}: {message['error']}")
                return message.get("result", {})
            if "method" in message:
                self.events.append(message)
                if message["method"] == "Page.javascriptDialogOpening":
                    self.call("Page.handleJavaScriptDialog", accept=True)

    def evaluate(self, expression):
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise AssertionError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def open(self, url):
        self.call("Page.navigate", url=url)
        wait_for(lambda: self.evaluate("document.readyState") == "complete", f"{url} to load")

    def screenshot(self, path):
        data = self.call("Page.captureScreenshot", format="png")["data"]
        with open(path, "wb") as file:
            file.write(base64.b64decode(data))
        print(f"saved {path}")

    def marker_fired(self):
        self.evaluate("0")  # drains the events that came meanwhile
        for event in self.events:
            if event["method"] == "Page.javascriptDialogOpening":
                return f"a dialog opened: {event['params'].get('message')}"
            if event["method"] == "Runtime.consoleAPICalled":
                text = " ".join(str(a.get("value", "")) for a in event["params"].get("args", []))
                if MARKER in text:
                    return f"the console logged {text}"
        return None

    def close(self):
        try:
            self.socket.close()
        finally:
            self.process.terminate()
            self.process.wait(timeout=30)
            shutil.rmtree(self.profile, ignore_errors=True)


def token(emulator, sub, now):
    return subprocess.run([emulator, "token", "--sub", sub, "--now", now], check=True, capture_output=True,
                          text=True).stdout.strip()


def send(api, method, path, bearer=None, body=None):
    command = ["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", method, f"{api}{path}"]
    if bearer:
        command += ["-H", f"Authorization: Bearer {bearer}"]
    if body is not None:
        command += ["-H", "Content-Type: application/json", "-d", body]
    return int(subprocess.run(command, check=True, capture_output=True, text=True).stdout)


def live_rows(browser):
    return browser.evaluate("document.querySelectorAll('#requests tbody tr').length")


def through_live_list(browser, serve, method, path, bearer, expected, who, body=None):
    """Sends one request and waits for its line in the live list, at most SHOWN_WITHIN seconds."""
    before = live_rows(browser)
    status = send(serve.api, method, path, bearer, body)
    answered = time.monotonic()
    check(status == expected, f"{who}: {method} {path} answered {status} (expected {expected})")
    wait_for(lambda: live_rows(browser) > before, f"{who}'s request in the live list", timeout=SHOWN_WITHIN)
    shown = time.monotonic() - answered
    top = browser.evaluate("[...document.querySelector('#requests tbody tr').cells].map(c => c.textContent)")
    check(top[2] == method and top[3] == path and top[5] == str(expected),
          f"{who}'s request shown in the live list {shown * 1000:.0f} ms after its answer: {top[1:8]}")
    return top


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("emulator")
    parser.add_argument("--screenshots", default="docs/images")
    parser.add_argument("--chromium", default=shutil.which("chromium") or shutil.which("chromium-browser"))
    args = parser.parse_args()
    if not args.chromium:
        sys.exit("console_browser.py: no chromium on PATH (apt-get install chromium)")
    os.makedirs(args.screenshots, exist_ok=True)
    work = tempfile.mkdtemp(prefix="inkra-console-")
    state = os.path.join(work, "state.json")
    browser = Browser(args.chromium)
    serve = None
    try:
        first, second = "2026-03-10T10:00:00Z", "2026-03-10T11:00:00Z"
        serve = Serve(args.emulator, state, first)
        browser.open(serve.console + "#requests")
        wait_for(lambda: browser.evaluate("document.getElementById('live').textContent") == "live",
                 "the live list to connect")
        alice = token(args.emulator, "alice", first)
        question = '{"topic":"my first job","count":3}'
        through_live_list(browser, serve, "POST", "/questions", alice, 200, "alice (1)", question)
        through_live_list(browser, serve, "POST", "/questions", alice, 200, "alice (2)", question)
        through_live_list(browser, serve, "POST", "/questions", alice, 429, "alice, hour full", question)
        through_live_list(browser, serve, "GET", "/usage", None, 401, "no token")
        markup = token(args.emulator, MARKUP_USER, first)
        row = through_live_list(browser, serve, "POST", "/questions", markup, 200, "the markup user", question)
        check(row[4] == MARKUP_USER, "the markup user's id is shown as text in the live list")
        check(browser.evaluate("document.querySelector('#requests tbody tr').cells[6].textContent") ==
              "allow (invoked)", "the authorizer's answer and that it ran, not cached")
        browser.evaluate("document.querySelector('#requests tbody tr:nth-child(3)').click()")
        wait_for(lambda: browser.evaluate("!document.getElementById('detail').hidden"), "the request's detail")
        detail = browser.evaluate("['detail-event','detail-authorizer','detail-response']"
                                  ".map(id => document.getElementById(id).textContent)")
        check('"httpMethod": "POST"' in detail[0] and '"Authorization": "[redacted]"' in detail[0],
              "the detail shows the event serve built, its token redacted")
        check(alice not in "".join(detail), "no token anywhere in the detail")
        check('"principalId": "alice"' in detail[1], "the detail shows the authorizer's answer")
        check(detail[2].startswith("429") and "Hourly limit exceeded" in detail[2], "the detail shows the response")
        browser.screenshot(os.path.join(args.screenshots, "console-requests.png"))
        serve.stop()

        serve = Serve(args.emulator, state, second)
        browser.open(serve.console + "#requests")
        wait_for(lambda: browser.evaluate("document.getElementById('live').textContent") == "live",
                 "the live list to connect again")
        alice = token(args.emulator, "alice", second)
        through_live_list(browser, serve, "POST", "/questions", alice, 200, "alice (3)", question)
        through_live_list(browser, serve, "POST", "/questions", alice, 429, "alice, day full", question)
        # The table names users by pseudonyms: the users page names a user by id once this serve has
        # seen the id in a request.
        markup = token(args.emulator, MARKUP_USER, second)
        through_live_list(browser, serve, "POST", "/questions", markup, 200, "the markup user again", question)

        browser.open(serve.console + "#users")
        wait_for(lambda: browser.evaluate("document.body.dataset.loaded") == "users", "the users page")
        bars = browser.evaluate("""(() => {
            const card = [...document.querySelectorAll('#users .user')].find(c => c.dataset.user === 'alice');
            return card && Object.fromEntries([...card.querySelectorAll('.bar-row')].map(r =>
                [r.dataset.window, [r.querySelector('.count').textContent, r.querySelector('.fill').style.width,
                                     r.querySelector('.reset').textContent]]));
        })()""")
        check(bars == {"month": ["3 / 5", "60%", "resets 2026-04-01T00:00:00Z"],
                       "day": ["3 / 3", "100%", "resets 2026-03-11T00:00:00Z"],
                       "hour": ["1 / 2", "50%", "resets 2026-03-10T12:00:00Z"]},
              f"alice's bars after the story: {bars}")
        refused = wait_for(lambda: browser.evaluate(
            "[...document.querySelectorAll('#refused tbody tr')].map(r => [...r.cells].map(c => c.textContent))"),
            "the refused users of 2026-03-10")
        check(refused == [["alice", "free", "day", "2026-03-11T00:00:00Z"]], f"refused on 2026-03-10: {refused}")
        names = browser.evaluate("[...document.querySelectorAll('#users .user h3')].map(h => h.firstChild.textContent)")
        check(MARKUP_USER in names, "the markup user's id is shown as text on the users page")
        browser.screenshot(os.path.join(args.screenshots, "console-users.png"))

        browser.open(serve.console + "#table")
        wait_for(lambda: browser.evaluate("document.body.dataset.loaded") == "table", "the table page")
        # A user's partition is named by the keyed pseudonym of the id: the table holds no id.
        alice_partition = user_partition("alice")
        browser.evaluate(f"document.getElementById('table-pk').value = '{alice_partition}';"
                         "document.getElementById('table-form').requestSubmit()")
        count = wait_for(lambda: (lambda t: t if f"in {alice_partition}" in t else None)(
            browser.evaluate("document.getElementById('table-count').textContent")), "the filtered table")
        keys = browser.evaluate("[...document.querySelectorAll('#items tbody tr')].map(r => r.cells[1].textContent)")
        # Her day, two hours, month and standing refusal (written by her refusal: docs/table.md).
        check(count == f"5 items in {alice_partition}" and keys == [
            "RATELIMIT#2026-03-10", "RATELIMIT#2026-03-10T10", "RATELIMIT#2026-03-10T11", "REFUSED", "USAGE#2026-03"],
            f"the table filtered by partition key: {count}: {keys}")
        browser.screenshot(os.path.join(args.screenshots, "console-table.png"))
        browser.evaluate("document.getElementById('table-pk').value = '';"
                         "document.getElementById('table-form').requestSubmit()")
        wait_for(lambda: "in USER#" not in browser.evaluate("document.getElementById('table-count').textContent"),
                 "the whole table")
        partitions = browser.evaluate("[...document.querySelectorAll('#items tbody tr')].map(r => r.cells[0].textContent)")
        check(user_partition(MARKUP_USER) in partitions and not any(MARKUP_USER in p for p in partitions),
              "the markup user's partition is its pseudonym: the table holds no id")

        # The local user pool's page: a user created through the pool's own API, shown as text.
        check(serve.cognito is not None, "the banner names the local user pool")
        request = urllib.request.Request(
            serve.cognito, method="POST",
            data=json.dumps({"UserPoolId": "us-east-1_InkraLocal", "Username": "pool.ada@example.com",
                             "UserAttributes": [{"Name": "email", "Value": "pool.ada@example.com"}]}).encode(),
            headers={"Content-Type": "application/x-amz-json-1.1",
                     "X-Amz-Target": "AWSCognitoIdentityProviderService.AdminCreateUser"})
        with urllib.request.urlopen(request, timeout=10) as answer:
            check(answer.status == 200, f"AdminCreateUser on the local pool answered {answer.status}")
        browser.open(serve.console + "#pool")
        pool_rows = wait_for(lambda: browser.evaluate(
            "[...document.querySelectorAll('#pool-users tbody tr')].map(r => [...r.cells].slice(1).map(c => c.textContent))")
            or None, "the user pool page")
        check(pool_rows == [["pool.ada@example.com", "FORCE_CHANGE_PASSWORD", "free", "—"]],
              f"the user pool page lists the user, their status, tier and groups: {pool_rows}")
        browser.screenshot(os.path.join(args.screenshots, "console-pool.png"))

        fired = browser.marker_fired()
        check(fired is None, f"no script of the markup user's id ran ({fired or 'no dialog, no console marker'})")
        check(browser.evaluate("document.scripts.length") == 1 and browser.evaluate("document.images.length") == 0,
              "the page holds only its own script and no element from the markup")
        serve.stop()
        serve = None

        # A request's timeline: serve --bootstrap traces each invocation and the detail draws the
        # X-Ray segments the real bootstrap sent.
        bootstrap = os.path.join(os.path.dirname(args.emulator), "bootstrap")
        serve = Serve(args.emulator, os.path.join(work, "traced.json"), second,
                      ["--bootstrap", bootstrap, "--runtime-function", "generateQuestions"])
        browser.open(serve.console + "#requests")
        wait_for(lambda: browser.evaluate("document.getElementById('live').textContent") == "live",
                 "the live list of serve --bootstrap to connect")
        traced = token(args.emulator, "tracy", second)
        through_live_list(browser, serve, "POST", "/questions", traced, 200, "tracy, through bootstrap", question)
        browser.evaluate("document.querySelector('#requests tbody tr').click()")
        rows = wait_for(lambda: browser.evaluate(
            "[...document.querySelectorAll('#timeline tbody tr')].map(r => [...r.cells].map(c => c.textContent))")
            or None, "the request's timeline")
        names = [row[0].strip() for row in rows]
        check(names[0] == "## generateQuestions" and "consume" in names,
              f"the timeline shows the function's subsegment and its steps: {names}")
        check(rows[0][1] == "status 200", f"the function's row shows its answer: {rows[0]}")
        check(browser.evaluate("document.getElementById('timeline-empty').hidden"), "no 'no segments' note")
        gateway = browser.evaluate("document.getElementById('timeline-gateway').textContent")
        check("authorizer: invoked" in gateway, f"the timeline says the authorizer ran: {gateway}")
        check(traced not in browser.evaluate("document.getElementById('timeline').textContent"), "no token in it")
        browser.screenshot(os.path.join(args.screenshots, "console-timeline.png"))
        serve.stop()
        serve = None

        # The clock button under --clock virtual: bob fills his hour, +1 hour in the page, admitted again.
        start = "2026-03-12T09:00:00Z"
        serve = Serve(args.emulator, os.path.join(work, "clock-state.json"), start, ("--clock", "virtual"))
        browser.open(serve.console + "#requests")
        wait_for(lambda: browser.evaluate("document.getElementById('live').textContent") == "live",
                 "the live list to connect under --clock virtual")
        check(browser.evaluate("document.getElementById('clock-advance').hidden") is False,
              "the +1 hour button is shown under --clock virtual")
        bob = token(args.emulator, "bob", start)
        through_live_list(browser, serve, "POST", "/questions", bob, 200, "bob (1)", question)
        through_live_list(browser, serve, "POST", "/questions", bob, 200, "bob (2)", question)
        through_live_list(browser, serve, "POST", "/questions", bob, 429, "bob, hour full", question)
        before = browser.evaluate("document.body.dataset.clock")
        browser.evaluate("document.getElementById('clock-advance').click()")
        after = wait_for(lambda: (lambda t: t if t and t.startswith("2026-03-12T10:00:") else None)(
            browser.evaluate("document.body.dataset.clock")),
            "the clock to move one hour (shown: %s, error: %s)" % (
                browser.evaluate("document.body.dataset.clock"),
                browser.evaluate("document.getElementById('error').textContent")))
        check(after.startswith("2026-03-12T10:00:") and before.startswith("2026-03-12T09:00:"),
              f"+1 hour moved the clock from {before} to {after}")
        check(browser.evaluate("document.getElementById('clock-now').textContent").endswith("(virtual)"),
              "the header shows the clock as virtual")
        bob = token(args.emulator, "bob", "2026-03-12T10:00:00Z")
        through_live_list(browser, serve, "POST", "/questions", bob, 200, "bob after +1 hour", question)
        serve.stop()
        serve = None
    finally:
        if serve:
            serve.process.kill()
        browser.close()
        shutil.rmtree(work, ignore_errors=True)
    print(f"console: {passed} passed, 0 failed")


if __name__ == "__main__":
    try:
        main()
    except AssertionError as error:
        print(f"FAILED: {error}", file=sys.stderr)
        print(f"console: {passed} passed, 1 failed")
        sys.exit(1)
