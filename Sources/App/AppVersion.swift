/// The service's version, printed by `--version` and in the start-up log.
package enum AppVersion {
    package static let current = "0.1.0"
}
