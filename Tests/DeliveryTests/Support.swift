import Foundation
import JuiceMakerCore
import JuiceMakerPluginKit
import Locking
import JuiceTestSupport

extension Rig {
    /// The delivery tests' rig: stock for many orders, the plugin named "hook".
    static func delivery() -> Rig { Rig(stock: Stock(repeating: 1_000), name: "hook") }
}

/// Runs a program and returns its standard output.
func run(_ executable: String, _ arguments: [String], input: [UInt8]? = nil) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let output = Pipe()
    let inputPipe = Pipe()
    process.standardOutput = output
    process.standardInput = inputPipe
    try process.run()
    if let input { inputPipe.fileHandleForWriting.write(Data(input)) }
    try inputPipe.fileHandleForWriting.close()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self)
}
