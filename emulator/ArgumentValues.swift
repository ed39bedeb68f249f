import ArgumentParser
import EmulatorKit
import Foundation
import InkraAuth
import InkraHandlers
import InkraTime

// The values the command line's options take, as types: ArgumentParser parses each once, where it
// reads the option, and refuses a bad one with a message that names the option and, for a fixed
// set, every value it accepts (exit 2). No command parses an option's string again.

/// An instant given as an option (`--now`, `--at`): ISO-8601 as `CivilTime.instant(iso8601:allowingDate:)` reads it,
/// `2026-11-17T12:00:00Z`, with a fraction and `Z` or an offset, or a date as midnight UTC.
struct Instant: ExpressibleByArgument, Sendable, Hashable {
    /// The instant.
    let date: Timestamp

    init?(argument: String) {
        guard let date = CivilTime.instant(iso8601: argument, allowingDate: true) else { return nil }
        self.date = date
    }

    var defaultValueDescription: String { CivilTime.iso8601(date) }

    /// The value name in usage lines and errors: the form an instant is written in.
    static let valueName = "yyyy-mm-ddThh:mm:ssZ"
}

/// A UTC date given as an argument (`admin refused`, `usage --refused-on`): `YYYY-MM-DD`.
struct UTCDate: ExpressibleByArgument, Sendable, Hashable, CustomStringConvertible {
    /// The date as written, `2026-11-17`: the table's day keys are spelled so.
    let text: String

    init?(argument: String) {
        // A date alone, as the one ISO-8601 reader takes it (a real day of a real month).
        guard argument.utf8.count == 10, CivilTime.instant(iso8601: argument, allowingDate: true) != nil else {
            return nil
        }
        text = argument
    }

    var description: String { text }

    /// The value name in usage lines and errors.
    static let valueName = "yyyy-mm-dd"
}

/// One of a fixed set of values, named by its raw value in any case (`--window day`,
/// `--log-level INFO`, `--runtime-function checkusage`); a bad one is refused with the list.
///
/// A wrapper the emulator owns, so that the package's enums (and swift-log's `Logger.Level`) need
/// no conformance to ArgumentParser's protocol outside the modules that declare them.
struct Choice<Value: RawRepresentable & CaseIterable & Sendable>: ExpressibleByArgument, Sendable
where Value.RawValue == String {
    /// The value chosen.
    let value: Value

    init(_ value: Value) {
        self.value = value
    }

    init?(argument: String) {
        guard let match = Value.allCases.first(where: { $0.rawValue.lowercased() == argument.lowercased() }) else {
            return nil
        }
        value = match
    }

    static var allValueStrings: [String] { Value.allCases.map(\.rawValue) }

    var defaultValueDescription: String { value.rawValue }
}

/// Where `serve`'s local user pool says its tokens come from (`--pool-issuer`).
enum PoolIssuer: String, CaseIterable, Sendable {
    /// `http://HOST:PORT/<poolId>`, the local pool's own address.
    case local
    /// Cognito's `ORIGINAL` issuer URL.
    case original = "ORIGINAL"
    /// Cognito's `UPDATED` issuer URL.
    case updated = "UPDATED"

    /// The Cognito form, `nil` for the local one.
    var form: IssuerForm? {
        switch self {
        case .local: nil
        case .original: .original
        case .updated: .updated
        }
    }
}

/// API Gateway's payload format for `serve --payload`: `v1` (REST API) or `v2` (HTTP API); also
/// `1.0`/`rest` and `2.0`/`http`, in any case.
enum Payload: String, CaseIterable, Sendable, ExpressibleByArgument {
    case v1
    case v2

    init?(argument: String) {
        switch argument.lowercased() {
        case "v1", "1.0", "rest": self = .v1
        case "v2", "2.0", "http": self = .v2
        default: return nil
        }
    }

    /// The events' version.
    var version: ProxyRequest.Version {
        switch self {
        case .v1: .v1
        case .v2: .v2
        }
    }
}
