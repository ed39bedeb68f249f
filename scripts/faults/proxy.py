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
import re
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
        # - moto_server serves requests on threads with no lock around an item's read-modify-write,
        #   so two concurrent `ADD requestCount :one` can lose one (seen here: month 8, day 7, hour 8
        #   for one user): the proxy sends moto one request at a time per partition (`USER#…`),
        #   as DynamoDB applies each write and each transaction atomically. Per partition rather
        #   than one global lock, so that one slow moto answer does not hold every user up.
        self.tokens = {} if moto else None
        self.serialized = moto
        self._partitions = {}
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
        except OSError:
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
        locks = self._locks_for(body) if self.serialized else []
        for lock in locks:
            lock.acquire()
        try:
            answer = self._forward(request, body)
        finally:
            for lock in reversed(locks):
                lock.release()
        if token and answer[0] == 200:
            with self._lock:
                self.tokens[token] = (time.monotonic(), body, answer)
        return answer

    def _locks_for(self, body):
        """The locks of the partitions a request names, in one order (so two requests never wait
        for each other's second lock)."""
        names = sorted(set(re.findall(rb'"(USER#[^"]*)"', body)))
        with self._lock:
            return [self._partitions.setdefault(name, threading.Lock()) for name in names]

    def _forward(self, request, body):
        headers = {k: v for k, v in request.headers.items() if k.lower() not in HOP_BY_HOP}
        for attempt in (0, 1):
            if request.upstream_connection is None:
                host, _, port = self.upstream.rpartition(":")
                request.upstream_connection = http.client.HTTPConnection(host, int(port), timeout=30)
            try:
                request.upstream_connection.request(request.command, request.path, body=body, headers=headers)
                response = request.upstream_connection.getresponse()
                return response.status, response.getheaders(), response.read()
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

