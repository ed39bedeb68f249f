"""The stack under attack: one `inkra-emulator serve --clock virtual` on 127.0.0.1 (free ports), its
local user pool, its DynamoDB endpoint, its access log and `--record` folder, and optionally the
built `bootstrap` serving generateQuestions behind its Runtime API. One process serves every
sequence of a run; each sequence has emails of its own. Every wait polls with a bound."""

import datetime
import http.client
import importlib.util
import json
import os
import re
import subprocess
import threading
import time


def _faults_stack():
    """The fault harness's process helpers (scripts/faults/stack.py), loaded by path: one home for
    them, and none of its module names (model, run, …) shadows this folder's."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "faults", "stack.py")
    spec = importlib.util.spec_from_file_location("faults_stack", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_stack = _faults_stack()
free_port, stop, wait_until = _stack.free_port, _stack.stop, _stack.wait_until

START = "2027-01-15T08:05:00Z"  # the virtual clock's first instant: 5 minutes past an hour
CODE_LINE = re.compile(r"sign-up confirmation code for user ([0-9a-f-]+): (\d{6})")


class Serve:
    def __init__(self, binary, work, limits_file, bootstrap=None, log_level="info"):
        self.binary, self.work, self.limits_file, self.bootstrap = binary, work, limits_file, bootstrap
        self.log_level = log_level
        self.api_port, self.dynamodb_port, self.cognito_port = free_port(), free_port(), free_port()
        self.console_port, self.runtime_port = free_port(), free_port()
        self.record_dir = os.path.join(work, "recording")
        self.out_path, self.err_path = os.path.join(work, "serve.out"), os.path.join(work, "serve.err")
        self.process = None

    def command(self):
        command = [self.binary, "serve", "--clock", "virtual", "--now", START,
                   "--port", str(self.api_port), "--lambda-port", "0", "--runtime-api-port", str(self.runtime_port),
                   "--dynamodb-port", str(self.dynamodb_port), "--cognito-port", str(self.cognito_port),
                   "--console-port", str(self.console_port), "--limits", self.limits_file,
                   "--record", self.record_dir, "--log-level", self.log_level,
                   # API Gateway's stage throttle answers 429 before any function: not what is judged here.
                   "--no-throttle"]
        if self.bootstrap:
            command += ["--bootstrap", self.bootstrap, "--runtime-function", "generateQuestions", "--timeout", "20"]
        return command

    def start(self):
        self.process = subprocess.Popen(self.command(), stdout=open(self.out_path, "w"),
                                        stderr=open(self.err_path, "w"), stdin=subprocess.DEVNULL)

        def ready():
            if self.process.poll() is not None:
                raise RuntimeError(f"serve exited {self.process.returncode}: {read(self.err_path)[-2000:]}")
            return "Press Ctrl-C" in read(self.out_path)

        wait_until(ready, 60, "serve's banner")
        self.banner = read(self.out_path)
        return self

    @property
    def api(self):
        return f"http://127.0.0.1:{self.api_port}"

    @property
    def dynamodb(self):
        return f"http://127.0.0.1:{self.dynamodb_port}"

    @property
    def cognito(self):
        return f"http://127.0.0.1:{self.cognito_port}"

    @property
    def console(self):
        return f"http://127.0.0.1:{self.console_port}"

    def alive(self):
        return self.process is not None and self.process.poll() is None

    def stop(self):
        stop(self.process, grace=20)

    # -- what it wrote --------------------------------------------------------------------------------

    def confirmation_codes(self, sub, at_least=1, seconds=5.0):
        """Every sign-up code serve's standard error printed for `sub`, once there are `at_least`
        (polled, bounded)."""
        found = []

        def printed():
            found[:] = [code for who, code in CODE_LINE.findall(read(self.err_path)) if who == sub]
            return len(found) >= at_least

        wait_until(printed, seconds, f"confirmation code {at_least} of {sub} on serve's standard error")
        return list(found)

    def log_files(self):
        return [self.out_path, self.err_path]

    def recording_files(self):
        if not os.path.isdir(self.record_dir):
            return []
        return sorted(os.path.join(self.record_dir, name) for name in os.listdir(self.record_dir))

    # -- the clock --------------------------------------------------------------------------------------

    def clock(self, body=None):
        """GET (or POST `body` to) /_inkra/clock; the stack's time as epoch seconds."""
        status, answer, _ = exchange(self.api_port, "POST" if body else "GET", "/_inkra/clock",
                                     body=json.dumps(body).encode() if body else None)
        if status != 200 or not isinstance(answer, dict) or "now" not in answer:
            raise RuntimeError(f"/_inkra/clock answered {status}: {answer}")
        return parse_instant(answer["now"])


def read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def parse_instant(text):
    text = text.replace("Z", "+00:00")
    return datetime.datetime.fromisoformat(text).timestamp()


def iso(epoch):
    return datetime.datetime.fromtimestamp(epoch, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


_connections = threading.local()  # per thread: port -> (connection, when last used)
REUSE_SECONDS = 2.0  # a kept-alive connection idle longer than this is not reused (never sent twice)


def exchange(port, method, path, token=None, key=None, body=None, timeout=20.0):
    """One HTTP/1.1 exchange with 127.0.0.1:`port`: (status, parsed body, lower-cased headers), or
    (None, the error's text, {}) when no answer came within `timeout`. The thread's connection
    to the port is kept alive for its next exchange (fresh after REUSE_SECONDS idle); nothing is
    ever sent again after an error, so the model sees every request the stack saw."""
    pool = getattr(_connections, "pool", None)
    if pool is None:
        pool = _connections.pool = {}
    connection, used = pool.pop(port, (None, 0.0))
    if connection is None or time.monotonic() - used > REUSE_SECONDS:
        if connection is not None:
            connection.close()
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    connection.timeout = timeout
    headers = {}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    if key is not None:
        headers["Idempotency-Key"] = key
    if body is not None:
        headers["Content-Type"] = "application/json"
    try:
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        raw = response.read()
        try:
            parsed = json.loads(raw) if raw else None
        except ValueError:
            parsed = raw.decode(errors="replace")
        if not response.will_close:
            pool[port] = (connection, time.monotonic())
        else:
            connection.close()
        return response.status, parsed, {k.lower(): v for k, v in response.getheaders()}
    except (OSError, http.client.HTTPException) as error:
        connection.close()
        return None, f"{type(error).__name__}: {error}", {}
