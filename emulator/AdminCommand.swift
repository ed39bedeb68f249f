import AWSServices
import ArgumentParser
import EmulatorKit
import Foundation
import HTTPText
import InkraTime
import InkraUsage

/// `admin`: support's tools on the usage table, a state file or DynamoDB alike, through the same
/// `UsageStore` the functions use.
struct AdminCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admin",
        abstract: "Support's tools: refund, reset, erase a user's usage; list who was refused on a date.",
        discussion: """
            Each works on a state file (--state) or on DynamoDB (--dynamodb-endpoint, --table): the deployed \
            table, DynamoDB Local, moto, or a running `serve` through its DynamoDB endpoint (its banner prints \
            the address; serve holds its state file, so go through the endpoint while it runs). Each is \
            idempotent and prints what it changed; one that writes to DynamoDB asks for --yes first.

            Examples, from the repository root:
              swift run inkra-emulator admin refund alice 2 --state /tmp/inkra-state.json
              swift run inkra-emulator admin reset alice --window day --dynamodb-endpoint http://127.0.0.1:8000 --yes
              swift run inkra-emulator admin erase alice --state /tmp/inkra-state.json
              swift run inkra-emulator admin refused 2026-11-17 --state /tmp/inkra-state.json
              swift run inkra-emulator admin repair --dynamodb-endpoint http://127.0.0.1:8000 --yes
            """,
        subcommands: [Refund.self, Reset.self, Erase.self, Refused.self, Repair.self]
    )

    /// Where the usage is (``StoreOptions``: `--state`, or `--dynamodb-endpoint` with `--table`), and `--yes`.
    struct TableAccess: ParsableArguments {
        @OptionGroup var location: StoreOptions

        @Flag(help: "Go ahead and write to DynamoDB or Cognito (a state file needs no --yes).")
        var yes = false

        func validate() throws {
            guard (location.state == nil) != (location.dynamoDBEndpoint == nil) else {
                throw ValidationError("give either --state FILE or --dynamodb-endpoint URL (with --table)")
            }
        }

        /// Where the command works, for its first line.
        var target: String {
            if let state = location.state { return "table \(location.table) in state file \(state)" }
            return "table \(location.table) at \(location.dynamoDBEndpoint ?? "")"
        }

        /// The store, on the state file (locked for this process's life) or on DynamoDB.
        /// - Throws: ``UsageFailure`` when `writes` and DynamoDB is named without `--yes`; an
        ///   ``EmulatorError`` when the state file is held by another process or unreadable.
        func open(_ command: String, writes: Bool) async throws -> EmulatorStack {
            if writes, let dynamoDBEndpoint = location.dynamoDBEndpoint, !yes {
                throw UsageFailure(
                    "admin \(command) writes to the table \(location.table) at \(dynamoDBEndpoint): "
                        + "add --yes to go ahead (nothing was changed)")
            }
            var options = EmulatorOptions(clock: { Timestamp.now })
            options.stateFile = location.state.map { URL(fileURLWithPath: $0) }
            options.dynamoDBEndpoint = location.dynamoDBEndpoint.flatMap(HTTPURL.init(string:))
            options.tableName = location.table
            options.developmentKey = try DevelopmentKeyLocator.load()
            return try await EmulatorStack(options: options)
        }
    }

    /// `--at`, or now.
    static func instant(_ at: Instant?) -> Timestamp {
        at?.date ?? Timestamp.now
    }

    static func validateUser(_ user: String) throws {
        guard !user.isEmpty else { throw ValidationError("USER must be a user id (the token's sub), not empty") }
    }

    static func line(_ change: WindowChange) -> String {
        let name = "\(change.window.rawValue) \(change.period)"
        return change.changed
            ? "  \(name): \(change.before) -> \(change.after)" : "  \(name): \(change.before) (unchanged)"
    }

    struct Refund: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Give N units back to a user in the month, day and hour of now (or --at), never below zero.",
            discussion: """
                What support does after an incident. A refund is applied once per reference (--reference, \
                default: the hour and N), so running the same command again changes nothing.
                """
        )

        @Argument(help: "The user id (the token's sub).")
        var user: String

        @Argument(help: "How many units to give back in each window.")
        var units: Int

        @Option(
            help: ArgumentHelp(
                "The instant whose windows get the units back (ISO-8601; default: now).", valueName: Instant.valueName))
        var at: Instant?

        @Option(help: "A name for this refund, such as an incident or ticket id (default: the hour and N).")
        var reference: String?

        @OptionGroup var store: TableAccess

        func validate() throws {
            try AdminCommand.validateUser(user)
            guard units >= 1 else { throw ValidationError("N must be a whole number of units, at least 1") }
            if let reference, reference.isEmpty { throw ValidationError("--reference must not be empty") }
        }

        func run() async throws {
            let stack = try await store.open("refund", writes: true)
            let refund = try await stack.store.refund(
                units, to: user, at: AdminCommand.instant(at), reference: reference)
            try stack.saveState()
            Output.out("admin refund: \(user), \(units) unit(s), reference \(refund.reference), \(store.target)")
            if refund.alreadyApplied {
                Output.out("  refund \(refund.reference) was given to \(user) before: nothing changed")
            } else if !refund.changes.contains(where: \.changed) {
                Output.out("  \(user) has used nothing in these windows: nothing to give back")
            }
            for change in refund.changes { Output.out(AdminCommand.line(change)) }
        }
    }

    struct Repair: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Give back the units of calls charged and never answered whose lease ran out (by now, or --at).",
            discussion: """
                What the deployed stack's repairCharges function does every five minutes, and `serve` every \
                30 seconds: a call with an Idempotency-Key whose runtime died between the charge and the answer \
                (or whose give-back failed) keeps its record in progress; once the record's lease has run out \
                and no retry has taken it over, this gives its unit back in the month, day and hour it was \
                charged in, and deletes the record, so that a later retry with that key runs as a new call. \
                Looks back 7 days. Running it again changes nothing.
                """
        )

        @Option(
            help: ArgumentHelp(
                "Repair leases that ran out before this instant (ISO-8601; default: now).", valueName: Instant.valueName
            ))
        var at: Instant?

        @OptionGroup var store: TableAccess

        func run() async throws {
            let stack = try await store.open("repair", writes: true)
            let report = try await stack.store.repairCharges(at: AdminCommand.instant(at))
            try stack.saveState()
            Output.out("admin repair: \(store.target)")
            Output.out("repaired \(report.repaired) charge(s)")
            if report.leftAlone > 0 {
                Output.out("  \(report.leftAlone) unanswered call(s) taken over or answered meanwhile: left alone")
            }
        }
    }

    struct Reset: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set one window of a user (of now, or --at) back to zero.")

        @Argument(help: "The user id (the token's sub).")
        var user: String

        @Option(help: "The window to set back to zero.")
        var window: Choice<UsageWindow>

        @Option(
            help: ArgumentHelp(
                "The instant whose window is reset (ISO-8601; default: now).", valueName: Instant.valueName))
        var at: Instant?

        @OptionGroup var store: TableAccess

        func validate() throws {
            try AdminCommand.validateUser(user)
        }

        func run() async throws {
            let stack = try await store.open("reset", writes: true)
            let change = try await stack.store.reset(window.value, of: user, at: AdminCommand.instant(at))
            try stack.saveState()
            Output.out("admin reset: \(user), \(store.target)")
            if !change.changed {
                Output.out("  the \(window.value.rawValue) window is at zero already: nothing changed")
            }
            Output.out(AdminCommand.line(change))
        }
    }

    struct Erase: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete every item of a user (their partition), and so their refusal marks in GSI1.",
            discussion: """
                Removes the user's month, day and hour counters, idempotency records and refunds, and prints \
                how many of each. With --user-pool-id it then deletes the Cognito user too (AdminDeleteUser, \
                signed with AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY; at --cognito-endpoint, else \
                AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER, else Cognito in the pool's region), which asks for \
                --yes; a user already gone from the pool is reported, not an error.

                Example: swift run inkra-emulator admin erase SUB --dynamodb-endpoint URL \
                --user-pool-id us-east-1_AbCdEf123 --yes
                """
        )

        @Argument(help: "The user id (the token's sub).")
        var user: String

        @Option(name: .customLong("user-pool-id"), help: "Also delete the user from this Cognito user pool.")
        var userPoolID: String?

        @Option(name: .customLong("cognito-endpoint"), help: "Cognito's endpoint (moto, a local pool); default AWS's.")
        var cognitoEndpoint: String?

        @OptionGroup var store: TableAccess

        func validate() throws {
            try AdminCommand.validateUser(user)
            if let userPoolID {
                guard userPoolID.contains("_"), !userPoolID.hasPrefix("_"), !userPoolID.hasSuffix("_") else {
                    throw ValidationError("--user-pool-id must look like us-east-1_AbCdEf123, not \"\(userPoolID)\"")
                }
            }
            if let cognitoEndpoint {
                guard userPoolID != nil else { throw ValidationError("--cognito-endpoint needs --user-pool-id") }
                guard let url = URL(string: cognitoEndpoint), url.scheme == "http" || url.scheme == "https",
                    url.host != nil
                else {
                    throw ValidationError("--cognito-endpoint must be an http or https URL, not \"\(cognitoEndpoint)\"")
                }
            }
        }

        func run() async throws {
            let pool = try cognitoPool()
            let stack = try await store.open("erase", writes: true)
            let erasure = try await stack.store.erase(user: user)
            try stack.saveState()
            Output.out("admin erase: \(user), \(store.target)")
            report(erasure)
            guard let pool else { return }
            let deleted: Bool
            do {
                deleted = try await pool.deleteUser(user)
            } catch {
                throw UsageFailure(
                    "admin erase: the usage of \(user) is erased, but the Cognito user was not deleted from "
                        + "\(pool.userPoolID) at \(pool.endpoint.absoluteString): \(error); run the command again")
            }
            Output.out(
                deleted
                    ? "  Cognito user \(user) deleted from \(pool.userPoolID)"
                    : "  no Cognito user \(user) in \(pool.userPoolID): nothing to delete")
        }

        /// The pool to delete the user from, checked before anything is written.
        private func cognitoPool() throws -> CognitoUserAdmin? {
            guard let userPoolID else { return nil }
            guard store.yes else {
                throw UsageFailure(
                    "admin erase deletes the Cognito user \(user) from \(userPoolID): add --yes to go ahead "
                        + "(nothing was changed)")
            }
            do {
                // The shell's AWS settings (credentials, region), with --cognito-endpoint (checked in
                // validate()) in place of the shell's Cognito endpoint.
                var aws = try AWSSettings(environment: ProcessInfo.processInfo.environment)
                if let endpoint = cognitoEndpoint.flatMap(HTTPURL.init(string:)) {
                    aws.serviceEndpoints[.cognitoIdentityProvider] = endpoint
                }
                return try CognitoUserAdmin(userPoolID: userPoolID, aws: aws, now: { Timestamp.now })
            } catch {
                throw UsageFailure("admin erase --user-pool-id \(userPoolID): \(error)")
            }
        }

        private func report(_ erasure: UsageErasure) {
            guard erasure.removed > 0 else {
                Output.out("  nothing under \(user)'s partition: nothing removed")
                return
            }
            let order = ["month", "day", "hour", "idempotency", "refund"]
            let kinds = erasure.removedByKind.keys.sorted {
                (order.firstIndex(of: $0) ?? order.count, $0) < (order.firstIndex(of: $1) ?? order.count, $1)
            }
            let counts = kinds.map { "\($0) \(erasure.removedByKind[$0] ?? 0)" }.joined(separator: ", ")
            Output.out("  removed \(erasure.removed) item(s): \(counts)")
            Output.out("  refusal marks removed from GSI1: \(erasure.refusalMarks)")
        }
    }

    struct Refused: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the users refused on a UTC date, with their tier and the window that refused them.",
            discussion: """
                Reads GSI1. The window and tier are those of the user's last refusal that day; marks written \
                before they were recorded show "unknown".
                """
        )

        @Argument(help: ArgumentHelp("A UTC date, YYYY-MM-DD.", valueName: UTCDate.valueName))
        var date: UTCDate

        @OptionGroup var store: TableAccess

        func run() async throws {
            let stack = try await store.open("refused", writes: false)
            let users = try await stack.store.refusals(on: date.text)
            Output.out("admin refused: \(date), \(store.target): \(users.count) user(s)")
            for user in users {
                Output.out(
                    "  \(user.userID)  tier \(user.tier ?? "unknown")  window \(user.window?.rawValue ?? "unknown")"
                        + "  until \(user.blockedUntil ?? "unknown")")
            }
        }
    }
}
