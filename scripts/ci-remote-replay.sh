#!/usr/bin/env bash
# `replay endpoint` against `serve` as the deployed stack, as docs/after-deploy.md runs it against
# ApiUrl: for the REST API (payload v1, stage prod) and the HTTP API (payload v2), `exec` starts the
# stack, a test user signs up in its pool (curl, as the app) and `replay endpoint` signs it in with
# its own SRP client and sends scripts/endpoint-events/{rest,http}; every answer must match.
# Usage: scripts/ci-remote-replay.sh
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --product inkra-emulator > /dev/null
emulator=$(swift build --show-bin-path)/inkra-emulator

session='
set -e
cognito() {
    curl -sf "$INKRA_COGNITO_URL" -H "Content-Type: application/x-amz-json-1.1" \
        -H "X-Amz-Target: AWSCognitoIdentityProviderService.$1" -d "$2" > /dev/null
}
cognito SignUp "{\"ClientId\":\"$INKRA_APP_CLIENT_ID\",\"Username\":\"ci@example.com\",\"Password\":\"Correct-horse-9\",\"UserAttributes\":[{\"Name\":\"email\",\"Value\":\"ci@example.com\"}]}"
cognito AdminSetUserPassword "{\"UserPoolId\":\"$INKRA_USER_POOL_ID\",\"Username\":\"ci@example.com\",\"Password\":\"Correct-horse-9\",\"Permanent\":true}"
INKRA_PASSWORD=Correct-horse-9 "$0" replay endpoint "$INKRA_API_URL" "$1" --user ci@example.com \
    --user-pool-id "$INKRA_USER_POOL_ID" --client-id "$INKRA_APP_CLIENT_ID" --cognito-endpoint "$INKRA_COGNITO_URL"
'

echo "== replay endpoint: REST API (payload v1, stage prod)"
"$emulator" exec --payload v1 --stage prod --no-access-log --no-console -- \
    sh -c "$session" "$emulator" scripts/endpoint-events/rest

echo "== replay endpoint: HTTP API (payload v2)"
"$emulator" exec --payload v2 --no-access-log --no-console -- \
    sh -c "$session" "$emulator" scripts/endpoint-events/http
echo "replay endpoint: passed"
