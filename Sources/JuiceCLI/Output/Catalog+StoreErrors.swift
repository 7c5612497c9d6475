import JuiceMakerCore

/// Store failures: the library's reason in both languages, then the CLI's fix.
extension Catalog {
    enum StoreErrors {
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
            T(reason.description, ko: reason.korean)
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
            case .stockRowsMissing, .journalRowNotAnEvent, .deadLetterWithoutEventID, .impossibleValue:
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
            case .sharedLoggingRefused:
                return T("put the store on a local file system", ko: "저장소를 로컬 파일 시스템에 두세요")
            case .negativeInitialStock:
                return T("set initialStock to 0 or more in the config", ko: "설정의 initialStock을 0 이상으로 하세요")
            case .negativeQuantity, .sequenceRefused, .idRefused:
                return T("run the command again, and report this bug if it repeats", ko: "명령을 다시 실행하고, 또 일어나면 이 버그를 알려 주세요")
            }
        }
    }
}
