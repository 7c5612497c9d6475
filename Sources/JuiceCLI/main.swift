import Foundation
import JuiceMakerCore

// The composition root: the real process's arguments, environment and streams.
let runner = Runner(
    arguments: Array(CommandLine.arguments.dropFirst()),
    environment: ProcessInfo.processInfo.environment,
    workingDirectory: FileManager.default.currentDirectoryPath,
    standardOutput: FileSink.standardOutput(),
    standardError: FileSink.standardError(),
    registry: .standard)
let code = await runner.run()
exit(code.rawValue)
