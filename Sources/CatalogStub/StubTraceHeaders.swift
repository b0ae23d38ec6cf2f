/// The W3C trace headers one upstream request carried, as the stub received them.
public struct StubTraceHeaders: Sendable, Equatable {
    public let route: StubRoute
    public let traceparent: String?
    public let tracestate: String?
}
