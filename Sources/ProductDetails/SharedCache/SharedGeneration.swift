/// The tokens a shared page is stored under: the fleet's epoch (changed by invalidating
/// everything) and the product's generation (changed by invalidating it). Random, never counted,
/// so a token lost to eviction or a restart reads as a new one, and nothing stored under the
/// old one can come back.
package struct SharedGeneration: Sendable, Hashable {
    package let epoch: String
    package let generation: String

    package init(epoch: String, generation: String) {
        self.epoch = epoch
        self.generation = generation
    }
}
