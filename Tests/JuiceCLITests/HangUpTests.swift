import Foundation
import JuiceTestSupport
import Locking
import Testing

/// A terminal that goes away is a hang-up, whether or not a SIGHUP arrives: the
/// screens exit 129 once the order under way is stored. The terminal is a
/// pseudo-terminal the test opens and then closes (its master side); it is not
/// `juice`'s controlling terminal, so no SIGHUP is sent at all and the reads alone
/// (end of file, EIO) say the terminal is gone.
@Suite(.tags(.process), .notInUnitRun, .offPool) struct HangUpTests {
    /// `juice arguments…` with a pseudo-terminal as standard input, output and error.
    private final class OnTerminal {
        let process = Process()
        private let master: Int32
        /// Everything the terminal showed so far; each arrival wakes `wait`.
        let shown = LockedCondition("")

        init(_ sandbox: JuiceSandbox, _ arguments: [String]) throws {
            // posix_openpt, unlockpt and ptsname by hand (Swift's Glibc does not show them):
            // TIOCSPTLCK and TIOCGPTN, Linux's numbers.
            master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
            var unlock: Int32 = 0
            var number: UInt32 = 0
            guard master >= 0, ioctl(master, 0x4004_5431, &unlock) == 0, ioctl(master, 0x8004_5430, &number) == 0 else {
                throw POSIXError(.EIO)
            }
            let terminal = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY | O_CLOEXEC)
            guard terminal >= 0 else { throw POSIXError(.EIO) }
            let handle = FileHandle(fileDescriptor: terminal, closeOnDealloc: true)
            process.executableURL = URL(fileURLWithPath: JuiceSandbox.binary)
            process.arguments = arguments
            process.environment = sandbox.environment.merging(["TERM": "xterm"]) { $1 }
            process.currentDirectoryURL = URL(fileURLWithPath: sandbox.root + "/work")
            process.standardInput = handle
            process.standardOutput = handle
            process.standardError = handle
            try process.runAlone()
            try handle.close()
            var ends: [Int32] = [-1, -1]
            guard pipe(&ends) == 0 else { throw POSIXError(.EIO) }
            for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
            closing = ends[1]
            let (descriptor, shown, wake) = (master, shown, ends[0])
            // The reader closes the terminal's side itself when told: a descriptor another
            // thread is reading is not released by `close`, and the hang-up would not come.
            Thread {
                var buffer = [UInt8](repeating: 0, count: 4096)
                var watched = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
                while poll(&watched, 2, -1) >= 0, watched[1].revents == 0 {
                    let count = read(descriptor, &buffer, buffer.count)
                    guard count > 0 else { break }
                    let text = String(decoding: buffer[..<count], as: UTF8.self)
                    shown.change { $0 += text }
                }
                close(descriptor)
                close(wake)
            }.start()
        }

        /// Written to when the reader is to close the terminal's side.
        private let closing: Int32

        /// Waits until the terminal showed what `condition` looks for (30 s: only a hang takes that long).
        func wait(until condition: (String) -> Bool) -> Bool {
            shown.wait(until: .now + .seconds(30)) { condition($0) }
        }

        func type(_ text: String) {
            _ = text.utf8CString.withUnsafeBufferPointer { write(master, $0.baseAddress, $0.count - 1) }
        }

        /// Closes the terminal's other side, as a terminal window closing does; the exit status.
        func hangUp() -> Int32 {
            close(closing)
            reap(process)
            return process.terminationStatus
        }
    }

    @Test(arguments: [["shell"], ["stock", "edit"]])
    func aTerminalThatGoesAwayIsAHangUp(screen: [String]) throws {
        let sandbox = try JuiceSandbox()
        let session = try OnTerminal(sandbox, screen)
        #expect(session.wait { $0.contains("> ") }, "\(session.shown.withLock { $0 })")
        #expect(session.hangUp() == 129)
        #expect(session.process.terminationReason == .exit)
    }

    /// An order made before the hang-up is stored whole; nothing after it is read.
    @Test func anOrderBeforeTheHangUpIsKept() throws {
        let sandbox = try JuiceSandbox()
        let session = try OnTerminal(sandbox, ["shell"])
        #expect(session.wait { $0.contains("order> ") })
        session.type("banana\n")
        #expect(session.wait { $0.contains("Here's your banana juice! Enjoy!") }, "\(session.shown.withLock { $0 })")
        #expect(session.wait { $0.components(separatedBy: "order> ").count == 3 })
        #expect(session.hangUp() == 129)
        #expect(try sandbox.stock()["banana"] == 8)
        #expect(try sandbox.journal().count == 2)
    }
}
