import ArgumentParser
import EmulatorKit
import Foundation

extension ReplayCommand {
    /// `replay check`, the default job: every event through the functions here, checked against
    /// its expectation; exit 1 when one fails, 2 when there was nothing to replay.
    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Replay recorded events through the functions, as API Gateway would, and check each result.",
            discussion: """
                Files and folders are replayed in name order (default: events/). The function comes from the \
                folder (events/<function>/…) or an "x-inkra-function" field; events with an Authorization header \
                and no authorizer section run through the authorizer first. <name>.expected.json beside an event \
                holds its expected result. Exit status 1 when any event fails or mismatches. `replay EVENTS…` \
                is `replay check EVENTS…`.

                A JSON-lines file (*.jsonl, *.ndjson) holds an event a line, replayed in line order: each line an \
                event object with "x-inkra-function", and its expected result, if any, inline under \
                "x-inkra-expected" (what <name>.expected.json would hold). Events are read as they run, so a file \
                of a million events replays in bounded memory; a bad line is reported as <file>:<line>.

                --jobs N runs events of different users side by side on N workers (default: every core); events \
                of one user, or sharing an Idempotency-Key, still run in input order, and the output, the state \
                file and the exit status are those of --jobs 1, which runs every event in turn.

                Examples, from the repository root:
                  swift run inkra-emulator replay events
                  swift run inkra-emulator replay events/generateQuestions --json
                  swift run inkra-emulator replay day.jsonl --jobs 2 --state day-state.json

                API Gateway's authorizer cache answers as the deployed API answered: an Authorization header \
                seen within --authorizer-cache-ttl seconds (recorded time) of an earlier answer for it is answered \
                from the cache, a token that expired meanwhile included, and its line says "(authorizer cached)" \
                ("authorizer": "cached" with --json). The default is the recording's (below), else template.yaml's \
                300; 0 runs the authorizer for every event.
                  swift run inkra-emulator replay recorded/ --authorizer-cache-ttl 0

                A folder recorded by serve --record holds .inkra-recording.json: the issuers serve trusted (the \
                local user pool's http://HOST:PORT/us-east-1_InkraLocal, the development tokens') and their public \
                keys, and its cache time to live. replay trusts them too, besides what its own flags say, so a \
                session of pool users and development tokens replays as recorded; --no-recorded-trust ignores it.
                  swift run inkra-emulator replay rec
                  swift run inkra-emulator replay rec --no-recorded-trust

                A folder written by import --with-tokens holds .inkra-tokens.json: the claims the authorizer \
                verified, per user. replay signs them with the development key into each imported event's \
                Authorization header (the user's latest authorizer recording at or before the event that let the \
                user through) instead of its injected context, so the events run through the authorizer and the \
                cache; their lines say "(token signed by replay)".
                  swift run inkra-emulator replay recorded/authorizer recorded/checkUsage
                """
        )

        @OptionGroup var events: EventPaths

        @Flag(help: "Write each event's expectation from its result instead of comparing.")
        var update = false

        @Flag(help: "Print one JSON object per event instead of text.")
        var json = false

        @OptionGroup var workers: WorkerOptions

        @OptionGroup var recording: RecordingOptions

        @OptionGroup var common: CommonOptions

        func run() async throws {
            let targets = try events.targets()
            let (stack, cacheTTL, tokens) = try await recording.stack(common, for: targets)
            var replayer = Replayer(stack: stack, update: update).cachingAuthorizer(for: cacheTTL)
            replayer.recordedTokens = tokens
            replayer.keepsResults = false
            let progress = Progress()
            let started = ContinuousClock.now
            let tally = await replayer.replay(targets, jobs: workers.jobs) { record, total in
                progress.print(record, json: json, total: total)
            }
            progress.clear()
            try stack.saveState()
            if !json { Output.out(ReplayReporter.summary(tally, elapsed: ContinuousClock.now - started)) }
            if tally.events == 0 { throw events.nothingFound(in: targets) }
            if tally.failed > 0 { throw ExitCode(1) }
        }
    }
}
