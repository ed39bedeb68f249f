import Hummingbird
import NIOCore

/// The request context of the local servers: Hummingbird's core storage and the client's address,
/// which API Gateway reports as `sourceIp`.
struct ServeRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The client's address.
    let remoteAddress: SocketAddress?

    init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}
