import Locking
import Synchronization

/// The last `capacity` strings recorded, oldest first.
final class RecentValues<Value: Sendable>: Sendable {
    private let capacity: Int
    private let storage = Locked<[Value]>([])

    init(capacity: Int) {
        self.capacity = capacity
    }

    func record(_ value: Value) {
        storage.withLock { values in
            if values.count == capacity { values.removeFirst() }
            values.append(value)
        }
    }

    var values: [Value] { storage.withLock { $0 } }
}
