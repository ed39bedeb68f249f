import LambdaRuntimeAPI
import Testing

/// `AWS_XRAY_DAEMON_ADDRESS` in the forms Lambda and the X-Ray SDKs use ("Using AWS Lambda with
/// AWS X-Ray", https://docs.aws.amazon.com/lambda/latest/dg/services-xray.html: `IP_ADDRESS:PORT`;
/// the SDKs' configuration also takes `udp:host:port tcp:host:port`).
@Suite("The X-Ray daemon's address")
struct XRayDaemonAddressTests {
    @Test(
        "Both forms name the UDP address",
        arguments: [
            ("169.254.79.129:2000", "169.254.79.129", "2000"), ("udp:127.0.0.1:2001", "127.0.0.1", "2001"),
            ("tcp:127.0.0.1:2000 udp:127.0.0.2:2002", "127.0.0.2", "2002"),
        ])
    func forms(value: String, host: String, port: String) throws {
        let address = try #require(XRayDaemonClient.udpAddress(in: value))
        #expect(address.host == host && address.port == port)
    }

    @Test(
        "Malformed addresses are refused",
        arguments: ["", "host", "host:", ":2000", "host:0", "host:70000", "tcp:h:1 tcp:h:2"])
    func malformed(value: String) {
        #expect(XRayDaemonClient.udpAddress(in: value) == nil)
    }
}
