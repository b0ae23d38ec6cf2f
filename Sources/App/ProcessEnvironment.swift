#if canImport(Glibc)
import Glibc
#endif

/// The process environment as a dictionary.
package enum ProcessEnvironment {
    package static var current: [String: String] {
        var values: [String: String] = [:]
        var pointer = environ
        while let entry = pointer.pointee {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") {
                values[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            pointer += 1
        }
        return values
    }
}
