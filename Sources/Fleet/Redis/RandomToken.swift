import ProductDetails
import Synchronization

/// Tokens for generations and leases: 90 bits as 15 characters of the URL-safe base64 alphabet,
/// never the same twice in a process and, with a random part drawn once per process, not
/// between replicas or across a Redis restart either.
///
/// Fifteen ASCII characters is what a Swift string holds inline: the generation token every
/// shared-cache hit reads back from Redis, and the tokens every read script carries, are made
/// without an allocation. Every read of the shared cache carries two candidates (used only when
/// the generation is missing or the lease is free), so making one must be cheap: the system
/// generator is asked once, at first use, not twice per read.
enum RandomToken {
    static let length = 15
    /// 42 random bits (seven characters), then 48 bits of this process's counter, mixed.
    private static let processBits = 42
    private static let counterBits = 48
    private static let processPart: UInt64 = {
        var generator = SystemRandomNumberGenerator()
        return generator.next() & ((1 << processBits) - 1)
    }()
    private static let counter = Atomic<UInt64>(0)

    static func make() -> String {
        let sequence = counter.wrappingAdd(1, ordering: .relaxed).newValue
        return text(process: processPart, counter: mixed(sequence))
    }

    /// The token of `process` (its low 42 bits) and `counter` (its low 48 bits), six bits a
    /// character, most significant first.
    static func text(process: UInt64, counter: UInt64) -> String {
        String(unsafeUninitializedCapacity: length) { buffer in
            let next = URLSafeBase64.write(process, bits: processBits, into: buffer, at: 0)
            return URLSafeBase64.write(counter, bits: counterBits, into: buffer, at: next)
        }
    }

    /// A bijection of the low 48 bits (odd multipliers and xor-shifts, each invertible modulo
    /// 2^48): consecutive counters give unrelated-looking tokens, and distinct ones distinct
    /// tokens.
    static func mixed(_ value: UInt64) -> UInt64 {
        let mask: UInt64 = (1 << counterBits) - 1
        var z = value & mask
        z = (z &* 0x9E37_79B9_7F4B) & mask
        z ^= z >> 23
        z = (z &* 0xBF58_476D_1CE5) & mask
        z ^= z >> 25
        return z
    }
}
