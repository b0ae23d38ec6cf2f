/// The W3C trace headers one upstream request carried, as the stub received them.
package struct StubTraceHeaders: Sendable, Equatable {
    package let route: StubRoute
    package let traceparent: String?
    package let tracestate: String?
}
