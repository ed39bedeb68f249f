"""The one HTTP server the proxy and the model stub run on."""

import http.server
import sys


class QuietServer(http.server.ThreadingHTTPServer):
    """A threading HTTP server that does not print a traceback when a peer goes away mid-answer
    (a client timing out on a hang, a runtime killed by the harness): that is the run, not an error."""

    daemon_threads = True

    def handle_error(self, request, client_address):
        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            super().handle_error(request, client_address)
