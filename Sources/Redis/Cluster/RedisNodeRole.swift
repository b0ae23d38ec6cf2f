/// What a node is to the client in the slot map as last read: the label of the gauge that
/// counts command connections, so an operator sees one connection per master and loop, and
/// whether the client still holds connections to nodes that left the map.
package enum RedisNodeRole: String, Sendable, CaseIterable {
    /// Serves slots; a single Redis counts as one.
    case master
    /// Copies a master: the client connects to one only to read the map from it.
    case replica
    /// Named by no map read yet: the seed before the first read, or a failed master.
    case unmapped
}
