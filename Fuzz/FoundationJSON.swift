// Compares what our JSON reader made of a document with what Foundation's JSONSerialization made
// of the same bytes. Used by the JSON fuzz target (compiled into the JSON module, where the import
// below is ignored) and, through a link, by Tests/JSONTests.
//
// Our reader is stricter than Foundation's, never looser: whatever ours accepts, Foundation must
// accept with the same value. Allowed the other way (ours refuses, Foundation accepts):
// - nesting deeper than JSONReader.maxDepth (Foundation allows 512);
// - a byte-order mark before the document (Foundation skips it; RFC 8259 says not to send one);
// - a member named twice in one object (Foundation keeps the last; JSONValue and the upstream
//   decoders refuse it, and JSONValue counts canonically equivalent names as the same name);
// - integers that do not fit in Int where ours wants one (`priceInCents`, `rating`), and numbers
//   with fraction or exponent there.
// And one where both accept: Foundation drops a U+FEFF written as is (not as `\ufeff`) at the start
// of a string or key or right after an escape in one, taking it for a byte-order mark; ours keeps
// it, as RFC 8259 says. So a text of ours holding U+FEFF is compared without any.
import Foundation
import JSON

/// Whether Foundation's reading `theirs` holds the same value as ours.
func sameJSON(_ ours: JSONValue, _ theirs: Any) -> Bool {
    switch ours {
    case .null:
        return theirs is NSNull
    case .bool(let flag):
        return (theirs as? Bool) == flag
    case .integer(let integer):
        return sameInteger(integer, theirs)
    case .number(let number):
        guard let their = theirs as? NSNumber else { return false }
        // Foundation keeps long mantissas as NSDecimalNumber, whose conversion to Double is not
        // always correctly rounded: there the last bits may differ.
        if their is NSDecimalNumber {
            return abs(their.doubleValue - number) <= abs(number) * 1e-14
        }
        return their.doubleValue == number
    case .string(let text):
        return (theirs as? String).map { sameText(text, $0) } ?? false
    case .array(let elements):
        guard let their = theirs as? [Any], their.count == elements.count else { return false }
        return zip(elements, their).allSatisfy { sameJSON($0, $1) }
    case .object(let members):
        guard let their = theirs as? [String: Any] else { return false }
        // Names differing only by U+FEFF can be one name to Foundation.
        guard their.count == members.count || members.keys.contains(where: holdsFEFF) else { return false }
        return members.allSatisfy { name, value in
            let match = their[name].map { (name, $0) } ?? their.first { sameText(name, $0.key) }.map { ($0.key, $0.value) }
            guard let (theirName, theirValue) = match else { return false }
            if sameJSON(value, theirValue) { return true }
            // Such names are one name to Foundation, which keeps the value of only one of them.
            return members.contains { other in
                other.key != name && sameText(other.key, theirName) && sameJSON(other.value, theirValue)
            }
        }
    }
}

/// Whether Foundation's number is exactly `integer`.
func sameInteger(_ integer: Int, _ theirs: Any) -> Bool {
    // Foundation keeps integers of many digits as NSDecimalNumber, which holds them exactly.
    if let their = theirs as? NSDecimalNumber { return their.decimalValue == Decimal(integer) }
    guard let their = theirs as? NSNumber else { return false }
    return their.int64Value == Int64(integer) && their.doubleValue == Double(integer)
}

/// Foundation's reading of `bytes`, any top-level value allowed; nil where it refuses them.
func foundationJSON(_ bytes: [UInt8]) -> Any? {
    try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
}

/// Whether Foundation's text is ours, scalar for scalar (`==` on strings is canonical
/// equivalence; a reader must give back the very scalars), but for U+FEFF (above).
func sameText(_ ours: String, _ theirs: String) -> Bool {
    if ours.unicodeScalars.elementsEqual(theirs.unicodeScalars) { return true }
    guard holdsFEFF(ours) else { return false }
    return ours.unicodeScalars.filter { $0 != "\u{FEFF}" }.elementsEqual(theirs.unicodeScalars.filter { $0 != "\u{FEFF}" })
}

/// Whether Foundation may have read member `name` of `object` (ours) from another member: one
/// whose name is `name` but for U+FEFF, which Foundation drops at the start of a name or after an
/// escape in it (above), so that to Foundation the two are one name and the last value wins.
func foundationMayMerge(_ name: String, in object: JSONValue?) -> Bool {
    guard case .object(let members)? = object else { return false }
    return members.keys.contains { $0 != name && holdsFEFF($0) && sameText($0, name) }
}

func holdsFEFF(_ text: String) -> Bool {
    text.unicodeScalars.contains("\u{FEFF}")
}
