/// The characters that can steer a terminal or end a line when written raw: C0 and C1
/// controls, DEL, the line and paragraph separators (U+2028, U+2029) and the
/// bidirectional controls. Text from outside (arguments, config, other machines) is
/// shown with these escaped (`TerminalText` in the plugin kit) and JSON is written with
/// these as `\uXXXX` (`CloudEventFormat.appendQuoted`), so neither carries one raw.
public enum TerminalControl {
    /// Whether `scalar` is one of them.
    public static func steers(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0x061C: true
        default: false
        }
    }
}
