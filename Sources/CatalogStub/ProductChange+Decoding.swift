import JSON

/// The body of `PUT /control/products/{id}`: `{"priceInCents":1299,"name":"Teal Chair"}`, either
/// member optional but not both, `null` the same as leaving a member out, and any other member
/// refused so that a typo is an error rather than a change that silently does nothing.
extension ProductChange {
    static let members = ["name", "priceInCents"]

    static func decode(_ body: [UInt8]) throws(FaultControlError) -> ProductChange {
        let document: JSONValue
        do {
            document = try JSONValue.parse(body)
        } catch {
            throw FaultControlError(message: "The body must be a JSON object such as {\"priceInCents\":1299,\"name\":\"Teal Chair\"}: \(error.message).")
        }
        guard case .object(let fields) = document else {
            throw FaultControlError(message: "The body must be a JSON object such as {\"priceInCents\":1299,\"name\":\"Teal Chair\"}.")
        }
        // Sorted, so that of several unknown members the same one is named every time.
        if let unknown = fields.keys.sorted().first(where: { !members.contains($0) }) {
            throw FaultControlError(message: "Unknown product field \"\(unknown)\"; a change sets: \(members.joined(separator: ", ")).")
        }
        var change = ProductChange()
        switch fields["priceInCents"] {
        case nil, .null?: break
        case .integer(let price)?: change.priceInCents = price
        default: throw FaultControlError(message: priceExpectation)
        }
        switch fields["name"] {
        case nil, .null?: break
        case .string(let name)?: change.name = name
        default: throw FaultControlError(message: nameExpectation)
        }
        if let refusal = change.refusal { throw FaultControlError(message: refusal) }
        return change
    }
}
