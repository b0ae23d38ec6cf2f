/// Serialises a ``ProductDetail`` into the bytes the service caches and writes as-is.
///
/// Hand-written rather than `JSONEncoder` for two reasons: the field order is part of the
/// contract and must be stable byte for byte (so ETags are stable), and the document is encoded
/// once per load, then served from cache many times, so it pays to produce exact bytes directly.
public enum DetailEncoder {
    /// `{"product":{…},"reviews":[…],"suggested":[…],"missing":[…]}`, `"missing"` only when non-empty.
    public static func encode(_ detail: ProductDetail) -> [UInt8] {
        var writer = JSONBytesWriter(reservingCapacity: 256 + 96 * (detail.reviews.count + detail.suggested.count))
        writer.raw("{")
        writer.key("product")
        write(detail.product, into: &writer)
        writer.raw(",")
        writer.key("reviews")
        writer.raw("[")
        for (index, review) in detail.reviews.enumerated() {
            if index > 0 { writer.raw(",") }
            write(review, into: &writer)
        }
        writer.raw("],")
        writer.key("suggested")
        writer.raw("[")
        for (index, product) in detail.suggested.enumerated() {
            if index > 0 { writer.raw(",") }
            write(product, into: &writer)
        }
        writer.raw("]")
        if !detail.missing.isEmpty {
            writer.raw(",")
            writer.key("missing")
            writer.raw("[")
            for (index, part) in detail.missing.enumerated() {
                if index > 0 { writer.raw(",") }
                writer.string(part.rawValue)
            }
            writer.raw("]")
        }
        writer.raw("}")
        return writer.bytes
    }

    private static func write(_ product: Product, into writer: inout JSONBytesWriter) {
        writer.raw("{")
        writer.key("id")
        writer.string(product.id)
        writer.raw(",")
        writer.key("name")
        writer.string(product.name)
        writer.raw(",")
        writer.key("priceInCents")
        writer.int(product.priceInCents)
        writer.raw(",")
        writer.key("currency")
        writer.string(product.currency)
        writer.raw("}")
    }

    private static func write(_ review: Review, into writer: inout JSONBytesWriter) {
        writer.raw("{")
        writer.key("id")
        writer.string(review.id)
        writer.raw(",")
        writer.key("rating")
        writer.int(review.rating)
        writer.raw(",")
        writer.key("text")
        writer.string(review.text)
        writer.raw("}")
    }
}
