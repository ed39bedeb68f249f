"""End-to-end checks of `inkra-emulator serve`'s local Cognito user pool, with real
clients: boto3, the AWS CLI and pycognito's SRP, plus a differential against moto_server's
cognito-idp. Run by scripts/ci-cognito.sh, which passes the emulator binary and a moto_server URL.

Expected answers follow Amazon Cognito's documentation: the API Reference of each operation
(SignUp, ConfirmSignUp, InitiateAuth, RespondToAuthChallenge, GlobalSignOut, AdminGetUser, …),
"Managing user existence error responses" (template.yaml's client sets
PreventUserExistenceErrors: ENABLED) and "Understanding the identity (ID) token" / "Understanding
the access token" for the claim sets. Where moto disagrees with those pages, the difference is
printed as a known one and this endpoint is held to the documentation.

Usage: python3 scripts/cognito_e2e.py EMULATOR MOTO_URL
"""

import base64
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

import boto3
import jwt
from pycognito import Cognito
from pycognito.aws_srp import AWSSRP

POOL_ID = "us-east-1_InkraLocal"
APP_CLIENT = "inkra-local-client"  # template.yaml's client: SRP and refresh only
CLI_CLIENT = "inkra-local-cli-client"  # test-only: also USER_PASSWORD_AUTH, for the AWS CLI
PASSWORD = "Correct-Horse-9battery"
WRONG = "Wrong-Horse-9battery"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CREDENTIALS = {"aws_access_key_id": "testing", "aws_secret_access_key": "testing", "region_name": "us-east-1"}

failures = []
known = []


def check(condition, message):
    print(("ok   " if condition else "FAIL ") + message)
    if not condition:
        failures.append(message)


def claims(token):
    part = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


def error_type(call):
    try:
        call()
        return "ok"
    except Exception as error:  # botocore ClientError and pycognito's wrappers
        response = getattr(error, "response", None)
        if response:
            return response["Error"]["Code"]
        return type(error).__name__


class Serve:
    """A running `inkra-emulator serve` on free ports, read from its banner."""

    def __init__(self, emulator, work):
        self.out = open(os.path.join(work, "serve.out"), "w+")
        self.err_path = os.path.join(work, "serve.err")
        self.err = open(self.err_path, "w+")
        self.process = subprocess.Popen(
            [emulator, "serve", "--port", "0", "--lambda-port", "0", "--runtime-api-port", "0",
             "--dynamodb-port", "0", "--no-console", "--cognito-port", "0", "--authorizer-cache-ttl", "300",
             "--state", os.path.join(work, "state.json")],
            stdout=self.out, stderr=self.err)
        deadline = time.time() + 60
        banner = ""
        while time.time() < deadline and "Press Ctrl-C" not in banner:
            time.sleep(0.1)
            banner = open(self.out.name).read()
        if "Press Ctrl-C" not in banner:
            sys.exit("serve did not start:\n" + banner + open(self.err_path).read())
        print(banner)
        self.api = re.search(r"API Gateway\s+(http://\S+)", banner).group(1)
        self.cognito = re.search(r"Cognito\s+(http://\S+)", banner).group(1)
        self.issuer = re.search(r"issuer (http://\S+)", banner).group(1)

    def code(self, sub):
        """The latest code the pool wrote to the log for a user (codes are never mailed locally)."""
        for _ in range(50):
            found = re.findall(re.escape(sub) + r": (\d{6})", open(self.err_path).read())
            if found:
                return found[-1]
            time.sleep(0.1)
        raise AssertionError("no code in the log for " + sub)

    def call(self, method, path, token, body=None):
        request = urllib.request.Request(
            self.api + path, method=method, data=None if body is None else json.dumps(body).encode(),
            headers={"Authorization": "Bearer " + token, "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request) as response:
                return response.status, json.loads(response.read() or b"{}")
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"{}")

    def stop(self):
        self.process.terminate()
        return self.process.wait(timeout=30)


def aws(serve, *arguments):
    """The AWS CLI against the pool; its JSON answer, or the error text."""
    environment = dict(os.environ, AWS_ACCESS_KEY_ID="testing", AWS_SECRET_ACCESS_KEY="testing",
                       AWS_DEFAULT_REGION="us-east-1")
    result = subprocess.run(["aws", "cognito-idp", *arguments, "--endpoint-url", serve.cognito, "--output", "json"],
                            capture_output=True, text=True, env=environment, timeout=60)
    if result.returncode != 0:
        return {"error": result.stderr.strip()}
    return json.loads(result.stdout or "{}")


def cli_and_boto3(serve):
    print("== boto3 and the AWS CLI: sign-up, confirm, sign-in, the API, premium, blocked")
    client = boto3.client("cognito-idp", endpoint_url=serve.cognito, **CREDENTIALS)
    email = "ada@example.com"
    sub = client.sign_up(ClientId=APP_CLIENT, Username=email, Password=PASSWORD)["UserSub"]
    log = open(serve.err_path).read()
    check(PASSWORD not in log and email not in log, "the log carries neither the password nor the email")
    client.confirm_sign_up(ClientId=APP_CLIENT, Username=email, ConfirmationCode=serve.code(sub))
    check(aws(serve, "admin-get-user", "--user-pool-id", POOL_ID, "--username", email).get("UserStatus") == "CONFIRMED",
          "aws cognito-idp admin-get-user: CONFIRMED after confirm-sign-up with the logged code")
    signed = aws(serve, "initiate-auth", "--client-id", CLI_CLIENT, "--auth-flow", "USER_PASSWORD_AUTH",
                 "--auth-parameters", f"USERNAME={email},PASSWORD={PASSWORD}")
    result = signed.get("AuthenticationResult", {})
    check("IdToken" in result and "RefreshToken" in result, "aws cognito-idp initiate-auth USER_PASSWORD_AUTH: tokens")
    refused = aws(serve, "initiate-auth", "--client-id", APP_CLIENT, "--auth-flow", "USER_PASSWORD_AUTH",
                  "--auth-parameters", f"USERNAME={email},PASSWORD={PASSWORD}")
    check("InvalidParameterException" in refused.get("error", ""),
          "template.yaml's app client refuses USER_PASSWORD_AUTH (InvalidParameterException)")
    first = result["IdToken"]
    status, _ = serve.call("POST", "/questions", first, {"topic": "my first job"})
    check(status == 200, f"POST /questions with the pool's id token: {status}")
    status, usage = serve.call("GET", "/usage", first)
    check(status == 200 and usage.get("tier") == "free", f"GET /usage: free tier ({usage.get('tier')})")

    aws(serve, "admin-update-user-attributes", "--user-pool-id", POOL_ID, "--username", email,
        "--user-attributes", "Name=custom:subscription_tier,Value=premium")
    refreshed = aws(serve, "initiate-auth", "--client-id", CLI_CLIENT, "--auth-flow", "REFRESH_TOKEN_AUTH",
                    "--auth-parameters", "REFRESH_TOKEN=" + result["RefreshToken"])["AuthenticationResult"]
    check("RefreshToken" not in refreshed, "a refresh answers no new refresh token, as Cognito's does")
    status, usage = serve.call("GET", "/usage", refreshed["IdToken"])
    check(status == 200 and usage.get("tier") == "premium", f"after a refresh, GET /usage: premium ({usage})")
    check(usage.get("daily", {}).get("limit") == 100, f"premium limits: 100 a day ({usage.get('daily')})")

    aws(serve, "admin-add-user-to-group", "--user-pool-id", POOL_ID, "--username", email, "--group-name", "blocked")
    status, _ = serve.call("GET", "/usage", refreshed["IdToken"])
    check(status == 200, f"before a refresh the token still carries no group: {status} (it bites at the next refresh)")
    blocked = aws(serve, "initiate-auth", "--client-id", CLI_CLIENT, "--auth-flow", "REFRESH_TOKEN_AUTH",
                  "--auth-parameters", "REFRESH_TOKEN=" + result["RefreshToken"])["AuthenticationResult"]
    check(claims(blocked["IdToken"]).get("cognito:groups") == ["blocked"], "the refreshed id token carries blocked")
    status, body = serve.call("POST", "/questions", blocked["IdToken"], {"topic": "again"})
    check(status == 403, f"POST /questions after the block and a refresh: {status} {body}")

    aws(serve, "global-sign-out", "--access-token", blocked["AccessToken"])
    after = aws(serve, "initiate-auth", "--client-id", CLI_CLIENT, "--auth-flow", "REFRESH_TOKEN_AUTH",
                "--auth-parameters", "REFRESH_TOKEN=" + result["RefreshToken"])
    check("Refresh Token has been revoked" in after.get("error", ""), "global-sign-out revokes the refresh token")
    users = aws(serve, "list-users-in-group", "--user-pool-id", POOL_ID, "--group-name", "blocked")["Users"]
    check([u["Username"] for u in users] == [sub], "list-users-in-group blocked lists the user")
    pools = aws(serve, "list-user-pools", "--max-results", "10")["UserPools"]
    clients = aws(serve, "list-user-pool-clients", "--user-pool-id", POOL_ID)["UserPoolClients"]
    check([p["Id"] for p in pools] == [POOL_ID] and {c["ClientId"] for c in clients} == {APP_CLIENT, CLI_CLIENT},
          "list-user-pools and list-user-pool-clients find the pool and its two clients")


def srp(serve):
    print("== SRP with a real client (pycognito), through template.yaml's app client")
    client = boto3.client("cognito-idp", endpoint_url=serve.cognito, **CREDENTIALS)
    email = "grace@example.com"
    sub = client.sign_up(ClientId=APP_CLIENT, Username=email, Password=PASSWORD)["UserSub"]
    client.confirm_sign_up(ClientId=APP_CLIENT, Username=email, ConfirmationCode=serve.code(sub))
    tokens = AWSSRP(username=email, password=PASSWORD, pool_id=POOL_ID, client_id=APP_CLIENT,
                    client=client).authenticate_user()
    check("IdToken" in tokens.get("AuthenticationResult", {}), "SRP with the right password signs in")
    wrong = error_type(lambda: AWSSRP(username=email, password=WRONG, pool_id=POOL_ID, client_id=APP_CLIENT,
                                      client=client).authenticate_user())
    check(wrong == "NotAuthorizedException", f"SRP with a wrong password: {wrong}")
    unknown = error_type(lambda: AWSSRP(username="nobody@example.com", password=PASSWORD, pool_id=POOL_ID,
                                        client_id=APP_CLIENT, client=client).authenticate_user())
    check(unknown == "NotAuthorizedException", f"SRP for an unknown user: {unknown} (user existence not revealed)")
    # pycognito's Cognito verifies the tokens itself: the JWKS at <endpoint>/<pool>/.well-known/jwks.json
    # and iss == <endpoint>/<pool>.
    user = Cognito(POOL_ID, APP_CLIENT, username=email,
                   boto3_client_kwargs={"endpoint_url": serve.cognito, **{k: v for k, v in CREDENTIALS.items()
                                                                          if k != "region_name"}})
    user.authenticate(password=PASSWORD)
    check(user.id_claims.get("iss") == serve.issuer, "pycognito verifies the tokens against the pool's JWKS and issuer")
    status, _ = serve.call("POST", "/questions", user.id_token, {"topic": "srp"})
    check(status == 200, f"POST /questions with the SRP sign-in's id token: {status}")
    with urllib.request.urlopen(serve.issuer + "/.well-known/openid-configuration") as response:
        document = json.loads(response.read())
    check(document["issuer"] == serve.issuer, "openid-configuration names the issuer")


def foreign_tokens(serve):
    print("== tokens from an independent signer with the development key")
    key = open(os.path.join(ROOT, "emulator", "dev-keys", "dev-private-key.pem")).read()
    now = int(time.time())

    def mint(issuer, audience):
        payload = {"sub": "independent-user", "iss": issuer, "aud": audience, "token_use": "id", "auth_time": now,
                   "iat": now, "exp": now + 600, "jti": "j", "origin_jti": "o", "event_id": "e",
                   "cognito:username": "independent-user", "email": "independent@example.com",
                   "email_verified": True}
        return jwt.encode(payload, key, algorithm="RS256", headers={"kid": "inkra-local-development-key"})

    status, _ = serve.call("GET", "/usage", mint(serve.issuer, APP_CLIENT))
    check(status == 200, f"a token minted independently for this pool passes the authorizer: {status}")
    other = serve.issuer.rsplit("/", 1)[0] + "/us-east-1_AnotherPool"
    status, _ = serve.call("GET", "/usage", mint(other, APP_CLIENT))
    check(status == 401, f"a token from another pool (same key) is refused: {status}")
    status, _ = serve.call("GET", "/usage", mint(serve.issuer, "another-client"))
    check(status == 401, f"a token for another app client is refused: {status}")


def moto_pool(endpoint):
    client = boto3.client("cognito-idp", endpoint_url=endpoint, **CREDENTIALS)
    pool = client.create_user_pool(
        PoolName="inkra-differential", UsernameAttributes=["email"], AutoVerifiedAttributes=["email"],
        Policies={"PasswordPolicy": {"MinimumLength": 12, "RequireLowercase": True, "RequireUppercase": True,
                                     "RequireNumbers": True, "RequireSymbols": False}},
        Schema=[{"Name": "subscription_tier", "AttributeDataType": "String", "Mutable": True},
                {"Name": "monthly_quota", "AttributeDataType": "Number", "Mutable": True}])["UserPool"]["Id"]
    app = client.create_user_pool_client(
        UserPoolId=pool, ClientName="inkra-app", PreventUserExistenceErrors="ENABLED",
        ExplicitAuthFlows=["ALLOW_USER_SRP_AUTH", "ALLOW_USER_PASSWORD_AUTH", "ALLOW_REFRESH_TOKEN_AUTH"],
    )["UserPoolClient"]["ClientId"]
    for group in ["free_tier", "premium_tier", "blocked"]:
        client.create_group(GroupName=group, UserPoolId=pool)
    return client, pool, app


# Where moto answers otherwise than Cognito's documentation: the step, moto's answer, the answer the
# documentation gives (which this endpoint must give), and the page.
KNOWN = {
    "confirm with a wrong code": ("ok", "CodeMismatchException", "ConfirmSignUp API Reference"),
    "sign in as an unknown user": (
        "UserNotFoundException", "NotAuthorizedException",
        "Managing user existence error responses (PreventUserExistenceErrors ENABLED)"),
    "SRP with a wrong password": ("ok", "NotAuthorizedException", "RespondToAuthChallenge API Reference"),
}


def differential(serve, moto_endpoint):
    print("== differential against moto_server's cognito-idp")
    local = boto3.client("cognito-idp", endpoint_url=serve.cognito, **CREDENTIALS)
    moto, moto_pool_id, moto_client = moto_pool(moto_endpoint)
    sides = {"local": (local, POOL_ID, CLI_CLIENT), "moto": (moto, moto_pool_id, moto_client)}
    email = "diff@example.com"
    tokens = {}

    def steps(name, client, pool, app):
        def auth(user, password):
            return client.initiate_auth(ClientId=app, AuthFlow="USER_PASSWORD_AUTH",
                                        AuthParameters={"USERNAME": user, "PASSWORD": password})

        def sign_up():
            sub = client.sign_up(ClientId=app, Username=email, Password=PASSWORD)["UserSub"]
            tokens[name + ":sub"] = sub

        def confirm(code):
            client.confirm_sign_up(ClientId=app, Username=email, ConfirmationCode=code)

        def good_code():
            return serve.code(tokens["local:sub"]) if name == "local" else "123456"

        def sign_in():
            tokens[name] = auth(email, PASSWORD)["AuthenticationResult"]

        return [
            ("sign up with a weak password",
             lambda: client.sign_up(ClientId=app, Username=email, Password="weakpass")),
            ("sign up", sign_up),
            ("sign up again (duplicate)", sign_up),
            ("sign in before confirming", lambda: auth(email, PASSWORD)),
            ("confirm with a wrong code", lambda: confirm("000000" if good_code() != "000000" else "111111")),
            ("confirm", lambda: confirm(good_code())),
            ("sign in with a wrong password", lambda: auth(email, WRONG)),
            ("sign in as an unknown user", lambda: auth("nobody@example.com", PASSWORD)),
            ("sign in", sign_in),
            ("SRP with a wrong password", lambda: AWSSRP(username=email, password=WRONG, pool_id=pool,
                                                         client_id=app, client=client).authenticate_user()),
            ("admin-get-user of an unknown user",
             lambda: client.admin_get_user(UserPoolId=pool, Username="nobody@example.com")),
            ("add to an unknown group",
             lambda: client.admin_add_user_to_group(UserPoolId=pool, Username=email, GroupName="admins")),
            ("global sign-out then refresh", lambda: (
                client.global_sign_out(AccessToken=tokens[name]["AccessToken"]),
                client.initiate_auth(ClientId=app, AuthFlow="REFRESH_TOKEN_AUTH",
                                     AuthParameters={"REFRESH_TOKEN": tokens[name]["RefreshToken"]}))),
        ]

    answers = {side: [(step, error_type(call)) for step, call in steps(side, *sides[side])] for side in sides}
    for (step, mine), (_, theirs) in zip(answers["local"], answers["moto"]):
        if mine == theirs:
            check(True, f"{step}: {mine} (moto: the same)")
        elif step in KNOWN and KNOWN[step][0] == theirs:
            moto_answer, documented, page = KNOWN[step]
            known.append(f"{step}: moto answers {moto_answer}; Cognito documents {documented} ({page}); here {mine}")
            check(mine == documented, f"{step}: {mine}, as documented (moto: {theirs}, a known difference)")
        else:
            check(False, f"{step}: here {mine}, moto {theirs}")

    for use in ["IdToken", "AccessToken"]:
        mine, theirs = claims(tokens["local"][use]), claims(tokens["moto"][use])
        missing = sorted(set(theirs) - set(mine))
        check(not missing, f"{use}: every claim moto issues is issued here ({missing or 'none missing'})")
        kinds = {name: (type(mine[name]).__name__, type(theirs[name]).__name__)
                 for name in set(mine) & set(theirs)}
        check(all(a == b for a, b in kinds.values()), f"{use}: shared claims have the same JSON kinds")
        extra = sorted(set(mine) - set(theirs))
        if extra:
            known.append(f"{use}: moto leaves out {extra}, which Cognito's token documentation lists")

    id_claims = set(claims(tokens["local"]["IdToken"]))
    access_claims = set(claims(tokens["local"]["AccessToken"]))
    check(id_claims == {"sub", "iss", "aud", "token_use", "auth_time", "exp", "iat", "jti", "origin_jti", "event_id",
                        "cognito:username", "email", "email_verified"},
          f"id token claim set, name by name: {sorted(id_claims)}")
    check(access_claims == {"sub", "iss", "client_id", "token_use", "scope", "auth_time", "exp", "iat", "jti",
                            "origin_jti", "event_id", "username"},
          f"access token claim set, name by name: {sorted(access_claims)}")


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: cognito_e2e.py EMULATOR MOTO_URL")
    emulator, moto_endpoint = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as work:
        serve = Serve(emulator, work)
        try:
            cli_and_boto3(serve)
            srp(serve)
            foreign_tokens(serve)
            differential(serve, moto_endpoint)
        finally:
            status = serve.stop()
        check(status == 0, f"serve stopped with status {status}")
        state = json.load(open(os.path.join(work, "state.json")))
        users = state.get("userPool", {}).get("users", [])
        check(len(users) == 3, f"--state keeps the pool's users ({len(users)})")
        text = json.dumps(state)
        check(PASSWORD not in text, "--state holds no password")
    print("== known differences from moto (this endpoint follows Cognito's documentation)")
    for line in known:
        print("known difference: " + line)
    if failures:
        sys.exit(f"{len(failures)} check(s) failed")
    print("all Cognito checks passed")


if __name__ == "__main__":
    main()
