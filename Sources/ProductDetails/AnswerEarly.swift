/// Gives a load's waiters a page before the load ends (answered without a late optional part).
///
/// A value, not a closure around the in-flight table's ``InFlightLoads/EarlyAnswer``: the load's
/// trace is set here, and only a fleet load adds a step (sharing the page, or saying what the
/// shared cache did), so a single node's load gets one without an allocation.
package struct AnswerEarly: Sendable {
    package typealias Prepare = nonisolated(nonsending) @Sendable (LoadedDocument) async -> LoadedDocument

    private let deliver: InFlightLoads<String, LoadedDocument>.EarlyAnswer
    private let trace: TraceContext?
    private var prepare: Prepare?

    init(_ deliver: InFlightLoads<String, LoadedDocument>.EarlyAnswer, trace: TraceContext?) {
        self.deliver = deliver
        self.trace = trace
    }

    /// This answer with `step` applied to the page before it is delivered (after any earlier step).
    package func preparing(_ step: @escaping Prepare) -> AnswerEarly {
        var answer = self
        if let earlier = prepare {
            answer.prepare = { loaded in await step(await earlier(loaded)) }
        } else {
            answer.prepare = step
        }
        return answer
    }

    func callAsFunction(_ loaded: LoadedDocument) async {
        var loaded = loaded
        loaded.trace = trace
        if let prepare { loaded = await prepare(loaded) }
        await deliver(loaded)
    }
}
