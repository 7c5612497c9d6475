/// Help texts shared by every command: the global options, `--help`, `--version`, and
/// the help page's headings. Each command's own texts are in its declaration.
extension Catalog {
    enum Help {
        // Global options
        static let config = T("Read the config from this file.", ko: "이 파일에서 설정을 읽습니다.")
        static let store = T("Use the store at this path (also JUICE_MAKER_STORE).", ko: "이 경로의 저장소를 씁니다 (JUICE_MAKER_STORE도 가능).")
        static let inMemory = T("Use a store that lives only for this run.", ko: "이번 실행 동안만 있는 저장소를 씁니다.")
        static let lang = T(
            "The language of messages (default: LC_ALL, then LC_MESSAGES, then LANG).", ko: "메시지 언어 (기본값: LC_ALL, LC_MESSAGES, LANG 순).")
        static let json = T("Print machine-readable JSON on stdout (notices go to stderr).", ko: "표준 출력에 기계가 읽는 JSON을 씁니다 (알림은 표준 오류로).")
        static let quiet = T("Print no confirmations; errors and query results only.", ko: "확인 메시지 없이 오류와 조회 결과만 씁니다.")
        static let noColor = T("Never use colour (also NO_COLOR).", ko: "색을 쓰지 않습니다 (NO_COLOR도 가능).")
        static let help = T("Show help information.", ko: "도움말을 보여 줍니다.")
        static let version = T("Show the version.", ko: "버전을 보여 줍니다.")

        // Headings
        static let overviewHeading = T("OVERVIEW", ko: "개요")
        static let usageHeading = T("USAGE", ko: "사용법")
        static let argumentsHeading = T("ARGUMENTS", ko: "인자")
        static let optionsHeading = T("OPTIONS", ko: "옵션")
        static let globalOptionsHeading = T("GLOBAL OPTIONS", ko: "공통 옵션")
        static let subcommandsHeading = T("SUBCOMMANDS", ko: "하위 명령")
        static let globalOptionsPlaceholder = T("global options", ko: "공통 옵션")
        static let usageLabel = T("Usage:", ko: "사용법:")
        static let topicsHeading = T("TOPICS", ko: "주제")
        static let seeTopicHelp = T(
            "See 'juice help <topic>' for a topic (in English), 'juice help --man' for the manual page.",
            ko: "주제는 'juice help <주제>'(영어), 매뉴얼 페이지는 'juice help --man'으로 보세요.")

        static func seeHelp(_ command: String) -> T {
            T("See '\(command) --help' for more information.", ko: "자세한 내용은 '\(command) --help'를 보세요.")
        }

        static func seeSubcommandHelp(_ command: String) -> T {
            T("See '\(command) <subcommand> --help' for a subcommand's help.", ko: "하위 명령의 도움말은 '\(command) <하위 명령> --help'를 보세요.")
        }
    }
}
