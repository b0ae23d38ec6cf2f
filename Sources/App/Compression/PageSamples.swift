import CatalogStub
import ProductDetails

/// The pages a ``PageGzipper``'s codes are made from: the first pages of a small demo catalog,
/// encoded as the service encodes every page. Fixed, so that every loop and replica of one build
/// gzips a page to the same bytes; of our own encoder's shape, so that the codes fit the keys and
/// punctuation every page shares, whatever its upstream's values.
enum PageSamples {
    /// Enough pages that each key and the usual characters of names and texts occur; more change
    /// the codes little (bench/HISTORY.md, issue 32).
    static let count = 8

    static let bodies: [[UInt8]] = {
        let catalog = Catalog(size: count, seed: 42)
        return (1...count).compactMap { index -> [UInt8]? in
            let id = Catalog.id(ofIndex: index)
            guard let product = catalog.productJSON(id).flatMap({ try? UpstreamJSON.product(from: $0) }),
                  let reviews = catalog.reviewsJSON(id).flatMap({ try? UpstreamJSON.reviews(from: $0) }),
                  let suggested = catalog.suggestionsJSON(id).flatMap({ try? UpstreamJSON.products(from: $0) })
            else { return nil }
            return DetailEncoder.encode(ProductDetail(product: product, reviews: reviews, suggested: suggested))
        }
    }()
}
