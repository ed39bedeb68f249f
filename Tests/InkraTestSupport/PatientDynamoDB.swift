import AWSServices
import DynamoDBTable
import Foundation
import HTTPText
import InkraTime

/// A DynamoDB client for a local endpoint (moto, `serve`'s), patient as ``MotoEndpoint/client(transport:)``
/// is: a whole parallel test run queues on a local server, and an attempt that times out and is
/// retried may apply twice, so the client waits rather than retries.
package enum PatientDynamoDB {
    /// A client for `endpoint`, with fixed test credentials.
    package static func client(_ endpoint: HTTPURL) -> DynamoDBTable {
        DynamoDBTable(
            endpoint: endpoint,
            region: "us-east-1",
            credentials: AWSCredentials(accessKeyID: "testing", secretAccessKey: "testing"),
            transport: HTTPClientTransport(),
            options: MotoEndpoint.patient,
            now: { Timestamp.now }
        )
    }
}
