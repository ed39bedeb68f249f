"""The processes under test, all on 127.0.0.1: `inkra-emulator serve`, the built `bootstrap`
polling serve's Runtime API, and the `inkra-emulator` commands the harness runs (token,
create-table, admin repair). Every wait polls a port, a file or a socket table with a bound."""

import json
import os
import signal
import socket
import subprocess
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(predicate, seconds, what):
    """Polls `predicate` every 50 ms for at most `seconds`; raises naming `what` when it never holds."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if predicate():
            return
        time.sleep(0.05)
    raise RuntimeError(f"timed out after {seconds} s waiting for {what}")


class Emulator:
    """The built `inkra-emulator`'s one-shot commands."""

    def __init__(self, binary, work):
        self.binary, self.work = binary, work
        self._tokens = {}

    def run(self, *arguments, check=True, timeout=120):
        result = subprocess.run([self.binary, *arguments], capture_output=True, text=True, timeout=timeout)
        if check and result.returncode != 0:
            raise RuntimeError(f"inkra-emulator {' '.join(arguments)} exited {result.returncode}: {result.stderr.strip()}")
        return result

    def token(self, sub, tier):
        if (sub, tier) not in self._tokens:
            self._tokens[(sub, tier)] = self.run("token", "--sub", sub, "--tier", tier, "--expires-in", "7200").stdout.strip()
        return self._tokens[(sub, tier)]

    def create_table(self, endpoint, table):
        self.run("create-table", "--dynamodb-endpoint", endpoint, "--table", table, "--if-not-exists")

    def repair(self, endpoint, table, now):
        """`admin repair` (issue #36, item 3): gives back every charge whose idempotency record is
        still in progress after its lease expired. Returns (ok, repaired count or None, message)."""
        result = self.run("admin", "repair", "--dynamodb-endpoint", endpoint, "--table", table, "--yes",
                          "--at", now, check=False)
        output = (result.stdout + result.stderr).strip()
        repaired = None
        for line in result.stdout.splitlines():
            words = line.split()
            if len(words) >= 3 and words[0] == "repaired" and words[1].isdigit():
                repaired = int(words[1])
        if result.returncode != 0 or repaired is None:
            return False, None, f"exit {result.returncode}: {output.splitlines()[0] if output else 'no output'}"
        return True, repaired, output


def kill(process):
    """SIGKILL a child that is still running, and reap it."""
    if process and process.poll() is None:
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)


def stop(process, grace):
    """SIGTERM a child that is still running; SIGKILL it if it is not gone within `grace` seconds."""
    if process and process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            kill(process)


class Serve:
    """`inkra-emulator serve` on fixed ports (so a restart after SIGKILL comes back where the
    clients and runtimes look for it)."""

    def __init__(self, binary, work, name, arguments):
        self.binary, self.work, self.name, self.arguments = binary, work, name, arguments
        self.api_port, self.runtime_port = free_port(), free_port()
        self.process, self.starts = None, 0

    def start(self):
        self.starts += 1
        out = os.path.join(self.work, f"{self.name}.{self.starts}.out")
        err = open(os.path.join(self.work, f"{self.name}.{self.starts}.err"), "w")
        command = [self.binary, "serve", "--port", str(self.api_port), "--lambda-port", "0",
                   "--runtime-api-port", str(self.runtime_port), "--no-console", "--no-access-log",
                   # The stage's throttling is not what this harness measures: its 429s are API
                   # Gateway's, before any function, and would only stand between a client and its answer.
                   "--no-throttle", *self.arguments]
        self.process = subprocess.Popen(command, stdout=open(out, "w"), stderr=err, stdin=subprocess.DEVNULL)

        def ready():
            if self.process.poll() is not None:
                raise RuntimeError(f"serve exited {self.process.returncode}: {open(err.name).read()[-2000:]}")
            return "Press Ctrl-C" in open(out).read()

        wait_until(ready, 60, "serve's banner")
        self.banner = open(out).read()
        return self

    def endpoint(self, label):
        """The URL the banner prints for `label` (`DynamoDB`, `Cognito`)."""
        for line in self.banner.splitlines():
            words = line.split()
            if words and words[0] == label and len(words) > 1 and words[1].startswith("http"):
                return words[1]
        return None

    def kill(self):
        """SIGKILL, as a host crash would end it."""
        kill(self.process)

    def stop(self):
        stop(self.process, grace=20)


class Runtime:
    """The built `bootstrap`, started as Lambda starts it: the variables LocalRuntime sets for
    `serve --bootstrap`, plus `INKRA_GATEWAY_TIMEOUT` (which serve does not pass on) and the model."""

    def __init__(self, binary, work, name, serve, function, environment):
        self.binary, self.work, self.name, self.serve = binary, work, name, serve
        self.function, self.environment = function, environment
        self.process, self.starts = None, 0

    def start(self):
        self.starts += 1
        environment = {k: v for k, v in os.environ.items() if not k.startswith("INKRA_")}
        environment.update({
            "AWS_LAMBDA_RUNTIME_API": f"127.0.0.1:{self.serve.runtime_port}",
            "_HANDLER": self.function, "AWS_LAMBDA_FUNCTION_NAME": self.function,
            "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "256", "INKRA_STORE": "dynamodb",
            "INKRA_SERVER_SECRET": "inkra development secret: public, never for production",
            "AWS_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": os.environ.get("AWS_ACCESS_KEY_ID", "testing"),
            "AWS_SECRET_ACCESS_KEY": os.environ.get("AWS_SECRET_ACCESS_KEY", "testing"),
            "LOG_LEVEL": "warning",
        })
        environment.update(self.environment)
        err = open(os.path.join(self.work, f"{self.name}.{self.starts}.log"), "w")
        self.process = subprocess.Popen([self.binary], env=environment, stdout=err, stderr=err, stdin=subprocess.DEVNULL)
        return self

    def kill(self):
        kill(self.process)

    def stop(self):
        stop(self.process, grace=10)


def wait_for_runtimes(serve, count, seconds=60):
    """Waits until `count` long polls hold the Runtime API (each runtime polls once it is up)."""
    def polling():
        try:
            with open("/proc/net/tcp") as table:
                next(table)
                return sum(1 for line in table
                           if line.split()[3] == "01" and int(line.split()[2].split(":")[1], 16) == serve.runtime_port) >= count
        except OSError:
            return False
    wait_until(polling, seconds, f"{count} runtime(s) polling 127.0.0.1:{serve.runtime_port}")


def write_json(path, document):
    with open(path, "w") as f:
        json.dump(document, f)
    return path
