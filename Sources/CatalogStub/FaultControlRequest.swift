/// The body of `PUT /control/faults/{route}`: every key optional, unknown keys refused so that a
/// typo is an error rather than a silently healthy stub.
///
/// `{"latencyMs":200,"errorRate":1,"errorStatus":503,"retryAfterSeconds":2,"hang":false,
///   "reset":false,"malformed":false,"oversized":false,"oversizedBytes":4194304,"times":3}`
struct FaultControlRequest: Sendable {
    var plan = FaultPlan()
    /// Requests the plan applies to; nil = until cleared.
    var times: Int?

    static func decode(_ body: [UInt8]) throws(FaultControlError) -> FaultControlRequest {
        let object: FlatJSONObject
        do {
            object = try FlatJSONObject(body)
        } catch {
            throw FaultControlError(message: "The body must be a JSON object of fault settings.")
        }
        var request = FaultControlRequest()
        for (key, value) in object.members {
            if value == .null { continue }
            if key == "times" {
                guard case .number(let number, isInteger: true) = value, number >= 1, number <= Double(Int.max / 2) else {
                    throw FaultControlError(message: "times must be an integer of at least 1, or omitted for \"until cleared\".")
                }
                request.times = Int(number)
                continue
            }
            guard let setting = FaultSetting.allCases.first(where: { $0.jsonKey == key }) else {
                let known = (FaultSetting.allCases.map(\.jsonKey) + ["times"]).joined(separator: ", ")
                throw FaultControlError(message: "Unknown fault setting \"\(key)\"; known: \(known).")
            }
            let converted: FaultSetting.Value?
            switch (setting.kind, value) {
            case (.int, .number(let number, isInteger: true)) where abs(number) <= Double(Int32.max):
                converted = .int(Int(number))
            case (.double, .number(let number, _)):
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
}

/// A control request the stub refuses (`400`).
struct FaultControlError: Error, Sendable {
    let message: String
}
