import JuiceMakerCore
import JuiceMakerPluginKit
import Locking
import JuiceTestSupport

extension Rig {
    /// The delivery tests' rig: stock for many orders, the plugin named "hook".
    static func delivery() -> Rig { Rig(stock: Stock(repeating: 1_000), name: "hook") }
}
