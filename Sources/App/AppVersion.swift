/// The service's version, printed by `--version` and in the start-up log.
public enum AppVersion {
    public static let current = "0.1.0"
}
