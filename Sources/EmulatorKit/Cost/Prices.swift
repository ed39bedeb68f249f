import Foundation
import InkraJSON
import InkraTime

/// AWS's on-demand prices the cost report applies, read from a dated prices file
/// (`pricing/us-east-1.json` in the repository; `replay bill --prices FILE` names another).
///
/// Each price is `usd` (a decimal, as a string or a JSON number, read as text so no floating-point
/// error reaches a total) per `per` units, or, where AWS prices in bands, `tiers` (each band's
/// `usd` up to its `upTo` units a month, the last band open), with the unit, the date it was read
/// and the page it comes from. Free tiers are not applied, but for a band at 0 in `tiers`
/// (Cognito's plans, whose free tier never expires and differs by plan).
package struct Prices: Sendable, Hashable {
    /// One price.
    package struct Price: Sendable, Hashable {
        /// One band of a banded price: `usd` per ``per`` units up to `upTo` units (`nil`: no end).
        package struct Band: Sendable, Hashable {
            /// The band's last unit, counted from the first of the month; `nil` for the last band.
            package var upTo: Int?
            /// US dollars per ``Price/per`` units in the band.
            package var usd: Decimal
        }

        /// US dollars per ``per`` units (a banded price: its first band's).
        package var usd: Decimal
        /// How many units ``usd`` buys.
        package var per: Int
        /// What a unit is.
        package var unit: String
        /// When the price was read from its page (`YYYY-MM-DD`).
        package var read: String
        /// The page it comes from.
        package var source: String

        /// The bands, in order; one open band for a flat price.
        package var bands: [Band] = []

        /// What `quantity` units cost, unrounded: each band's units at its price.
        package func cost(of quantity: Decimal) -> Decimal {
            guard !bands.isEmpty else { return quantity * usd / Decimal(per) }
            var cost = Decimal(0)
            var from = Decimal(0)
            for band in bands where quantity > from {
                let to = band.upTo.map { min(quantity, Decimal($0)) } ?? quantity
                cost += (to - from) * band.usd / Decimal(per)
                from = to
            }
            return cost
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
        /// A monthly active user of a Cognito user pool on the Lite plan (banded).
        case cognitoLiteMAU
        /// A monthly active user on the Essentials plan (banded).
        case cognitoEssentialsMAU
        /// A monthly active user on the Plus plan.
        case cognitoPlusMAU
        /// A metric a standard-resolution alarm fetches, a month.
        case cloudWatchAlarmMetric
        /// A custom metric (name and dimensions), a month.
        case cloudWatchCustomMetric
        /// A GB-month of stored logs.
        case cloudWatchLogsStorageGB
        /// A GB-month of DynamoDB table storage.
        case dynamoDBStorageGB
        /// A GB-month of point-in-time recovery, on the table's size.
        case dynamoDBPointInTimeRecoveryGB
        /// A Secrets Manager secret, a month.
        case secretsManagerSecret
        /// A WAF web ACL, a month.
        case wafWebACL
        /// A rule in a WAF web ACL, a month.
        case wafRule
        /// A request a WAF web ACL inspects.
        case wafRequest
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
        let data = try Replayer.contents(of: url) { "prices file \(name): cannot be read (\($0))" }
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
            var bands: [Price.Band] = []
            let usd: Decimal
            if let tiers = entry["tiers"] {
                bands = try Self.bands(tiers, member: "\(member).tiers", file: file)
                usd = bands[0].usd
            } else {
                usd = try Self.dollars(entry["usd"], member: "\(member).usd", file: file)
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
            guard CivilTime.instant(iso8601: read + "T00:00:00Z", allowingDate: true) != nil, read.count == 10 else {
                throw EmulatorError(
                    "prices file \(file): \"\(member).read\" must be the date the price was read, YYYY-MM-DD, not \"\(read)\""
                )
            }
            prices[name] = Price(
                usd: usd, per: per, unit: fields["unit"] ?? "", read: read, source: fields["source"] ?? "",
                bands: bands)
        }
        self.prices = prices
    }

    /// A price in dollars: digits and a point only ("3.50", or the JSON number 3.50 read as its
    /// text): no sign, no exponent, nothing Decimal would read only in part.
    private static func dollars(_ value: JSONValue?, member: String, file: String) throws(EmulatorError) -> Decimal {
        guard let text = value?.scalarText, !text.isEmpty,
            text.allSatisfy({ ("0"..."9").contains($0) || $0 == "." }),
            let usd = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
        else {
            throw EmulatorError(
                "prices file \(file): \"\(member)\" must be a price in dollars such as \"3.50\", not "
                    + (value?.jsonString ?? "missing"))
        }
        return usd
    }

    /// A banded price's bands: each `{"upTo": units, "usd": price}`, `upTo` rising, the last without.
    private static func bands(_ value: JSONValue, member: String, file: String) throws(EmulatorError) -> [Price.Band] {
        guard let items = value.array, !items.isEmpty else {
            throw EmulatorError("prices file \(file): \"\(member)\" must be a list of bands, not \(value.jsonString)")
        }
        var bands: [Price.Band] = []
        for (index, item) in items.enumerated() {
            let usd = try dollars(item["usd"], member: "\(member)[\(index)].usd", file: file)
            let last = index == items.count - 1
            let upTo = item["upTo"]?.int
            guard last ? item["upTo"] == nil : (upTo.map { $0 > (bands.last?.upTo ?? 0) } ?? false) else {
                throw EmulatorError(
                    "prices file \(file): \"\(member)[\(index)].upTo\" must be "
                        + (last ? "absent in the last band" : "a whole number of units above the band before"))
            }
            bands.append(Price.Band(upTo: upTo, usd: usd))
        }
        return bands
    }
}
