"""A seeded fault proxy for DynamoDB's JSON protocol (HTTP/1.1, keep-alive), standard library only.

It reads `X-Amz-Target` (`DynamoDB_20120810.GetItem`) to know the operation and asks the
schedule what to do with this call. The error bodies follow DynamoDB's documented shape, a 400 or
500 with `{"__type": "<namespace>#<Name>", "message": …}`:
  - https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Programming.Errors.html
    (error components, the JSON example, "Transactional errors", ThrottlingException and
    ProvisionedThroughputExceededException as 400s to retry, InternalServerError as a 500);
  - https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/CommonErrors.html
    (ThrottlingException, 400, is a common error of every operation);
  - https://docs.aws.amazon.com/botocore/latest/reference/services/dynamodb/client/exceptions/ProvisionedThroughputExceededException.html
    (the `message` member; SDKs retry it with backoff);
  - https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactWriteItems.html
    (TransactionCanceledException carries CancellationReasons, one per action in request order,
    with codes such as `None`, `ThrottlingError` and `TransactionConflict`);
  - https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchGetItem.html
    (UnprocessedKeys: the keys not read, in the request's KeysAndAttributes shape).

Fault kinds: delay, drop-before (close without forwarding), drop-after (forward, then close without
answering: the caller cannot know the outcome), status-500, throttling, throughput (400s),
cancel-throttling, cancel-conflict (TransactWriteItems), unprocessed (BatchGetItem: forward, then
move some requested keys into UnprocessedKeys).
"""

import http.client
import http.server
import json
import socket
import threading
import time

from server import QuietServer
import zlib

NAMESPACE = "com.amazonaws.dynamodb.v20120810"
ERRORS = {
    "status-500": (500, f"{NAMESPACE}#InternalServerError", "Internal server error (injected)"),
    # DynamoDB answers an on-demand table's throttling as a 400 ThrottlingException with this message
    # (quoted in aws/aws-sdk-java#2222). Its `__type` prefix is not documented; SDKs, ours included
    # (ErrorMapping.swift), read the name after the '#'.
    "throttling": (400, f"{NAMESPACE}#ThrottlingException",
                   "Throughput exceeds the current capacity of your table or index. DynamoDB is automatically "
                   "scaling your table or index so please try again shortly. (injected)"),
    "throughput": (400, f"{NAMESPACE}#ProvisionedThroughputExceededException",
                   "The level of configured provisioned throughput for the table was exceeded. (injected)"),
}
CANCELLATIONS = {"cancel-throttling": "ThrottlingError", "cancel-conflict": "TransactionConflict"}
UPSTREAM_TIMEOUT = 5.0  # seconds; the runtime's own per-request timeout is 3 s
HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "proxy-connection", "upgrade"}


class FaultProxy:
    """Listens on 127.0.0.1:`port` (0: a free port) and forwards to `upstream` (`host:port`)."""

    def __init__(self, upstream, schedule, port=0, moto=False):
        self.upstream, self.schedule = upstream, schedule
        # With `moto`, the proxy keeps two promises of DynamoDB that moto_server does not, so that
        # what is judged is how our code answers DynamoDB, not moto's gaps:
        # - moto ignores TransactWriteItems' ClientRequestToken, which DynamoDB honours for 10
        #   minutes (API_TransactWriteItems.html: a repeat with the same token returns success
        #   without applying again): the proxy answers such a repeat with the first success;
        # - moto_server serves requests on threads without locks: two concurrent `ADD requestCount
        #   :one` can lose one, and TransactWriteItems deep-copies the whole table to roll back a
        #   cancelled transaction, restoring that copy over whatever other requests wrote meanwhile
        #   (or failing with "dictionary changed size during iteration"). Seen here: a user at month
        #   4, day 3, hour 4. The proxy sends moto one request at a time, as DynamoDB applies each
        #   write and transaction atomically; each scenario has a table of its own, so the copy
        #   stays small and one request at a time stays fast.
        self.tokens = {} if moto else None
        self.one_at_a_time = threading.Lock() if moto else None
        # Exchanges with the upstream that took longer than UPSTREAM_TIMEOUT or failed: not faults
        # the schedule chose, so they are counted apart and printed with the figures.
        self.incidents = {}
        self.unprocessed_gaps = []  # seconds between an UnprocessedKeys answer and the next BatchGetItem
        self._last_unprocessed = {}
        self._lock = threading.Lock()
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            upstream_connection = None

            def log_message(self, *args):
                pass

            def do_POST(self):
                proxy.handle(self)

            def do_GET(self):
                proxy.handle(self)

            def finish(self):
                if self.upstream_connection is not None:
                    self.upstream_connection.close()
                super().finish()

        self.server = QuietServer(("127.0.0.1", port), Handler)
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def start(self):
        self._thread.start()
        return self

    def stop(self):
        self.server.shutdown()
        self.server.server_close()

    # -- one request --------------------------------------------------------------------------------

    def handle(self, request):
        length = int(request.headers.get("Content-Length") or 0)
        body = request.rfile.read(length) if length else b""
        operation = (request.headers.get("X-Amz-Target") or "").rpartition(".")[2] or "other"
        kind, seconds, n = self.schedule.decide(operation)
        if kind:
            self.schedule.count(operation, kind)
        if operation == "BatchGetItem":
            self._note_batch_get(request)
        if kind == "delay":
            time.sleep(seconds * (0.5 + self.schedule.fraction(operation, n, "delay")))
        if kind == "drop-before":
            return self._drop(request)
        if kind in ERRORS:
            status, error_type, message = ERRORS[kind]
            return self._answer(request, status, {"__type": error_type, "message": message})
        if kind in CANCELLATIONS and operation == "TransactWriteItems":
            return self._answer(request, 400, self._cancellation(body, CANCELLATIONS[kind]))
        try:
            status, headers, answer = self._forward_once(request, operation, body)
        except OSError as error:
            with self._lock:
                key = f"{operation}:{'timeout' if isinstance(error, TimeoutError) else 'upstream-error'}"
                self.incidents[key] = self.incidents.get(key, 0) + 1
            return self._drop(request)
        if kind == "drop-after":
            return self._drop(request)
        if kind == "unprocessed" and operation == "BatchGetItem" and status == 200:
            answer = self._unprocess(body, answer, n)
            with self._lock:
                self._last_unprocessed[request.client_address] = time.monotonic()
        self._answer_raw(request, status, headers, answer)

    def _forward_once(self, request, operation, body):
        token = None
        if self.tokens is not None and operation == "TransactWriteItems":
            try:
                token = json.loads(body).get("ClientRequestToken")
            except ValueError:
                token = None
        if token:
            with self._lock:
                seen = self.tokens.get(token)
            if seen and time.monotonic() - seen[0] < 600:
                if seen[1] != body:
                    return 400, [("Content-Type", "application/x-amz-json-1.0")], json.dumps({
                        "__type": f"{NAMESPACE}#IdempotentParameterMismatchException",
                        "message": "The request uses the same client token as a previous, but non-identical request."}).encode()
                return seen[2]
        if self.one_at_a_time:
            with self.one_at_a_time:
                answer = self._forward(request, body)
        else:
            answer = self._forward(request, body)
        if token and answer[0] == 200:
            with self._lock:
                self.tokens[token] = (time.monotonic(), body, answer)
        return answer

    def _forward(self, request, body):
        headers = {k: v for k, v in request.headers.items() if k.lower() not in HOP_BY_HOP}
        for attempt in (0, 1):
            if request.upstream_connection is None:
                host, _, port = self.upstream.rpartition(":")
                request.upstream_connection = http.client.HTTPConnection(host, int(port), timeout=UPSTREAM_TIMEOUT)
            try:
                request.upstream_connection.request(request.command, request.path, body=body, headers=headers)
                response = request.upstream_connection.getresponse()
                return response.status, response.getheaders(), response.read()
            except TimeoutError:
                # Never sent twice: the first may have been applied. With one request at a time, a
                # stuck exchange holds the others up for at most UPSTREAM_TIMEOUT.
                request.upstream_connection.close()
                request.upstream_connection = None
                raise
            except (OSError, http.client.HTTPException):
                # A kept-alive upstream connection may have been closed in between: reconnect once.
                request.upstream_connection.close()
                request.upstream_connection = None
                if attempt == 1:
                    raise OSError("upstream unreachable")

    def _answer(self, request, status, document):
        payload = json.dumps(document).encode()
        headers = [("Content-Type", "application/x-amz-json-1.0"), ("x-amzn-RequestId", "fault-proxy")]
        self._answer_raw(request, status, headers, payload)

    def _answer_raw(self, request, status, headers, payload):
        request.send_response_only(status)
        for name, value in headers:
            if name.lower() not in HOP_BY_HOP and name.lower() not in ("content-length", "x-amz-crc32"):
                request.send_header(name, value)
        # DynamoDB signs each answer's bytes with x-amz-crc32 (the SDKs check it): recomputed, since
        # an answer may have been rewritten.
        request.send_header("x-amz-crc32", str(zlib.crc32(payload)))
        request.send_header("Content-Length", str(len(payload)))
        request.end_headers()
        request.wfile.write(payload)
        request.wfile.flush()

    @staticmethod
    def _drop(request):
        request.close_connection = True
        try:
            request.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    @staticmethod
    def _cancellation(body, code):
        try:
            actions = len(json.loads(body).get("TransactItems", [])) or 1
        except ValueError:
            actions = 1
        reasons = [{"Code": "None"} for _ in range(actions)]
        reasons[0] = {"Code": code, "Message": f"{code} (injected)"}
        names = ", ".join(r["Code"] for r in reasons)
        return {"__type": f"{NAMESPACE}#TransactionCanceledException",
                "Message": f"Transaction cancelled, please refer cancellation reasons for specific reasons [{names}]",
                "CancellationReasons": reasons}

    def _unprocess(self, body, answer, n):
        """Moves a seeded, non-empty subset of the requested keys into UnprocessedKeys."""
        try:
            request, document = json.loads(body), json.loads(answer)
        except ValueError:
            return answer
        unprocessed = {}
        for table, spec in request.get("RequestItems", {}).items():
            keys = spec.get("Keys", [])
            chosen = [k for i, k in enumerate(keys) if self.schedule.fraction("BatchGetItem", n, f"key{i}") < 0.5]
            if not chosen and keys:
                chosen = [keys[int(self.schedule.fraction("BatchGetItem", n, "one") * len(keys))]]
            if not chosen:
                continue
            unprocessed[table] = dict(spec, Keys=chosen)
            items = document.get("Responses", {}).get(table, [])
            document.setdefault("Responses", {})[table] = [i for i in items if _key(i) not in map(_key, chosen)]
        document["UnprocessedKeys"] = unprocessed
        return json.dumps(document).encode()

    def _note_batch_get(self, request):
        with self._lock:
            then = self._last_unprocessed.pop(request.client_address, None)
            if then is not None:
                self.unprocessed_gaps.append(time.monotonic() - then)


def _key(item):
    return (json.dumps(item.get("PK")), json.dumps(item.get("SK")))

