import Testing
@testable import JuiceMakerCore
