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
import JuiceMakerCore
import JuicePrimitives
import SQLiteStore

/// Where the store lives, and the one place that opens it.
///
/// Precedence: `--in-memory` > `--store` > `JUICE_MAKER_STORE` > config `store.path` >
/// the default under `$XDG_STATE_HOME/juice-maker/` (or `~/.local/state/juice-maker/`).
/// Resolving has no side effect; only `open` touches the file system.
///
/// Missing directories are created only for the default location (the state
/// directory, also when `JUICE_MAKER_STORE`, `--store` or the config name a file in
/// it): a path someone typed whose directory does not exist is a typo until proven
/// otherwise, and is refused with `directoryMissing` instead of created.
enum StoreLocation: Sendable, Equatable {
    /// A store that lives for this run only; relative plugin paths still resolve
    /// against `stateDirectory`.
    case inMemory(stateDirectory: String)
    case file(String, createsDirectory: Bool)

    static func resolve(settings: GlobalSettings, config: JuiceConfig, environment: [String: String], workingDirectory: String) -> StoreLocation {
        let chosen = settings.storePath ?? environment["JUICE_MAKER_STORE"].flatMap { $0.isEmpty ? nil : $0 }
        if settings.inMemory {
            let fallback = config.storePath ?? defaultPath(environment: environment)
            let path = chosen.map { absolute($0, workingDirectory: workingDirectory) } ?? fallback
            return .inMemory(stateDirectory: PathText.parent(of: path))
        }
        let path = chosen.map { absolute($0, workingDirectory: workingDirectory) } ?? config.storePath ?? defaultPath(environment: environment)
        return .file(path, createsDirectory: isInStateDirectory(path, environment: environment))
    }

    /// Whether `path` is a file directly in the default state directory.
    private static func isInStateDirectory(_ path: String, environment: [String: String]) -> Bool {
        func directory(_ file: String) -> String { PathText.standardized(PathText.parent(of: file)) }
        return directory(path) == directory(defaultPath(environment: environment))
    }

    private static func absolute(_ path: String, workingDirectory: String) -> String {
        path.hasPrefix("/") ? path : PathText.standardized(PathText.join(workingDirectory, path))
    }

    /// The default store file for this environment (`SQLiteStore.defaultPath`).
    static func defaultPath(environment: [String: String]) -> String {
        SQLiteStore.defaultPath(environment: environment)
    }

    /// The directory relative plugin paths resolve against.
    /// The file gate that guards this store's files (none for a store in memory).
    var fileGate: FileGate {
        switch self {
        case .inMemory: FileGate(guarding: nil)
        case .file(let path, _): FileGate(guarding: path)
        }
    }

    var stateDirectory: String {
        switch self {
        case .inMemory(let directory): directory
        case .file(let path, _): PathText.parent(of: path)
        }
    }

    /// What `config show` and errors call this store.
    var displayPath: String {
        switch self {
        case .inMemory: ":memory:"
        case .file(let path, _): path
        }
    }

    /// Creates the state directory if it is missing, user-only, as the store does;
    /// for a file elsewhere, checks that its directory exists (`directoryMissing`).
    func prepareDirectory() throws(StoreError) {
        if case let .file(path, createsDirectory: false) = self {
            try SQLiteStore.requireDirectory(of: path)
        } else {
            try SQLiteStore.createDirectory(stateDirectory)
        }
    }

    /// Opens (or creates) the store.
    func open(initialStock: Stock, durability: Durability) throws(StoreError) -> any StockStore & DeliveryJournal {
        switch self {
        case .inMemory:
            return InMemoryStore(initialStock: initialStock)
        case let .file(path, createsDirectory):
            // Read-only when the file or its directory cannot be written: queries
            // work, changes are refused with the reason.
            let options = SQLiteStore.Options(access: .automatic, createsDirectories: createsDirectory)
            return try SQLiteStore(path: path, durability: durability, initialStock: initialStock, options: options)
        }
    }
}
