#!/usr/bin/env python3
"""Prints botocore's SigV4 of the requests Tests/DynamoDBTableTests/SigV4PortTests.swift signs.

The test holds SigV4Signer, on the table client's real request path, to these values: run this
script (botocore from pip) and paste its output into the test when a case changes.
"""
import datetime
from unittest import mock

from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

# GetItem as the table client sends it, asking for its consumed capacity.
BODY = b'{"TableName":"inkra-usage","Key":{"PK":{"S":"USER#u1"},"SK":{"S":"USAGE"}},"ReturnConsumedCapacity":"TOTAL"}'
CASES = [
    ("https://dynamodb.us-east-1.amazonaws.com:443", None),
    ("https://dynamodb.us-east-1.amazonaws.com", None),
    ("http://127.0.0.1:8000", None),
    ("https://DynamoDB.us-east-1.amazonaws.com:8443", "session-token-example"),
]

# SSM's GetParameter through AWSJSONService, at an endpoint URL with :443.
SSM_BODY = b'{"Name":"/inkra/limits","WithDecryption":true}'

def sign(url, token, service, body, headers):
    credentials = Credentials("AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", token)
    request = AWSRequest(method="POST", url=url + "/", data=body, headers=headers)
    now = datetime.datetime(2026, 11, 27, 12, 0, 0, tzinfo=datetime.timezone.utc)
    with mock.patch("botocore.auth.get_current_datetime", return_value=now):
        auth = SigV4Auth(credentials, service, "us-east-1")
        auth.add_auth(request)
        host = auth.headers_to_sign(request)["host"]
    print(url, token, service, host, request.headers["Authorization"], sep="\n")
    print()

sign("https://ssm.us-east-1.amazonaws.com:443", None, "ssm", SSM_BODY, {
    "Content-Type": "application/x-amz-json-1.1", "X-Amz-Target": "AmazonSSM.GetParameter"})

for url, token in CASES:
    sign(url, token, "dynamodb", BODY, {
        "Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": "DynamoDB_20120810.GetItem"})
