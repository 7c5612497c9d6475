import Testing
@testable import EventBus
@Test func smoke() { let b = EventBus<Int>(); b.publish(1) }
