#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import JuiceMakerCore

/// Store failures: the library's reason in both languages, then the CLI's fix.
extension Catalog {
    enum StoreErrors {
        typealias T = LocalizedText

        /// The whole line: which store, what went wrong, how to fix it here. While
        /// `recovering` the store, the fix never points back to recovery.
        static func line(_ error: StoreError, recovering: Bool = false) -> T {
            let why = reason(error.reason)
            let fix = recovering && error.kind == .corrupt && error.reason != .emptyFile ? unrecoverable : fix(error.reason, store: error.path)
            return T(
                "store \(error.path): \(why.english); \(fix.english)",
                ko: "저장소 \(error.path): \(why.korean). \(fix.korean).")
        }

        /// What went wrong, without the fix (for plugins' reports).
        static func reason(_ reason: StoreError.Reason) -> T {
            T(reason.description, ko: korean(reason))
        }

        private static func korean(_ reason: StoreError.Reason) -> String {
            let untouched = "파일은 그대로 두었습니다"
            switch reason {
            case let .notADatabase(size):
                return "SQLite 데이터베이스가 아닙니다(다른 내용 \(size)바이트이거나 잘린 데이터베이스). \(untouched)"
            case let .cutShort(size, expected):
                return "파일이 잘렸습니다. 헤더에는 \(expected)바이트인데 \(size)바이트뿐입니다. \(untouched)"
            case .emptyFile:
                return "파일이 비어 있습니다(0바이트). 아직 저장소가 쓰인 적이 없습니다"
            case .nothingReadable:
                return "파일에서 아무것도 읽지 못했습니다. 이벤트도, 재고 행도, 전달 기록도 없습니다"
            case let .foreignDatabase(id):
                let shown = id.map { "(application_id 0x\(String($0, radix: 16)))" } ?? ""
                return "다른 애플리케이션의 SQLite 데이터베이스\(shown)이며 JuiceMaker 저장소가 아닙니다. \(untouched)"
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
            case let .damaged(operation, message):
                return "\(korean(operation)) 중 파일이 손상되었거나 데이터베이스가 아님을 알았습니다(\(message))"
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
                return "저장소가 읽기 전용입니다: \(korean(cause))"
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
                return "사본 \(target)을(를) 쓸 수 없습니다(\(system(failure))). 저장소는 그대로 두었습니다"
            case let .directoryNotWritable(directory, fileExists):
                return fileExists
                    ? "디렉터리 \(directory)에 쓸 수 없는데, SQLite는 저장소 옆에 -wal, -shm 파일을 둡니다"
                    : "디렉터리 \(directory)에 쓸 수 없어 저장소를 만들 수 없습니다"
            case let .cannotCreateDirectory(directory, failure):
                return "디렉터리 \(directory)을(를) 만들 수 없습니다(\(system(failure)))"
            case let .cannotOpen(failure):
                return "파일을 열 수 없습니다(\(system(failure)))"
            case let .permissionDenied(operation, message):
                return "\(korean(operation)) 중 파일을 열거나 쓸 수 없습니다(\(message))"
            case let .leaseUnavailable(file, failure):
                return "전달 임대 파일 \(file)을(를) 잡을 수 없습니다(\(system(failure)))"
            case let .busy(operation, seconds, message):
                return "\(korean(operation)) 중 다른 프로세스가 저장소를 \(seconds)초 넘게 잠가 두었습니다(\(message))"
            case let .diskFull(operation):
                return "\(korean(operation)) 중 디스크가 가득 찼습니다"
            case let .engineFailure(operation, code, message):
                return "\(korean(operation)) 중 SQLite가 실패했습니다: \(message) (코드 \(code))"
            case let .connectionUnavailable(code):
                return "SQLite가 연결을 만들지 못했습니다(코드 \(code))"
            case let .writeAheadLogRefused(mode):
                return "SQLite가 미리 쓰기 로그(WAL)를 거부했습니다(저널 모드 \(mode))"
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

        private static func korean(_ cause: StoreError.ReadOnlyCause) -> String {
            switch cause {
            case .fileNotWritable: "파일에 쓸 권한이 없습니다"
            case let .directoryNotWritable(directory):
                "디렉터리 \(directory)에 쓸 수 없는데, SQLite는 저장소 옆에 -wal, -shm 파일을 둡니다"
            case .fileSystemReadOnly: "파일 시스템이 읽기 전용으로 마운트되어 있습니다"
            case .requested: "읽기 전용으로 열었습니다"
            }
        }

        private static func korean(_ operation: StoreError.Operation) -> String {
            switch operation {
            case .opening: "파일을 여는"
            case let .preparing(sql): "SQL '\(sql)'을(를) 준비하는"
            case let .running(sql): "SQL '\(sql)'을(를) 실행하는"
            }
        }

        /// The system's reason in Korean for the usual `errno`s; else its own text.
        static func system(_ failure: SystemFailure) -> String {
            switch failure.code {
            case ENOENT: "파일이나 디렉터리가 없습니다"
            case EACCES, EPERM: "권한이 없습니다"
            case EISDIR: "디렉터리입니다"
            case ENOTDIR: "경로 중간이 디렉터리가 아닙니다"
            case EROFS: "읽기 전용 파일 시스템입니다"
            case ENOSPC: "디스크 공간이 없습니다"
            case EEXIST: "이미 있습니다"
            case ENAMETOOLONG: "경로가 너무 깁니다"
            default: "시스템 오류 \(failure.code): \(failure.message)"
            }
        }

        /// The way out when recovery itself cannot read the store.
        static let unrecoverable = T(
            "nothing more can be read from it: restore a backup, or move it aside and start a new store",
            ko: "더 읽을 수 있는 것이 없습니다. 백업을 복원하거나, 파일을 옮기고 새 저장소로 시작하세요")

        /// How to fix it with this CLI; `store` is the store's path.
        static func fix(_ reason: StoreError.Reason, store: String) -> T {
            let another = "choose another path with --store"
            let anotherKorean = "--store로 다른 경로를 고르세요"
            switch reason {
            case .damaged, .sequencesExhausted:
                return T(
                    "save what is readable with 'juice store recover --to NEW.db' and move NEW.db into place, or \(another)",
                    ko: "'juice store recover --to NEW.db'로 읽을 수 있는 것을 살려 NEW.db를 제자리로 옮기거나 \(anotherKorean)")
            case .markedDamaged:
                return T(
                    "save what is readable with 'juice store recover --to NEW.db', then, with no juice running, mv NEW.db \(store) (the mark applies to the damaged file only, so moving the new file into place clears it)",
                    ko:
                        "'juice store recover --to NEW.db'로 읽을 수 있는 것을 살린 뒤, juice가 하나도 실행되지 않을 때 mv NEW.db \(store) 하세요(표시는 손상된 파일에만 해당하므로 새 파일을 제자리로 옮기면 사라집니다)"
                )
            case .migrationFailed:
                return T("restore a backup, or \(another)", ko: "백업을 복원하거나 \(anotherKorean)")
            case .storeReadOnly:
                return T(
                    "only queries work on it; for changes make the file and its directory writable, or \(another)",
                    ko: "조회만 할 수 있습니다. 바꾸려면 파일과 디렉터리에 쓰기 권한을 주거나 \(anotherKorean)")
            case .migrationNeedsWriting:
                return T(
                    "open it once with write access (an order or 'juice stock add') to move it forward, or \(another)",
                    ko: "쓰기 권한으로 한 번 열어(주문이나 'juice stock add') 옮기거나 \(anotherKorean)")
            case let .directoryMissing(directory, _):
                return T(
                    "create it (mkdir -p \(directory)) or correct the path given to --store",
                    ko: "디렉터리를 직접 만들거나 --store에 준 경로를 고치세요")
            case .targetExists:
                return T(
                    "choose a file that does not exist yet; existing files are never overwritten",
                    ko: "아직 없는 파일을 고르세요. 있는 파일은 덮어쓰지 않습니다")
            case .targetUnwritable:
                return T(
                    "choose a path in a directory that exists and that you may write to",
                    ko: "있는 디렉터리, 쓸 수 있는 디렉터리 안의 경로를 고르세요")
            case .notADatabase:
                return T(
                    "if it was a store, save what is readable with 'juice store recover --to NEW.db'; else move it aside or \(another)",
                    ko: "저장소였다면 'juice store recover --to NEW.db'로 읽을 수 있는 것을 살리고, 아니면 파일을 옮기거나 \(anotherKorean)")
            case .cutShort:
                return T(
                    "save what is readable with 'juice store recover --to NEW.db' and move NEW.db into place, or restore a backup",
                    ko: "'juice store recover --to NEW.db'로 읽을 수 있는 것을 살려 NEW.db를 제자리로 옮기거나 백업을 복원하세요")
            case .emptyFile:
                return T(
                    "there is nothing in it to check, back up or recover; any other juice command makes it a new store",
                    ko: "검사하거나 백업하거나 복구할 것이 없습니다. 다른 juice 명령을 쓰면 새 저장소가 됩니다")
            case .nothingReadable:
                return unrecoverable
            case .foreignDatabase:
                return T("choose another path with --store or JUICE_MAKER_STORE", ko: "--store나 JUICE_MAKER_STORE로 다른 경로를 고르세요")
            case .newerSchema:
                return T("upgrade juice, or \(another)", ko: "juice를 업그레이드하거나 \(anotherKorean)")
            case .noSchemaVersion:
                return T("move it aside and restore a backup, or \(another)", ko: "파일을 옮기고 백업을 복원하거나 \(anotherKorean)")
            case .stockRowsMissing, .journalRowNotAnEvent, .deadLetterWithoutEventID:
                return T("restore a backup or \(another)", ko: "백업을 복원하거나 \(anotherKorean)")
            case .notARegularFile:
                return T("choose a file path with --store", ko: "--store로 파일 경로를 고르세요")
            case .fileNotReadableWritable:
                return T("fix its permissions (chmod u+rw) or \(another)", ko: "권한을 고치거나(chmod u+rw) \(anotherKorean)")
            case .fileReadOnly:
                return T("give yourself write permission (chmod u+w) or \(another)", ko: "쓰기 권한을 주거나(chmod u+w) \(anotherKorean)")
            case .directoryNotWritable:
                return T("make it writable (chmod u+w) or \(another)", ko: "디렉터리에 쓰기 권한을 주거나(chmod u+w) \(anotherKorean)")
            case .cannotCreateDirectory:
                return T("create it yourself or \(another)", ko: "직접 만들거나 \(anotherKorean)")
            case .cannotOpen, .permissionDenied:
                return T(
                    "check the permissions of the file and its directory, or \(another)",
                    ko: "파일과 디렉터리의 권한을 확인하거나 \(anotherKorean)")
            case .leaseUnavailable:
                return T("make the store's directory writable", ko: "저장소 디렉터리에 쓰기 권한을 주세요")
            case .busy:
                return T("try again, or stop the process that holds it", ko: "다시 시도하거나 저장소를 잡고 있는 프로세스를 멈추세요")
            case .diskFull:
                return T("free some space and try again", ko: "공간을 비우고 다시 시도하세요")
            case .engineFailure, .connectionUnavailable, .unexpected:
                return T("try again, or \(another)", ko: "다시 시도하거나 \(anotherKorean)")
            case .writeAheadLogRefused:
                return T("put the store on a local file system", ko: "저장소를 로컬 파일 시스템에 두세요")
            case .negativeInitialStock:
                return T("set initialStock to 0 or more in the config", ko: "설정의 initialStock을 0 이상으로 하세요")
            case .negativeQuantity, .sequenceRefused, .idRefused:
                return T("run the command again, and report this bug if it repeats", ko: "명령을 다시 실행하고, 또 일어나면 이 버그를 알려 주세요")
            }
        }
    }
}
