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

/// Whether Foundation's member `name` of `object` is our `value`, or may be another member's
/// (``foundationMayMerge(_:in:)``: `ours` is our reading of the same object).
private func same(_ name: String, _ value: String, _ object: [String: Any], _ ours: JSONValue?) -> Bool {
    foundationMayMerge(name, in: ours) || (object[name] as? String).map { sameText(value, $0) } == true
}

private func same(_ name: String, integer value: Int, _ object: [String: Any], _ ours: JSONValue?) -> Bool {
    foundationMayMerge(name, in: ours) || object[name].map { sameInteger(value, $0) } == true
}

private func checkProduct(_ product: Product, _ their: Any, _ ours: JSONValue?, _ input: [UInt8]) {
    guard let object = their as? [String: Any],
          same("id", product.id, object, ours), same("name", product.name, object, ours),
          same("currency", product.currency, object, ours), same("priceInCents", integer: product.priceInCents, object, ours)
    else { fuzzFail("product \(product) differs from Foundation's \(their): \(shown(input))") }
}

private func checkReview(_ review: Review, _ their: Any, _ ours: JSONValue?, _ input: [UInt8]) {
    guard let object = their as? [String: Any],
          same("id", review.id, object, ours), same("text", review.text, object, ours),
          same("rating", integer: review.rating, object, ours)
    else { fuzzFail("review \(review) differs from Foundation's \(their): \(shown(input))") }
}

/// Our reading of element `index` of a list, when we read the document as a tree.
private func element(_ index: Int, of tree: JSONValue?) -> JSONValue? {
    guard case .array(let elements)? = tree, index < elements.count else { return nil }
    return elements[index]
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
        let tree = try? JSONValue.parse(input)
        if let tree {
            let their = theirs(foundation, "JSONValue", input)
            fuzzCheck(sameJSON(tree, their), "JSONValue read \(tree), Foundation \(their): \(shown(input))")
        }
        if let product = decode(input, UpstreamJSON.product) {
            checkProduct(product, theirs(foundation, "UpstreamJSON.product", input), tree, input)
        }
        if let reviews = decode(input, UpstreamJSON.reviews) {
            let their = elements(theirs(foundation, "UpstreamJSON.reviews", input), count: reviews.count, input)
            for (index, (review, their)) in zip(reviews, their).enumerated() {
                checkReview(review, their, element(index, of: tree), input)
            }
        }
        if let products = decode(input, UpstreamJSON.products) {
            let their = elements(theirs(foundation, "UpstreamJSON.products", input), count: products.count, input)
            for (index, (product, their)) in zip(products, their).enumerated() {
                checkProduct(product, their, element(index, of: tree), input)
            }
        }
    }
}
