/// Port: whether the thread running the caller has lately had no time to spare (App: its event
/// loop never waited for I/O), so that an upstream call's latency is mostly the caller's own
/// queue. The ``Hedger`` neither arms nor races then: a hedge cannot beat a queue that is ours,
/// and it would add work exactly where there is no room for it.
package protocol LocalLoad: Sendable {
    var isSaturated: Bool { get }
}
