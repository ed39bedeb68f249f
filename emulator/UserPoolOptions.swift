import ArgumentParser

/// A Cognito user pool: its id, region and app clients.
struct UserPoolOptions: ParsableArguments {
    @Option(name: .customLong("user-pool-id"), help: "A Cognito user pool id, e.g. us-east-1_AbCdEf123.")
    var userPoolID: String?

    @Option(help: "The user pool's region (default: the pool id's prefix).")
    var region: String?

    @Option(name: .customLong("client-id"), help: "An accepted app client id (repeatable).")
    var clientIDs: [String] = []
}
