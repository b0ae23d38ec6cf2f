import Synchronization

/// A `Double` stored as its bit pattern in an `Atomic<UInt64>`.
///
/// The standard library has no atomic floating-point type, so arithmetic is a compare-and-swap
/// loop on the bits. It is lock-free and never allocates; under contention a loser retries
/// with the value the winner wrote, so no update is lost.
struct AtomicDouble: ~Copyable, Sendable {
    private let bits: Atomic<UInt64>

    init(_ initial: Double = 0) {
        bits = Atomic(initial.bitPattern)
    }

    func load() -> Double {
        Double(bitPattern: bits.load(ordering: .relaxed))
    }

    func store(_ value: Double) {
        bits.store(value.bitPattern, ordering: .relaxed)
    }

    func add(_ delta: Double) {
        var current = bits.load(ordering: .relaxed)
        while true {
            let desired = (Double(bitPattern: current) + delta).bitPattern
            let (exchanged, original) = bits.weakCompareExchange(
                expected: current, desired: desired, ordering: .relaxed)
            if exchanged { return }
            current = original
        }
    }
}
