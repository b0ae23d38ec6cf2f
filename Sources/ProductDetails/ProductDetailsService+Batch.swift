extension ProductDetailsService {
    /// Answers many ids at once, in request order, each as a detail or its own problem.
    ///
    /// A repeated id is loaded once. Loads run in a task group with at most
    /// `settings.batchParallelism` at once (a sliding window, so a slow id does not hold back a
    /// whole wave), on the caller's executor, sharing the cache and the in-flight table.
    /// `observer` is told of the work of every load the batch starts.
    /// - Throws: 400 when more than `settings.maxBatch` ids are asked for;
    ///   ``ProductDetailsError/cancelled`` when the batch's task is cancelled.
    package func details(
        ids: [String],
        requestID: String = "",
        trace: TraceContext? = nil,
        observer: (any LoadObserver)? = nil,
        executor: (any TaskExecutor)? = nil
    ) async throws(ProductDetailsError) -> [Result<DetailAnswer, ProductDetailsError>] {
        guard ids.count <= settings.maxBatch else {
            throw .batchTooLarge(count: ids.count, limit: settings.maxBatch)
        }
        var uniqueIDs: [String] = []
        var positionByID: [String: Int] = [:]
        for id in ids where positionByID[id] == nil {
            positionByID[id] = uniqueIDs.count
            uniqueIDs.append(id)
        }
        let width = max(1, settings.batchParallelism)
        let unique = uniqueIDs
        let answers = await withTaskGroup(of: (Int, Result<DetailAnswer, ProductDetailsError>).self) { group in
            var answers = [Result<DetailAnswer, ProductDetailsError>?](repeating: nil, count: unique.count)
            var next = 0
            func startNext() {
                let index = next
                let id = unique[index]
                next += 1
                group.addTask(executorPreference: executor) {
                    (index, await self.result(id: id, requestID: requestID, trace: trace, observer: observer, executor: executor))
                }
            }
            while next < min(width, unique.count) { startNext() }
            while let (index, answer) = await group.next() {
                answers[index] = answer
                if next < unique.count { startNext() }
            }
            return answers.map { $0 ?? .failure(.cancelled) }
        }
        if Task.isCancelled { throw .cancelled }
        return ids.map { answers[positionByID[$0]!] }
    }

    private func result(
        id: String, requestID: String, trace: TraceContext?, observer: (any LoadObserver)?, executor: (any TaskExecutor)?
    ) async -> Result<DetailAnswer, ProductDetailsError> {
        do throws(ProductDetailsError) {
            return .success(try await detail(id: id, requestID: requestID, trace: trace, observer: observer, executor: executor))
        } catch {
            return .failure(error)
        }
    }
}
