import AWSServices
import EmulatorKit
import Foundation
import HTTPText
import InkraTime
import Testing

/// AWS's endpoints end in the DNS suffix of the region's partition, not always `amazonaws.com`.
/// AWS General Reference, "AWS service endpoints"
/// (https://docs.aws.amazon.com/general/latest/gr/rande.html): a regional endpoint is
/// `protocol://service-code.region-code.amazonaws.com`, GovCloud (US) included; "Endpoints and ARNs
/// for Amazon Web Services in China" (https://docs.amazonaws.cn/en_us/general/latest/gr/rande.html):
/// `dynamodb.cn-north-1.amazonaws.com.cn` is DynamoDB's endpoint in the Beijing Region.
@Suite("Endpoints in the region's partition")
struct PartitionEndpointTests {
    static func settings(_ region: String) -> AWSSettings {
        AWSSettings(region: region, accessKeyID: "AKIDEXAMPLE", secretAccessKey: "secret")
    }

    @Test(
        "Each service's endpoint: amazonaws.com, amazonaws.com.cn in China, amazonaws.com in GovCloud",
        arguments: [
            ("eu-west-1", "https://dynamodb.eu-west-1.amazonaws.com"),
            ("cn-north-1", "https://dynamodb.cn-north-1.amazonaws.com.cn"),
            ("cn-northwest-1", "https://dynamodb.cn-northwest-1.amazonaws.com.cn"),
            ("us-gov-west-1", "https://dynamodb.us-gov-west-1.amazonaws.com"),
            ("us-iso-east-1", "https://dynamodb.us-iso-east-1.c2s.ic.gov"),
        ])
    func dynamoDB(_ region: String, _ endpoint: String) throws {
        #expect(try Self.settings(region).client(for: .dynamoDB).endpoint.absoluteString == endpoint)
    }

    @Test("SSM, Secrets Manager and Cognito in China; a pool's own region decides Cognito's")
    func otherServices() throws {
        let china = Self.settings("cn-north-1")
        #expect(
            try AWSJSONService.ssm(china, now: { Timestamp.now }).endpoint.host == "ssm.cn-north-1.amazonaws.com.cn")
        #expect(
            try AWSJSONService.secretsManager(china, now: { Timestamp.now }).endpoint.host
                == "secretsmanager.cn-north-1.amazonaws.com.cn")
        let admin = try CognitoUserAdmin(
            userPoolID: "cn-northwest-1_AbCdEf123", aws: Self.settings("us-east-1"), now: { Timestamp.now })
        #expect(admin.endpoint.host == "cognito-idp.cn-northwest-1.amazonaws.com.cn")
        #expect(
            CognitoSignIn.endpoint(forPoolID: "cn-north-1_AbCdEf123")?.absoluteString
                == "https://cognito-idp.cn-north-1.amazonaws.com.cn/")
    }

    @Test("An endpoint variable still wins over the partition's")
    func endpointVariable() throws {
        var settings = Self.settings("cn-north-1")
        settings.endpoint = HTTPURL(string: "http://127.0.0.1:4566")
        #expect(try settings.client(for: .ssm).endpoint.absoluteString == "http://127.0.0.1:4566")
    }
}
