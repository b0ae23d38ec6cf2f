/// Returns `value` and leaves `empty` in its place: a parser hands a finished message's parts
/// over this way instead of copying them (a copy retains each part's storage), since it forgets
/// them at the next message anyway.
@inline(__always)
func moveOut<Value>(_ value: inout Value, leaving empty: Value) -> Value {
    var taken = empty
    swap(&taken, &value)
    return taken
}
