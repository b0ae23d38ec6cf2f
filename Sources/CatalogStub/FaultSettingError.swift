/// A fault setting whose value is missing, malformed or out of range.
package struct FaultSettingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Where the value came from: an environment variable, header or JSON key.
    package let source: String
    package let given: String
    let expectation: String

    init(setting: FaultSetting, source: String, given: String) {
        self.source = source
        self.given = given
        expectation = setting.expectation
    }

    package var description: String {
        "\(source) must be \(expectation), got \"\(given)\""
    }
}
