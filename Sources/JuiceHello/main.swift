// The floor for `juice --version` (`juice-bench cli`): a Swift program that loads what
// every Swift program on FoundationEssentials loads and prints one line, built the
// same way as `juice` (release).
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

print("juice-hello \(Date.now.timeIntervalSince1970 > 0 ? "0.1.0" : "?")")
