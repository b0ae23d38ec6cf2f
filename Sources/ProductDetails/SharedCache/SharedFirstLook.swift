/// A request's first look at the shared cache made without a task
/// (``ProductDetailsService/beginSharedPhase(_:shared:completion:)``), from the store's call to
/// the request's lookup: the one object the store's reply reaches. It does what a closure per
/// layer did (the service's, the shared cache's), for one allocation instead of three on every
/// L2 hit.
final class SharedFirstLook: Sendable {
    private let service: ProductDetailsService
    private let shared: SharedCache
    private let look: ProductDetailsService.Look
    private let admission: StoreAdmission
    private let pending: PendingDetail
    private let completion: @Sendable (DetailLookup) -> Void

    init(
        service: ProductDetailsService, shared: SharedCache, look: ProductDetailsService.Look, admission: StoreAdmission,
        pending: PendingDetail, completion: @escaping @Sendable (DetailLookup) -> Void
    ) {
        self.service = service
        self.shared = shared
        self.look = look
        self.admission = admission
        self.pending = pending
        self.completion = completion
    }

    /// The store's answer: counted and told to the breaker, stepped through the look's machine,
    /// and handed to the request as its lookup.
    func peeked(_ result: Result<SharedRead?, SharedStoreFailure>) {
        let begun = service.begun(look, after: shared.finishPeek(result, admission))
        completion(service.lookup(after: begun, pending))
    }
}
