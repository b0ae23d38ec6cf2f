import HTTP1

/// A ``RouteNode`` trie flattened into arrays of plain values. A lookup walks indices and compares
/// bytes, so it retains nothing per hop; walking the nodes themselves retained each node's arrays
/// and strings, and each path slice's storage, on every cached page (bench/HISTORY.md).
struct RouteTable: Sendable {
    private struct Node: Sendable {
        /// This node's literal children, a range of `edges`.
        var edges: Range<Int>
        var parameterChild: Int?
        /// Index in `parameterNames`.
        var parameterName: Int?
        /// Index in `methodTables`; nil when no route ends here.
        var methods: Int?
    }

    private struct Edge: Sendable {
        /// The segment, a range of `segmentBytes`.
        var segment: Range<Int>
        var child: Int
    }

    private var nodes: [Node] = []
    private var edges: [Edge] = []
    private var segmentBytes: [UInt8] = []
    private var parameterNames: [String] = []
    private var methodTables: [MethodTable] = []

    init(_ root: RouteNode) {
        _ = add(root)
    }

    /// Appends `node` and everything below it; returns its index. A node's edges are contiguous.
    private mutating func add(_ node: RouteNode) -> Int {
        let index = nodes.count
        let firstEdge = edges.count
        nodes.append(Node(edges: firstEdge..<firstEdge + node.literals.count))
        for (segment, _) in node.literals {
            let start = segmentBytes.count
            segmentBytes.append(contentsOf: segment.utf8)
            edges.append(Edge(segment: start..<segmentBytes.count, child: -1))
        }
        for (offset, literal) in node.literals.enumerated() {
            edges[firstEdge + offset].child = add(literal.node)
        }
        if let name = node.parameterName, let child = node.parameterChild.first {
            parameterNames.append(name)
            nodes[index].parameterName = parameterNames.count - 1
            nodes[index].parameterChild = add(child)
        }
        if !node.handlers.isEmpty {
            methodTables.append(node.handlers)
            nodes[index].methods = methodTables.count - 1
        }
        return index
    }

    /// The methods of the route `path` (what follows the leading "/") matches, binding its
    /// parameters; literal segments win over a parameter, and a literal that leads nowhere falls
    /// back to the parameter. The walk moves indices over the one view: a slice per segment
    /// retained the path's storage each time.
    func find(_ path: Substring.UTF8View, parameters: inout PathParameters) -> MethodTable? {
        guard let found = find(path, at: path.startIndex, from: 0, parameters: &parameters) else { return nil }
        return methodTables[found]
    }

    private func find(
        _ path: Substring.UTF8View, at start: String.Index, from nodeIndex: Int, parameters: inout PathParameters
    ) -> Int? {
        var end = start
        while end < path.endIndex, path[end] != UInt8(ascii: "/") { path.formIndex(after: &end) }
        let atEnd = end == path.endIndex
        let next = atEnd ? end : path.index(after: end)
        let node = nodes[nodeIndex]
        for edgeIndex in node.edges {
            let edge = edges[edgeIndex]
            guard segment(edge.segment, equals: path, start..<end) else { continue }
            if atEnd {
                if let methods = nodes[edge.child].methods { return methods }
            } else if let found = find(path, at: next, from: edge.child, parameters: &parameters) {
                return found
            }
        }
        if let child = node.parameterChild, let name = node.parameterName, start < end {
            let found = atEnd ? nodes[child].methods : find(path, at: next, from: child, parameters: &parameters)
            if let found {
                // Parameters are percent-decoded (`%70%31` is `p1`); a malformed escape stays as
                // sent, for the handler's validation to refuse.
                let raw = Substring(path[start..<end])
                parameters[parameterNames[name]] = (try? PercentDecoding.decode(raw, plusIsSpace: false)) ?? String(raw)
                return found
            }
        }
        return nil
    }

    private func segment(_ range: Range<Int>, equals path: Substring.UTF8View, _ bytes: Range<String.Index>) -> Bool {
        guard range.count == path.distance(from: bytes.lowerBound, to: bytes.upperBound) else { return false }
        var index = bytes.lowerBound
        for offset in range {
            guard segmentBytes[offset] == path[index] else { return false }
            path.formIndex(after: &index)
        }
        return true
    }
}
