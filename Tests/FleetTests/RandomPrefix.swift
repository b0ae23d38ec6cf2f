/// A key prefix of its own for each test, so no test reads another's keys whatever server it uses.
enum RandomPrefix {
    static func next() -> String {
        String(UInt64.random(in: 0...UInt64.max), radix: 36)
    }
}
