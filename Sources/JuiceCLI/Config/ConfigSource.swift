#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import JuiceJSON
import JuiceMakerCore
import JuiceMakerPluginKit
import JuicePrimitives

/// Where the effective config came from.
enum ConfigSource: Sendable, Equatable {
    case file(String)
    case builtIn

    /// The file's path, for error messages; `nil` for the built-in defaults.
    var file: String? {
        if case .file(let path) = self { return path }
        return nil
    }
}

/// Finds the config in the documented order and reads its text:
/// 1. `--config PATH`, 2. `JUICE_MAKER_CONFIG`, 3. `./config/juice-maker.json`,
/// 4. `$XDG_CONFIG_HOME/juice-maker/config.json` (default `~/.config/…`),
/// 5. the built-in defaults.
///
/// A file named explicitly (1, 2) must be readable; the others are used when they exist.
/// A file that exists but cannot be read is an error, never silently skipped.
struct ConfigLocator: Sendable {
    let environment: [String: String]
    let workingDirectory: String

    /// The candidate files, in order, with whether each was named explicitly.
    func candidates(option: String?) -> [(path: String, explicit: Bool)] {
        var list: [(String, Bool)] = []
        if let option { return [(absolute(option), true)] }
        if let named = environment["JUICE_MAKER_CONFIG"], !named.isEmpty { return [(absolute(named), true)] }
        list.append((absolute("config/juice-maker.json"), false))
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") {
            list.append((PathText.join(xdg, "juice-maker/config.json"), false))
        } else if let home = environment["HOME"], !home.isEmpty {
            list.append((PathText.join(home, ".config/juice-maker/config.json"), false))
        }
        return list
    }

    /// The source and its text.
    func locate(option: String?) throws(ConfigurationError) -> (source: ConfigSource, text: String) {
        if option?.isEmpty == true {
            throw ConfigurationError(path: "", reason: .emptyConfigPath)
        }
        for candidate in candidates(option: option) {
            // `access`, not `FileManager.default` (start-up rule "Date only").
            guard candidate.explicit || access(candidate.path, F_OK) == 0 else { continue }
            return (.file(candidate.path), try Self.readText(candidate.path))
        }
        return (.builtIn, BuiltInConfig.text)
    }

    func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        if path == "~" || path.hasPrefix("~/"), let home = environment["HOME"] {
            return PathText.join(home, String(path.dropFirst(min(2, path.count))))
        }
        return PathText.join(workingDirectory, path)
    }

    /// The whole file as UTF-8 text, read through the file gate (`FileGate`): only a
    /// regular file, opened without waiting (a FIFO or a device never blocks); the error
    /// says why it cannot be read.
    static func readText(_ path: String) throws(ConfigurationError) -> String {
        let bytes: [UInt8]
        do throws(FileRefusal) {
            bytes = try FileGate.contents(of: path)
        } catch {
            switch error {
            case .notRegular(let kind): throw ConfigurationError(file: path, path: "", reason: .notARegularFile(kind))
            case .system(let code):
                throw ConfigurationError(
                    file: path, path: "", reason: .cannotRead(SystemFailure(code: code, message: String(cString: strerror(code)))))
            case .storeFile, .tooLarge, .noReader:
                let message = error.message
                throw ConfigurationError(file: path, path: "", reason: .cannotRead(SystemFailure(code: EFBIG, message: message.english)))
            }
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ConfigurationError(file: path, path: "", reason: .notUTF8)
        }
        return text
    }
}

/// The config used when no file is found: the same as `config/juice-maker.json`.
enum BuiltInConfig {
    /// The subscribers a config gets when it has no `subscribers` key (`[]` means none).
    static var subscribers: JSONValue {
        guard case .object(let members)? = try? JSONReader.parse(text),
            let subscribers = members.first(where: { $0.key == "subscribers" })?.value
        else { return .array([]) }
        return subscribers
    }

    static let text = """
        {
          "language": "auto",
          "initialStock": 10,
          "store": { "durability": "full" },
          "flushDeadlineSeconds": 2,
          "subscribers": [
            { "type": "logger", "level": "info", "format": "text", "path": "juice-maker.log" },
            { "type": "cli-notifier" }
          ]
        }
        """
}
