/// A generation snapshot taken before a load starts; ``ResponseCache`` refuses to store the load's
/// result if the key, or everything, was invalidated after it.
package struct LoadToken: Sendable, Equatable, Hashable {
    let generation: UInt64
}
