import ProductDetails
/// A request's first look at the shared cache made without a task
/// (``FleetLoads/firstLook(_:in:completion:)``), from the store's call to
/// the request's lookup: the one object the store's reply reaches. It does what a closure per
/// layer did (the service's, the shared cache's), for one allocation instead of three on every
/// shared-cache hit.
final class SharedFirstLook: Sendable {
    private let service: ProductDetailsService
    private let loads: FleetLoads
    private let look: FleetLoads.Look
    private let admission: StoreAdmission
    private let pending: PendingDetail
    private let completion: @Sendable (DetailLookup) -> Void

    init(
        service: ProductDetailsService, loads: FleetLoads, look: FleetLoads.Look, admission: StoreAdmission,
        pending: PendingDetail, completion: @escaping @Sendable (DetailLookup) -> Void
    ) {
        self.service = service
        self.loads = loads
        self.look = look
        self.admission = admission
        self.pending = pending
        self.completion = completion
    }

    /// The store's answer: counted and told to the breaker, stepped through the look's machine,
    /// and handed to the request as its lookup.
    func peeked(_ result: Result<SharedRead?, SharedStoreFailure>) {
        let begun = loads.begun(look, after: loads.shared.finishPeek(result, admission), in: service)
        completion(loads.lookup(after: begun, pending, in: service))
    }
}
