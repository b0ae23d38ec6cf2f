import JSON

/// Decoders for the three upstream JSON bodies.
///
/// Every decoding problem, whether broken syntax, a missing field or a wrong type (a price of `12.5`
/// or `"12"`), becomes ``UpstreamFailure/malformedBody(_:)`` so that the retry loop and the
/// service can treat it as one "bad answer". Messages name the field (`wrong type at 0.rating`,
/// `null at id`, `missing field text in 3`, `duplicate field id in 0`) and, for syntax errors, the
/// byte offset; they never echo the body.
///
/// The bodies are read by ``JSONReader``, a strict RFC 8259 reader that builds no tree and does not
/// use Foundation (this is the service's hottest path on a cache miss). Beyond syntax:
/// - integers (`priceInCents`, `rating`) are JSON numbers without fraction or exponent that fit in
///   `Int`; `12.5`, `1e3` and out-of-range numbers are refused, not rounded;
/// - unknown members are skipped (their values are still fully validated);
/// - a member name appearing twice in a product or review object is refused, whether or not we
///   read it: with duplicates, readers disagree about which value wins (inside the value of an
///   ignored member, duplicates are not looked for: nothing there is used);
/// - keys compare as decoded text, so `"\u0069d"` is `id`.
package enum UpstreamJSON {
    /// Decodes `{"id","name","priceInCents","currency"}`.
    package static func product(from body: [UInt8]) throws(UpstreamFailure) -> Product {
        try read(body) { (reader: inout JSONReader) throws(JSONReadError) in
            try readProduct(&reader)
        }
    }

    /// Decodes `[{"id","rating","text"}]`.
    package static func reviews(from body: [UInt8]) throws(UpstreamFailure) -> [Review] {
        try read(body) { (reader: inout JSONReader) throws(JSONReadError) in
            try readArray(&reader, readReview)
        }
    }

    /// Decodes `[product]`.
    package static func products(from body: [UInt8]) throws(UpstreamFailure) -> [Product] {
        try read(body) { (reader: inout JSONReader) throws(JSONReadError) in
            try readArray(&reader, readProduct)
        }
    }

    /// Runs `parse` over the whole body, then requires that nothing but whitespace follows.
    private static func read<T>(
        _ body: [UInt8],
        _ parse: (inout JSONReader) throws(JSONReadError) -> T
    ) throws(UpstreamFailure) -> T {
        do {
            return try body.withUnsafeBufferPointer { (buffer) throws(JSONReadError) -> T in
                var reader = JSONReader(buffer)
                let value = try parse(&reader)
                try reader.expectEnd()
                return value
            }
        } catch {
            throw .malformedBody(error.message)
        }
    }

    private static func readArray<T>(
        _ reader: inout JSONReader,
        _ element: (inout JSONReader) throws(JSONReadError) -> T
    ) throws(JSONReadError) -> [T] {
        var result: [T] = []
        guard try reader.openArray() else { return result }
        // A typical element is 60–120 bytes; one early reservation avoids most regrowth.
        result.reserveCapacity(min(reader.bytes.count / 64 + 1, 256))
        var index = 0
        repeat {
            reader.index = index
            result.append(try element(&reader))
            reader.index = nil
            index += 1
        } while try reader.nextElement()
        return result
    }

    private static func readProduct(_ reader: inout JSONReader) throws(JSONReadError) -> Product {
        var id: String?
        var name: String?
        var priceInCents: Int?
        var currency: String?
        try readMembers(&reader) { (key, reader) throws(JSONReadError) -> Bool in
            if reader.key(key, is: "id") {
                try unique(id == nil, "id", key, &reader)
                id = try reader.readString()
            } else if reader.key(key, is: "name") {
                try unique(name == nil, "name", key, &reader)
                name = try reader.readString()
            } else if reader.key(key, is: "priceInCents") {
                try unique(priceInCents == nil, "priceInCents", key, &reader)
                priceInCents = try reader.readInt()
            } else if reader.key(key, is: "currency") {
                try unique(currency == nil, "currency", key, &reader)
                currency = try reader.readString()
            } else {
                return false
            }
            return true
        }
        guard let id else { throw missing("id", reader) }
        guard let name else { throw missing("name", reader) }
        guard let priceInCents else { throw missing("priceInCents", reader) }
        guard let currency else { throw missing("currency", reader) }
        return Product(id: id, name: name, priceInCents: priceInCents, currency: currency)
    }

    private static func readReview(_ reader: inout JSONReader) throws(JSONReadError) -> Review {
        var id: String?
        var rating: Int?
        var text: String?
        try readMembers(&reader) { (key, reader) throws(JSONReadError) -> Bool in
            if reader.key(key, is: "id") {
                try unique(id == nil, "id", key, &reader)
                id = try reader.readString()
            } else if reader.key(key, is: "rating") {
                try unique(rating == nil, "rating", key, &reader)
                rating = try reader.readInt()
            } else if reader.key(key, is: "text") {
                try unique(text == nil, "text", key, &reader)
                text = try reader.readString()
            } else {
                return false
            }
            return true
        }
        guard let id else { throw missing("id", reader) }
        guard let rating else { throw missing("rating", reader) }
        guard let text else { throw missing("text", reader) }
        return Review(id: id, rating: rating, text: text)
    }

    /// Walks one object's members: `readKnown` reads the value of a member it knows and returns
    /// true; any other member is validated and skipped, and a second one of the same name refused.
    private static func readMembers(
        _ reader: inout JSONReader,
        _ readKnown: (JSONStringToken, inout JSONReader) throws(JSONReadError) -> Bool
    ) throws(JSONReadError) {
        guard try reader.openObject() else { return }
        var unknownKeys = UnknownKeys()
        repeat {
            let key = try reader.readKey()
            if try !readKnown(key, &reader) { try unknownKeys.skip(key, &reader) }
            reader.field = nil
        } while try reader.nextMember()
    }

    /// Names the member about to be read, refusing it if it was already read in this object.
    private static func unique(
        _ isFirst: Bool, _ name: String, _ key: JSONStringToken, _ reader: inout JSONReader
    ) throws(JSONReadError) {
        guard isFirst else { throw duplicate(name, key, reader) }
        reader.field = key
    }

    private static func missing(_ name: String, _ reader: JSONReader) -> JSONReadError {
        JSONReadError("missing field \(name)\(reader.index.map { " in \($0)" } ?? "")")
    }

    /// The key's opening quote is the offset named.
    fileprivate static func duplicate(_ name: String, _ key: JSONStringToken, _ reader: JSONReader) -> JSONReadError {
        JSONReadError("duplicate field \(name)\(reader.index.map { " in \($0)" } ?? "") (offset \(key.start - 1))")
    }
}

/// The members of one object that we do not read, remembered only to refuse duplicates. Bodies
/// from our upstreams have none, so the common case allocates nothing.
///
/// A set, so that a body of many distinct members costs linear time, not quadratic (it is read
/// on an event loop); of their UTF-8 bytes, because RFC 8259 names are sequences of code points
/// (`String` equality would take "Å" and "Å", U+00C5 and U+212B, for one name).
private struct UnknownKeys {
    private var names: Set<[UInt8]> = []

    /// Validates and skips the value of the unknown member `key`.
    mutating func skip(_ key: JSONStringToken, _ reader: inout JSONReader) throws(JSONReadError) {
        guard names.insert(Array(reader.string(of: key).utf8)).inserted else {
            throw UpstreamJSON.duplicate(reader.label(of: key), key, reader)
        }
        reader.field = key
        try reader.skipValue()
    }
}
