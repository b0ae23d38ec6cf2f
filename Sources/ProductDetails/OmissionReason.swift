/// Why a page was answered without one of its optional parts; also a metrics label.
package enum OmissionReason: String, Sendable, Equatable, Hashable, CaseIterable {
    /// Its upstream's breaker is open: it was not asked.
    case breaker
    /// It had not arrived when the grace after the product's arrival ended; the load went on,
    /// and the cached page is completed if it arrives within the deadline.
    case grace
    /// Its upstream failed for good (retries spent, refused by the budget, out of time).
    case failure
    /// Its upstream had no room and was answering after the grace lately: it was not asked
    /// (``AdmissionMachine``).
    case shed
}
