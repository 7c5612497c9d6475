import JuiceMakerCore

/// What the two screens (`juice shell`, `juice stock edit`) and `juice watch` say:
/// their prompts, questions and refusals (their help is in their declarations).
extension Catalog {
    enum Screens {
        // Shared
        static let yesNo = T("(y/N)", ko: "(y/N)")

        /// `Stock: 🍓 strawberry 10  🍌 banana 10 …` on one line.
        static func stockLine(_ stock: Stock) -> T {
            T(
                "Stock: " + Fruit.allCases.map { "\($0.emoji) \($0.englishName) \(stock[$0])" }.joined(separator: "  "),
                ko: "재고: " + Fruit.allCases.map { "\($0.emoji) \($0.koreanName) \(stock[$0])" }.joined(separator: "  "))
        }

        // Order screen
        static let orderPrompt = T("order> ", ko: "주문> ")
        static let orderHint = T(
            "Order by number, id or name (7, mango-kiwi). Also: stock (edit the stock), help, quit or q.",
            ko: "번호, id 또는 이름으로 주문하세요 (7, 망고키위쥬스). 그 밖에: stock(재고 수정), help(도움말), quit 또는 q(끝).")
        /// Asked when no notifier showed the failure alert (with `--quiet`).
        static let editStockQuestion = T("Not enough fruit. Edit the stock? (y/N)", ko: "재료가 모자라요. 재고를 수정할까요? (y/N)")

        static func noSuchNumber(_ number: String) -> T {
            let number = echo(number)
            return T(
                "there is no juice number \(number); choose 1 to \(Juice.allCases.count), or type a name.",
                ko: "\(number)번 쥬스는 없습니다. 1부터 \(Juice.allCases.count)까지 고르거나 이름을 쓰세요.")
        }

        static func unknownJuice(_ error: UnknownNameError) -> T {
            let input = echo(error.input)
            if let suggestion = error.suggestion {
                return T(
                    "unknown juice '\(input)'. Did you mean '\(suggestion)'?",
                    ko: "'\(input)'\(called(input)) 쥬스는 없습니다. '\(suggestion)'\(object(suggestion)) 말씀하신 건가요?")
            }
            return T(
                "unknown juice '\(input)'; type a number 1 to \(Juice.allCases.count), a juice name, or help.",
                ko: "'\(input)'\(called(input)) 쥬스는 없습니다. 1부터 \(Juice.allCases.count)까지의 번호, 쥬스 이름 또는 help를 쓰세요.")
        }

        // Stock screen
        static let stockPrompt = T("stock> ", ko: "재고> ")
        static let stockTitle = T(
            "Stock screen: changes are a draft until you apply them.",
            ko: "재고 수정 화면: 적용하기 전까지는 초안입니다.")
        static let stockHint = T(
            "+ kiwi (add 1), - kiwi 3 (remove 3), kiwi 20 (set), apply, cancel, help.",
            ko: "+ 키위 (1개 더하기), - 키위 3 (3개 빼기), 키위 20 (정하기), apply(적용), cancel(취소), help(도움말).")
        static let applyQuestion = T("Apply these changes? (y/N)", ko: "이대로 적용할까요? (y/N)")
        static let applied = T("Stock saved.", ko: "재고를 저장했습니다.")
        static let notApplied = T(
            "Not applied; the draft is kept (apply again, or cancel).",
            ko: "적용하지 않았습니다. 초안은 그대로입니다 (다시 apply 또는 cancel).")
        static let nothingToApply = T(
            "Nothing to apply: the draft changes nothing. Edit a fruit, or cancel.",
            ko: "적용할 것이 없습니다. 초안이 바꾼 것이 없습니다. 과일을 고치거나 cancel하세요.")
        static let cancelled = T("Draft discarded; the stock is unchanged.", ko: "초안을 버렸습니다. 재고는 그대로입니다.")

        /// After `draftConflict`: the draft now starts from the new stock, with the same targets.
        static func conflict(_ fruits: [Fruit]) -> T {
            T(
                "another juice process changed \(fruits.map(\.englishName).joined(separator: ", ")) meanwhile; nothing was saved. "
                    + "The draft now starts from the new stock (shown below): apply again to save it, or cancel.",
                ko: "그사이 다른 juice 프로세스가 \(fruits.map(\.koreanName).joined(separator: ", ")) 재고를 바꿨습니다. 저장하지 않았습니다. "
                    + "초안을 새 재고에서 다시 시작합니다 (아래): 다시 apply하면 저장하고, cancel하면 버립니다.")
        }

        static func notAStockCommand(_ line: String) -> T {
            let line = echo(line)
            return T(
                "'\(line)' is not a stock command; e.g. + kiwi, - kiwi 3, kiwi 20, apply, cancel, help.",
                ko: "'\(line)'은(는) 재고 명령이 아닙니다. 예: + 키위, - 키위 3, 키위 20, apply, cancel, help.")
        }

        static func missingQuantity(_ fruit: Fruit) -> T {
            T(
                "give \(fruit.englishName) a quantity: '\(fruit.id) 20' sets it, '+ \(fruit.id)' or '- \(fruit.id) 3' changes it.",
                ko: "\(fruit.koreanName)의 수량을 쓰세요: '\(fruit.koreanName) 20'은 정하기, '+ \(fruit.koreanName)'나 '- \(fruit.koreanName) 3'은 바꾸기.")
        }

        static func invalidAmount(_ fruit: Fruit, _ amount: Int) -> T {
            T(
                "\(amount) is not a valid amount of \(fruit.englishName): add or remove 1 or more, set 0 or more.",
                ko: "\(fruit.koreanName) \(amount)개는 올바른 수량이 아닙니다. 더하거나 뺄 때는 1 이상, 정할 때는 0 이상을 쓰세요.")
        }

        static func notAnAmount(_ word: String) -> T {
            let word = echo(word)
            return T("'\(word)' is not a whole number; write digits, e.g. 3.", ko: "'\(word)'은(는) 정수가 아닙니다. 예: 3.")
        }

        /// An amount written as digits but above the stock maximum (also beyond 64 bits).
        static func amountAboveMaximum(_ word: String) -> T {
            let word = echo(word)
            let maximum = Catalog.number(FruitAmounts.maximumQuantity)
            return T(
                "'\(word)' is above the maximum of \(maximum) the machine holds; use a smaller amount.",
                ko: "'\(word)'은(는) 기계가 담는 최대 \(maximum)개보다 많습니다. 더 작은 수를 쓰세요.")
        }

        /// A negative amount written as digits beyond 64 bits.
        static func amountBelowZero(_ word: String) -> T {
            let word = echo(word)
            return T(
                "'\(word)' is below 0; add or remove 1 or more, set 0 or more.",
                ko: "'\(word)'은(는) 0보다 작습니다. 더하거나 뺄 때는 1 이상, 정할 때는 0 이상을 쓰세요.")
        }

        /// Removing more than the draft holds (the draft, not the stored stock).
        static func notEnoughInDraft(_ fruit: Fruit, available: Int, requested: Int) -> T {
            T(
                "cannot remove \(requested) \(fruit.englishName): only \(available) left in the draft; remove at most \(available).",
                ko: "\(fruit.koreanName) \(requested)개를 뺄 수 없습니다. 초안에 \(available)개만 남아 있으니 \(available)개 이하로 빼세요.")
        }

        static func unknownFruit(_ error: UnknownNameError) -> T {
            let input = echo(error.input)
            let names = Fruit.allCases.map(\.id).joined(separator: ", ")
            let korean = Fruit.allCases.map(\.koreanName).joined(separator: ", ")
            if let suggestion = error.suggestion {
                return T(
                    "unknown fruit '\(input)'. Did you mean '\(suggestion)'?",
                    ko: "'\(input)'\(called(input)) 과일은 없습니다. '\(suggestion)'\(object(suggestion)) 말씀하신 건가요?")
            }
            return T(
                "unknown fruit '\(input)'; the fruits are \(names).",
                ko: "'\(input)'\(called(input)) 과일은 없습니다. 과일: \(korean).")
        }

        // Watch
        static func watching(_ store: String) -> T {
            let store = echo(path: store)
            return T("Watching the events of \(store). Ctrl-C stops.", ko: "\(store)의 이벤트를 보고 있습니다. Ctrl-C로 멈춥니다.")
        }
    }
}
