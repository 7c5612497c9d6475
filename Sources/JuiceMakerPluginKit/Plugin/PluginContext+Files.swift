import JuicePrimitives
extension PluginContext {
    /// A file named in a plugin's config, as the plugin opens it: an absolute path as
    /// given, `~/…` under `HOME`, anything else relative to `stateDirectory` (the
    /// store's directory).
    public func filePath(_ configured: String) -> String {
        Self.filePath(configured, stateDirectory: stateDirectory, home: environment["HOME"])
    }

    /// `filePath(_:)` with the directory and home given.
    package static func filePath(_ configured: String, stateDirectory: String, home: String?) -> String {
        if configured.hasPrefix("/") { return configured }
        if configured.hasPrefix("~/"), let home, !home.isEmpty { return home + configured.dropFirst() }
        let directory = stateDirectory.hasSuffix("/") ? String(stateDirectory.dropLast()) : stateDirectory
        return directory.isEmpty ? configured : directory + "/" + configured
    }

    /// Refuses, as a config error at `keyPath`, a file that could never be opened
    /// because its directory does not exist: found at `config check` and at every
    /// command's start, not as a line at run time. A bare name is exempt: it goes in
    /// the store's directory, which `juice` creates with the store.
    /// One of the store's files by any spelling (`files`, the file gate) is refused here
    /// too: no output may land on the store. What else the gate refuses (a directory, a
    /// socket, a FIFO nobody reads) is said once when the file is opened, and orders go on.
    public func requireDirectory(of configured: String, at keyPath: String) throws(ConfigurationError) {
        do throws(FileRefusal) {
            try files.checkOutput(filePath(configured))
        } catch {
            if case .storeFile = error { throw ConfigurationError(path: keyPath, plugin: error.message) }
        }
        guard configured.contains("/"), let directory = FileSink.missingDirectory(for: filePath(configured)) else { return }
        throw ConfigurationError(
            path: keyPath,
            plugin: PluginMessage(
                english: "the directory \(directory) does not exist; create it (mkdir -p \(directory)) or choose another path",
                korean: "디렉터리 \(directory)이(가) 없습니다. 만들거나(mkdir -p \(directory)) 다른 경로를 쓰세요"))
    }
}
