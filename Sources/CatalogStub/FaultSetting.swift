/// One adjustable field of a `FaultPlan`, with its name in each place a fault can be scripted
/// (environment, request header, control-route JSON) and one validation shared by all three.
enum FaultSetting: CaseIterable, Sendable {
    case latencyMs, errorRate, errorStatus, retryAfter, hang, reset, malformed, oversized, oversizedBytes
    case slowFirstEvery, slowFirstMs

    /// A parsed value before range checks.
    enum Value: Sendable {
        case int(Int), double(Double), bool(Bool)
    }

    enum Kind {
        case int, double, bool
    }

    var kind: Kind {
        switch self {
        case .latencyMs, .errorStatus, .retryAfter, .oversizedBytes, .slowFirstEvery, .slowFirstMs: .int
        case .errorRate: .double
        case .hang, .reset, .malformed, .oversized: .bool
        }
    }

    var environmentName: String {
        switch self {
        case .latencyMs: "STUB_LATENCY_MS"
        case .errorRate: "STUB_ERROR_RATE"
        case .errorStatus: "STUB_ERROR_STATUS"
        case .retryAfter: "STUB_RETRY_AFTER"
        case .hang: "STUB_HANG"
        case .reset: "STUB_RESET"
        case .malformed: "STUB_MALFORMED"
        case .oversized: "STUB_OVERSIZED"
        case .oversizedBytes: "STUB_OVERSIZED_BYTES"
        case .slowFirstEvery: "STUB_SLOW_FIRST_EVERY"
        case .slowFirstMs: "STUB_SLOW_FIRST_MS"
        }
    }

    var headerName: String {
        switch self {
        case .latencyMs: "X-Stub-Latency-Ms"
        case .errorRate: "X-Stub-Error-Rate"
        case .errorStatus: "X-Stub-Error-Status"
        case .retryAfter: "X-Stub-Retry-After"
        case .hang: "X-Stub-Hang"
        case .reset: "X-Stub-Reset"
        case .malformed: "X-Stub-Malformed"
        case .oversized: "X-Stub-Oversized"
        case .oversizedBytes: "X-Stub-Oversized-Bytes"
        case .slowFirstEvery: "X-Stub-Slow-First-Every"
        case .slowFirstMs: "X-Stub-Slow-First-Ms"
        }
    }

    var jsonKey: String {
        switch self {
        case .latencyMs: "latencyMs"
        case .errorRate: "errorRate"
        case .errorStatus: "errorStatus"
        case .retryAfter: "retryAfterSeconds"
        case .hang: "hang"
        case .reset: "reset"
        case .malformed: "malformed"
        case .oversized: "oversized"
        case .oversizedBytes: "oversizedBytes"
        case .slowFirstEvery: "slowFirstEvery"
        case .slowFirstMs: "slowFirstMs"
        }
    }

    /// What a valid value looks like, for error messages.
    var expectation: String {
        switch self {
        case .latencyMs, .slowFirstMs: "an integer number of milliseconds from 0 to \(Self.maxLatencyMs)"
        case .errorRate: "a number from 0 to 1"
        case .errorStatus: "an HTTP status from 400 to 599"
        case .retryAfter: "an integer number of seconds from 0 to \(Self.maxRetryAfterSeconds)"
        case .hang, .reset, .malformed, .oversized: "true or false (also 1/0, yes/no, on/off)"
        case .oversizedBytes: "an integer number of bytes from 1 to \(Self.maxOversizedBytes)"
        case .slowFirstEvery: "an integer from 0 (off) to \(Self.maxSlowFirstEvery)"
        }
    }

    static let maxLatencyMs = 600_000
    static let maxRetryAfterSeconds = 86_400
    static let maxOversizedBytes = 256 << 20
    static let maxSlowFirstEvery = 1_000_000

    /// Parses a textual value (environment variable or header).
    func parse(_ text: String) -> Value? {
        let trimmed = text.trimmingSpaces
        switch kind {
        case .int: return Int(trimmed).map(Value.int)
        case .double: return Double(trimmed).map(Value.double)
        case .bool:
            switch trimmed.lowercased() {
            case "1", "true", "yes", "on": return .bool(true)
            case "0", "false", "no", "off": return .bool(false)
            default: return nil
            }
        }
    }

    /// Checks `value`'s range and stores it in `plan`; false when it is out of range or of the
    /// wrong kind.
    func assign(_ value: Value, to plan: inout FaultPlan) -> Bool {
        switch (self, value) {
        case (.latencyMs, .int(let ms)) where (0...Self.maxLatencyMs).contains(ms):
            plan.latencyMs = ms
        case (.errorRate, .double(let rate)) where rate >= 0 && rate <= 1:
            plan.errorRate = rate
        case (.errorRate, .int(let rate)) where rate == 0 || rate == 1:
            plan.errorRate = Double(rate)
        case (.errorStatus, .int(let status)) where (400...599).contains(status):
            plan.errorStatus = status
        case (.retryAfter, .int(let seconds)) where (0...Self.maxRetryAfterSeconds).contains(seconds):
            plan.retryAfterSeconds = seconds
        case (.hang, .bool(let on)): plan.hang = on
        case (.reset, .bool(let on)): plan.resetMidBody = on
        case (.malformed, .bool(let on)): plan.malformedJSON = on
        case (.oversized, .bool(let on)): plan.oversized = on
        case (.oversizedBytes, .int(let bytes)) where (1...Self.maxOversizedBytes).contains(bytes):
            plan.oversizedBytes = bytes
        case (.slowFirstEvery, .int(let every)) where (0...Self.maxSlowFirstEvery).contains(every):
            plan.slowFirstEvery = every
        case (.slowFirstMs, .int(let ms)) where (0...Self.maxLatencyMs).contains(ms):
            plan.slowFirstMs = ms
        default:
            return false
        }
        return true
    }

    /// Parses and assigns a textual value; the error names `source` (a variable or header name).
    func apply(text: String, source: String, to plan: inout FaultPlan) throws(FaultSettingError) {
        guard let value = parse(text), assign(value, to: &plan) else {
            throw FaultSettingError(setting: self, source: source, given: text)
        }
    }
}

/// A fault setting whose value is missing, malformed or out of range.
package struct FaultSettingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Where the value came from: an environment variable, header or JSON key.
    package let source: String
    package let given: String
    let expectation: String

    init(setting: FaultSetting, source: String, given: String) {
        self.source = source
        self.given = given
        expectation = setting.expectation
    }

    package var description: String {
        "\(source) must be \(expectation), got \"\(given)\""
    }
}
