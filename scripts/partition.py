#!/usr/bin/env python3
"""The partition key of a user's items in the usage table: `USER#` and the keyed pseudonym of the
user id under the server's secret (docs/table.md), as `ServerSecret.userKey` computes it: HKDF-SHA256
(salt "inkra server secret", info "user id") of the secret, then HMAC-SHA256 of the id, its first
16 bytes in lowercase hex. For scripts that read a local stack's table back.

    python3 scripts/partition.py SUB [SECRET]    # SECRET: the development secret when not given
"""
import hashlib
import hmac
import sys

DEVELOPMENT_SECRET = "inkra development secret: public, never for production"


def user_key(user_id, secret=DEVELOPMENT_SECRET):
    """The pseudonym of a user id: 32 lowercase hex digits."""
    prk = hmac.new(b"inkra server secret", secret.encode(), hashlib.sha256).digest()
    key = hmac.new(prk, b"user id\x01", hashlib.sha256).digest()
    return hmac.new(key, user_id.encode(), hashlib.sha256).hexdigest()[:32]


def user_partition(user_id, secret=DEVELOPMENT_SECRET):
    """The partition key of the user's items."""
    return "USER#" + user_key(user_id, secret)


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3) or sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        sys.exit(0 if len(sys.argv) == 2 else 2)
    print(user_partition(*sys.argv[1:]))
