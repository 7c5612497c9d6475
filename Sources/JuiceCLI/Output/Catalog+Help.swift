/// Help texts: one line per command, argument and option, and the help page's headings.
extension Catalog {
    enum Help {
        typealias T = LocalizedText

        // Commands
        static let root = T("Make juice from fruit in stock, and hear what happened.", ko: "재고의 과일로 쥬스를 만들고, 일어난 일을 알려 줍니다.")
        static let menu = T("Show each juice, its recipe and how many can be made now.", ko: "쥬스마다 레시피와 지금 만들 수 있는 잔 수를 보여 줍니다.")
        static let order = T("Make a juice (exit 1 when the fruit is not enough).", ko: "쥬스를 만듭니다 (과일이 모자라면 종료 코드 1).")
        static let stock = T("Show the stock, or change it with a subcommand.", ko: "재고를 보여 주거나, 하위 명령으로 바꿉니다.")
        static let stockAdd = T("Add fruit to the stock.", ko: "과일을 재고에 더합니다.")
        static let stockRemove = T("Remove fruit from the stock.", ko: "재고에서 과일을 뺍니다.")
        static let stockSet = T("Set several fruits at once, in one change.", ko: "여러 과일의 재고를 한 번에 정합니다.")
        static let events = T("List the journal's events (CloudEvents JSON Lines with --json).", ko: "기록된 이벤트를 보여 줍니다 (--json이면 CloudEvents JSON Lines).")
        static let subscribers = T("List the configured subscribers, their state and cursor lag.", ko: "설정된 구독자와 상태, 커서 지연을 보여 줍니다.")
        static let configGroup = T("Check or show the config, or print its JSON Schema.", ko: "설정을 검사하거나 보여 주거나, 그 JSON Schema를 출력합니다.")
        static let configCheck = T("Check the config and the subscribers it builds.", ko: "설정과 그것으로 만드는 구독자를 검사합니다.")
        static let configShow = T("Show the effective config and the file it came from (secrets as ***).", ko: "적용된 설정과 그 파일을 보여 줍니다 (비밀 값은 ***).")
        static let configSchema = T("Print the config's JSON Schema (draft 2020-12), made from the keys juice checks.", ko: "설정의 JSON Schema(draft 2020-12)를 출력합니다. juice가 검사하는 키로 만듭니다.")

        // Arguments
        static let juiceArgument = T("The juice: an id (mango-kiwi), English or Korean name.", ko: "쥬스: id (mango-kiwi), 영어 또는 한국어 이름.")
        static let fruitArgument = T("The fruit: an id (kiwi), English or Korean name.", ko: "과일: id (kiwi), 영어 또는 한국어 이름.")
        static let addAmount = T("How many to add (1 or more).", ko: "더할 개수 (1 이상).")
        static let removeAmount = T("How many to remove (1 up to what is in stock).", ko: "뺄 개수 (1 이상, 재고 이하).")
        static let assignment = T("A fruit and its new quantity, e.g. strawberry=20 kiwi=5.", ko: "과일과 새 수량, 예: strawberry=20 kiwi=5.")

        // Options
        static let count = T("How many juices to make (default: 1).", ko: "만들 잔 수 (기본값: 1).")
        static let since = T("Only events after this sequence number.", ko: "이 순번 다음의 이벤트만.")
        static let type = T("Only events of this type: stockChanged, juiceMade, orderFailed (repeatable).", ko: "이 종류의 이벤트만: stockChanged, juiceMade, orderFailed (여러 번 가능).")
        static let limit = T("At most this many events (the newest, or the first after --since).", ko: "최대 이벤트 수 (최신 것, 또는 --since 다음부터).")
        static let config = T("Read the config from this file.", ko: "이 파일에서 설정을 읽습니다.")
        static let store = T("Use the store at this path (also JUICE_MAKER_STORE).", ko: "이 경로의 저장소를 씁니다 (JUICE_MAKER_STORE도 가능).")
        static let inMemory = T("Use a store that lives only for this run.", ko: "이번 실행 동안만 있는 저장소를 씁니다.")
        static let lang = T("The language of messages (default: LC_ALL, then LC_MESSAGES, then LANG).", ko: "메시지 언어 (기본값: LC_ALL, LC_MESSAGES, LANG 순).")
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

        static func seeHelp(_ command: String) -> T {
            T("See '\(command) --help' for more information.", ko: "자세한 내용은 '\(command) --help'를 보세요.")
        }

        static func seeSubcommandHelp(_ command: String) -> T {
            T("See '\(command) <subcommand> --help' for a subcommand's help.", ko: "하위 명령의 도움말은 '\(command) <하위 명령> --help'를 보세요.")
        }
    }
}
