/// Reads typed settings from environment variables, remembering each one it was asked for so that
/// `--help` and the start-up log list them all with their defaults.
struct EnvironmentReader {
    let values: [String: String]
    private(set) var described: [SettingDescription] = []

    init(_ values: [String: String]) {
        self.values = values
    }

    private func raw(_ name: String) -> String? {
        guard let value = values[name]?.trimmingWhitespace(), !value.isEmpty else { return nil }
        return value
    }

    mutating func string(_ name: String, default fallback: String, _ help: String, secret: Bool = false) -> String {
        described.append(SettingDescription(name: name, defaultValue: fallback, help: help, secret: secret))
        return raw(name) ?? fallback
    }

    mutating func optionalString(_ name: String, _ help: String, secret: Bool = false) -> String? {
        described.append(SettingDescription(name: name, defaultValue: "", help: help, secret: secret))
        return raw(name)
    }

    mutating func int(_ name: String, default fallback: Int, in range: ClosedRange<Int>, _ help: String) throws(ConfigurationError) -> Int {
        described.append(SettingDescription(name: name, defaultValue: String(fallback), help: help, secret: false))
        guard let text = raw(name) else { return fallback }
        guard let value = Int(text) else {
            throw ConfigurationError(setting: name, reason: "\"\(text)\" is not a whole number")
        }
        guard range.contains(value) else {
            throw ConfigurationError(setting: name, reason: "\(value) is outside \(range.lowerBound)...\(range.upperBound)")
        }
        return value
    }

    mutating func choice(_ name: String, default fallback: String, among choices: [String], _ help: String) throws(ConfigurationError) -> String {
        described.append(SettingDescription(name: name, defaultValue: fallback, help: help + " (" + choices.joined(separator: "|") + ")", secret: false))
        guard let text = raw(name)?.lowercased() else { return fallback }
        guard choices.contains(text) else {
            throw ConfigurationError(setting: name, reason: "\"\(text)\" is not one of \(choices.joined(separator: ", "))")
        }
        return text
    }
}

/// One documented setting.
package struct SettingDescription: Sendable, Equatable {
    package let name: String
    package let defaultValue: String
    package let help: String
    package let secret: Bool
}

extension String {
    func trimmingWhitespace() -> String {
        var text = Substring(self)
        while let first = text.first, first.isWhitespace { text.removeFirst() }
        while let last = text.last, last.isWhitespace { text.removeLast() }
        return String(text)
    }
}
