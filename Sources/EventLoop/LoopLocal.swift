/// One value per loop of a group, each touched only on its own loop's thread, so reaching it costs
/// no lock.
///
/// `@unchecked Sendable`: slot `i` of `slots` is read and written only on the thread of the loop
/// whose `index` is `i` (checked on each access); the pointer itself never changes.
package final class LoopLocal<Value>: @unchecked Sendable {
    private let slots: UnsafeMutablePointer<Value?>
    private let count: Int

    package init(group: EventLoopGroup) {
        count = group.loops.count
        slots = .allocate(capacity: count)
        slots.initialize(repeating: nil, count: count)
    }

    deinit {
        slots.deinitialize(count: count)
        slots.deallocate()
    }

    /// The value for `loop`, made by `create` on first use. Call on `loop`'s thread.
    package func value(on loop: EventLoop, create: () -> Value) -> Value {
        precondition(loop.inLoop && loop.index < count, "LoopLocal used off its loop")
        if let value = slots[loop.index] { return value }
        let value = create()
        slots[loop.index] = value
        return value
    }

    /// The value for `loop` if it was made. Call on `loop`'s thread.
    package func existing(on loop: EventLoop) -> Value? {
        precondition(loop.inLoop && loop.index < count, "LoopLocal used off its loop")
        return slots[loop.index]
    }
}
