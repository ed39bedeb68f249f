import Foundation
import InkraJSON

/// AWS's on-demand prices the cost report applies, read from a dated prices file
/// (`pricing/us-east-1.json` in the repository; `replay --prices FILE` names another).
///
/// Each price is `usd` (a decimal, as a string or a JSON number, read as text so no floating-point
/// error reaches a total) per `per` units, with the unit, the date it was read and the page it
/// comes from. Free tiers are not applied.
package struct Prices: Sendable, Hashable {
    /// One price.
    package struct Price: Sendable, Hashable {
        /// US dollars per ``per`` units.
        package var usd: Decimal
        /// How many units ``usd`` buys.
        package var per: Int
        /// What a unit is.
        package var unit: String
        /// When the price was read from its page (`YYYY-MM-DD`).
        package var read: String
        /// The page it comes from.
        package var source: String

        /// What `quantity` units cost, unrounded.
        package func cost(of quantity: Decimal) -> Decimal {
            quantity * usd / Decimal(per)
        }
    }

    /// The prices' names in the file, and what the report uses each for.
    package enum Name: String, CaseIterable, Sendable {
        /// An API Gateway REST API request (payload 1.0).
        case apiGatewayRestRequest
        /// An HTTP API request (payload 2.0), per 512 KB of request and response.
        case apiGatewayHttpRequest
        /// A Lambda invocation.
        case lambdaRequest
        /// A GB-second of Lambda duration on x86_64.
        case lambdaGBSecondX86
        /// A GB-second of Lambda duration on arm64.
        case lambdaGBSecondArm64
        /// A DynamoDB on-demand write request unit.
        case dynamoDBWriteRequestUnit
        /// A DynamoDB on-demand read request unit.
        case dynamoDBReadRequestUnit
        /// A GB of CloudWatch Logs ingestion.
        case cloudWatchLogsIngestionGB
    }

    /// The repository's prices file, relative to the repository root.
    package static let repositoryFile = "pricing/us-east-1.json"

    /// The file, as named in output.
    package var file: String
    /// The region the prices are for.
    package var region: String
    /// Every price, by name.
    package var prices: [Name: Price]

    /// A price by name (every name is present once the file is read).
    package subscript(name: Name) -> Price {
        prices[name] ?? Price(usd: 0, per: 1, unit: "", read: "", source: "")
    }

    /// The earliest date a price was read, for the report's heading.
    package var readOn: String { prices.values.map(\.read).min() ?? "" }

    /// Reads a prices file.
    /// - Parameter url: the file.
    /// - Throws: ``EmulatorError`` naming the file and the member that is missing or malformed.
    package init(contentsOf url: URL) throws(EmulatorError) {
        let name = url.relativePath
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw EmulatorError("prices file \(name): cannot be read (\(error.localizedDescription))")
        }
        let json: JSONValue
        do {
            json = try JSONParser.parse(Array(data))
        } catch {
            throw EmulatorError("prices file \(name): not valid JSON: \(error)")
        }
        try self.init(json: json, file: name)
    }

    /// Reads prices from the JSON a prices file holds.
    /// - Throws: ``EmulatorError`` naming `file` and the member at fault.
    package init(json: JSONValue, file: String) throws(EmulatorError) {
        self.file = file
        guard json.object != nil else {
            throw EmulatorError("prices file \(file): must be a JSON object, not \(json.typeName)")
        }
        guard let region = json["region"]?.string else {
            throw EmulatorError("prices file \(file): \"region\" is missing or not a string")
        }
        self.region = region
        if let currency = json["currency"], currency.string != "USD" {
            throw EmulatorError("prices file \(file): \"currency\" must be \"USD\", not \(currency.jsonString)")
        }
        guard let section = json["prices"], section.object != nil else {
            throw EmulatorError("prices file \(file): \"prices\" is missing or not an object")
        }
        var prices: [Name: Price] = [:]
        for name in Name.allCases {
            let member = "prices.\(name.rawValue)"
            guard let entry = section[name.rawValue], entry.object != nil else {
                throw EmulatorError("prices file \(file): \"\(member)\" is missing or not an object")
            }
            // Digits and a point only ("3.50", or the JSON number 3.50 read as its text): no sign,
            // no exponent, nothing Decimal would read only in part.
            guard let text = entry["usd"]?.scalarText, !text.isEmpty,
                text.allSatisfy({ ("0"..."9").contains($0) || $0 == "." }),
                let usd = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
            else {
                throw EmulatorError(
                    "prices file \(file): \"\(member).usd\" must be a price in dollars such as \"3.50\", not "
                        + (entry["usd"]?.jsonString ?? "missing"))
            }
            guard let per = entry["per"]?.int, per > 0 else {
                throw EmulatorError(
                    "prices file \(file): \"\(member).per\" must be a whole number of units above 0, not "
                        + (entry["per"]?.jsonString ?? "missing"))
            }
            var fields: [String: String] = [:]
            for field in ["unit", "read", "source"] {
                guard let value = entry[field]?.string, !value.isEmpty else {
                    throw EmulatorError("prices file \(file): \"\(member).\(field)\" is missing or not a string")
                }
                fields[field] = value
            }
            let read = fields["read"] ?? ""
            guard ISO8601.parse(read + "T00:00:00Z") != nil, read.count == 10 else {
                throw EmulatorError(
                    "prices file \(file): \"\(member).read\" must be the date the price was read, YYYY-MM-DD, not \"\(read)\""
                )
            }
            prices[name] = Price(
                usd: usd, per: per, unit: fields["unit"] ?? "", read: read, source: fields["source"] ?? "")
        }
        self.prices = prices
    }
}
