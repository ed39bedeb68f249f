import ArgumentParser
import EmulatorKit
import Foundation
import HTTPText
import Logging

extension ReplayCommand {
    /// `replay endpoint URL`: every event sent to a deployed stage in turn and its answer checked;
    /// exit 1 when one fails, 2 when there was nothing to replay, 3 when a 5xx storm stopped the run.
    struct Endpoint: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send recorded events to a deployed stack and check each answer against its expectation.",
            discussion: """
                Sends each event, in turn, as the HTTP request it describes (method, path after the stage in URL, \
                query, headers, body) and checks the answer against its expectation, with replay check's output. \
                A recorded Authorization header is never sent: an event that carried one goes with the test \
                user's id token (--token, --token-file, or --user signed in through the pool with USER_SRP_AUTH, \
                the password in $INKRA_PASSWORD or --password-env); one without goes without. Events that cannot \
                be checked as one test user (authorizer events, another user's events, a recorded token expected \
                to be refused) are listed as not checkable and fail nothing. After --storm-limit (default 5) \
                answers of 5xx in a row, or no answer, the run stops with exit status 3.
                  INKRA_PASSWORD=… swift run inkra-emulator replay endpoint "$API_URL" scripts/endpoint-events/rest \\
                      --user tester@example.com --user-pool-id us-east-1_AbCdEf123 --client-id 1h2j3k4l5m6n7o8p9q
                  swift run inkra-emulator replay endpoint "$API_URL" scripts/endpoint-events/rest --token-file token.txt --json
                  swift run inkra-emulator replay endpoint http://127.0.0.1:3000 scripts/endpoint-events/rest \\
                      --token "$TOKEN" --storm-limit 3
                """
        )

        @Argument(
            help: ArgumentHelp(
                "The deployed stage (or a serve) to send the events to, e.g. "
                    + "https://ID.execute-api.us-east-1.amazonaws.com/prod.",
                valueName: "url"))
        var endpoint: String

        @OptionGroup var events: EventPaths

        @Flag(help: "Print one JSON object per event instead of text.")
        var json = false

        @OptionGroup var remote: EndpointOptions

        @OptionGroup var pool: UserPoolOptions

        func validate() throws {
            guard let url = HTTPURL(string: endpoint), ["http", "https"].contains(url.scheme),
                url.host != nil
            else {
                throw ValidationError(
                    "URL must be an http or https URL, e.g. https://ID.execute-api.REGION.amazonaws.com/prod, not \(endpoint)"
                )
            }
            try remote.validate(poolID: pool.userPoolID, clientIDs: pool.clientIDs, region: pool.region)
        }

        func run() async throws {
            LogSetup.bootstrap(level: .warning)
            let targets = try events.targets()
            guard let endpoint = HTTPURL(string: endpoint) else { throw ExitCode(2) }
            var replayer = EndpointReplayer(
                endpoint: endpoint,
                token: try await remote.resolveToken(
                    poolID: pool.userPoolID, clientID: pool.clientIDs.first, region: pool.region))
            replayer.stormLimit = remote.stormLimit
            replayer.timeout = .milliseconds(Int64(remote.endpointTimeout * 1000))
            let progress = Progress()
            let started = ContinuousClock.now
            let outcome = await replayer.replay(targets) { record, total in
                progress.print(record, json: json, total: total)
            }
            progress.clear()
            if !json { Output.out(ReplayReporter.summary(outcome.tally, elapsed: ContinuousClock.now - started)) }
            if let stopped = outcome.stopped {
                Output.err("replay: \(stopped)")
                throw ExitCode(3)
            }
            if outcome.tally.events == 0 { throw events.nothingFound(in: targets) }
            if outcome.tally.failed > 0 { throw ExitCode(1) }
        }
    }
}
