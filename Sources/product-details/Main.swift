import App
import Logging

#if canImport(Glibc)
import Glibc
#endif

@main
struct ProductDetailsMain {
    static func main() async {
        switch CommandLineAction(arguments: Array(CommandLine.arguments.dropFirst())) {
        case .help:
            print(AppConfiguration.helpText())
            return
        case .version:
            print("product-details \(AppVersion.current)")
            return
        case .unknown(let argument):
            Logger.printError("product-details: unknown argument \"\(argument)\"\n\(CommandLineAction.usage)")
            exit(2)
        case .run:
            break
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
        } catch let error as ConfigurationError {
            // Found only once start-up tries the setting (a host name that does not resolve, a
            // port another process holds): a bad setting all the same.
            Logger.printError("product-details: \(error). See --help.")
            exit(2)
        } catch {
            Logger.printError("product-details: \(error)")
            exit(1)
        }
    }
}
