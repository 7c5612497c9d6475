import JuiceMakerCore

/// The stock screen (the seed's 재고 수정 화면): every fruit with its count, edited
/// as a draft (`10 → 14`) that is stored only by `apply`, after a confirmation, as one
/// change (one transaction, one `stockChanged` per changed fruit, one change id);
/// `cancel` or the end of input throws it away. A refused line leaves the draft as
/// it was. Used by `juice stock edit` and by `stock` in the order screen.
struct StockScreen {
    /// How the screen was left.
    enum Outcome: Sendable, Equatable {
        case applied, cancelled, interrupted
    }

    let io: ScreenIO

    /// Runs the screen until the draft is applied or thrown away. Only store
    /// failures throw (exit 74); the draft is then lost and nothing was stored.
    func run() throws(CLIError) -> Outcome {
        var draft = StockDraft(base: try io.stock())
        // From a pipe, results only: the title, the draft and the hint on a terminal.
        if io.isInteractive {
            io.show(Catalog.Screens.stockTitle)
            showDraft(draft)
            io.show(Catalog.Screens.stockHint)
        }
        while true {
            let line: StockLine
            switch io.prompt(Catalog.Screens.stockPrompt, history: .stock, parse: StockLine.parse) {
            case .interrupted: return .interrupted
            case .end:
                io.show(Catalog.Screens.cancelled)
                return .cancelled
            case .line(let read): line = read
            }
            switch line {
            case .empty: continue
            case .help: io.show(Catalog.Screens.stockHint)
            case .show: showDraft(draft)
            case .cancel:
                io.show(Catalog.Screens.cancelled)
                return .cancelled
            case .apply:
                if let outcome = try apply(&draft) { return outcome }
            case .add, .remove, .set:
                var edited = draft
                do {
                    guard let fruit = try line.edit(&edited) else { continue }
                    draft = edited
                    io.show(row(fruit, draft))
                } catch .invalidAmount(let fruit, let amount) {
                    io.refuse(Catalog.Screens.invalidAmount(fruit, amount))
                } catch .notEnoughToRemove(let fruit, let available, let requested) {
                    io.refuse(Catalog.Screens.notEnoughInDraft(fruit, available: available, requested: requested))
                } catch {
                    io.refuse(ValueParsing.cliError(error, path: io.session.context.invocation.path).message)
                }
            }
        }
    }

    /// Confirms and stores the draft. Returns how the screen ends, or `nil` to keep
    /// editing (answered no, nothing to apply, or another process got there first).
    private func apply(_ draft: inout StockDraft) throws(CLIError) -> Outcome? {
        guard draft.hasChanges else {
            io.show(Catalog.Screens.nothingToApply)
            return nil
        }
        if io.isInteractive { io.show(draft.changes.map { row($0.fruit, draft) }.joined(separator: "\n")) }
        switch io.ask(Catalog.Screens.applyQuestion(io.language)) {
        case .interrupted: return .interrupted
        case .no, .end:
            io.show(Catalog.Screens.notApplied)
            return nil
        case .yes: break
        }
        let maker = io.maker
        let pending = draft
        do {
            _ = try io.perform { () throws(JuiceMakerError) in try maker.apply(pending) }
            io.show(Catalog.Screens.applied)
            return .applied
        } catch .draftConflict(let fruits) {
            draft = try rebased(draft)
            io.refuse(Catalog.Screens.conflict(fruits))
            showDraft(draft)
            return nil
        } catch .store(let failure) where failure.kind == .busy {
            // Another process kept the store locked: nothing stored, the draft kept.
            io.refuse(Catalog.Errors.store(failure))
            return nil
        } catch {
            throw ValueParsing.cliError(error, path: io.session.context.invocation.path)
        }
    }

    /// The same targets over the stock now, so applying again is a choice made
    /// against what the person sees, not against a stale base.
    private func rebased(_ draft: StockDraft) throws(CLIError) -> StockDraft {
        var fresh = StockDraft(base: try io.stock())
        for change in draft.changes {
            try? fresh.set(change.fruit, to: change.to)
        }
        return fresh
    }

    private func showDraft(_ draft: StockDraft) {
        let rows = Fruit.allCases.map { fruit in
            ["\(fruit.emoji) \(fruit.name(in: io.language))", quantity(fruit, draft)]
        }
        io.console.standardOutput.write(TableLayout.render(rows))
    }

    /// `🥝 kiwi 10 → 14`, or `🥝 kiwi 10` when the draft leaves it as it was.
    private func row(_ fruit: Fruit, _ draft: StockDraft) -> String {
        "\(fruit.emoji) \(fruit.name(in: io.language)) \(quantity(fruit, draft))"
    }

    private func quantity(_ fruit: Fruit, _ draft: StockDraft) -> String {
        draft.base[fruit] == draft.quantities[fruit] ? "\(draft.base[fruit])" : "\(draft.base[fruit]) → \(draft.quantities[fruit])"
    }
}
