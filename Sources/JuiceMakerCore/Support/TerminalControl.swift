import JuiceJSON

/// The characters that can steer a terminal or end a line when written raw: C0 and C1
/// controls, DEL, the line and paragraph separators (U+2028, U+2029) and the
/// bidirectional controls. Text from outside (arguments, config, other machines) is
/// shown with these escaped (`TerminalText` in the plugin kit) and JSON is written with
/// these as `\uXXXX` (`JSONTextWriter.escapes`, the same set), so neither carries one raw.
package enum TerminalControl {
    /// Whether `scalar` is one of them.
    package static func steers(_ scalar: Unicode.Scalar) -> Bool {
        JSONTextWriter.escapes(scalar)
    }
}
