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

    /// The error for a file `read` or `open` refused (`errno` says why).
    private static func cannotRead(_ path: String) -> ConfigurationError {
        let code = errno
        return ConfigurationError(file: path, path: "", reason: .cannotRead(SystemFailure(code: code, message: String(cString: strerror(code)))))
    }

    /// The whole file as UTF-8 text; the error says why it cannot be read. Only a
    /// regular file is read: its kind is checked before it is opened (a device is never
    /// opened), and again on the descriptor, opened without waiting (`O_NONBLOCK`: a
    /// FIFO that replaced the file meanwhile cannot block the open).
    static func readText(_ path: String) throws(ConfigurationError) -> String {
        var info = stat()
        if stat(path, &info) == 0, let kind = FileKind(mode: info.st_mode) {
            throw ConfigurationError(file: path, path: "", reason: .notARegularFile(kind))
        }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else {
            throw Self.cannotRead(path)
        }
        defer { close(descriptor) }
        if let kind = FileKind(descriptor: descriptor) {
            throw ConfigurationError(file: path, path: "", reason: .notARegularFile(kind))
        }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else {
                throw Self.cannotRead(path)
            }
            if count == 0 { break }
            bytes += buffer[0..<count]
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
