#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import JuicePrimitives

/// What a `StoreError` says, in English (`description`) and Korean (`korean`).
extension StoreError.Operation: CustomStringConvertible {
    public var description: String {
        switch self {
        case .opening: "opening it"
        case let .preparing(statement): "preparing \(Self.oneLine(statement))"
        case let .running(statement): "running \(Self.oneLine(statement))"
        }
    }

    /// A statement as one line: a schema's statements span several, and a store error
    /// is said in one.
    static func oneLine(_ statement: String) -> String {
        statement.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}

extension StoreError.ReadOnlyCause: CustomStringConvertible {
    public var description: String {
        switch self {
        case .fileNotWritable: "the file is not writable by you"
        case let .directoryNotWritable(directory):
            "the directory \(directory) is not writable, and the store keeps working files beside it"
        case .fileSystemReadOnly: "its file system is mounted read-only"
        case .requested: "it was opened for reading only"
        }
    }
}

extension StoreError.Reason: CustomStringConvertible {
    var kind: StoreError.Kind {
        switch self {
        case .notADatabase, .cutShort, .emptyFile, .nothingReadable, .noSchemaVersion, .stockRowsMissing, .journalRowNotAnEvent,
            .deadLetterWithoutEventID, .impossibleValue, .damaged, .markedDamaged, .migrationFailed:
            .corrupt
        case .foreignDatabase: .foreign
        case .newerSchema: .newerVersion
        case .notARegularFile, .fileNotReadableWritable, .fileReadOnly, .directoryNotWritable,
            .cannotCreateDirectory, .cannotOpen, .permissionDenied, .connectionUnavailable, .storeReadOnly,
            .migrationNeedsWriting, .directoryMissing, .targetExists, .targetUnwritable:
            .inaccessible
        case .busy: .busy
        case .leaseUnavailable, .diskFull, .engineFailure, .sharedLoggingRefused, .negativeInitialStock,
            .negativeQuantity, .sequenceRefused, .idRefused, .sequencesExhausted, .unexpected:
            .io
        }
    }

    /// English, one clause, no front end's options.
    public var description: String {
        let untouched = "it was left untouched"
        switch self {
        case let .notADatabase(size):
            return "the file is not a database (\(EnglishCount.of(size, "byte")) of something else, or a database cut short); \(untouched)"
        case let .cutShort(size, expected):
            return "the file is cut short: \(EnglishCount.of(size, "byte")) where its header says \(expected); \(untouched)"
        case .emptyFile:
            return "the file is empty (0 bytes): no store has been written to it yet"
        case .nothingReadable:
            return "nothing in the file could be read: no event, no stock row, no delivery record"
        case let .foreignDatabase(id):
            let shown = id.map { " (application_id 0x\(String($0, radix: 16)))" } ?? ""
            return "the file is a database of another application\(shown), not a JuiceMaker store; \(untouched)"
        case let .newerSchema(found, supported):
            return "the store was written by a newer JuiceMaker (schema version \(found); this one knows up to \(supported)); \(untouched)"
        case .noSchemaVersion:
            return "the store has no schema version"
        case let .stockRowsMissing(found, expected):
            return "the stock table lacks some fruits (\(found) of \(expected) rows)"
        case let .journalRowNotAnEvent(sequence, problem):
            return "journal entry \(sequence) is not a JuiceMaker event (\(problem))"
        case let .deadLetterWithoutEventID(subscriber):
            return "a dead letter of \(subscriber) has no valid event id"
        case let .impossibleValue(table, row, column, value):
            return "\(table) row \(row): \(column) holds \(value), a value the store never writes (damage)"
        case let .damaged(operation, message):
            return "the file is damaged or not a database (\(message)) while \(operation)"
        case let .markedDamaged(marker, foundAt, detail):
            return "the store was found damaged at \(foundAt) (\(detail)), as \(marker) records; changes are refused"
        case let .migrationFailed(from, to, problem):
            return "the store's schema cannot be moved from version \(from) to \(to) (\(problem)); it was left as it was"
        case .notARegularFile(let kind):
            return "this is not a regular file (\(kind.english))"
        case .fileNotReadableWritable:
            return "the file is not readable and writable by you"
        case .fileReadOnly:
            return "the file is read-only"
        case let .storeReadOnly(cause):
            return "the store is read-only: \(cause)"
        case let .migrationNeedsWriting(found, supported):
            return
                "the store has schema version \(found), which must be moved to \(supported) before use, and it is opened read-only; it was left untouched"
        case let .directoryMissing(directory, isFile):
            return isFile
                ? "the directory \(directory) does not exist (a file has that name)"
                : "the directory \(directory) does not exist"
        case let .targetExists(target):
            return "\(target) already exists; it was left untouched"
        case let .targetUnwritable(target, failure):
            return "cannot write the copy \(target) (\(failure)); the store was left untouched"
        case let .directoryNotWritable(directory, fileExists):
            return fileExists
                ? "the directory \(directory) is not writable, and the store keeps working files beside it"
                : "the directory \(directory) is not writable, so the store cannot be created there"
        case let .cannotCreateDirectory(directory, failure):
            return "cannot create the directory \(directory) (\(failure))"
        case let .cannotOpen(failure):
            return "cannot open the file (\(failure))"
        case let .permissionDenied(operation, message):
            return "cannot open or write the file (\(message)) while \(operation)"
        case let .leaseUnavailable(file, failure):
            return "cannot take the delivery lease \(file) (\(failure))"
        case let .busy(operation, seconds, message):
            return "another process kept the store locked for more than \(seconds) s while \(operation) (\(message))"
        case let .diskFull(operation):
            return "the disk is full while \(operation)"
        case let .engineFailure(operation, code, message):
            return "the database engine failed while \(operation): \(message) (code \(code))"
        case let .connectionUnavailable(code):
            return "the database engine could not allocate a connection (code \(code))"
        case let .sharedLoggingRefused(mode):
            return "the database engine refused the logging mode that lets readers and a writer share the file (it kept \(mode))"
        case let .negativeInitialStock(fruit):
            return "the initial stock of \(fruit.id) is negative"
        case let .negativeQuantity(fruit):
            return "refused a negative quantity of \(fruit.id) (a bug in the caller)"
        case let .sequenceRefused(found, expected):
            return "refused event sequence \(found), expected \(expected) (a bug in the caller)"
        case let .idRefused(id, previous):
            return "refused event id \(id), not after \(previous) (a bug in the caller)"
        case let .sequencesExhausted(last):
            return
                "the journal has reached sequence \(last), and no event may take a sequence past \(EventEnvelope.greatestSequence); nothing was written"
        case let .unexpected(text):
            return text
        }
    }
}

extension StoreError.Reason {
    /// Korean, one clause, no front end's options: `description` in the other language.
    public var korean: String {
        let untouched = "파일은 그대로 두었습니다"
        switch self {
        case let .notADatabase(size):
            return "데이터베이스가 아닙니다(다른 내용 \(size)바이트이거나 잘린 데이터베이스). \(untouched)"
        case let .cutShort(size, expected):
            return "파일이 잘렸습니다. 헤더에는 \(expected)바이트인데 \(size)바이트뿐입니다. \(untouched)"
        case .emptyFile:
            return "파일이 비어 있습니다(0바이트). 아직 저장소가 쓰인 적이 없습니다"
        case .nothingReadable:
            return "파일에서 아무것도 읽지 못했습니다. 이벤트도, 재고 행도, 전달 기록도 없습니다"
        case let .foreignDatabase(id):
            let shown = id.map { "(application_id 0x\(String($0, radix: 16)))" } ?? ""
            return "다른 애플리케이션의 데이터베이스\(shown)이며 JuiceMaker 저장소가 아닙니다. \(untouched)"
        case let .newerSchema(found, supported):
            return "더 새로운 JuiceMaker가 쓴 저장소입니다(스키마 버전 \(found), 이 버전은 \(supported)까지 압니다). \(untouched)"
        case .noSchemaVersion:
            return "저장소에 스키마 버전이 없습니다"
        case let .stockRowsMissing(found, expected):
            return "재고 표에 빠진 과일이 있습니다(\(expected)행 중 \(found)행)"
        case let .journalRowNotAnEvent(sequence, problem):
            return "저널 항목 \(sequence)은(는) JuiceMaker 이벤트가 아닙니다(\(problem))"
        case let .deadLetterWithoutEventID(subscriber):
            return "\(subscriber)의 배달 못 한 이벤트에 올바른 이벤트 id가 없습니다"
        case let .impossibleValue(table, row, column, value):
            return "\(table) 행 \(row)의 \(column)에 저장소가 쓰지 않는 값 \(value)이(가) 있습니다(손상)"
        case let .damaged(operation, message):
            return "\(operation.korean) 중 파일이 손상되었거나 데이터베이스가 아님을 알았습니다(\(message))"
        case let .markedDamaged(marker, foundAt, detail):
            return "\(foundAt)에 저장소가 손상된 것을 발견해 \(marker)에 기록해 두었습니다(\(detail)). 변경은 거부됩니다"
        case let .migrationFailed(from, to, problem):
            return "저장소 스키마를 버전 \(from)에서 \(to)(으)로 옮길 수 없습니다(\(problem)). 파일은 이전 상태 그대로입니다"
        case .notARegularFile(let kind):
            return "일반 파일이 아닙니다(\(kind.korean))"
        case .fileNotReadableWritable:
            return "파일을 읽고 쓸 권한이 없습니다"
        case .fileReadOnly:
            return "파일이 읽기 전용입니다"
        case let .storeReadOnly(cause):
            return "저장소가 읽기 전용입니다: \(cause.korean)"
        case let .migrationNeedsWriting(found, supported):
            return "저장소의 스키마 버전이 \(found)이라 쓰기 전에 \(supported)(으)로 옮겨야 하는데, 읽기 전용으로 열었습니다. \(untouched)"
        case let .directoryMissing(_, isFile):
            // The directory is the store path's; the line already shows that path.
            return isFile
                ? "저장소 경로의 디렉터리가 없습니다(그 이름의 파일이 있습니다)"
                : "저장소 경로의 디렉터리가 없습니다"
        case let .targetExists(target):
            return "\(target)이(가) 이미 있습니다. 그대로 두었습니다"
        case let .targetUnwritable(target, failure):
            return "사본 \(target)을(를) 쓸 수 없습니다(\(failure.korean)). 저장소는 그대로 두었습니다"
        case let .directoryNotWritable(directory, fileExists):
            return fileExists
                ? "디렉터리 \(directory)에 쓸 수 없는데, 저장소는 그 옆에 작업 파일을 둡니다"
                : "디렉터리 \(directory)에 쓸 수 없어 저장소를 만들 수 없습니다"
        case let .cannotCreateDirectory(directory, failure):
            return "디렉터리 \(directory)을(를) 만들 수 없습니다(\(failure.korean))"
        case let .cannotOpen(failure):
            return "파일을 열 수 없습니다(\(failure.korean))"
        case let .permissionDenied(operation, message):
            return "\(operation.korean) 중 파일을 열거나 쓸 수 없습니다(\(message))"
        case let .leaseUnavailable(file, failure):
            return "전달 임대 파일 \(file)을(를) 잡을 수 없습니다(\(failure.korean))"
        case let .busy(operation, seconds, message):
            return "\(operation.korean) 중 다른 프로세스가 저장소를 \(seconds)초 넘게 잠가 두었습니다(\(message))"
        case let .diskFull(operation):
            return "\(operation.korean) 중 디스크가 가득 찼습니다"
        case let .engineFailure(operation, code, message):
            return "\(operation.korean) 중 데이터베이스 엔진이 실패했습니다: \(message) (코드 \(code))"
        case let .connectionUnavailable(code):
            return "데이터베이스 엔진이 연결을 만들지 못했습니다(코드 \(code))"
        case let .sharedLoggingRefused(mode):
            return "데이터베이스 엔진이 읽는 쪽과 쓰는 쪽이 파일을 함께 쓰는 로그 방식을 거부했습니다(남은 방식: \(mode))"
        case let .negativeInitialStock(fruit):
            return "\(fruit.koreanName)의 초기 재고가 음수입니다"
        case let .negativeQuantity(fruit):
            return "\(fruit.koreanName)의 음수 수량을 거부했습니다(호출한 쪽의 버그)"
        case let .sequenceRefused(found, expected):
            return "이벤트 순번 \(found)을(를) 거부했습니다. 기대한 순번은 \(expected)입니다(호출한 쪽의 버그)"
        case let .idRefused(id, previous):
            return "이벤트 id \(id)을(를) 거부했습니다. \(previous)보다 뒤가 아닙니다(호출한 쪽의 버그)"
        case let .sequencesExhausted(last):
            return "저널이 순번 \(last)에 이르렀고, 어떤 이벤트도 \(EventEnvelope.greatestSequence)을(를) 넘는 순번을 받을 수 없습니다. 아무것도 쓰지 않았습니다"
        case let .unexpected(text):
            return "예상하지 못한 오류: \(text)"
        }
    }
}

extension StoreError.ReadOnlyCause {
    /// Korean: `description` in the other language.
    public var korean: String {
        switch self {
        case .fileNotWritable: "파일에 쓸 권한이 없습니다"
        case let .directoryNotWritable(directory):
            "디렉터리 \(directory)에 쓸 수 없는데, 저장소는 그 옆에 작업 파일을 둡니다"
        case .fileSystemReadOnly: "파일 시스템이 읽기 전용으로 마운트되어 있습니다"
        case .requested: "읽기 전용으로 열었습니다"
        }
    }
}

extension StoreError.Operation {
    /// Korean: `description` in the other language.
    public var korean: String {
        switch self {
        case .opening: "파일을 여는"
        case let .preparing(statement): "'\(Self.oneLine(statement))'을(를) 준비하는"
        case let .running(statement): "'\(Self.oneLine(statement))'을(를) 실행하는"
        }
    }
}

extension SystemFailure {
    /// The system's reason in Korean for the usual `errno`s; else its own text.
    public var korean: String {
        switch code {
        case ENOENT: "파일이나 디렉터리가 없습니다"
        case EACCES, EPERM: "권한이 없습니다"
        case EISDIR: "디렉터리입니다"
        case ENOTDIR: "경로 중간이 디렉터리가 아닙니다"
        case EROFS: "읽기 전용 파일 시스템입니다"
        case ENOSPC: "디스크 공간이 없습니다"
        case EEXIST: "이미 있습니다"
        case ENAMETOOLONG: "경로가 너무 깁니다"
        default: "시스템 오류 \(code): \(message)"
        }
    }
}
