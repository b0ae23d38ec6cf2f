/// The upstream wire format of catalog values.
extension Catalog {
    static func json(of product: StubProduct) -> [UInt8] {
        var writer = JSONWriter(capacity: 96 + product.name.utf8.count)
        write(product, to: &writer)
        return writer.bytes
    }

    static func json(of reviews: [StubReview]) -> [UInt8] {
        var writer = JSONWriter(capacity: 2 + reviews.count * 96)
        writer.beginArray()
        for review in reviews {
            write(review, to: &writer)
        }
        writer.endArray()
        return writer.bytes
    }

    static func json(of products: [StubProduct]) -> [UInt8] {
        var writer = JSONWriter(capacity: 2 + products.count * 96)
        writer.beginArray()
        for product in products {
            write(product, to: &writer)
        }
        writer.endArray()
        return writer.bytes
    }

    static func write(_ product: StubProduct, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("id", product.id)
        writer.field("name", product.name)
        writer.field("priceInCents", product.priceInCents)
        writer.field("currency", product.currency)
        writer.endObject()
    }

    static func write(_ review: StubReview, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("id", review.id)
        writer.field("rating", review.rating)
        writer.field("text", review.text)
        writer.endObject()
    }
}
