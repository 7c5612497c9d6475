import JuiceTestSupport
import Testing
@testable import JuiceMakerCore

@Suite("Fruits and juices", .tags(.unit))
struct MenuTests {
    @Test("the five seed fruits, in the seed order, with ids, Korean names and emoji")
    func fruits() {
        #expect(Fruit.allCases.map(\.id) == ["strawberry", "banana", "pineapple", "kiwi", "mango"])
        #expect(Fruit.allCases.map(\.koreanName) == ["딸기", "바나나", "파인애플", "키위", "망고"])
        #expect(Fruit.allCases.map(\.emoji) == ["🍓", "🍌", "🍍", "🥝", "🥭"])
        #expect(Fruit.allCases.map(\.index) == Array(0..<5))
        #expect(Fruit.allCases.sorted() == Fruit.allCases)
        #expect(Fruit.kiwi.name(in: .korean) == "키위")
        #expect(Fruit.kiwi.name(in: .english) == "kiwi")
    }

    @Test("the seven seed juices with their ids, Korean names and recipes")
    func juices() {
        let table: [(Juice, String, String, FruitAmounts)] = [
            (.strawberry, "strawberry", "딸기쥬스", FruitAmounts(strawberry: 16)),
            (.banana, "banana", "바나나쥬스", FruitAmounts(banana: 2)),
            (.kiwi, "kiwi", "키위쥬스", FruitAmounts(kiwi: 3)),
            (.pineapple, "pineapple", "파인애플쥬스", FruitAmounts(pineapple: 2)),
            (.strawberryBanana, "strawberry-banana", "딸바쥬스", FruitAmounts(strawberry: 10, banana: 1)),
            (.mango, "mango", "망고쥬스", FruitAmounts(mango: 3)),
            (.mangoKiwi, "mango-kiwi", "망고키위쥬스", FruitAmounts(kiwi: 1, mango: 2)),
        ]
        #expect(Juice.allCases == table.map(\.0))
        for (juice, id, korean, recipe) in table {
            #expect(juice.id == id)
            #expect(juice.koreanName == korean)
            #expect(juice.name(in: .korean) == korean)
            #expect(juice.recipe == recipe, "\(id)")
        }
    }

    @Test("a new store holds 10 of each fruit; strawberry juice is the first failure a user meets")
    func initialStock() throws {
        let stock = try InMemoryStore().stock()
        #expect(stock == Stock(repeating: 10))
        #expect(Juice.strawberry.servings(from: stock) == 0)
        #expect(Juice.mangoKiwi.servings(from: stock) == 5)
        #expect(Juice.strawberryBanana.servings(from: stock) == 1)
    }

    @Test(
        "Juice.parse accepts ids, English and Korean names, any case",
        arguments: [
            ("mango-kiwi", Juice.mangoKiwi), ("MANGO-KIWI", .mangoKiwi), ("Mango Kiwi Juice", .mangoKiwi),
            ("mango_kiwi", .mangoKiwi), ("  mango-kiwi  ", .mangoKiwi),
            ("망고키위쥬스", .mangoKiwi), ("망고키위주스", .mangoKiwi), ("망고키위", .mangoKiwi),
            ("딸바쥬스", .strawberryBanana), ("딸기바나나주스", .strawberryBanana),
            ("Strawberry-Banana", .strawberryBanana), ("strawberry-banana juice", .strawberryBanana),
            ("딸기쥬스", .strawberry), ("Strawberry", .strawberry), ("바나나쥬스", .banana),
            ("키위주스", .kiwi), ("파인애플쥬스", .pineapple), ("Pineapple Juice", .pineapple), ("망고쥬스", .mango),
        ])
    func parseJuice(text: String, juice: Juice) throws {
        #expect(try Juice.parse(text) == juice)
    }

    @Test("every juice parses from its own id, English and Korean name")
    func parseEveryJuice() throws {
        for juice in Juice.allCases {
            #expect(try Juice.parse(juice.id) == juice)
            #expect(try Juice.parse(juice.englishName.uppercased()) == juice)
            #expect(try Juice.parse(juice.koreanName) == juice)
        }
    }

    @Test(
        "a typo in a juice gets a suggestion; nonsense gets none",
        arguments: [
            ("mango-kiwl", "mango-kiwi" as String?), ("mango kiwii", "mango-kiwi"), ("banan", "banana"),
            ("strawbery-banana", "strawberry-banana"), ("xylophone", nil), ("qq", nil), ("", nil),
        ])
    func juiceTypos(text: String, suggestion: String?) {
        #expect(throws: UnknownNameError(kind: .juice, input: text, suggestion: suggestion)) {
            try Juice.parse(text)
        }
    }

    /// A juice of two fruits typed in Hangul with its fruits the other way round is one
    /// slip, not four edits: it suggests that juice, in Korean, never a juice of one
    /// of its fruits (`키위망고쥬스` used to suggest `kiwi`, whose `키위쥬스` is two edits away).
    @Test func koreanFruitsInTheOtherOrderSuggestTheJuice() {
        let stems = Fruit.allCases.map(\.koreanName)
        for juice in Juice.allCases {
            let stem = String(juice.koreanName.dropLast(2))
            guard let first = stems.first(where: { stem.hasPrefix($0) && stems.contains(String(stem.dropFirst($0.count))) }) else { continue }
            let swapped = String(stem.dropFirst(first.count)) + first
            for typed in [swapped + "쥬스", swapped + "주스", swapped] {
                do {
                    _ = try Juice.parse(typed)
                    Issue.record("\(typed) parsed")
                } catch {
                    // One of the juice's own Korean spellings, which parses back to it.
                    let suggestion = error.suggestion ?? ""
                    #expect(
                        suggestion.unicodeScalars.allSatisfy { $0.value >= 0xAC00 } && (try? Juice.parse(suggestion)) == juice,
                        "\(typed): \(suggestion)")
                }
            }
        }
        #expect(throws: UnknownNameError(kind: .juice, input: "키위망고쥬스", suggestion: "망고키위쥬스")) { try Juice.parse("키위망고쥬스") }
        #expect(throws: UnknownNameError(kind: .fruit, input: "딸귀", suggestion: "딸기")) { try Fruit.parse("딸귀") }
    }

    @Test(
        "Fruit.parse accepts ids, English and Korean names, any case",
        arguments: [
            ("kiwi", Fruit.kiwi), ("Kiwi", .kiwi), ("KIWI", .kiwi), ("키위", .kiwi), ("딸기", .strawberry),
            ("Pineapple", .pineapple), ("파인애플", .pineapple), ("망고", .mango), ("바나나", .banana),
        ])
    func parseFruit(text: String, fruit: Fruit) throws {
        #expect(try Fruit.parse(text) == fruit)
    }

    @Test(
        "a typo in a fruit gets a suggestion; nonsense gets none",
        arguments: [
            ("kiwl", "kiwi" as String?), ("bananna", "banana"), ("strawbery", "strawberry"), ("mangp", "mango"),
            ("zzzz", nil), ("tomato", nil),
        ])
    func fruitTypos(text: String, suggestion: String?) {
        #expect(throws: UnknownNameError(kind: .fruit, input: text, suggestion: suggestion)) {
            try Fruit.parse(text)
        }
    }
}
