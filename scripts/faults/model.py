"""An OpenAI-compatible chat-completions stub (`POST /v1/chat/completions`), seeded.

Each call is the n-th of the stream "model": the schedule says whether it answers at once, slowly
(`slow`, `seconds` × 0.5–1.5), hangs (`hang`: holds the request `seconds`, past any deadline,
then drops it) or fails (`fail`: 500 with OpenAI's error shape). The questions differ per call, so
a replayed answer can be told from a regenerated one.
"""

import http.server
import json
import socket
import threading
import time

from server import QuietServer


class ModelStub:
    def __init__(self, schedule, port=0):
        self.schedule = schedule
        self._stopping = threading.Event()
        stub = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                stub.handle(self)

        self.server = QuietServer(("127.0.0.1", port), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def start(self):
        self._thread.start()
        return self

    def stop(self):
        self._stopping.set()
        self.server.shutdown()
        self.server.server_close()

    def handle(self, request):
        length = int(request.headers.get("Content-Length") or 0)
        if length:
            request.rfile.read(length)
        if request.path.rstrip("/") != "/v1/chat/completions":
            return self._answer(request, 404, {"error": {"message": "unknown path", "type": "invalid_request_error"}})
        kind, seconds, n = self.schedule.decide("model")
        if kind:
            self.schedule.count("model", kind)
        if kind == "slow":
            time.sleep(seconds * (0.5 + self.schedule.fraction("model", n, "slow")))
        elif kind == "hang":
            # Bounded: the stub never outlives its run, and the caller's deadline is far shorter.
            self._stopping.wait(seconds)
            request.close_connection = True
            try:
                request.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            return
        elif kind == "fail":
            return self._answer(request, 500, {"error": {"message": "injected failure", "type": "server_error"}})
        lines = [f"What did call {n} teach you about question {i} of your story?" for i in range(1, 21)]
        return self._answer(request, 200, {
            "id": f"chatcmpl-{n}", "object": "chat.completion", "model": "fault-stub",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": "\n".join(lines)}}],
        })

    @staticmethod
    def _answer(request, status, document):
        payload = json.dumps(document).encode()
        request.send_response(status)
        request.send_header("Content-Type", "application/json")
        request.send_header("Content-Length", str(len(payload)))
        request.end_headers()
        request.wfile.write(payload)

