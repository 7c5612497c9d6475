/// Why a fruit's stock changed.
public enum StockChangeReason: String, Sendable, CaseIterable, Hashable {
    /// A juice was made from it.
    case order
    /// Fruit was added (`stock add`).
    case restock
    /// Fruit was removed or set, directly or through a draft edit.
    case edit
}

/// A fact the juice maker reports. Every committed change produces one or more.
public enum JuiceMakerEvent: Sendable, Hashable {
    /// One fruit's quantity changed; one event per fruit that changed.
    case stockChanged(fruit: Fruit, from: Int, to: Int, reason: StockChangeReason)
    /// `count` juices were made, consuming `consumed`.
    case juiceMade(juice: Juice, count: Int, consumed: FruitAmounts)
    /// An order for `count` juices could not be made; `shortages` says how much of
    /// each fruit was missing. Nothing was consumed.
    case orderFailed(juice: Juice, count: Int, shortages: FruitAmounts)

    public var kind: EventKind {
        switch self {
        case .stockChanged: .stockChanged
        case .juiceMade: .juiceMade
        case .orderFailed: .orderFailed
        }
    }
}

/// The three kinds of event, by the names config files and `--type` use.
public enum EventKind: String, Sendable, CaseIterable, Hashable {
    case stockChanged
    case juiceMade
    case orderFailed

    /// A distinct bit per kind, for cheap kind filters.
    @inlinable
    package var bit: Int {
        switch self {
        case .stockChanged: 1
        case .juiceMade: 2
        case .orderFailed: 4
        }
    }

    /// The CloudEvents `type` attribute.
    public var cloudEventType: String {
        switch self {
        case .stockChanged: "juicemaker.stock.changed"
        case .juiceMade: "juicemaker.juice.made"
        case .orderFailed: "juicemaker.order.failed"
        }
    }

    /// Accepts the camel-case name (`juiceMade`) or the CloudEvents type.
    public init?(name: String) {
        guard let kind = EventKind.allCases.first(where: { $0.rawValue == name || $0.cloudEventType == name }) else {
            return nil
        }
        self = kind
    }
}
