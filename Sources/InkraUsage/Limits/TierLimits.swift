import InkraJSON

/// The limits of each tier, by tier name, with the defaults of the free and premium tiers.
public struct TierLimits: Sendable, Hashable {
    /// Tier name → limits.
    package private(set) var tiers: [String: Limits]

    /// The defaults: free 5/3/2, premium 999999/100/20.
    public init() {
        tiers = ["free": .free, "premium": .premium]
    }

    /// Limits by tier name; tiers not named keep their defaults.
    public init(_ tiers: [String: Limits]) {
        self.init()
        self.tiers.merge(tiers) { _, new in new }
    }

    /// The limits of a tier; an unknown tier gets the free tier's.
    public func limits(forTier tier: String) -> Limits {
        tiers[tier] ?? tiers["free"] ?? .free
    }

    /// Reads a limits file: `{"free":{"monthly":5,"daily":3,"hourly":2},"premium":{…}}`.
    ///
    /// A tier may name only some of its windows; the others keep that tier's defaults.
    /// - Throws: ``LimitsFileError`` naming the file and the field that is wrong.
    package init(contentsOfFile path: String) throws {
        let data: [UInt8]
        do {
            data = try FileBytes.read(atPath: path)
        } catch {
            throw LimitsFileError(path: path, reason: "cannot be read (\(error.reason))")
        }
        try self.init(json: data, source: path)
    }

    /// Parses the JSON of a limits file; `source` names it in errors.
    package init(json data: [UInt8], source: String = "limits file") throws {
        self.init()
        guard let object = (try? JSONParser.parse(data))?.object else {
            throw LimitsFileError(path: source, reason: "must be a JSON object of tier names to limits")
        }
        for (tier, value) in object.pairs {
            guard let windows = value.object else {
                throw LimitsFileError(path: source, reason: "\(tier) must be an object with monthly, daily, hourly")
            }
            var limits = limits(forTier: tier)
            for (name, value) in windows.pairs {
                // An integer, not a Boolean, a string or a fraction.
                guard case .number = value, let count = value.int, count > 0 else {
                    throw LimitsFileError(path: source, reason: "\(tier).\(name) must be a positive integer")
                }
                switch name {
                case "monthly": limits.monthly = count
                case "daily": limits.daily = count
                case "hourly": limits.hourly = count
                default:
                    throw LimitsFileError(
                        path: source,
                        reason: "\(tier).\(name) is not a limit (expected monthly, daily or hourly)"
                    )
                }
            }
            tiers[tier] = limits
        }
    }
}

/// A limits file that cannot be used.
package struct LimitsFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file.
    package var path: String
    /// What is wrong with it.
    package var reason: String

    /// "`<path>`: `<reason>`".
    package var description: String { "\(path): \(reason)" }
}
