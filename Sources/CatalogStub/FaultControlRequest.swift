import Foundation

/// The body of `PUT /control/faults/{route}`: every key optional, unknown keys refused so that a
/// typo is an error rather than a silently healthy stub.
///
/// `{"latencyMs":200,"errorRate":1,"errorStatus":503,"retryAfterSeconds":2,"hang":false,
///   "reset":false,"malformed":false,"oversized":false,"oversizedBytes":4194304,"times":3}`
struct FaultControlRequest: Decodable, Sendable {
    var plan = FaultPlan()
    /// Requests the plan applies to; nil = until cleared.
    var times: Int?

    static func decode(_ body: [UInt8]) throws(FaultControlError) -> FaultControlRequest {
        do {
            return try JSONDecoder().decode(FaultControlRequest.self, from: Data(body))
        } catch let error as FaultControlError {
            throw error
        } catch let error as FaultSettingError {
            throw FaultControlError(message: error.description)
        } catch {
            throw FaultControlError(message: "The body must be a JSON object of fault settings.")
        }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: AnyKey.self)
        for key in container.allKeys {
            if try container.decodeNil(forKey: key) { continue }
            if key.stringValue == "times" {
                guard let times = try? container.decode(Int.self, forKey: key), times >= 1 else {
                    throw FaultControlError(message: "times must be an integer of at least 1, or omitted for \"until cleared\".")
                }
                self.times = times
                continue
            }
            guard let setting = FaultSetting.allCases.first(where: { $0.jsonKey == key.stringValue }) else {
                let known = (FaultSetting.allCases.map(\.jsonKey) + ["times"]).joined(separator: ", ")
                throw FaultControlError(message: "Unknown fault setting \"\(key.stringValue)\"; known: \(known).")
            }
            let value: FaultSetting.Value?
            switch setting.kind {
            case .int: value = (try? container.decode(Int.self, forKey: key)).map(FaultSetting.Value.int)
            case .double: value = (try? container.decode(Double.self, forKey: key)).map(FaultSetting.Value.double)
            case .bool: value = (try? container.decode(Bool.self, forKey: key)).map(FaultSetting.Value.bool)
            }
            guard let value, setting.assign(value, to: &plan) else {
                throw FaultControlError(message: "\(setting.jsonKey) must be \(setting.expectation).")
            }
        }
    }

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}

/// A control request the stub refuses (`400`).
struct FaultControlError: Error, Sendable {
    let message: String
}
