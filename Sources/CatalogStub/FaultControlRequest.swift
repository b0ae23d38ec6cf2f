import JSON

/// The body of `PUT /control/faults/{route}`: every key optional, unknown keys refused so that a
/// typo is an error rather than a silently healthy stub.
///
/// `{"latencyMs":200,"errorRate":1,"errorStatus":503,"retryAfterSeconds":2,"hang":false,
///   "reset":false,"malformed":false,"oversized":false,"oversizedBytes":4194304,"slowFirstEvery":20,
///   "slowFirstMs":800,"times":3}`
struct FaultControlRequest: Sendable {
    var plan = FaultPlan()
    /// Requests the plan applies to; nil = until cleared.
    var times: Int?

    static func decode(_ body: [UInt8]) throws(FaultControlError) -> FaultControlRequest {
        guard let members = members(of: body) else {
            throw FaultControlError(message: "The body must be a JSON object of fault settings.")
        }
        var request = FaultControlRequest()
        for (key, value) in members {
            if value == .null { continue }
            if key == "times" {
                guard case .integer(let count) = value, count >= 1, count <= Int.max / 2 else {
                    throw FaultControlError(message: "times must be an integer of at least 1, or omitted for \"until cleared\".")
                }
                request.times = count
                continue
            }
            guard let setting = FaultSetting.allCases.first(where: { $0.jsonKey == key }) else {
                let known = (FaultSetting.allCases.map(\.jsonKey) + ["times"]).joined(separator: ", ")
                throw FaultControlError(message: "Unknown fault setting \"\(key)\"; known: \(known).")
            }
            let converted: FaultSetting.Value?
            switch (setting.kind, value) {
            case (.int, .integer(let number)) where number.magnitude <= Int32.max:
                converted = .int(number)
            case (.double, .integer(let number)):
                converted = .double(Double(number))
            case (.double, .number(let number)):
                converted = .double(number)
            case (.bool, .bool(let flag)):
                converted = .bool(flag)
            default:
                converted = nil
            }
            guard let converted, setting.assign(converted, to: &request.plan) else {
                throw FaultControlError(message: "\(setting.jsonKey) must be \(setting.expectation).")
            }
        }
        return request
    }

    /// The members of a JSON object whose values are numbers, booleans or null, in document order
    /// (so the first bad setting is the one named); nil for any other body, or a key given twice.
    private static func members(of body: [UInt8]) -> [(key: String, value: JSONValue)]? {
        try? body.withUnsafeBufferPointer { (buffer) throws(JSONReadError) -> [(key: String, value: JSONValue)] in
            var reader = JSONReader(buffer)
            var members: [(key: String, value: JSONValue)] = []
            if try reader.openObject() {
                repeat {
                    let key = reader.string(of: try reader.readKey())
                    let value = try JSONValue.read(&reader)
                    switch value {
                    case .string, .array, .object: throw JSONReadError("\(key) is not a number, a boolean or null")
                    case .null, .bool, .integer, .number: break
                    }
                    guard !members.contains(where: { $0.key == key }) else { throw JSONReadError("duplicate \(key)") }
                    members.append((key, value))
                } while try reader.nextMember()
            }
            try reader.expectEnd()
            return members
        }
    }
}

/// A control request the stub refuses (`400`).
struct FaultControlError: Error, Sendable {
    let message: String
}
