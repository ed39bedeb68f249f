#!/usr/bin/env python3
"""Prints an id token for a user of a Cognito user pool, signed in as the app signs in (SRP).

    scripts/id-token.py --pool-id us-east-1_AbCdEf123 --client-id 1example23456789 --username ada@example.com

The deployed stack's app client allows SRP only (template.yaml: ALLOW_USER_SRP_AUTH), so the AWS
CLI's `initiate-auth --auth-flow USER_PASSWORD_AUTH` is refused there; this script uses a real
SRP client (pycognito, pinned in .ci/requirements.txt). The password comes from INKRA_PASSWORD or
a prompt, never the command line, and is never printed. Only the token goes to standard output, so
`TOKEN=$(scripts/id-token.py …)` works; errors go to standard error with exit status 1.

--endpoint-url points it at another Cognito endpoint (`inkra-emulator serve`'s local pool). The
pool's id and client id are template.yaml's outputs `UserPoolId` and `UserPoolClientId`; the region
is the pool id's prefix unless --region says otherwise.
"""
import argparse
import getpass
import os
import sys


def main():
    parser = argparse.ArgumentParser(description="Print a Cognito id token, signed in with SRP.")
    parser.add_argument("--pool-id", required=True, help="the user pool's id (output UserPoolId)")
    parser.add_argument("--client-id", required=True, help="the app client's id (output UserPoolClientId)")
    parser.add_argument("--username", required=True, help="the user's email")
    parser.add_argument("--region", help="the pool's region (default: the pool id's prefix)")
    parser.add_argument("--endpoint-url", help="another Cognito endpoint, such as serve's local pool")
    arguments = parser.parse_args()
    try:
        import boto3
        from pycognito.aws_srp import AWSSRP
    except ImportError as missing:
        sys.exit(f"id-token.py needs boto3 and pycognito: pip install boto3 pycognito ({missing})")
    password = os.environ.get("INKRA_PASSWORD") or getpass.getpass(f"password for {arguments.username}: ")
    region = arguments.region or arguments.pool_id.split("_", 1)[0]
    client = boto3.client("cognito-idp", region_name=region, endpoint_url=arguments.endpoint_url)
    try:
        tokens = AWSSRP(username=arguments.username, password=password, pool_id=arguments.pool_id,
                        client_id=arguments.client_id, client=client).authenticate_user()
    except Exception as error:  # botocore's ClientError and pycognito's challenge errors
        sys.exit(f"id-token.py: cannot sign in {arguments.username}: {type(error).__name__}: {error}")
    result = tokens.get("AuthenticationResult")
    if not result:
        challenge = tokens.get("ChallengeName", "an unknown challenge")
        sys.exit(f"id-token.py: the pool answered with {challenge}, not tokens (a new password or MFA is "
                 "needed: set a permanent password with aws cognito-idp admin-set-user-password --permanent)")
    print(result["IdToken"])


if __name__ == "__main__":
    main()
