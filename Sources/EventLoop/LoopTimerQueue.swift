/// Every ``LoopTimeSource/schedule(after:target:)`` callback of one loop, on one libuv timer.
///
/// A hedged upstream call or an optional part's grace arms a timer that nearly always is
/// cancelled before it fires. A libuv timer each (a handle, its memory, a close callback) made
/// that the most allocating part of an uncached page; here arming one is a heap insertion of a
/// ``LoopScheduledAction``, and cancelling it a removal. The libuv timer is armed for the earliest
/// deadline only, and only moved earlier: when the earliest action is cancelled the timer is left
/// as it is, and a wake-up that finds nothing due re-arms it for whatever is first then.
///
/// Loop-confined: used only on `loop`'s thread.
final class LoopTimerQueue {
    /// Unowned: the loop owns its queue.
    private unowned let loop: EventLoop
    /// A binary min-heap by (deadline, sequence); each action knows its index in it.
    private var heap: [LoopScheduledAction] = []
    private var timer: LoopTimer?
    /// The deadline the libuv timer is armed for, `nil` when it is not.
    private var armedFor: ContinuousClock.Instant?
    private var sequence: UInt64 = 0
    /// Made once, so re-arming the timer allocates no closure.
    private lazy var fire: () -> Void = { [unowned self] in fired() }

    init(loop: EventLoop) { self.loop = loop }

    /// How many actions wait (for tests).
    var count: Int { heap.count }

    func insert(_ action: LoopScheduledAction) {
        guard !action.isCancelled else { return }
        sequence &+= 1
        action.sequence = sequence
        action.heapIndex = heap.count
        heap.append(action)
        siftUp(heap.count - 1)
        if let armedFor, armedFor <= action.deadline { return }
        arm(for: action.deadline)
    }

    func remove(_ action: LoopScheduledAction) {
        let index = action.heapIndex
        guard index >= 0, index < heap.count, heap[index] === action else { return }
        action.heapIndex = -1
        let last = heap.removeLast()
        guard index < heap.count else { return }
        heap[index] = last
        last.heapIndex = index
        siftDown(index)
        siftUp(last.heapIndex)
    }

    private func fired() {
        armedFor = nil
        let now = ContinuousClock.now
        while let first = heap.first, first.deadline <= now {
            remove(first)
            // An action may schedule or cancel others: the heap is consistent before it runs.
            first.run()
        }
        if let first = heap.first, armedFor.map({ first.deadline < $0 }) ?? true { arm(for: first.deadline) }
    }

    private func arm(for deadline: ContinuousClock.Instant) {
        let timer = self.timer ?? LoopTimer(loop: loop)
        self.timer = timer
        armedFor = deadline
        timer.start(at: deadline, fire)
    }

    private func precedes(_ a: LoopScheduledAction, _ b: LoopScheduledAction) -> Bool {
        a.deadline < b.deadline || (a.deadline == b.deadline && a.sequence < b.sequence)
    }

    private func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard precedes(heap[child], heap[parent]) else { return }
            swapAt(child, parent)
            child = parent
        }
    }

    private func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < heap.count else { return }
            let right = left + 1
            let first = right < heap.count && precedes(heap[right], heap[left]) ? right : left
            guard precedes(heap[first], heap[parent]) else { return }
            swapAt(first, parent)
            parent = first
        }
    }

    private func swapAt(_ i: Int, _ j: Int) {
        heap.swapAt(i, j)
        heap[i].heapIndex = i
        heap[j].heapIndex = j
    }
}
