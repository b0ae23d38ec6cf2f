/// A single node's load path: a page is its three upstream calls, nothing is looked up first, and
/// an invalidation reaches this replica only.
package struct LocalLoads: LoadPath {
    package init() {}

    package var stamp: UInt64? { nil }
    package var addsPhase: Bool { false }
    package var looksFirst: Bool { false }

    package func firstLook(
        _ pending: PendingDetail, in service: ProductDetailsService, completion: @escaping @Sendable (DetailLookup) -> Void
    ) -> (() -> Void)? {
        nil
    }

    package func begin(id: String, in service: ProductDetailsService) async -> (any BegunLoad)? { nil }

    package func load(
        _ context: LoadContext, readsShared: Bool, answerEarly: AnswerEarly?, begun: (any BegunLoad)?, in service: ProductDetailsService
    ) async throws -> LoadedDocument {
        try await service.loadFromUpstreams(context, answerEarly: answerEarly)
    }

    package func invalidate(_ scope: InvalidationScope) async -> InvalidationReach { .local }
}
