import ProductDetails
/// A held load lease: this replica loads `id` for the fleet, and only it may store the page.
package struct SharedClaim: Sendable, Hashable {
    package let id: String
    package let generation: SharedGeneration
    /// This holder's random token, which the lease key holds while the lease is ours.
    package let token: String

    package init(id: String, generation: SharedGeneration, token: String) {
        self.id = id
        self.generation = generation
        self.token = token
    }
}
