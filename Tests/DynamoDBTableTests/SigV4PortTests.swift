import AWSServices
import DynamoDBTable
import Foundation
import HTTPText
import InkraTime
import SingleTable
import Synchronization
import Testing

/// An endpoint URL that names its scheme's default port (`AWS_ENDPOINT_URL_DYNAMODB=
/// https://dynamodb.us-east-1.amazonaws.com:443`, as the SSM, Secrets Manager and Cognito ones may)
/// is signed as botocore signs it: `host` without the port, which is the `Host` the request sends.
/// A non-default port stays in both. The expected values are botocore's own `SigV4Auth` output for
/// the same request, printed by `scripts/sigv4-botocore.py` (botocore 1.43, `_host_from_url`).
@Suite("SigV4 on the request path: the signed host is the sent host, as botocore signs it")
struct SigV4PortTests {
    /// What the transport was handed: the request as it goes on the wire.
    final class Capture: DynamoDBTransport {
        let requests = Mutex<[DynamoDBHTTPRequest]>([])

        func send(_ request: DynamoDBHTTPRequest) async throws -> DynamoDBHTTPResponse {
            requests.withLock { $0.append(request) }
            return DynamoDBHTTPResponse(status: 200, body: Array("{}".utf8))
        }
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var endpoint: String
        var sessionToken: String?
        var host: String
        var signature: String
        var signedHeaders = "content-type;host;x-amz-date;x-amz-target"
        var testDescription: String { endpoint }
    }

    static let cases = [
        Case(
            endpoint: "https://dynamodb.us-east-1.amazonaws.com:443", host: "dynamodb.us-east-1.amazonaws.com",
            signature: "1867a8b87f13db09af04f7696cbeaf53c2440efb26556314233c8a1f14c592f9"),
        Case(
            endpoint: "https://dynamodb.us-east-1.amazonaws.com", host: "dynamodb.us-east-1.amazonaws.com",
            signature: "1867a8b87f13db09af04f7696cbeaf53c2440efb26556314233c8a1f14c592f9"),
        Case(
            endpoint: "http://127.0.0.1:8000", host: "127.0.0.1:8000",
            signature: "cc6301f301d4dfa97093830a68c5d55918ed9a64f4693bd7417b62e164428baa"),
        Case(
            endpoint: "https://DynamoDB.us-east-1.amazonaws.com:8443", sessionToken: "session-token-example",
            host: "dynamodb.us-east-1.amazonaws.com:8443",
            signature: "7f1c43b72025a5b783829bd5a55f7d45e19e00042174b965226b8ac7b2936814",
            signedHeaders: "content-type;host;x-amz-date;x-amz-security-token;x-amz-target"),
    ]

    /// 2026-11-27T12:00:00Z, the instant the script signs at.
    static let instant = Timestamp(timeIntervalSince1970: 1_795_780_800)

    @Test("GetItem's Host and Authorization equal botocore's", arguments: cases)
    func matchesBotocore(_ expected: Case) async throws {
        let capture = Capture()
        let table = DynamoDBTable(
            endpoint: HTTPURL(string: expected.endpoint)!, region: "us-east-1",
            credentials: AWSCredentials(
                accessKeyID: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
                sessionToken: expected.sessionToken),
            transport: capture, now: { Self.instant })
        _ = try await table.getItem(
            GetItemRequest(tableName: "inkra-usage", key: ["PK": .s("USER#u1"), "SK": .s("USAGE")]))
        let request = try #require(capture.requests.withLock { $0.first })
        // The body the script signs: the same bytes, asking for the consumed capacity.
        #expect(
            String(decoding: request.body, as: UTF8.self)
                == #"{"TableName":"inkra-usage","Key":{"PK":{"S":"USER#u1"},"SK":{"S":"USAGE"}},"#
                + #""ReturnConsumedCapacity":"TOTAL"}"#)
        let hosts = request.headers.filter { $0.0.lowercased() == "host" }.map(\.1)
        #expect(hosts == [expected.host], "the Host the request sends")
        let authorization = request.headers.first { $0.0 == "Authorization" }?.1
        #expect(
            authorization
                == "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20261127/us-east-1/dynamodb/aws4_request, "
                + "SignedHeaders=\(expected.signedHeaders), Signature=\(expected.signature)",
            "body signed: \(String(decoding: request.body, as: UTF8.self))")
    }
}

extension SigV4PortTests {
    @Test("SSM's GetParameter at https://ssm.us-east-1.amazonaws.com:443 is botocore's request too")
    func ssmMatchesBotocore() async throws {
        let capture = Capture()
        let ssm = try AWSJSONService.ssm(
            AWSSettings(environment: [
                "AWS_ENDPOINT_URL_SSM": "https://ssm.us-east-1.amazonaws.com:443", "AWS_REGION": "us-east-1",
                "AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
            ]), transport: capture, now: { Self.instant })
        _ = try? await ssm.parameter(named: "/inkra/limits")
        let request = try #require(capture.requests.withLock { $0.first })
        #expect(String(decoding: request.body, as: UTF8.self) == #"{"Name":"/inkra/limits","WithDecryption":true}"#)
        #expect(request.headers.filter { $0.0.lowercased() == "host" }.map(\.1) == ["ssm.us-east-1.amazonaws.com"])
        #expect(
            request.headers.first { $0.0 == "Authorization" }?.1
                == "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20261127/us-east-1/ssm/aws4_request, "
                + "SignedHeaders=content-type;host;x-amz-date;x-amz-target, "
                + "Signature=9f54b54301ebe4778d655ef942c4527550a123ca44a93f7635d681c1c9f85cb6")
    }
}
