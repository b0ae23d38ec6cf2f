/// One value per loop of a group, each touched only on its own loop's thread, so reaching it costs
/// no lock.
///
/// The values are kept beside a flag for each slot, not as optionals: its users live in other
/// modules, where this generic code runs unspecialized, and an optional of the value's type had
/// its type metadata looked up at each access.
///
/// `@unchecked Sendable`: slot `i` of `slots` and `made` is read and written only on the thread of
/// the loop whose `index` is `i` (checked on each access); the pointers themselves never change.
package final class LoopLocal<Value>: @unchecked Sendable {
    private let slots: UnsafeMutablePointer<Value>
    private let made: UnsafeMutablePointer<Bool>
    private let count: Int

    package init(group: EventLoopGroup) {
        count = group.loops.count
        slots = .allocate(capacity: count)
        made = .allocate(capacity: count)
        made.initialize(repeating: false, count: count)
    }

    deinit {
        for index in 0..<count where made[index] {
            (slots + index).deinitialize(count: 1)
        }
        slots.deallocate()
        made.deallocate()
    }

    /// The value for `loop`, made by `create` on first use. Call on `loop`'s thread.
    package func value(on loop: EventLoop, create: () -> Value) -> Value {
        precondition(loop.inLoop && loop.index < count, "LoopLocal used off its loop")
        let index = loop.index
        if !made[index] {
            (slots + index).initialize(to: create())
            made[index] = true
        }
        return slots[index]
    }

    /// The value for `loop` if it was made. Call on `loop`'s thread.
    package func existing(on loop: EventLoop) -> Value? {
        precondition(loop.inLoop && loop.index < count, "LoopLocal used off its loop")
        return made[loop.index] ? slots[loop.index] : nil
    }
}
