import Synchronization

/// Tokens for generations and leases: 128 bits as 32 hexadecimal digits, never the same
/// twice in a process and, with a random half drawn once per process, not between replicas or
/// across a Redis restart either.
///
/// Every read of the shared cache carries two candidates (used only when the generation is missing
/// or the lease is free), so making one must be cheap: the system generator is asked once, at
/// first use, not twice per read.
enum RandomToken {
    private static let processPart: UInt64 = {
        var generator = SystemRandomNumberGenerator()
        return generator.next()
    }()
    private static let counter = Atomic<UInt64>(0)

    static func make() -> String {
        let sequence = counter.wrappingAdd(1, ordering: .relaxed).newValue
        return hex(processPart) + hex(mixed(sequence ^ processPart))
    }

    /// SplitMix64's finaliser: consecutive counters give unrelated-looking halves.
    private static func mixed(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
