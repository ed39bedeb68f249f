/// The `INKRA_*` settings `bootstrap` reads (docs/configuration.md): the one list that the
/// runtime's reader (each setting's form, the error that says what it accepts, its default and
/// the functions that read it: `RuntimeSetting+Form.swift`), its unknown-setting check (inside
/// Lambda an `INKRA_*` variable not listed here stops start-up) and `inkra-emulator run-runtime`
/// (which of a developer's shell variables a local runtime inherits) all read, held to the
/// runtime's sources and to docs/configuration.md by tests.
///
/// It lives here, in a module both `bootstrap` and the emulator already depend on, beside the
/// invocation clock and the recordings that two of these settings switch on; `package` access
/// keeps it out of the library's API.
package enum RuntimeSetting: String, Sendable, CaseIterable {
    /// `INKRA_CLOCK`: `system` or `request-time`.
    case clock = "INKRA_CLOCK"
    /// `INKRA_CLOCK_SKEW`: seconds of tolerance on a token's times.
    case clockSkew = "INKRA_CLOCK_SKEW"
    /// `INKRA_COGNITO_ISSUER`: the pool's issuer form, `ORIGINAL` or `UPDATED`.
    case cognitoIssuer = "INKRA_COGNITO_ISSUER"
    /// `INKRA_DELETE_COGNITO_USER`: whether `deleteAccount` deletes the Cognito user too.
    case deleteCognitoUser = "INKRA_DELETE_COGNITO_USER"
    /// `INKRA_GATEWAY_TIMEOUT`: API Gateway's integration timeout in seconds.
    case gatewayTimeout = "INKRA_GATEWAY_TIMEOUT"
    /// `INKRA_JWKS_FILE`: a local JWKS instead of the pool's.
    case jwksFile = "INKRA_JWKS_FILE"
    /// `INKRA_LIMITS`: the tiers' limits as JSON.
    case limits = "INKRA_LIMITS"
    /// `INKRA_LIMITS_FILE`: a file holding that JSON.
    case limitsFile = "INKRA_LIMITS_FILE"
    /// `INKRA_LIMITS_MAX_AGE`: seconds the limits from the SSM parameter are kept before it is read again.
    case limitsMaxAge = "INKRA_LIMITS_MAX_AGE"
    /// `INKRA_LIMITS_PARAMETER`: an SSM parameter holding that JSON.
    case limitsParameter = "INKRA_LIMITS_PARAMETER"
    /// `INKRA_LLM_API_KEY`: the model endpoint's key.
    case modelAPIKey = "INKRA_LLM_API_KEY"
    /// `INKRA_LLM_API_KEY_SECRET_ARN`: a Secrets Manager secret holding that key.
    case modelAPIKeySecretARN = "INKRA_LLM_API_KEY_SECRET_ARN"
    /// `INKRA_LLM_BASE_URL`: the model endpoint; unset, the offline generator is used.
    case modelBaseURL = "INKRA_LLM_BASE_URL"
    /// `INKRA_LLM_MODEL`: the model's name.
    case model = "INKRA_LLM_MODEL"
    /// `INKRA_LLM_TIMEOUT`: seconds a model request may take.
    case modelTimeout = "INKRA_LLM_TIMEOUT"
    /// `INKRA_RECORD_EVENTS`: writes a redacted recording of every invocation to the log.
    case recordEvents = "INKRA_RECORD_EVENTS"
    /// `INKRA_SERVER_SECRET`: the server's secret itself (local work; at least 32 bytes).
    case serverSecret = "INKRA_SERVER_SECRET"
    /// `INKRA_SERVER_SECRET_ARN`: a Secrets Manager secret holding the server's secret, which keys
    /// sealed answers, deleted accounts' carried usage and recordings' pseudonyms.
    case serverSecretARN = "INKRA_SERVER_SECRET_ARN"
    /// `INKRA_STORE`: `memory` or `dynamodb`.
    case store = "INKRA_STORE"
    /// `INKRA_TABLE_NAME`: the usage table.
    case tableName = "INKRA_TABLE_NAME"
    /// `INKRA_TOKEN_USE`: `id`, `access` or `any`.
    case tokenUse = "INKRA_TOKEN_USE"
    /// `INKRA_UPGRADE_URL`: where a caller whose month is full is sent.
    case upgradeURL = "INKRA_UPGRADE_URL"

    /// Whether `inkra-emulator run-runtime` passes a developer's shell value of this setting to a
    /// local runtime: the model endpoint's and recording do; the others are `run-runtime`'s own
    /// (clock, store, table, pool, keys, limits) or have no local use, and stay behind.
    package var passesFromShell: Bool {
        switch self {
        case .modelAPIKey, .modelAPIKeySecretARN, .modelBaseURL, .model, .modelTimeout, .recordEvents: true
        default: false
        }
    }
}
