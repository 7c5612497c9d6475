import Foundation
import JuiceMakerCore
import JuiceTestSupport
import Testing
@testable import JuiceCLI

/// Store errors, core errors and plugin reports read wholly in the person's
/// language: under `--lang ko` a line has Hangul and none of its English message's
/// words (paths, ids, numbers and `--store` are data); under `--lang en`, no Hangul.
@Suite(.tags(.process), .notInUnitRun, .offPool) struct LocalizedErrorTests {
    /// Words of the English store, logger and core messages; none may appear in a
    /// Korean line.
    static let englishWords: Set<String> = [
        "store", "the", "file", "is", "not", "a", "regular", "directory", "choose", "path", "with",
        "database", "of", "another", "application", "it", "was", "left", "untouched", "cannot", "open",
        "log", "logging", "off", "for", "this", "run", "orders", "are", "affected", "subscriber",
        "would", "be", "above", "maximum", "use", "smaller", "amount", "such", "or", "no",
    ]

    /// Whether `line` has Hangul and none of `words` once `data` (paths), `--flags`
    /// and snake-case identifiers are taken out.
    static func readsAsKorean(_ line: String, data: [String] = [], words englishWords: Set<String> = englishWords) -> Bool {
        var rest = line
        for item in data { rest = rest.replacingOccurrences(of: item, with: " ") }
        // Options and identifiers (JUICE_MAKER_STORE, application_id) are data.
        rest = rest.replacing(#/--[a-z-]+/#, with: " ").replacing(#/[A-Za-z]+(_[A-Za-z]+)+/#, with: " ")
        let words = rest.split { !$0.isLetter }.map { $0.lowercased() }
        return hasHangul(line) && !words.contains { englishWords.contains($0) }
    }

    static func hasHangul(_ text: String) -> Bool {
        text.unicodeScalars.contains { (0xAC00...0xD7A3).contains($0.value) }
    }

    /// One stderr line, exit 74, Korean under `ko` and English under `en`.
    private func expectStoreError(_ sandbox: JuiceSandbox, store: String, arguments: [String] = ["stock"]) throws {
        let korean = try sandbox.run(["--lang", "ko", "--store", store] + arguments)
        #expect(korean.status == 74, "\(korean.stderr)")
        #expect(korean.stderr.split(separator: "\n").count == 1, "\(korean.stderr)")
        #expect(Self.readsAsKorean(korean.stderr, data: [store]), "\(korean.stderr)")
        #expect(korean.stderr.contains(store))
        #expect(korean.stderr.contains("--store"), "the fix names the option: \(korean.stderr)")
        let english = try sandbox.run(["--lang", "en", "--store", store] + arguments)
        #expect(english.status == 74)
        #expect(!Self.hasHangul(english.stderr), "\(english.stderr)")
        #expect(english.stderr.contains("--store"), "\(english.stderr)")
    }

    @Test func aDeviceIsNotAStoreInKorean() throws {
        let sandbox = try JuiceSandbox()
        try expectStoreError(sandbox, store: "/dev/null")
        let korean = try sandbox.run(["--lang", "ko", "--store", "/dev/null", "stock"])
        #expect(korean.stderr == "오류: 저장소 /dev/null: 일반 파일이 아닙니다(문자 장치). --store로 파일 경로를 고르세요.\n")
    }

    @Test func anotherApplicationsDatabaseInKorean() throws {
        let sandbox = try JuiceSandbox()
        // A SQLite header whose application_id (offset 68) is not JuiceMaker's.
        var header = [UInt8]("SQLite format 3\0".utf8) + [UInt8](repeating: 0, count: 4080)
        header[68...71] = [0x12, 0x34, 0x56, 0x78]
        let path = sandbox.root + "/other.db"
        try Data(header).write(to: URL(fileURLWithPath: path))
        try expectStoreError(sandbox, store: path)
        let korean = try sandbox.run(["--lang", "ko", "--store", path, "stock"])
        #expect(korean.stderr.contains("0x12345678"), "\(korean.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(header), "the file is left untouched")
    }

    @Test func aStoreUnderAFileInKorean() throws {
        let sandbox = try JuiceSandbox()
        let blocker = try sandbox.write("not a directory\n", to: "blocker")
        try expectStoreError(sandbox, store: blocker + "/juice.db")
    }

    @Test func aCoreErrorInKorean() throws {
        let sandbox = try JuiceSandbox()
        let korean = try sandbox.run(["--lang", "ko", "stock", "add", "kiwi", "2000000"])
        #expect(korean.status == 65, "\(korean.stderr)")
        #expect(Self.readsAsKorean(korean.stderr), "\(korean.stderr)")
        let english = try sandbox.run(["--lang", "en", "stock", "add", "kiwi", "2000000"])
        #expect(english.status == 65)
        #expect(!Self.hasHangul(english.stderr), "\(english.stderr)")
    }

    @Test func aLoggerThatCannotOpenItsLogReportsInKorean() throws {
        let sandbox = try JuiceSandbox()
        let blocker = try sandbox.write("not a directory\n", to: "blocker")
        let log = blocker + "/juice.log"
        let config = try sandbox.write(#"{"subscribers": [{"type": "logger", "path": "\#(log)"}]}"#, to: "juice.json")
        let korean = try sandbox.run(["--lang", "ko", "--config", config, "order", "banana"])
        #expect(korean.status == 0, "\(korean.stderr)")
        let report = try #require(korean.stderr.split(separator: "\n").first { $0.contains(log) }, "\(korean.stderr)")
        #expect(report.hasPrefix("juice: 구독자 'logger"), "\(report)")
        #expect(Self.readsAsKorean(String(report), data: [log]), "\(report)")
        let english = try sandbox.run(["--lang", "en", "--config", config, "order", "banana"])
        #expect(english.stderr.contains("cannot open the log \(log)"), "\(english.stderr)")
        #expect(!Self.hasHangul(english.stderr), "\(english.stderr)")
    }

    /// Every reason the library can give, one value each; the switch fails to
    /// compile when a case is added and not listed here.
    static let everyReason: [StoreError.Reason] = {
        let failure = SystemFailure(code: ENOENT, message: "No such file or directory")
        let reasons: [StoreError.Reason] = [
            .notADatabase(size: 12), .cutShort(size: 4096, expected: 8192), .emptyFile, .nothingReadable, .foreignDatabase(applicationID: 0x1234),
            .foreignDatabase(applicationID: nil), .newerSchema(found: 9, supported: 4), .noSchemaVersion,
            .stockRowsMissing(found: 3, expected: 7), .journalRowNotAnEvent(sequence: 5, problem: "bad JSON"),
            .deadLetterWithoutEventID(subscriber: "hook"),
            .impossibleValue(table: "retry_states", row: "subscriber 'hook'", column: "next_attempt_at", value: "2.4e+163"),
            .damaged(.opening, engineMessage: "file is not a database"),
            .notARegularFile(.fifo), .fileNotReadableWritable, .fileReadOnly,
            .directoryNotWritable(directory: "/d", fileExists: true), .directoryNotWritable(directory: "/d", fileExists: false),
            .cannotCreateDirectory(directory: "/d", failure), .cannotOpen(failure),
            .permissionDenied(.running("COMMIT"), engineMessage: "attempt to write a readonly database"),
            .leaseUnavailable(file: "/d/x.lease-hook", failure),
            .busy(.preparing("BEGIN IMMEDIATE"), seconds: 5, engineMessage: "database is locked"),
            .diskFull(.running("COMMIT")), .engineFailure(.opening, code: 1, engineMessage: "SQL logic error"),
            .connectionUnavailable(code: 7), .sharedLoggingRefused(mode: "delete"),
            .negativeInitialStock(.kiwi), .negativeQuantity(.kiwi), .sequenceRefused(found: 3, expected: 2),
            .idRefused(EventID(high: 1, low: 2), previous: EventID(high: 1, low: 3)), .unexpected("boom"),
            .markedDamaged(marker: "/s/juice.db.damaged", foundAt: "2026-11-24T01:51:37Z", detail: "Page 12: btreeInitPage() returns error code 11"),
            .migrationFailed(from: 2, to: 4, problem: "table retry_states has (subscriber TEXT 0 1)"),
            .storeReadOnly(.fileNotWritable), .storeReadOnly(.directoryNotWritable("/d")), .storeReadOnly(.fileSystemReadOnly),
            .storeReadOnly(.requested), .migrationNeedsWriting(found: 3, supported: 4),
            .directoryMissing(directory: "/d/nope", isFile: false), .directoryMissing(directory: "/d/file", isFile: true),
            .targetExists("/d/copy.db"), .targetUnwritable("/d/nope/copy.db", .current(ENOENT)),
            .sequencesExhausted(last: 1 << 53),
        ]
        for reason in reasons {
            switch reason {
            case .notADatabase, .cutShort, .emptyFile, .nothingReadable, .foreignDatabase, .newerSchema, .noSchemaVersion, .stockRowsMissing,
                .journalRowNotAnEvent, .deadLetterWithoutEventID, .impossibleValue, .damaged, .notARegularFile, .fileNotReadableWritable,
                .fileReadOnly, .directoryNotWritable, .cannotCreateDirectory, .cannotOpen, .permissionDenied,
                .leaseUnavailable, .busy, .diskFull, .engineFailure, .connectionUnavailable, .sharedLoggingRefused,
                .negativeInitialStock, .negativeQuantity, .sequenceRefused, .idRefused, .unexpected, .markedDamaged,
                .migrationFailed, .storeReadOnly, .migrationNeedsWriting, .directoryMissing, .targetExists, .targetUnwritable,
                .sequencesExhausted:
                break
            }
        }
        return reasons
    }()

    @Test func noLibraryStoreErrorNamesACommandLineOption() {
        for reason in Self.everyReason {
            let error = StoreError(reason, path: "/s/juice.db")
            #expect(!error.description.contains("--"), "\(error.description)")
            #expect(!error.description.contains("JUICE_MAKER_STORE"), "\(error.description)")
            #expect(!error.description.contains("\n"))
        }
    }

    /// The ports' error speaks of a store, its engine and its working files, in both
    /// languages: never of one adapter's engine (SQLite, its SQL, its write-ahead log).
    /// What the engine said itself (`engineMessage`, "SQL logic error") is passed on.
    @Test func noLibraryStoreErrorNamesAnAdaptersEngine() {
        for reason in Self.everyReason {
            for text in [reason.description, reason.korean] {
                for word in ["SQLite", "SQL '", "WAL", "-wal", "write-ahead"] {
                    #expect(!text.contains(word), "\(text)")
                }
            }
        }
    }

    @Test func theCatalogRendersEveryReasonInBothLanguagesWithAFix() {
        for reason in Self.everyReason {
            let line = Catalog.Errors.store(StoreError(reason, path: "/s/juice.db"))
            #expect(line.english.hasPrefix("store /s/juice.db: \(reason.description); "), "\(line.english)")
            #expect(!Self.hasHangul(line.english), "\(line.english)")
            #expect(line.korean.hasPrefix("저장소 /s/juice.db: "), "\(line.korean)")
            #expect(Self.hasHangul(line.korean), "\(line.korean)")
            #expect(!line.english.contains("\n") && !line.korean.contains("\n"))
            if case .unexpected = reason { continue }  // another error's own text
            #expect(!line.korean.contains(reason.description), "untranslated: \(line.korean)")
        }
    }

    /// The particle after a quoted name follows its last syllable: `이라는` after a final
    /// consonant (`수박`), `라는` after a vowel (`키위망고쥬스`), and `을`/`를` likewise
    /// after a Korean suggestion; a name not ending in Hangul keeps the neutral form.
    @Test(arguments: [
        (["order", "키위망고쥬스"], "'키위망고쥬스'라는 쥬스는 없습니다. '망고키위쥬스'를 말씀하신 건가요?"),
        (["order", "수박"], "'수박'이라는 쥬스는 없습니다."),
        (["stock", "add", "딸귀", "1"], "'딸귀'라는 과일은 없습니다. '딸기'를 말씀하신 건가요?"),
        (["stock", "add", "수박", "1"], "'수박'이라는 과일은 없습니다."),
        (["order", "kiwl"], "'kiwl'이라는 쥬스는 없습니다. 'kiwi'을(를) 말씀하신 건가요?"),
    ])
    func theKoreanParticleFollowsTheName(arguments: [String], message: String) throws {
        let sandbox = try JuiceSandbox(language: "ko_KR.UTF-8")
        let run = try sandbox.run(arguments + ["--in-memory"])
        #expect(run.status == 65, "\(run.stderr)")
        #expect(run.stderr.contains(message), "\(run.stderr)")
    }
}
