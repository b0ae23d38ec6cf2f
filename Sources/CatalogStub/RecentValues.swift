import Locking
import Synchronization

/// The last `capacity` strings recorded, oldest first.
final class RecentValues: Sendable {
    private let capacity: Int
    private let storage = Locked<[String]>([])

    init(capacity: Int) {
        self.capacity = capacity
    }

    func record(_ value: String) {
        storage.withLock { values in
            if values.count == capacity { values.removeFirst() }
            values.append(value)
        }
    }

    var values: [String] { storage.withLock { $0 } }
}
