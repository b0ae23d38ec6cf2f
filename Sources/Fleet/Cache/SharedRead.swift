import ProductDetails
/// What the shared cache had for a product.
package enum SharedRead: Sendable, Equatable {
    /// A stored page, `age` after it was stored, under the product's current generation.
    case page(SharedPage, age: Duration, generation: SharedGeneration)
    /// No page, and this replica now holds the load lease: it loads and stores.
    case claimed(SharedClaim)
    /// No page, and another replica holds the lease: its page should appear soon.
    case loadingElsewhere
    /// A page that shows a product invalidated after it was loaded: never served, loaded again
    /// under the lease at `generation` as on a miss. Only ``SharedCache`` answers this, having
    /// judged a store's page by what it knows of the fleet's invalidations.
    case invalidated(generation: SharedGeneration)
}
