/// Random tokens for epochs, generations and leases: 128 bits as 32 hexadecimal digits, so two
/// replicas (or a restarted Redis) never pick the same one.
enum RandomToken {
    static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        let high = generator.next() as UInt64
        let low = generator.next() as UInt64
        return hex(high) + hex(low)
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
