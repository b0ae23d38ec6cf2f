/// Leading and trailing spaces and tabs removed, as HTTP field values and hand-typed
/// environment values may carry them.
extension String {
    var trimmingSpaces: Substring {
        var slice = self[...]
        while let first = slice.first, first == " " || first == "\t" { slice.removeFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice.removeLast() }
        return slice
    }
}
