import Hummingbird
import NIOCore

/// The request context of the local servers: Hummingbird's core storage, the client's address
/// (which API Gateway reports as `sourceIp`) and the event loop of the connection.
struct ServeRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The client's address.
    let remoteAddress: SocketAddress?
    /// The connection's event loop.
    let eventLoop: any EventLoop

    init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        remoteAddress = source.channel.remoteAddress
        eventLoop = source.channel.eventLoop
    }
}
