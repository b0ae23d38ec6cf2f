import JSON

/// Serialises a ``ProductDetail`` into the bytes the service caches and writes as-is.
///
/// Hand-written rather than `JSONEncoder` for two reasons: the field order is part of the
/// contract and must be stable byte for byte (so ETags are stable), and the document is encoded
/// once per load, then served from cache many times, so it pays to produce exact bytes directly.
package enum DetailEncoder {
    /// `{"product":{…},"reviews":[…],"suggested":[…],"missing":[…]}`, `"missing"` only when non-empty.
    ///
    /// Punctuation and keys between two values go out as one literal each: a document is mostly
    /// short tokens, and every append costs a capacity check.
    package static func encode(_ detail: ProductDetail) -> [UInt8] {
        var writer = JSONBytesWriter(reservingCapacity: 256 + 96 * (detail.reviews.count + detail.suggested.count))
        writer.raw(#"{"product":"#)
        write(detail.product, into: &writer)
        writer.raw(#","reviews":["#)
        for index in detail.reviews.indices {
            if index > 0 { writer.raw(",") }
            write(detail.reviews[index], into: &writer)
        }
        writer.raw(#"],"suggested":["#)
        for index in detail.suggested.indices {
            if index > 0 { writer.raw(",") }
            write(detail.suggested[index], into: &writer)
        }
        writer.raw("]")
        if !detail.missing.isEmpty {
            writer.raw(#","missing":["#)
            for (index, part) in detail.missing.enumerated() {
                if index > 0 { writer.raw(",") }
                writer.string(part.rawValue)
            }
            writer.raw("]")
        }
        writer.raw("}")
        return writer.bytes
    }

    private static func write(_ product: borrowing Product, into writer: inout JSONBytesWriter) {
        writer.raw(#"{"id":"#)
        writer.string(product.id)
        writer.raw(#","name":"#)
        writer.string(product.name)
        writer.raw(#","priceInCents":"#)
        writer.int(product.priceInCents)
        writer.raw(#","currency":"#)
        writer.string(product.currency)
        writer.raw("}")
    }

    private static func write(_ review: borrowing Review, into writer: inout JSONBytesWriter) {
        writer.raw(#"{"id":"#)
        writer.string(review.id)
        writer.raw(#","rating":"#)
        writer.int(review.rating)
        writer.raw(#","text":"#)
        writer.string(review.text)
        writer.raw("}")
    }
}
