import Foundation
import InkraHandlers

/// A usage priced: one line per billed resource, and their sum, in exact decimal dollars.
package struct Bill: Sendable, Hashable {
    /// One billed resource.
    package struct Line: Sendable, Hashable {
        /// Which resource (a ``Prices/Name``'s raw value: `apiGatewayRestRequest`, …).
        package var name: Prices.Name
        /// How many units (requests, GB-seconds, request units, GB).
        package var quantity: Decimal
        /// What they cost, unrounded.
        package var usd: Decimal
    }

    /// How durations are billed: on which architecture, as measured or one duration for every
    /// invocation; each function's memory is template.yaml's (``TemplateSizing``).
    package struct Sizing: Sendable, Hashable {
        /// The price of a GB-second depends on it.
        package var architecture: LambdaArchitecture
        /// Every invocation billed this many milliseconds instead of its measured duration.
        package var lambdaMilliseconds: Int?

        /// Creates sizing.
        package init(architecture: LambdaArchitecture = TemplateSizing.architecture, lambdaMilliseconds: Int? = nil) {
            self.architecture = architecture
            self.lambdaMilliseconds = lambdaMilliseconds
        }

        /// The milliseconds billed for a function's invocations.
        package func milliseconds(_ invocations: Usage.Invocations) -> Int {
            lambdaMilliseconds.map { $0 * invocations.count } ?? invocations.billedMilliseconds
        }

        /// GB-seconds of a function's invocations: memory in GB (of 1,024 MB) × seconds billed.
        package func gbSeconds(_ invocations: Usage.Invocations) -> Decimal {
            Decimal(TemplateSizing.memoryMB) * Decimal(milliseconds(invocations)) / Decimal(1024 * 1000)
        }
    }

    /// Every line, in the order of ``Prices/Name`` (one GB-second line, for the architecture).
    package var lines: [Line]

    /// Bytes in a GB of CloudWatch Logs ingestion.
    package static let bytesPerGB = 1_073_741_824

    /// Prices a usage.
    package init(_ usage: Usage, prices: Prices, sizing: Sizing) {
        let gbSeconds = usage.invocations.values.reduce(Decimal(0)) { $0 + sizing.gbSeconds($1) }
        let quantities: [(Prices.Name, Decimal)] = [
            (.apiGatewayRestRequest, Decimal(usage.restRequests)),
            (.apiGatewayHttpRequest, Decimal(usage.httpRequests)),
            (.lambdaRequest, Decimal(usage.invocationCount)),
            (sizing.architecture.gbSecondPrice, gbSeconds),
            (.dynamoDBWriteRequestUnit, Decimal(usage.writeUnits)),
            (.dynamoDBReadRequestUnit, Decimal(usage.readHalfUnits) / 2),
            (.cloudWatchLogsIngestionGB, Decimal(usage.logBytes) / Decimal(Self.bytesPerGB)),
        ]
        lines = quantities.map { name, quantity in
            Line(name: name, quantity: quantity, usd: prices[name].cost(of: quantity))
        }
    }

    /// The line of a resource (zero when it is not billed).
    package subscript(name: Prices.Name) -> Line {
        lines.first { $0.name == name } ?? Line(name: name, quantity: 0, usd: 0)
    }

    /// Every line summed, unrounded.
    package var total: Decimal { lines.reduce(Decimal(0)) { $0 + $1.usd } }

    /// Lambda's part: requests and GB-seconds.
    package var lambda: Decimal {
        lines.filter { [.lambdaRequest, .lambdaGBSecondX86, .lambdaGBSecondArm64].contains($0.name) }
            .reduce(Decimal(0)) { $0 + $1.usd }
    }

    /// DynamoDB's part: write and read request units.
    package var dynamoDB: Decimal {
        self[.dynamoDBWriteRequestUnit].usd + self[.dynamoDBReadRequestUnit].usd
    }

    /// API Gateway's part: REST and HTTP API requests.
    package var apiGateway: Decimal {
        self[.apiGatewayRestRequest].usd + self[.apiGatewayHttpRequest].usd
    }
}

extension Decimal {
    /// Rounded to `scale` decimal places, half away from zero.
    package func rounded(toPlaces scale: Int) -> Decimal {
        var value = self
        var result = Decimal()
        NSDecimalRound(&result, &value, scale, .plain)
        return result
    }

    /// As dollars with six decimals: `$0.000042`.
    package var dollars: String { "$" + Self.fixed(self, places: 6) }

    /// As a person reads a bill: dollars to the cent with thousands separated (`$1,234.57`), and
    /// `<$0.01` for an amount above zero that rounds to no cent.
    package var cents: String {
        if self > 0 && self < Decimal(string: "0.005")! { return "<$0.01" }
        let text = Self.fixed(self, places: 2)
        let negative = text.hasPrefix("-")
        let digits = negative ? text.dropFirst() : Substring(text)
        let point = digits.firstIndex(of: ".")!
        var whole = String(digits[..<point])
        var grouped = ""
        while whole.count > 3 {
            grouped = "," + whole.suffix(3) + grouped
            whole.removeLast(3)
        }
        return (negative ? "-" : "") + "$" + whole + grouped + digits[point...]
    }

    /// The value with exactly `places` decimals, in the C locale.
    package static func fixed(_ value: Decimal, places: Int) -> String {
        let rounded = value.rounded(toPlaces: places)
        let negative = rounded < 0
        let magnitude = negative ? -rounded : rounded
        let scaled = (magnitude * pow(Decimal(10), places)).rounded(toPlaces: 0)
        var digits = NSDecimalNumber(decimal: scaled).stringValue
        while digits.count <= places { digits = "0" + digits }
        let split = digits.index(digits.endIndex, offsetBy: -places)
        let text = places > 0 ? digits[..<split] + "." + digits[split...] : digits
        return (negative ? "-" : "") + text
    }
}
