import Foundation
import JuiceTestSupport
import Locking
import SQLiteStore
import Testing

/// `juice report` against what a hostile newcomer tries: `--svg` at a path that is not
/// a plain file, windows of unbounded length or in the future, and a report run while
/// another process holds the store's write lock. Real `juice` processes, real files.
@Suite(.tags(.process), .notInUnitRun, .offPool) struct ReportTargetTests {
    private static let dayMilliseconds: Int64 = 86_400_000

    /// What `lstat` says is at `path`: its type bits (`S_IFREG`, `S_IFLNK`, …).
    private func kind(_ path: String) -> mode_t {
        var status = stat()
        return lstat(path, &status) == 0 ? status.st_mode & S_IFMT : 0
    }

    private func isSVG(_ text: String) -> Bool {
        text.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg") && text.hasSuffix("</svg>\n")
    }

    /// A symbolic link is followed: its target gets the SVG and the link stays a link,
    /// also a relative one and a chain of two; a link to a missing file creates it.
    @Test func aSymbolicLinkIsFollowedAndStaysALink() throws {
        let sandbox = try JuiceSandbox()
        #expect(try sandbox.run(["order", "banana"]).status == 0)
        let target = try sandbox.write("old", to: "charts/target.svg")
        let link = sandbox.root + "/link.svg"
        let chain = sandbox.root + "/chain.svg"
        #expect(symlink("charts/target.svg", link) == 0)
        #expect(symlink(link, chain) == 0)
        for path in [link, chain] {
            let run = try sandbox.run(["report", "--svg", path])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(kind(path) == S_IFLNK, "\(path) is still a link")
            #expect(isSVG(try String(contentsOfFile: target, encoding: .utf8)))
        }
        let dangling = sandbox.root + "/dangling.svg"
        #expect(symlink(sandbox.root + "/charts/new.svg", dangling) == 0)
        #expect(try sandbox.run(["report", "--svg", dangling]).status == 0)
        #expect(kind(dangling) == S_IFLNK)
        #expect(isSVG(try String(contentsOfFile: sandbox.root + "/charts/new.svg", encoding: .utf8)))
        #expect(try FileManager.default.contentsOfDirectory(atPath: sandbox.root + "/charts").sorted() == ["new.svg", "target.svg"])
    }

    /// A FIFO a process reads is written through: its reader gets the whole SVG, and it
    /// is still a FIFO. One nobody reads is refused at once (the open never waits).
    @Test func aFIFOIsWrittenThroughToItsReader() throws {
        let sandbox = try JuiceSandbox()
        #expect(try sandbox.run(["order", "kiwi"]).status == 0)
        let fifo = sandbox.root + "/charts.fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        let unread = try sandbox.run(["report", "--svg", fifo])
        #expect(unread.status == 74 && unread.stderr.contains("no process is reading"), "\(unread.stderr)")
        // The reader is there before `juice` opens the other end (a non-blocking open);
        // it reads what comes until the writer has come and gone (POLLHUP).
        let descriptor = open(fifo, O_RDONLY | O_NONBLOCK)
        #expect(descriptor >= 0)
        let received = LockedCondition(Data())
        let finished = LockedCondition(false)
        let reader = Thread {
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                guard poll(&ready, 1, -1) >= 0 else { continue }
                let count = read(descriptor, &buffer, buffer.count)
                if count > 0 {
                    received.change { $0.append(contentsOf: buffer[..<count]) }
                } else if ready.revents & Int16(POLLHUP) != 0 {
                    break
                }
            }
            close(descriptor)
            finished.change { $0 = true }
        }
        reader.start()
        let run = try sandbox.run(["report", "--svg", fifo])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(finished.wait(until: .now + .seconds(30)) { $0 })
        #expect(isSVG(received.withLock { String(decoding: $0, as: UTF8.self) }))
        #expect(kind(fifo) == S_IFIFO)
        #expect(try FileManager.default.contentsOfDirectory(atPath: sandbox.root).filter { $0.hasSuffix(".tmp") }.isEmpty)
    }

    /// A device is written through, never renamed over: a null device made in the
    /// sandbox (as root) or `/dev/null` stays a character device.
    @Test func aDeviceStaysADevice() throws {
        let sandbox = try JuiceSandbox()
        let made = sandbox.root + "/null"
        let null = dev_t(1 << 8 | 3)  // makedev(1, 3), a macro Swift does not see
        let device = mknod(made, S_IFCHR | 0o666, null) == 0 ? made : "/dev/null"
        let run = try sandbox.run(["report", "--svg", device])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(kind(device) == S_IFCHR)
        var status = stat()
        #expect(stat(device, &status) == 0 && status.st_rdev == null)
    }

    /// `-` is standard output: the SVG alone, and no file named `-`; with `--json` a
    /// usage error (both would print there).
    @Test func aDashIsStandardOutput() throws {
        let sandbox = try JuiceSandbox()
        #expect(try sandbox.run(["order", "mango"]).status == 0)
        let run = try sandbox.run(["report", "--svg", "-"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(isSVG(run.stdout), "\(run.stdout.prefix(200))")
        #expect(!FileManager.default.fileExists(atPath: sandbox.root + "/work/-"))
        let both = try sandbox.run(["report", "--svg", "-", "--json"])
        #expect(both.status == 64)
        #expect(both.stderr.hasPrefix("Error: '--svg -' and '--json' both print on standard output"), "\(both.stderr)")
    }

    /// A date window is as bounded as a duration: from the day 3650 days back up to
    /// today. The first day allowed works; the day before it exits 65 naming the range.
    @Test func aDateIsBoundedLikeADuration() throws {
        let sandbox = try JuiceSandbox()
        #expect(try sandbox.run(["order", "banana"]).status == 0)
        let at = "2026-11-21T06:00:00Z"
        // 3650 days before 2026-11-21 06:00 is 2016-11-23 06:00: the first whole day is the 24th.
        let first = try sandbox.run(["report", "--since", "2016-11-24", "--at", at, "--json"])
        #expect(first.status == 0, "\(first.stderr)")
        for since in ["2016-11-23", "0001-01-01", "1970-01-01"] {
            let run = try sandbox.run(["report", "--since", since, "--at", at])
            #expect(run.status == 65, "\(since): \(run.stderr)")
            #expect(run.stdout.isEmpty)
            #expect(
                run.stderr == "Error: '--since \(since)' is out of range; give a date from 2016-11-24 (3650 days back) up to today (UTC).\n",
                "\(run.stderr)")
            let picklist = try sandbox.run(["report", "picklist", "--since", since, "--at", at])
            #expect(picklist.status == 65, "\(picklist.stderr)")
        }
        // Without --at the range ends now.
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let old = try sandbox.run(["report", "--since", "2000-01-01"])
        #expect(old.status == 65)
        let earliest = ISO8601DateFormatter().string(
            from: Date(
                timeIntervalSince1970: Double(((now - 3650 * Self.dayMilliseconds - 1) / Self.dayMilliseconds + 1) * Self.dayMilliseconds) / 1000))
        #expect(old.stderr.contains("give a date from \(earliest.prefix(10)) (3650 days back)"), "\(old.stderr)")
    }

    /// `--at` in the future is refused like a future `--since`, in both commands.
    @Test(arguments: [["report"], ["report", "picklist"]])
    func aFutureAtIsRefused(command: [String]) throws {
        let sandbox = try JuiceSandbox()
        for at in ["2999-01-01T00:00:00Z", "2999-01-01"] {
            let run = try sandbox.run(command + ["--at", at])
            #expect(run.status == 65, "\(run.stderr)")
            #expect(run.stderr == "Error: '--at \(at)' is in the future; give a time up to now.\n", "\(run.stderr)")
        }
    }

    /// A date window reads "since 2026-11-14", not "the last 2026-11-14".
    @Test func aDateWindowReadsSince() throws {
        let sandbox = try JuiceSandbox()
        #expect(try sandbox.run(["order", "banana"]).status == 0)
        let at = ["--at", "2026-11-21T06:00:00Z"]
        let report = try sandbox.run(["report", "--since", "2026-11-14"] + at)
        #expect(report.stdout.contains("how long it lasts at the rate since 2026-11-14"), "\(report.stdout)")
        #expect(report.stdout.contains("not used since 2026-11-14: lasts at least that long"))
        #expect(!report.stdout.contains("the last 2026"))
        let picklist = try sandbox.run(["report", "picklist", "--since", "2026-11-14"] + at)
        #expect(picklist.stdout.contains("at the rate since 2026-11-14"), "\(picklist.stdout)")
        let korean = try sandbox.run(["report", "--since", "2026-11-14", "--lang", "ko"] + at)
        #expect(korean.stdout.contains("2026-11-14 이후 속도로"), "\(korean.stdout)")
        let duration = try sandbox.run(["report", "--since", "24h"] + at)
        #expect(duration.stdout.contains("at the rate of the last 24h"))
    }

    /// Another process holds the write lock: `report` and `report picklist` answer at
    /// once from the journal folded in memory (the same figures as after the lock
    /// goes), and the projection is folded by the next report.
    @Test func aReportDoesNotWaitForAnotherProcesssWriter() throws {
        let sandbox = try JuiceSandbox()
        for juice in ["banana", "mango-kiwi", "kiwi"] { #expect(try sandbox.run(["order", juice]).status == 0) }
        #expect(try sandbox.run(["order", "strawberry", "--count", "4"]).status == 1)
        let lock = StoreWriteLock(try SQLiteStore(path: sandbox.storePath))
        #expect(lock.waitUntilHeld())
        let locked = try sandbox.run(["report", "--json"])
        let picklist = try sandbox.run(["report", "picklist", "--json"])
        lock.release()
        #expect(locked.status == 0, "\(locked.stderr)")
        #expect(picklist.status == 0, "\(picklist.stderr)")
        let free = try sandbox.run(["report", "--json"])
        #expect(free.status == 0)
        // The same figures; only the window's end (now), and so the rates, moved on.
        func counted(_ run: ProgramRun) throws -> NSDictionary {
            var figures = try #require(try run.json() as? [String: Any])
            figures["window"] = nil
            figures["stock"] = (figures["stock"] as? [[String: Any]])?.map { [$0["fruit"], $0["quantity"], $0["consumed"]] }
            return NSDictionary(dictionary: figures)
        }
        let (lockedFigures, freeFigures) = (try counted(locked), try counted(free))
        #expect(lockedFigures == freeFigures, "\(locked.stdout)\n\(free.stdout)")
        #expect(((lockedFigures["sales"] as? [String: Any])?["cups"] as? Int) == 3)
    }
}
