"""The adversary's hands: the local user pool through boto3's cognito-idp (sign up, confirm, sign in
with the test client's USER_PASSWORD_AUTH, refresh, an administrator's attribute change) and the
API through plain HTTP/1.1, every call bounded in time and counted by kind."""

import sys
import os
import base64
import json
import threading

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError

import serve as stack

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from partition import user_partition  # noqa: E402  scripts/partition.py: the table names users by a keyed pseudonym

POOL = "us-east-1_InkraLocal"
CLI_CLIENT = "inkra-local-cli-client"  # allows USER_PASSWORD_AUTH (docs/emulator.md, "serve")


class Counter:
    """Operations by kind, from any thread."""

    def __init__(self):
        self.lock = threading.Lock()
        self.counts = {}

    def add(self, kind, n=1):
        with self.lock:
            self.counts[kind] = self.counts.get(kind, 0) + n


class Pool:
    def __init__(self, endpoint, counter):
        self.counter = counter
        self.idp = boto3.client(
            "cognito-idp", endpoint_url=endpoint, region_name="us-east-1",
            aws_access_key_id="local", aws_secret_access_key="local",
            config=Config(retries={"max_attempts": 1}, connect_timeout=5, read_timeout=20))

    def call(self, kind, operation, **arguments):
        """(answer, None) or (None, the Cognito error's type)."""
        self.counter.add(kind)
        try:
            return getattr(self.idp, operation)(**arguments), None
        except ClientError as error:
            return None, error.response.get("Error", {}).get("Code", "ClientError")

    def sign_up(self, email, password, kind="sign-up"):
        answer, error = self.call(kind, "sign_up", ClientId=CLI_CLIENT, Username=email, Password=password,
                                  UserAttributes=[{"Name": "email", "Value": email}])
        return (answer["UserSub"] if answer else None), error

    def confirm_with_code(self, email, code):
        return self.call("confirm", "confirm_sign_up", ClientId=CLI_CLIENT, Username=email, ConfirmationCode=code)[1]

    def resend_code(self, email):
        return self.call("confirm", "resend_confirmation_code", ClientId=CLI_CLIENT, Username=email)[1]

    def confirm_by_admin(self, email, password):
        return self.call("confirm", "admin_set_user_password", UserPoolId=POOL, Username=email,
                         Password=password, Permanent=True)[1]

    def sign_in(self, email, password):
        answer, error = self.call("sign-in", "initiate_auth", ClientId=CLI_CLIENT, AuthFlow="USER_PASSWORD_AUTH",
                                  AuthParameters={"USERNAME": email, "PASSWORD": password})
        return (answer or {}).get("AuthenticationResult"), error

    def refresh(self, refresh_token):
        answer, error = self.call("refresh", "initiate_auth", ClientId=CLI_CLIENT, AuthFlow="REFRESH_TOKEN_AUTH",
                                  AuthParameters={"REFRESH_TOKEN": refresh_token})
        return (answer or {}).get("AuthenticationResult"), error

    def set_tier(self, username, tier):
        return self.call("tier-change", "admin_update_user_attributes", UserPoolId=POOL, Username=username,
                         UserAttributes=[{"Name": "custom:subscription_tier", "Value": tier}])[1]


def claims(jwt):
    """A JWT's payload, unverified: the model reads what the pool put in it (exp, sub, tier)."""
    try:
        payload = jwt.split(".")[1]
        return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    except (IndexError, ValueError):
        return {}


class Api:
    def __init__(self, port, counter):
        self.port, self.counter = port, counter

    def questions(self, token, key, body, kind="generate"):
        self.counter.add(kind)
        return stack.exchange(self.port, "POST", "/questions", token=token, key=key, body=body)

    def usage(self, token, kind="usage"):
        self.counter.add(kind)
        return stack.exchange(self.port, "GET", "/usage", token=token)

    def delete_account(self, token):
        self.counter.add("delete-account")
        return stack.exchange(self.port, "DELETE", "/account", token=token)

    def burst(self, token, requests, seconds=30.0):
        """Sends every (key, body) of `requests` at once, a thread each; answers in the same order
        (None for a thread still running after `seconds`)."""
        answers = [None] * len(requests)
        barrier = threading.Barrier(len(requests))

        def send(i, key, body):
            try:
                barrier.wait(timeout=5)
            except threading.BrokenBarrierError:
                pass
            answers[i] = self.questions(token, key, body, kind="burst-call")

        threads = [threading.Thread(target=send, args=(i, k, b), daemon=True) for i, (k, b) in enumerate(requests)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=seconds)
        return [a if a is not None else (None, "no answer in time", {}) for a in answers]


class Table:
    """serve's in-memory table through its DynamoDB endpoint (never through the API)."""

    def __init__(self, endpoint, counter, name="inkra-usage"):
        self.counter, self.name = counter, name
        self.client = boto3.client(
            "dynamodb", endpoint_url=endpoint, region_name="us-east-1",
            aws_access_key_id="local", aws_secret_access_key="local",
            config=Config(retries={"max_attempts": 2}, connect_timeout=5, read_timeout=20))

    def items_of(self, sub):
        self.counter.add("table-query")
        items, start = [], None
        for _ in range(50):  # pages, bounded
            arguments = {"TableName": self.name, "KeyConditionExpression": "PK = :pk",
                         "ExpressionAttributeValues": {":pk": {"S": user_partition(sub)}}, "ConsistentRead": True}
            if start:
                arguments["ExclusiveStartKey"] = start
            page = self.client.query(**arguments)
            items += page.get("Items", [])
            start = page.get("LastEvaluatedKey")
            if not start:
                break
        return items

    def scan(self):
        self.counter.add("table-scan")
        items, start = [], None
        for _ in range(10_000):  # pages, bounded
            arguments = {"TableName": self.name, "ConsistentRead": True}
            if start:
                arguments["ExclusiveStartKey"] = start
            page = self.client.scan(**arguments)
            items += page.get("Items", [])
            start = page.get("LastEvaluatedKey")
            if not start:
                break
        return items

