extension PageFile {
    /// The tables among `roots` (name to root page) whose b-tree holds pages of another
    /// tree: a page of another kind than `withoutRowid` says the table's pages are, a
    /// record with another number of values than `columns` (where given), or a page
    /// with cells that is byte for byte another page of the file. In a sound file none
    /// of these happens; a page copied over the table's does all of them, or at least
    /// the last, and SQLite reads its rows as the table's without a word (their first
    /// values fit). Only trees of at most `largest` pages are judged, in one scan.
    func treesHoldingForeignPages(
        _ roots: [String: Int], withoutRowid: Set<String>, columns: [String: Int], largest: Int = 16
    ) -> Set<String> {
        var foreign: Set<String> = []
        var judged: [Int: String] = [:]
        for (table, root) in roots {
            guard let tree = pagesOfTree(at: root, largest: largest) else { continue }
            let kinds: Set<BTreePage.Kind> = withoutRowid.contains(table) ? [.indexLeaf, .indexInterior] : [.tableLeaf, .tableInterior]
            var claims = OverflowClaims()
            for page in tree {
                let wrongShape =
                    !kinds.contains(page.kind)
                    || columns[table].map { count in
                        page.isLeaf
                            && page.cells.contains { start in
                                page.cell(at: start, in: self, claims: &claims)?.payload.flatMap(PageRecord.values)?.count != count
                            }
                    } ?? false
                if wrongShape { foreign.insert(table) }
                if !page.cells.isEmpty { judged[page.number] = table }
            }
        }
        // One scan: a judged page whose bytes another page repeats.
        let judgedBytes = judged.keys.compactMap { number in page(number).map { (number, $0) } }
        guard !judgedBytes.isEmpty, pageCount >= 2 else { return foreign }
        for number in 1...pageCount {
            guard let bytes = page(number) else { continue }
            for (judgedNumber, judgedPage) in judgedBytes where judgedNumber != number && judgedPage == bytes {
                if let table = judged[judgedNumber] { foreign.insert(table) }
            }
        }
        return foreign
    }

    /// The pages of the b-tree at `root`, or nil when it has more than `largest` or a
    /// page that is not a b-tree page.
    private func pagesOfTree(at root: Int, largest: Int) -> [BTreePage]? {
        var pages: [BTreePage] = []
        var visited: Set<Int> = []
        var pending = [root]
        while let number = pending.popLast() {
            guard visited.insert(number).inserted else { continue }
            guard pages.count < largest, let page = bTreePage(number) else { return nil }
            pages.append(page)
            for start in page.cells { if let child = page.leftChild(at: start) { pending.append(child) } }
            if let child = page.rightChild { pending.append(child) }
        }
        return pages
    }
}
