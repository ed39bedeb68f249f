"""Clients as the app behaves: each intended call has a fresh `Idempotency-Key` and body; every
lost answer (connection error, timeout, 5xx, 409) is sent again with the same key and body, with
backoff, a bounded number of times. Each client writes down what it was told."""

import http.client
import json
import threading
import time

from schedule import unit

RETRIED = {409, 500, 502, 503, 504}


class Attempt:
    def __init__(self, sent, received, status, body, replayed):
        self.sent, self.received, self.status, self.body, self.replayed = sent, received, status, body, replayed

    @property
    def questions(self):
        return (self.body or {}).get("questions") if isinstance(self.body, dict) else None


class Call:
    """One intended call and every answer it got."""

    def __init__(self, user, key, body):
        self.user, self.key, self.body, self.attempts = user, key, body, []

    @property
    def final(self):
        return self.attempts[-1].status if self.attempts else None

    def first_ok(self):
        return next((a for a in self.attempts if a.status == 200), None)


def request(port, method, path, token, key=None, body=None, timeout=15.0):
    """One HTTP exchange with serve's API Gateway: (status, parsed body, headers) or (None, error, {})."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    headers = {"Authorization": f"Bearer {token}"}
    if key:
        headers["Idempotency-Key"] = key
    if body is not None:
        headers["Content-Type"] = "application/json"
    try:
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        raw = response.read()
        try:
            parsed = json.loads(raw)
        except ValueError:
            parsed = raw.decode(errors="replace")
        return response.status, parsed, {k.lower(): v for k, v in response.getheaders()}
    except (OSError, http.client.HTTPException) as error:
        return None, f"{type(error).__name__}: {error}", {}
    finally:
        connection.close()


class Load:
    """`clients` threads; client c makes `calls` intended calls for users chosen by the seed."""

    def __init__(self, seed, scenario, port, users, tokens, clients=8, calls=3, attempts=12):
        self.seed, self.scenario, self.port = seed, scenario, port
        self.users, self.tokens = users, tokens
        self.clients, self.calls, self.attempts = clients, calls, attempts
        self.ledger, self._lock = [], threading.Lock()

    def run(self):
        threads = [threading.Thread(target=self._client, args=(c,), daemon=True) for c in range(self.clients)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        return self.ledger

    def _client(self, c):
        for i in range(self.calls):
            user = self.users[int(unit(self.seed, self.scenario, "user", c * 1000 + i) * len(self.users))]
            key = f"{self.scenario}-{self.seed}-{c}-{i}-{user}"
            body = json.dumps({"topic": f"call {i} of client {c}", "count": 3})
            call = Call(user, key, body)
            with self._lock:
                self.ledger.append(call)
            self.send(call, c * 1000 + i)

    def send(self, call, n):
        """Sends `call` until it gets an answer other than a lost one, at most `attempts` times."""
        for attempt in range(self.attempts):
            sent = time.time()
            status, body, headers = request(self.port, "POST", "/questions", self.tokens[call.user], call.key, call.body)
            call.attempts.append(Attempt(sent, time.time(), status, body, headers.get("idempotent-replayed") == "true"))
            if status is not None and status not in RETRIED:
                return
            # Exponential backoff with seeded jitter (× 0.5 to 1.5): 0.25 s, 0.5 s, 1 s, 2 s, then 3 s;
            # at least the answer's Retry-After (up to 5 s), as the app does. Twelve tries span 14 to
            # 42 s: longer than an in-progress record's lease, so a 409 cannot use them all up.
            pause = min(3.0, 0.25 * 2 ** attempt) * (0.5 + unit(self.seed, self.scenario, "backoff", n, attempt))
            try:
                pause = max(pause, min(5.0, float(headers.get("retry-after", 0))))
            except ValueError:
                pass
            time.sleep(pause)
