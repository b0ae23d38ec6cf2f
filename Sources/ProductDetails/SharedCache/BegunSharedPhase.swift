/// A load's shared-cache phase as a request began it, before it reached the in-flight table: its
/// first look, taken without the lease (``ProductDetailsService/beginSharedPhase(id:shared:)``).
/// A fresh page is answered there and then, so an L2 hit costs no load task; anything else is
/// carried on by the load the request starts, from where the look left the machine. A request
/// that joins another's load instead drops it.
struct BegunSharedPhase: Sendable {
    var machine: SharedLookupMachine
    /// What the machine said after the look.
    let next: SharedLookupMachine.Action
    /// The look found neither page nor lease: the load's read goes straight to the lease.
    let peeked: Bool
    /// Taken before the look, so that an invalidation meanwhile refuses what the load stores.
    let token: LoadToken
    let stamp: UInt64
    /// The load's deadline, counted from the look.
    let deadline: Duration
}
