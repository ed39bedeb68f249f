import AWSServices
import Crypto
import Foundation
import HTTPText
import InkraTime
import Testing

/// AWS's published Signature Version 4 examples: the SigV4 test suite (service "service",
/// us-east-1, 2015-08-30T12:36:00Z) and the IAM `ListUsers` example from AWS's documentation.
@Suite("SigV4 against AWS's published examples")
struct SigV4Tests {
    static let credentials = AWSCredentials(
        accessKeyID: "AKIDEXAMPLE",
        secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
    )
    static let suite = SigV4Signer(credentials: credentials, region: "us-east-1", service: "service")
    static let amzDate = "20150830T123600Z"

    func sign(_ method: String, _ url: String, headers: [(String, String)] = [], signer: SigV4Signer = suite)
        -> SigV4Signer.Signature
    {
        signer.signature(
            method: method,
            url: HTTPURL(string: url)!,
            headers: [("Host", "example.amazonaws.com"), ("X-Amz-Date", Self.amzDate)] + headers,
            body: [],
            amzDate: Self.amzDate
        )
    }

    @Test("get-vanilla")
    func getVanilla() {
        let signature = sign("GET", "https://example.amazonaws.com/")
        #expect(
            signature.canonicalRequest
                == "GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\n"
                + "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        )
        #expect(
            signature.authorization
                == "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, "
                + "SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"
        )
    }

    @Test("post-vanilla, with its string to sign")
    func postVanilla() {
        let signature = sign("POST", "https://example.amazonaws.com/")
        #expect(
            signature.stringToSign
                == "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\n"
                + "553f88c9e4d10fc9e109e2aeb65f030801b70c2f6468faca261d401ae622fc87"
        )
        #expect(signature.signature == "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b")
    }

    @Test("Query parameters are sorted and encoded; header names are lower-cased")
    func otherSuiteCases() {
        #expect(
            sign("GET", "https://example.amazonaws.com/?Param2=value2&Param1=value1").signature
                == "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500"
        )
        #expect(
            sign("POST", "https://example.amazonaws.com/?Param1=value1").signature
                == "28038455d6de14eafc1f9222cf5aa6f1a96197d7deb8263271d420d138af7f11"
        )
        let headerCase = sign("POST", "https://example.amazonaws.com/", headers: [("My-Header1", "VALUE1")])
        #expect(headerCase.signedHeaders == "host;my-header1;x-amz-date")
        #expect(headerCase.signature == "cdbc9802e29d2942e5e10b5bccfdd67c5f22c7c4e8ae67b53629efa58b974b7d")
    }

    @Test("The IAM ListUsers example: signing key, canonical request and signature")
    func iamExample() {
        let signer = SigV4Signer(credentials: Self.credentials, region: "us-east-1", service: "iam")
        let key = signer.signingKey(day: "20150830")
        #expect(
            key.map { String(format: "%02x", $0) }.joined()
                == "c4afb1cc5771d871763a393e44b703571b55cc28424d1a5e86da6ed3c154a4b9")
        let signature = signer.signature(
            method: "GET",
            url: HTTPURL(string: "https://iam.amazonaws.com/?Action=ListUsers&Version=2010-05-08")!,
            headers: [
                ("Content-Type", "application/x-www-form-urlencoded; charset=utf-8"), ("Host", "iam.amazonaws.com"),
                ("X-Amz-Date", Self.amzDate),
            ],
            body: [],
            amzDate: Self.amzDate
        )
        let hash = SHA256.hash(data: Array(signature.canonicalRequest.utf8)).map { String(format: "%02x", $0) }.joined()
        #expect(hash == "f536975d06c0309214f805bb90ccff089219ecd68b2577efef23edd43b7e1a59")
        #expect(signature.signature == "5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7")
    }

    @Test("Temporary credentials add and sign X-Amz-Security-Token")
    func sessionToken() {
        let signer = SigV4Signer(
            credentials: AWSCredentials(accessKeyID: "AKID", secretAccessKey: "secret", sessionToken: "token-123"),
            region: "eu-west-1",
            service: "dynamodb"
        )
        let (headers, signature) = signer.sign(
            method: "POST",
            url: HTTPURL(string: "https://dynamodb.eu-west-1.amazonaws.com/")!,
            headers: [("X-Amz-Target", "DynamoDB_20120810.GetItem")],
            body: Array("{}".utf8),
            date: Timestamp(timeIntervalSince1970: 1_440_938_160)
        )
        #expect(headers.contains { $0 == ("X-Amz-Security-Token", "token-123") })
        #expect(headers.contains { $0 == ("X-Amz-Date", "20150830T123600Z") })
        #expect(signature.signedHeaders == "host;x-amz-date;x-amz-security-token;x-amz-target")
        #expect(
            signature.authorization.hasPrefix(
                "AWS4-HMAC-SHA256 Credential=AKID/20150830/eu-west-1/dynamodb/aws4_request"))
    }
}
