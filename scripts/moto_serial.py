"""moto_server that applies one request at a time, as DynamoDB applies each write atomically.

Usage: python3 scripts/moto_serial.py [-H HOST] [-p PORT]   (defaults 127.0.0.1, 5000)

moto_server serves each request on its own thread without a lock. Two of its gaps then make a
correct client look wrong under concurrency:
- a cancelled TransactWriteItems restores a deep copy of the whole table taken when the
  transaction began, erasing whatever other requests wrote in between (seen in CI: replaying
  events/ on two lanes, one user's admitted charge vanished while another user's idempotent
  repeat was cancelled, so the next call was admitted past the hourly limit);
- two concurrent `UpdateItem ... ADD` on one item can lose one.
DynamoDB does neither: a transaction is all or nothing on its own items and serializable against
other writes, and every single-item write is atomic ("Isolation levels for DynamoDB
transactions", docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html).
Handling one request at a time (connections still each have a thread) gives moto those
guarantees at no cost that matters here: moto holds the GIL for almost all of a request anyway.
scripts/faults/proxy.py does the same for the fault harness, in front of a plain moto_server.
"""

import argparse
import threading

from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app
from werkzeug.serving import run_simple


def serial(app):
    """`app` as a WSGI application that runs one request, start to last byte, at a time."""
    one_at_a_time = threading.Lock()

    def application(environ, start_response):
        with one_at_a_time:
            result = app(environ, start_response)
            try:
                body = b"".join(result)
            finally:
                if hasattr(result, "close"):
                    result.close()
        return [body]

    return application


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-H", "--host", default="127.0.0.1")
    parser.add_argument("-p", "--port", type=int, default=5000)
    args = parser.parse_args()
    run_simple(args.host, args.port, serial(DomainDispatcherApplication(create_backend_app)), threaded=True)


if __name__ == "__main__":
    main()
