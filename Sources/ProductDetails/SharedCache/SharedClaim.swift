/// A held load lease: this replica loads `id` for the fleet, and only it may store the page.
public struct SharedClaim: Sendable, Hashable {
    public let id: String
    public let generation: SharedGeneration
    /// This holder's random token, which the lease key holds while the lease is ours.
    public let token: String

    public init(id: String, generation: SharedGeneration, token: String) {
        self.id = id
        self.generation = generation
        self.token = token
    }
}
