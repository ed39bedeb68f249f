/// The DNS suffix of AWS's endpoints in a region's partition: the last part of a regional endpoint's
/// host, `<service>.<region>.<suffix>`. AWS General Reference, "AWS service endpoints": regional
/// endpoints take the form `protocol://service-code.region-code.amazonaws.com`, and the China
/// Regions' end in `amazonaws.com.cn` (Amazon Web Services in China, "Endpoints and ARNs":
/// `dynamodb.cn-north-1.amazonaws.com.cn`); the AWS SDKs' partition table (`partitions.json`,
/// its `dnsSuffix` per region pattern) gives the isolated partitions' suffixes.
package enum AWSPartition {
    /// The partitions whose suffix is not `amazonaws.com`, by region prefix, the longer prefix first.
    static let suffixes: [(prefix: String, suffix: String)] = [
        ("cn-", "amazonaws.com.cn"),  // aws-cn: Beijing, Ningxia
        ("us-isob-", "sc2s.sgov.gov"),  // aws-iso-b
        ("us-isof-", "csp.hci.ic.gov"),  // aws-iso-f
        ("us-iso-", "c2s.ic.gov"),  // aws-iso
        ("eu-isoe-", "cloud.adc-e.uk"),  // aws-iso-e
        ("eusc-", "amazonaws.eu"),  // aws-eusc: the European Sovereign Cloud
    ]

    /// The DNS suffix of `region`'s partition: `amazonaws.com.cn` for `cn-north-1`, `amazonaws.com`
    /// for the commercial and the GovCloud (US) regions (`us-gov-west-1`) and any region not known
    /// to be elsewhere.
    /// - Parameter region: a region code, `eu-west-1`.
    /// - Returns: the suffix, without a leading dot.
    package static func dnsSuffix(forRegion region: String) -> String {
        let region = region.lowercased()
        return suffixes.first { region.hasPrefix($0.prefix) }?.suffix ?? "amazonaws.com"
    }

    /// Every partition's suffix, `amazonaws.com` first.
    package static var allSuffixes: [String] { ["amazonaws.com"] + suffixes.map(\.suffix) }

    /// The host of `service`'s regional endpoint in `region`: `dynamodb.cn-north-1.amazonaws.com.cn`.
    /// - Parameters:
    ///   - service: the endpoint prefix, `dynamodb`, `cognito-idp`.
    ///   - region: the region code.
    /// - Returns: the host name.
    package static func host(_ service: String, region: String) -> String {
        "\(service).\(region).\(dnsSuffix(forRegion: region))"
    }
}
