/// What a request's first look (``LoadPath/firstLook(_:in:completion:)``) leaves for the load it
/// starts to carry on from, opaque to the service: in fleet mode the shared phase as the look
/// left it. Only the load path that began one is handed it back.
package protocol BegunLoad: Sendable {
    /// Taken before the look, so that an invalidation meanwhile refuses what the load stores.
    var token: LoadToken { get }
    /// The load's stamp (``LoadContext/stamp``).
    var stamp: UInt64 { get }
    /// The load's deadline, counted from the look.
    var deadline: Duration { get }
    /// The answer the look gave by itself, counted as the load it spares; `nil`: the load must
    /// carry on from it.
    func freshAnswer(counting events: any PageEvents) -> DetailAnswer?
}
