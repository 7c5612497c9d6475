import JuiceCLI

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// The composition root lives in the JuiceCLI library; this is only the process. What
// needs no config, store or plugin is answered before the first `await`, so it never
// starts the concurrency runtime's threads.
let started = JuiceProcess.start(
    arguments: Array(CommandLine.arguments.dropFirst()),
    environment: JuiceProcess.currentEnvironment(),
    workingDirectory: JuiceProcess.currentDirectory(),
    undecodableArgument: JuiceProcess.firstUndecodableArgument())
switch started {
case .finished(let code):
    exit(code)
case .pending(let command):
    exit(await command.finish())
}
