import ProductDetails
import Synchronization

/// Counts what a load tells its request.
package final class CountingObserver: LoadObserver {
    private let loadCount = Atomic<Int>(0)
    private let retryCount = Atomic<Int>(0)
    private let shedCount = Atomic<Int>(0)

    package init() {}

    package var loads: Int { loadCount.load(ordering: .relaxed) }
    package var retries: Int { retryCount.load(ordering: .relaxed) }
    package var sheds: Int { shedCount.load(ordering: .relaxed) }

    package func loadStarted() { loadCount.wrappingAdd(1, ordering: .relaxed) }
    package func retried() { retryCount.wrappingAdd(1, ordering: .relaxed) }
    package func loadShed() { shedCount.wrappingAdd(1, ordering: .relaxed) }
}
