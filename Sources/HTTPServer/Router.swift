import HTTP1

/// An immutable routing trie over path segments. `{name}` segments capture one segment.
/// HEAD is served by the GET handler when no HEAD route is registered.
public struct Router: Sendable {
    private var root = RouteNode()
    /// `root` flattened for lookups, rebuilt by every `add` (routes are added at start-up).
    private var table = RouteTable(RouteNode())

    /// The outcome of matching one request.
    public enum Match: Sendable {
        case found(RouteHandler, parameters: PathParameters, pattern: String)
        case methodNotAllowed(allow: [HTTPMethod])
        case notFound
    }

    public init() {}

    /// Registers `handler` for `method` on `pattern` (e.g. `/products/{id}`). `immediate`, when
    /// given, is tried first on the loop thread (see ``dispatchImmediately(_:context:)``).
    public mutating func add(
        _ method: HTTPMethod, _ pattern: String, immediate: ImmediateRouteHandler? = nil,
        _ handler: @escaping RouteHandler
    ) {
        let segments = pattern.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        root.insert(ArraySlice(segments), method: method, route: Route(pattern: pattern, handler: handler, immediate: immediate))
        table = RouteTable(root)
    }

    /// Registers a handler that never waits: it answers on the loop thread, with no task.
    public mutating func addImmediate(
        _ method: HTTPMethod, _ pattern: String, _ handler: @escaping @Sendable (HTTPRequest, RequestContext) -> HTTPResponse
    ) {
        add(method, pattern, immediate: { handler($0, $1) }) { handler($0, $1) }
    }

    public func match(method: HTTPMethod, path: String) -> Match {
        switch lookup(method: method, path: path) {
        case .route(let route, let parameters):
            return .found(route.handler, parameters: parameters, pattern: route.pattern)
        case .otherMethods(let methods):
            return .methodNotAllowed(allow: Self.allowedMethods(methods))
        case .none:
            return .notFound
        }
    }

    /// Answers on the calling thread when it needs no waiting: the matched route's immediate
    /// handler when it has one and it answers, or the `404` problem. Nil when the request needs
    /// ``dispatch(_:context:)`` (which also words the rarer `405`).
    /// The request and context are bound in place (path parameters, route), copied by nobody.
    public func dispatchImmediately(
        _ request: inout HTTPRequest, context: inout RequestContext
    ) -> (response: HTTPResponse, route: String)? {
        switch lookup(method: request.method, path: request.path) {
        case .route(let route, let parameters):
            guard let immediate = route.immediate else { return nil }
            request.pathParameters = parameters
            context.route = route.pattern
            guard let response = immediate(request, context) else {
                request.matchedRoute = route
                return nil
            }
            return (response, route.pattern)
        case .otherMethods:
            return nil
        case .none:
            return (Self.notFound(), Self.unmatched)
        }
    }

    private enum Lookup {
        case route(Route, parameters: PathParameters)
        /// The path exists, not for this method.
        case otherMethods(MethodTable)
        case none
    }

    private func lookup(method: HTTPMethod, path: String) -> Lookup {
        var parameters = PathParameters()
        guard path.hasPrefix("/"), let methods = table.find(path.utf8.dropFirst(), parameters: &parameters) else { return .none }
        if let route = RouteNode.route(in: methods, for: method) ?? (method == .head ? RouteNode.route(in: methods, for: .get) : nil) {
            return .route(route, parameters: parameters)
        }
        return .otherMethods(methods)
    }

    /// The request and context as the route's handlers see them: with its path parameters, and
    /// naming the route.
    private static func bind(
        _ request: HTTPRequest, _ context: RequestContext, to route: Route, _ parameters: PathParameters
    ) -> (HTTPRequest, RequestContext) {
        var request = request
        request.pathParameters = parameters
        var context = context
        context.route = route.pattern
        return (request, context)
    }

    private static func allowedMethods(_ methods: MethodTable) -> [HTTPMethod] {
        var allow = Set(methods.map(\.method))
        if allow.contains(.get) { allow.insert(.head) }
        return allow.sorted { $0.rawValue < $1.rawValue }
    }

    /// Dispatches a request: the handler's answer, or a `404`/`405` problem.
    public func respond(to request: HTTPRequest, context: RequestContext) async -> HTTPResponse {
        await dispatch(request, context: context).response
    }

    /// Like `respond`, and also names the route that matched (`unmatched` for 404/405), for
    /// metrics and logs that must not carry raw paths.
    public func dispatch(_ request: HTTPRequest, context: RequestContext) async -> (response: HTTPResponse, route: String) {
        if let route = request.matchedRoute {
            // Matched and its parameters bound by `dispatchImmediately`, whose immediate handler
            // declined: no second lookup, and the request is passed on, not copied and rebound.
            var context = context
            context.route = route.pattern
            return (await route.handler(request, context), route.pattern)
        }
        switch lookup(method: request.method, path: request.path) {
        case .route(let route, let parameters):
            let (request, context) = Self.bind(request, context, to: route, parameters)
            return (await route.handler(request, context), route.pattern)
        case .otherMethods(let table):
            let methods = Self.allowedMethods(table).map(\.rawValue).joined(separator: ", ")
            let response = ProblemDetails(status: .methodNotAllowed, detail: "Allowed methods: \(methods).")
                .response(headers: ["Allow": methods])
            return (response, Self.unmatched)
        case .none:
            return (Self.notFound(), Self.unmatched)
        }
    }

    private static func notFound() -> HTTPResponse {
        ProblemDetails(status: .notFound, detail: "No resource at this path.").response()
    }

    /// The route label of requests no route matched.
    public static let unmatched = "unmatched"
}

/// A route's synchronous handler: an answer now, or nil to leave the request to the async one.
public typealias ImmediateRouteHandler = @Sendable (HTTPRequest, RequestContext) -> HTTPResponse?

struct Route: Sendable {
    let pattern: String
    let handler: RouteHandler
    let immediate: ImmediateRouteHandler?
}

/// The routes of one path by method: a few entries, scanned, not hashed (hashing the method's
/// name cost more).
typealias MethodTable = [(method: HTTPMethod, route: Route)]

/// The routing trie as routes are added; lookups use its flattened ``RouteTable``.
struct RouteNode: Sendable {
    /// Few children per node: a linear scan beats hashing the segment.
    var literals: [(segment: String, node: RouteNode)] = []
    var parameterName: String?
    var parameterChild: [RouteNode] = []
    var handlers: MethodTable = []

    func route(for method: HTTPMethod) -> Route? {
        Self.route(in: handlers, for: method)
    }

    static func route(in methods: MethodTable, for method: HTTPMethod) -> Route? {
        for entry in methods where entry.method == method { return entry.route }
        return nil
    }

    mutating func insert(_ segments: ArraySlice<Substring>, method: HTTPMethod, route: Route) {
        guard let first = segments.first else {
            precondition(self.route(for: method) == nil, "duplicate route \(method) \(route.pattern)")
            handlers.append((method, route))
            return
        }
        let rest = segments.dropFirst()
        if first.hasPrefix("{") && first.hasSuffix("}") {
            let name = String(first.dropFirst().dropLast())
            precondition(parameterName == nil || parameterName == name, "conflicting parameter names in \(route.pattern)")
            parameterName = name
            if parameterChild.isEmpty { parameterChild.append(RouteNode()) }
            parameterChild[0].insert(rest, method: method, route: route)
        } else {
            let segment = String(first)
            if let index = literals.firstIndex(where: { $0.segment == segment }) {
                literals[index].node.insert(rest, method: method, route: route)
            } else {
                var node = RouteNode()
                node.insert(rest, method: method, route: route)
                literals.append((segment, node))
            }
        }
    }
}
