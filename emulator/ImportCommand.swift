import ArgumentParser
import EmulatorKit
import Foundation
import InkraHandlers
import InkraJSON
import InkraUsage

struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Turn captured Lambda logs with recordings (INKRA_RECORD_EVENTS=1) into an events folder.",
        discussion: """
            Reads what `aws logs filter-log-events --output json` or `aws logs get-log-events` printed (one page \
            or several saved one after another), CloudWatch Logs' gzip'd exports to S3, a plain capture of the \
            runtime's output, or a JSON-lines file of events as `replay` reads them (*.jsonl: an event a line \
            with "x-inkra-function", its expectation under "x-inkra-expected"), and writes \
            OUT/<function>/<recorded time>-<request id>.json with its .expected.json from the recorded response; `replay OUT/<function>` then runs each event at the \
            instant the function read. The authorizer's decisions go to OUT/authorizer-decisions.jsonl. A \
            recording seen twice is written once; lines that are not recordings are skipped; a broken one is \
            reported with its file and line and the import goes on. Exit status 1 when any line was broken or \
            any recording cut, 2 when nothing could be read. What is not a log capture is refused before \
            anything is written (exit 2), naming what it is: a missing file, a folder (a folder serve --record \
            wrote is an events folder already: replay it, no import needed), an empty file, or an event, an \
            expectation or a recording's manifest.

            --pseudonymize KEY replaces every user id with an HMAC-SHA256 of it under KEY, the same in the \
            events, their expectations, the decisions and --scan, so the folder can leave the account.
            Recordings hold each user id as the pseudonym keyed by the server's secret that also names the \
            user's partition in the table, so --scan (an aws dynamodb scan of the table) is written to \
            --scan-out keyed as the local stack's store reads those users (and pseudonymized again with \
            --pseudonymize), to seed a replay of the recordings with --state-from-scan.

            --with-tokens also writes OUT/.inkra-tokens.json: per user (pseudonymized as the events are), each \
            authorizer recording's instant and the claims the authorizer verified (token use, iat, exp, groups, \
            tier attributes, monthly quota; never an email), and the refusal when the token was refused as \
            expired; and OUT/authorizer/<recorded time>-<request id>.json, one authorizer event per such \
            recording, expecting the recorded answer. replay signs those claims with the development key into \
            the token of each imported event of the user (the latest authorizer recording at or before the \
            event's instant that let the user through) instead of the injected authorizer context, so the events run through the \
            authorizer and its cache: tiers, the blocked group, custom:monthly_quota and expiry as recorded.
              swift run inkra-emulator import logs.json --out recorded --with-tokens
              swift run inkra-emulator replay recorded/authorizer recorded/checkUsage

            Examples, from the repository root:
              aws logs filter-log-events --log-group-name /aws/lambda/inkra-generateQuestions \\
                --output json > logs.json
              swift run inkra-emulator import logs.json --out recorded
              swift run inkra-emulator replay recorded/generateQuestions
              swift run inkra-emulator import logs.json --out shared --pseudonymize "$KEY" \\
                --scan scan.json --scan-out shared-scan.json
            """
    )

    @Argument(help: "Captured logs: aws logs JSON output, S3 export .gz files, or runtime output captures.")
    var sources: [String] = []

    @Option(help: "The events folder to write.")
    var out: String

    @Option(help: "Replace every user id with HMAC-SHA256(KEY, id), in hex, stable for a key.")
    var pseudonymize: String?

    @Flag(
        name: .customLong("with-tokens"),
        help:
            "Also write OUT/.inkra-tokens.json (the claims the authorizer verified, per user) and OUT/authorizer/ events."
    )
    var withTokens = false

    @Option(
        help: """
            An `aws dynamodb scan --output json` of the stack's table, to seed a replay of the recordings \
            (--state-from-scan).
            """)
    var scan: String?

    @Option(name: .customLong("scan-out"), help: "Where to write --scan as the local stack reads it.")
    var scanOut: String?

    func validate() throws {
        if sources.isEmpty { throw ValidationError("name at least one log file to import") }
        if (scan == nil) != (scanOut == nil) { throw ValidationError("--scan and --scan-out go together") }
        if pseudonymize?.isEmpty == true { throw ValidationError("--pseudonymize needs a non-empty key") }
    }

    func run() throws {
        let refusals = sources.compactMap(Self.refusal(of:))
        guard refusals.isEmpty else {
            for refusal in refusals { Output.err("import: \(refusal)") }
            throw ExitCode(2)
        }
        let pseudonymizer = pseudonymize.map(Pseudonymizer.init(key:))
        var collector = RecordingCollector()
        var unreadable = 0
        var fromLines = EventLinesImport.Outcome()
        for source in sources {
            if EventLinesImport.accepts(URL(fileURLWithPath: source)) {
                let writer = ImportWriter(directory: URL(fileURLWithPath: out), pseudonymizer: pseudonymizer)
                do {
                    let outcome = try EventLinesImport(writer: writer).run(URL(fileURLWithPath: source), named: source)
                    fromLines.written += outcome.written
                    fromLines.broken += outcome.broken
                } catch {
                    Output.err("error: \(error.message)")
                    unreadable += 1
                }
                continue
            }
            do {
                let messages = try LogSource.messages(of: URL(fileURLWithPath: source), named: source)
                for message in messages { collector.add(message) }
                if messages.isEmpty { Output.err("\(source): no log lines in it") }
            } catch {
                Output.err("error: \(error.message)")
                unreadable += 1
            }
        }
        for broken in collector.broken { Output.err("broken: \(broken)") }
        for broken in fromLines.broken { Output.err("broken: \(broken)") }
        for cut in collector.cut {
            Output.err(
                "cut: \(cut.source):\(cut.line): recording \(cut.requestID) has parts \(cut.seen) of \(cut.of); "
                    + "the rest never came")
        }

        let writer = ImportWriter(directory: URL(fileURLWithPath: out), pseudonymizer: pseudonymizer)
        var written = fromLines.written
        var decisions: [Recording] = []
        let total = collector.recordings.count
        for (index, recording) in collector.recordings.enumerated() {
            if recording.function == "authorizer" {
                decisions.append(recording)
                continue
            }
            do {
                try writer.write(recording)
                written += 1
            } catch {
                Output.err("error: \(error.message)")
            }
            if total >= 1000, (index + 1) % 1000 == 0 { Output.err("  imported \(index + 1)/\(total) recordings") }
        }
        try writer.writeDecisions(decisions)
        if withTokens {
            let tokens = try writer.writeTokens(decisions)
            Output.err(
                "tokens: the claims of \(tokens.entries) authorizer recordings of \(tokens.users) users written to "
                    + "\(URL(fileURLWithPath: out).appendingPathComponent(RecordedTokens.fileName).relativePath), "
                    + "\(tokens.events) authorizer events")
        }
        if let scan, let scanOut {
            var table = try TableScan(contentsOf: URL(fileURLWithPath: scan))
            table.wireItems = table.wireItems.map { Pseudonymizer.localItem($0, pseudonymizer: pseudonymizer) }
            try Data((table.json.prettyJSONString + "\n").utf8).write(to: URL(fileURLWithPath: scanOut))
            Output.err(
                "scan: \(table.wireItems.count) items written into \(scanOut), keyed as the local stack reads them")
        }
        Output.out(
            "\(collector.found) recording lines found, \(written) events and \(decisions.count) authorizer "
                + "decisions written, \(collector.duplicates) duplicates, \(collector.skipped) other lines skipped, "
                + "\(collector.broken.count + fromLines.broken.count) broken, \(collector.cut.count) cut")
        if unreadable == sources.count { throw ExitCode(2) }
        if !collector.broken.isEmpty || !collector.cut.isEmpty || !fromLines.broken.isEmpty || unreadable > 0 {
            throw ExitCode(1)
        }
    }
}

extension ImportCommand {
    /// Why `source` is not a log capture to import, naming what it is and what to do instead;
    /// `nil` when it may be one (its lines are read as they come).
    static func refusal(of source: String) -> String? {
        let url = URL(fileURLWithPath: source)
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: source, isDirectory: &isFolder) else {
            return "no such file: \(source)"
        }
        let replay = "inkra-emulator replay \(url.deletingLastPathComponent().relativePath)"
        if isFolder.boolValue {
            if FileManager.default.fileExists(atPath: url.appendingPathComponent(RecordingManifest.fileName).path) {
                return "\(source) is a folder serve --record wrote: it is an events folder already and needs no "
                    + "import; replay it with inkra-emulator replay \(source)"
            }
            return "\(source) is a folder, not a log capture: name the files of captured logs in it (what aws logs "
                + "filter-log-events --output json printed, S3 export .gz files, a runtime's output)"
        }
        guard let size = (try? FileManager.default.attributesOfItem(atPath: source))?[.size] as? Int else {
            return nil
        }
        if size == 0 {
            return "\(source) is empty: capture the functions' logs (aws logs filter-log-events --output json) with "
                + "INKRA_RECORD_EVENTS=1 set on them, and import that"
        }
        if url.lastPathComponent == RecordingManifest.fileName {
            return "\(source) is the manifest of a folder serve --record wrote, not a log capture: the folder needs "
                + "no import; replay it with \(replay)"
        }
        // An event or an expectation (a --record folder's files) is one JSON object of at most
        // Lambda's 6 MB; what `aws logs` prints is an object with "events", taken as a capture.
        guard size <= Replayer.maximumEventSize, let data = try? Data(contentsOf: url),
            let object = (try? JSONParser.parse(Replayer.jsonBytes(of: data)))?.object, object["events"] == nil
        else { return nil }
        if url.lastPathComponent.hasSuffix(".expected.json") {
            return "\(source) is an event's expectation, not a log capture: its folder is an events folder already "
                + "(serve --record writes such folders) and needs no import; replay it with \(replay)"
        }
        if ["requestContext", "httpMethod", "routeKey", "methodArn", "authorizationToken"].contains(where: {
            object[$0] != nil
        }) {
            return "\(source) is an API Gateway event, not a log capture: a folder of events (serve --record writes "
                + "one) needs no import; replay it with \(replay)"
        }
        return "\(source) is a JSON object but not what aws logs filter-log-events --output json prints (an "
            + "object with \"events\"): save that output and import it"
    }
}
