import JSON

/// The upstream wire format of catalog values.
extension Catalog {
    static func json(of product: StubProduct) -> [UInt8] {
        var writer = JSONBytesWriter(reservingCapacity: 96 + product.name.utf8.count)
        write(product, to: &writer)
        return writer.release()
    }

    static func json(of reviews: [StubReview]) -> [UInt8] {
        json(of: reviews, write)
    }

    static func json(of products: [StubProduct]) -> [UInt8] {
        json(of: products, write)
    }

    /// `[…]` of the elements, each written by `write`.
    private static func json<Element>(of elements: [Element], _ write: (Element, inout JSONBytesWriter) -> Void) -> [UInt8] {
        var writer = JSONBytesWriter(reservingCapacity: 2 + elements.count * 96)
        writer.raw("[")
        for (index, element) in elements.enumerated() {
            if index > 0 { writer.raw(",") }
            write(element, &writer)
        }
        writer.raw("]")
        return writer.release()
    }

    static func write(_ product: StubProduct, to writer: inout JSONBytesWriter) {
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

    static func write(_ review: StubReview, to writer: inout JSONBytesWriter) {
        writer.raw(#"{"id":"#)
        writer.string(review.id)
        writer.raw(#","rating":"#)
        writer.int(review.rating)
        writer.raw(#","text":"#)
        writer.string(review.text)
        writer.raw("}")
    }
}
