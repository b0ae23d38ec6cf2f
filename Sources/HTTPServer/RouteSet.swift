import HTTP1

/// The routes of a ``Router``, untyped: an immutable routing trie over path segments, where
/// `{name}` segments capture one segment.
@usableFromInline
package struct RouteSet: Sendable {
    private var root = RouteNode()
    /// `root` flattened for lookups, rebuilt by every `add` (routes are added at start-up).
    private var table = RouteTable(RouteNode())

    /// The outcome of matching one request.
    package enum Match: Sendable {
        case found(parameters: PathParameters, pattern: String)
        case methodNotAllowed(allow: [HTTPMethod])
        case notFound
    }

    @usableFromInline init() {}

    @usableFromInline mutating func add(_ method: HTTPMethod, _ pattern: String, responder: @escaping RouteResponder) {
        let segments = pattern.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        root.insert(ArraySlice(segments), method: method, route: Route(pattern: pattern, responder: responder))
        table = RouteTable(root)
    }

    func match(method: HTTPMethod, path: String) -> Match {
        switch lookup(method: method, path: path) {
        case .route(let route, let parameters):
            return .found(parameters: parameters, pattern: route.pattern)
        case .otherMethods(let methods):
            return .methodNotAllowed(allow: Self.allowedMethods(methods))
        case .none:
            return .notFound
        }
    }

    @usableFromInline func respond(to request: inout HTTPRequest, context: inout RequestContext) -> ResponderAnswer {
        switch lookup(method: request.method, path: request.path) {
        case .route(let route, let parameters):
            request.pathParameters = parameters
            context.route = route.pattern
            return route.responder(request, &context)
        case .otherMethods(let table):
            context.route = RequestContext.unmatchedRoute
            let methods = Self.allowedMethods(table).map(\.rawValue).joined(separator: ", ")
            return .now(ProblemDetails(status: .methodNotAllowed, detail: "Allowed methods: \(methods).")
                .response(headers: ["Allow": methods]))
        case .none:
            context.route = RequestContext.unmatchedRoute
            return .now(ProblemDetails(status: .notFound, detail: "No resource at this path.").response())
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

    private static func allowedMethods(_ methods: MethodTable) -> [HTTPMethod] {
        var allow = Set(methods.map(\.method))
        if allow.contains(.get) { allow.insert(.head) }
        return allow.sorted { $0.rawValue < $1.rawValue }
    }
}

/// A route's responder, untyped: an answer now, or the work that waits for it.
@usableFromInline
typealias RouteResponder = @Sendable (HTTPRequest, inout RequestContext) -> ResponderAnswer

struct Route: Sendable {
    let pattern: String
    let responder: RouteResponder
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
