import Foundation
#if FUZZING
import CFuzzerDriver
#endif

/// libFuzzer's entry point, `LLVMFuzzerTestOneInput`.
public typealias FuzzEntry = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

/// What every fuzz target shares. A target exports `LLVMFuzzerTestOneInput` and its
/// `@main` calls `FuzzInput.main` with it:
/// - built with `-DFUZZING` (and `-sanitize=fuzzer`), `main` hands over to libFuzzer's
///   driver, as libFuzzer's own `main` would. (SwiftPM names an executable's entry
///   `<Target>_main` and points the linker's `main` at it, so libFuzzer's `main` cannot
///   be the entry; `LLVMFuzzerRunDriver` is its documented substitute.)
/// - otherwise `main` replays the files named as arguments (a directory: every file in
///   it) through the same entry: the corpus, or a saved crash as a regression check.
public enum FuzzInput {
    /// Runs the target: libFuzzer in a fuzz build, the corpus replay otherwise.
    public static func main(_ entry: FuzzEntry) -> Never {
        #if FUZZING
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv, entry))
        #else
        replay { bytes in _ = bytes.withUnsafeBufferPointer { entry($0.baseAddress, $0.count) } }
        #endif
    }

    /// Calls `body` with libFuzzer's input; libFuzzer expects 0.
    public static func run(_ data: UnsafePointer<UInt8>?, _ size: Int, _ body: ([UInt8]) -> Void) -> CInt {
        body(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
        return 0
    }

    /// Runs `body` on every file named by the arguments (a directory: every file in it,
    /// sorted), then prints how many; exits 66 when an argument cannot be read.
    public static func replay(_ body: ([UInt8]) -> Void) -> Never {
        var count = 0
        for argument in CommandLine.arguments.dropFirst() {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: argument, isDirectory: &isDirectory) else {
                FileHandle.standardError.write(Data("fuzz replay: no such file or directory: \(argument)\n".utf8))
                exit(66)
            }
            let files =
                isDirectory.boolValue
                ? ((try? FileManager.default.contentsOfDirectory(atPath: argument)) ?? []).sorted().map { argument + "/" + $0 }
                : [argument]
            for file in files {
                guard let data = FileManager.default.contents(atPath: file) else {
                    FileHandle.standardError.write(Data("fuzz replay: cannot read \(file)\n".utf8))
                    exit(66)
                }
                body(Array(data))
                count += 1
            }
        }
        print("fuzz replay: \(count) inputs, no crash")
        exit(0)
    }
}
