// libFuzzer target: the upstream JSON decoders and the reader under them, against Foundation
// (built by scripts/fuzz.sh as /tmp/build-fuzz/upstream-json, compiled together with
// Sources/JSON/*.swift and the domain files UpstreamJSON needs into one module named JSON, so the
// sources' `import JSON` is ignored).
//
// The input is an upstream body. It is read as a tree (JSONValue) and decoded as a product, a
// list of reviews and a list of suggested products. Invariants: no crash or hang; a decoder fails
// only with `.malformedBody`; and whatever ours accepts, Foundation's JSONSerialization accepts
// with the same values (every decoded field, the whole tree). Ours may refuse more: the allowed
// differences are listed in FoundationJSON.swift.
import Foundation

/// The input as messages show it: escaped, and cut short when long.
private func shown(_ input: [UInt8]) -> String {
    String(decoding: input.prefix(300), as: UTF8.self).debugDescription + (input.count > 300 ? "…" : "")
}

/// Foundation's reading must exist wherever ours succeeded.
private func theirs(_ foundation: Any?, _ what: String, _ input: [UInt8]) -> Any {
    guard let foundation else { fuzzFail("\(what) accepted what Foundation refuses: \(shown(input))") }
    return foundation
}

private func checkProduct(_ product: Product, _ their: Any, _ input: [UInt8]) {
    guard let object = their as? [String: Any],
          let id = object["id"] as? String, let name = object["name"] as? String,
          let currency = object["currency"] as? String, let price = object["priceInCents"],
          sameText(product.id, id), sameText(product.name, name), sameText(product.currency, currency),
          sameInteger(product.priceInCents, price)
    else { fuzzFail("product \(product) differs from Foundation's \(their): \(shown(input))") }
}

private func checkReview(_ review: Review, _ their: Any, _ input: [UInt8]) {
    guard let object = their as? [String: Any],
          let id = object["id"] as? String, let text = object["text"] as? String, let rating = object["rating"],
          sameText(review.id, id), sameText(review.text, text), sameInteger(review.rating, rating)
    else { fuzzFail("review \(review) differs from Foundation's \(their): \(shown(input))") }
}

/// Runs one decoder: on success hands the value on, else requires a malformed-body failure.
private func decode<T>(_ input: [UInt8], _ decoder: ([UInt8]) throws(UpstreamFailure) -> T) -> T? {
    do {
        return try decoder(input)
    } catch {
        guard case .malformedBody = error else { fuzzFail("a decoder failed with \(error): \(shown(input))") }
        return nil
    }
}

/// The elements of Foundation's reading of a list ours decoded.
private func elements(_ their: Any, count: Int, _ input: [UInt8]) -> [Any] {
    guard let array = their as? [Any], array.count == count else {
        fuzzFail("a list of \(count) read by Foundation as \(their): \(shown(input))")
    }
    return array
}

@_cdecl("LLVMFuzzerTestOneInput")
public func upstreamJSONFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    withFuzzInput(data, size) { input in
        let foundation = foundationJSON(input)
        if let tree = try? JSONValue.parse(input) {
            let their = theirs(foundation, "JSONValue", input)
            fuzzCheck(sameJSON(tree, their), "JSONValue read \(tree), Foundation \(their): \(shown(input))")
        }
        if let product = decode(input, UpstreamJSON.product) {
            checkProduct(product, theirs(foundation, "UpstreamJSON.product", input), input)
        }
        if let reviews = decode(input, UpstreamJSON.reviews) {
            let their = elements(theirs(foundation, "UpstreamJSON.reviews", input), count: reviews.count, input)
            for (review, element) in zip(reviews, their) { checkReview(review, element, input) }
        }
        if let products = decode(input, UpstreamJSON.products) {
            let their = elements(theirs(foundation, "UpstreamJSON.products", input), count: products.count, input)
            for (product, element) in zip(products, their) { checkProduct(product, element, input) }
        }
    }
}
