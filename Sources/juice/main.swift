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
import JuiceCLI

// The composition root lives in the JuiceCLI library; this is only the process.
let code = await JuiceProcess.run(
    arguments: Array(CommandLine.arguments.dropFirst()),
    environment: ProcessInfo.processInfo.environment,
    workingDirectory: FileManager.default.currentDirectoryPath,
    undecodableArgument: JuiceProcess.firstUndecodableArgument())
exit(code)
