extension String {
    /// The text's UTF-8 bytes: a reply as written.
    var bytes: [UInt8] { Array(utf8) }
}
