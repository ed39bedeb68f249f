#!/usr/bin/env python3
"""Writes the sample events under events/ — API Gateway events as a deployed stack receives them,
with tokens signed by the emulator's development key at each event's recorded time.

Run from the repository root, then `swift run inkra-emulator replay events --update` writes the
expectations, which are reviewed by hand before they are committed.
"""
import base64
import copy
import json
import os
import sys
import uuid
from datetime import datetime, timedelta, timezone

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KEY = serialization.load_pem_private_key(
    open(os.path.join(ROOT, "emulator/dev-keys/dev-private-key.pem"), "rb").read(), password=None
)
KID = "inkra-local-development-key"
ISSUER = "https://cognito-idp.us-east-1.amazonaws.com/us-east-1_InkraLocal"
CLIENT = "inkra-local-client"
ACCOUNT, API, REGION = "123456789012", "a1b2c3d4e5", "us-east-1"
HOST = f"{API}.execute-api.{REGION}.amazonaws.com"
AGENT = "Inkra/1.4.2 (iPhone; iOS 18.1)"


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def token(sub, at, email=None, tier=None, groups=None, quota=None, lifetime=3600, issuer=ISSUER):
    """An ID token, the one template.yaml's authorizer accepts (INKRA_TOKEN_USE: id), with exactly the
    claims Cognito puts in one ("Understanding the identity (ID) token", Cognito developer guide):
    every user of the pool has an email (<sub>@example.com unless given); custom attributes and
    cognito:groups only when the user has them."""
    issued = int(at.timestamp())
    claims = {
        "sub": sub,
        "iss": issuer,
        "aud": CLIENT,
        "origin_jti": str(uuid.uuid5(uuid.NAMESPACE_URL, f"{sub}/{issued}")),
        "event_id": str(uuid.uuid5(uuid.NAMESPACE_DNS, f"{sub}/{issued}")),
        "token_use": "id",
        "auth_time": issued,
        "iat": issued,
        "exp": issued + lifetime,
        "jti": str(uuid.uuid5(uuid.NAMESPACE_OID, f"{sub}/{issued}")),
        "cognito:username": sub,
        "email": email or f"{sub}@example.com",
        "email_verified": True,
    }
    if tier:
        claims["custom:subscription_tier"] = tier
    if groups:
        claims["cognito:groups"] = groups
    if quota:
        claims["custom:monthly_quota"] = str(quota)
    header = {"kid": KID, "alg": "RS256"}
    signing_input = (
        b64url(json.dumps(header, separators=(",", ":")).encode())
        + "."
        + b64url(json.dumps(claims, separators=(",", ":")).encode())
    )
    signature = KEY.sign(signing_input.encode(), padding.PKCS1v15(), hashes.SHA256())
    return signing_input + "." + b64url(signature)


def tampered(jwt):
    header, payload, signature = jwt.split(".")
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    claims["custom:subscription_tier"] = "premium"
    return header + "." + b64url(json.dumps(claims, separators=(",", ":")).encode()) + "." + signature


def at(text):
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)


def request_id(name):
    return str(uuid.uuid5(uuid.NAMESPACE_URL, name))


def rest(method, path, when, bearer=None, body=None, base64_body=False, extra_headers=None, name=""):
    headers = {
        "Accept": "application/json",
        "Accept-Encoding": "gzip, deflate, br",
        "CloudFront-Forwarded-Proto": "https",
        "CloudFront-Is-Mobile-Viewer": "true",
        "CloudFront-Viewer-Country": "US",
        "Content-Type": "application/json",
        "Host": HOST,
        "User-Agent": AGENT,
        "Via": "2.0 4f5d3c1e0b2a.cloudfront.net (CloudFront)",
        "X-Amz-Cf-Id": "kQ3m1_sJc5Ff0w4k8V5d2rY1qQ7o6e9uT3a0bX2cZ4yW8vU6tS1rP==",
        "X-Amzn-Trace-Id": "Root=1-6739a1b2-3c4d5e6f7a8b9c0d1e2f3a4b",
        "X-Forwarded-For": "203.0.113.42, 130.176.88.12",
        "X-Forwarded-Port": "443",
        "X-Forwarded-Proto": "https",
    }
    if bearer is not None:
        headers["Authorization"] = bearer
    headers.update(extra_headers or {})
    if body is not None and base64_body:
        body = base64.b64encode(body.encode()).decode()
    return {
        "resource": path,
        "path": path,
        "httpMethod": method,
        "headers": headers,
        "multiValueHeaders": {k: [v] for k, v in headers.items()},
        "queryStringParameters": None,
        "multiValueQueryStringParameters": None,
        "pathParameters": None,
        "stageVariables": None,
        "requestContext": {
            "resourceId": "x7k2p9",
            "resourcePath": path,
            "httpMethod": method,
            "extendedRequestId": "Bq3Xr5fKoAMEb4w=",
            "requestTime": when.strftime("%d/%b/%Y:%H:%M:%S +0000"),
            "path": "/prod" + path,
            "accountId": ACCOUNT,
            "protocol": "HTTP/1.1",
            "stage": "prod",
            "domainPrefix": API,
            "requestTimeEpoch": int(when.timestamp() * 1000),
            "requestId": request_id(name),
            "identity": {
                "cognitoIdentityPoolId": None,
                "accountId": None,
                "cognitoIdentityId": None,
                "caller": None,
                "sourceIp": "203.0.113.42",
                "principalOrgId": None,
                "accessKey": None,
                "cognitoAuthenticationType": None,
                "cognitoAuthenticationProvider": None,
                "userArn": None,
                "userAgent": AGENT,
                "user": None,
            },
            "domainName": HOST,
            "apiId": API,
        },
        "body": body,
        "isBase64Encoded": base64_body,
    }


def http(method, path, when, bearer=None, body=None, extra_headers=None, name=""):
    headers = {
        "accept": "application/json",
        "accept-encoding": "gzip, deflate, br",
        "content-length": str(len(body or "")),
        "content-type": "application/json",
        "host": HOST,
        "user-agent": AGENT,
        "x-amzn-trace-id": "Root=1-6739a1b2-7f8e9d0c1b2a3f4e5d6c7b8a",
        "x-forwarded-for": "203.0.113.42",
        "x-forwarded-port": "443",
        "x-forwarded-proto": "https",
    }
    if bearer is not None:
        headers["authorization"] = bearer
    headers.update(extra_headers or {})
    event = {
        "version": "2.0",
        "routeKey": f"{method} {path}",
        "rawPath": path,
        "rawQueryString": "",
        "headers": headers,
        "requestContext": {
            "accountId": ACCOUNT,
            "apiId": API,
            "domainName": HOST,
            "domainPrefix": API,
            "http": {"method": method, "path": path, "protocol": "HTTP/1.1", "sourceIp": "203.0.113.42", "userAgent": AGENT},
            "requestId": "Bq3Xr" + request_id(name)[:10],
            "routeKey": f"{method} {path}",
            "stage": "$default",
            "time": when.strftime("%d/%b/%Y:%H:%M:%S +0000"),
            "timeEpoch": int(when.timestamp() * 1000),
        },
        "isBase64Encoded": False,
    }
    if body is not None:
        event["body"] = body
    return event


def token_authorizer(bearer, when, method="POST", path="/questions"):
    return {
        "type": "TOKEN",
        "authorizationToken": bearer,
        "methodArn": f"arn:aws:execute-api:{REGION}:{ACCOUNT}:{API}/prod/{method}{path}",
        "x-inkra-recorded-at": when.strftime("%Y-%m-%dT%H:%M:%SZ"),
    }


def request_authorizer(bearer, when, name):
    event = rest("GET", "/usage", when, bearer=bearer, name=name)
    for key in ("body", "isBase64Encoded"):
        event.pop(key)
    event = {"type": "REQUEST", "methodArn": f"arn:aws:execute-api:{REGION}:{ACCOUNT}:{API}/prod/GET/usage", **event}
    return event


def http_authorizer(bearer, when, name):
    event = http("POST", "/questions", when, bearer=bearer, name=name)
    event.pop("isBase64Encoded")
    return {
        "version": "2.0",
        "type": "REQUEST",
        "routeArn": f"arn:aws:execute-api:{REGION}:{ACCOUNT}:{API}/$default/POST/questions",
        "identitySource": [bearer],
        **{k: v for k, v in event.items() if k != "version"},
    }


EVENTS = {}


def add(path, event):
    EVENTS[path] = event


def main():
    day = "2026-11-16"
    t = lambda hm: at(f"{day}T{hm}:00Z")
    bearer = lambda *a, **k: "Bearer " + token(*a, **k)
    topic = json.dumps({"topic": "my grandmother's childhood in Naples", "length": "short"})

    # authorizer/
    add("authorizer/01-token-free-user", token_authorizer(bearer("a-free", t("08:00"), email="ana@example.com"), t("08:00")))
    add("authorizer/02-token-premium-group", token_authorizer(bearer("a-premium", t("08:01"), groups=["premium_tier"]), t("08:01")))
    add("authorizer/03-token-monthly-quota-claim", token_authorizer(bearer("a-quota", t("08:02"), quota=12), t("08:02")))
    add("authorizer/04-request-authorizer", request_authorizer(bearer("a-request", t("08:03")), t("08:03"), "a4"))
    add("authorizer/05-http-api-v2-simple", http_authorizer(bearer("a-http", t("08:04"), tier="premium"), t("08:04"), "a5"))
    add("authorizer/06-token-missing", token_authorizer("", t("08:05")))
    add("authorizer/07-token-expired", token_authorizer(bearer("a-late", t("06:00")), t("08:06")))
    add("authorizer/08-token-wrong-issuer", token_authorizer(
        bearer("a-foreign", t("08:07"), issuer="https://cognito-idp.us-east-1.amazonaws.com/us-east-1_SomeoneElse"), t("08:07")))
    add("authorizer/09-token-tampered", token_authorizer("Bearer " + tampered(token("a-tamper", t("08:08"))), t("08:08")))
    add("authorizer/10-token-blocked-user", token_authorizer(bearer("a-blocked", t("08:09"), groups=["blocked"]), t("08:09")))
    add("authorizer/11-http-api-v2-garbage-token", http_authorizer("Bearer not-a-jwt", t("08:10"), "a11"))

    # checkUsage/
    add("checkUsage/01-rest-new-user", rest("GET", "/usage", t("09:00"), bearer("c-new", t("09:00")), name="c1"))
    add("checkUsage/02-http-v2-premium", http("GET", "/usage", t("09:01"), bearer("c-premium", t("09:01"), tier="premium"), name="c2"))
    add("checkUsage/03-rest-no-token", rest("GET", "/usage", t("09:02"), name="c3"))
    add("checkUsage/04-rest-cognito-authorizer", {**rest("GET", "/usage", t("09:03"), name="c4")})
    EVENTS["checkUsage/04-rest-cognito-authorizer"]["requestContext"]["authorizer"] = {
        "claims": {"sub": "c-cognito", "email": "cog@example.com", "cognito:groups": "premium_tier",
                   "token_use": "id", "iss": ISSUER, "aud": CLIENT}
    }

    # deleteAccount/
    add("deleteAccount/01-rest-delete-account", rest("DELETE", "/account", t("09:30"), bearer("d-leaving", t("09:30")), name="d1"))
    add("deleteAccount/02-rest-no-token", rest("DELETE", "/account", t("09:31"), name="d2"))

    # generateQuestions/
    g = lambda n, hm, **k: rest("POST", "/questions", t(hm), name=f"g{n}", **k)
    add("generateQuestions/01-rest-free-user", g(1, "10:00", bearer=bearer("g-free", t("10:00")), body=topic))
    add("generateQuestions/02-http-v2-premium", http("POST", "/questions", t("10:01"), bearer("g-premium", t("10:01"), tier="premium"),
        body=json.dumps({"topic": "starting a bakery", "count": 8}), name="g2"))
    add("generateQuestions/03-rest-base64-body", g(3, "10:02", bearer=bearer("g-base64", t("10:02")),
        body=json.dumps({"topic": "learning to sail", "count": 4, "language": "es"}), base64_body=True))
    add("generateQuestions/04-bad-json-body", g(4, "10:03", bearer=bearer("g-bad", t("10:03")), body='{"topic": "x",'))
    add("generateQuestions/05-missing-topic", g(5, "10:04", bearer=bearer("g-bad", t("10:04")), body='{"count": 3}'))
    add("generateQuestions/06-count-out-of-range", g(6, "10:05", bearer=bearer("g-bad", t("10:05")), body='{"topic": "x", "count": 50}'))
    add("generateQuestions/07-idempotency-first", g(7, "10:06", bearer=bearer("g-idem", t("10:06")), body=topic,
        extra_headers={"Idempotency-Key": "7f9c2ba4-e88f-4d2b-9f3a-1c8e5b6a0d41"}))
    add("generateQuestions/08-idempotency-repeat", g(8, "10:07", bearer=bearer("g-idem", t("10:06")), body=topic,
        extra_headers={"Idempotency-Key": "7f9c2ba4-e88f-4d2b-9f3a-1c8e5b6a0d41"}))
    add("generateQuestions/09-expired-token", g(9, "10:08", bearer=bearer("g-late", t("08:00")), body=topic))
    add("generateQuestions/10-tampered-token", g(10, "10:09", bearer="Bearer " + tampered(token("g-tamper", t("10:09"))), body=topic))
    add("generateQuestions/11-blocked-user", g(11, "10:10", bearer=bearer("g-blocked", t("10:10"), groups=["blocked"]), body=topic))
    add("generateQuestions/12-http-v2-missing-token", http("POST", "/questions", t("10:11"), body=topic, name="g12"))
    add("generateQuestions/13-rest-cognito-authorizer", g(13, "10:12", body=json.dumps({"topic": "the 2011 floods", "length": "long"})))
    EVENTS["generateQuestions/13-rest-cognito-authorizer"]["requestContext"]["authorizer"] = {
        "claims": {"sub": "g-cognito", "email": "cog@example.com", "custom:monthly_quota": "40", "token_use": "id"}
    }

    # free-user-limits/: one free user through the hourly, daily and monthly limits, in order.
    s = lambda d, hm: at(f"2026-11-{d}T{hm}:00Z")
    steps = [
        ("01-day1-10h00-first", "17", "10:00", "generateQuestions"),
        ("02-day1-10h10-second", "17", "10:10", "generateQuestions"),
        ("03-day1-10h20-hourly-limit", "17", "10:20", "generateQuestions"),
        ("04-day1-11h00-third", "17", "11:00", "generateQuestions"),
        ("05-day1-12h00-daily-limit", "17", "12:00", "generateQuestions"),
        ("06-day1-12h05-check-usage", "17", "12:05", "checkUsage"),
        ("07-day2-09h00-fourth", "18", "09:00", "generateQuestions"),
        ("08-day2-10h00-fifth", "18", "10:00", "generateQuestions"),
        ("09-day2-11h00-monthly-quota", "18", "11:00", "generateQuestions"),
        ("10-day2-11h05-check-usage", "18", "11:05", "checkUsage"),
    ]
    for name, d, hm, function in steps:
        when = s(d, hm)
        auth = bearer("scenario-free-user", when, email="sam@example.com")
        if function == "generateQuestions":
            event = http("POST", "/questions", when, auth, body=json.dumps({"topic": "my first job", "count": 3}), name=name)
        else:
            event = http("GET", "/usage", when, auth, name=name)
        event = {"x-inkra-function": function, **event}
        add(f"free-user-limits/{name}", event)

    for path, event in EVENTS.items():
        full = os.path.join(ROOT, "events", path + ".json")
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as handle:
            json.dump(event, handle, indent=2)
            handle.write("\n")
    print(f"wrote {len(EVENTS)} events", file=sys.stderr)


if __name__ == "__main__":
    main()
