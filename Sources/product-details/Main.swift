import App

#if canImport(Glibc)
import Glibc
#endif

@main
struct ProductDetailsMain {
    static func main() async {
        let arguments = CommandLine.arguments.dropFirst()
        if arguments.contains("--help") || arguments.contains("-h") {
            print(AppConfiguration.helpText())
            return
        }
        if arguments.contains("--version") {
            print("product-details \(AppVersion.current)")
            return
        }
        let configuration: AppConfiguration
        do {
            configuration = try AppConfiguration.fromEnvironment(ProcessEnvironment.current)
        } catch {
            Logger.printError("product-details: \(error). See --help.")
            exit(2)
        }
        do {
            let app = try await Application.start(configuration: configuration)
            try await app.runUntilSignalled()
        } catch {
            Logger.printError("product-details: \(error)")
            exit(1)
        }
    }
}
