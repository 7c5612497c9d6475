extension JSONParser {
    /// What a reader of JSON decides for itself: repeated keys, how deep, and how
    /// numbers come back. The defaults read as `JSONDecoder` does.
    public struct Options: Sendable, Equatable {
        /// What an object that names one key twice is.
        public enum DuplicateKeys: Sendable, Equatable {
            /// Every member kept, in order (`JSONValue.member(_:)` answers the first).
            case keep
            /// An error (`Problem.duplicateKey`) at the second. Keys are compared code
            /// point by code point (RFC 8259 section 8.3), so `"\u00e9"` and
            /// `"e\u0301"` are two keys.
            case refuse
        }

        /// How a number comes back.
        public enum Numbers: Sendable, Equatable {
            /// `.integer` for an integer literal `Int` holds; any other as `.number`, its text.
            case exactIntegers
            /// Every number as `.number`, its text; one beyond `Double`'s range (`1e400`)
            /// is an error (`Problem.numberOutOfRange`) at its first byte.
            case doubles
        }

        public var duplicateKeys: DuplicateKeys
        /// At most this many objects and arrays nested (the document's own counts);
        /// one more is an error (`Problem.nestedTooDeep`) at its bracket. The parser
        /// does not recurse, but a `JSONValue` is compared and freed recursively, so
        /// this bounds the stack a value read can take.
        public var maximumDepth: Int
        public var numbers: Numbers

        public init(duplicateKeys: DuplicateKeys = .keep, maximumDepth: Int = 512, numbers: Numbers = .exactIntegers) {
            self.duplicateKeys = duplicateKeys
            self.maximumDepth = maximumDepth
            self.numbers = numbers
        }
    }
}
