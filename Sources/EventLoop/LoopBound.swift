/// Carries a loop-confined value into a `@Sendable` closure that is known to run on that loop
/// (a task that prefers the loop as its executor, or `EventLoop.execute`). Reading `value` off the
/// loop thread is a programming error and traps.
///
/// `@unchecked Sendable`: `wrapped` is only read on `loop`'s thread, checked on each access.
package struct LoopBound<Value>: @unchecked Sendable {
    package let loop: EventLoop
    private let wrapped: Value

    package init(_ value: Value, loop: EventLoop) {
        precondition(loop.inLoop, "LoopBound created off its loop")
        self.loop = loop
        wrapped = value
    }

    package var value: Value {
        precondition(loop.inLoop, "LoopBound value read off its loop")
        return wrapped
    }
}
