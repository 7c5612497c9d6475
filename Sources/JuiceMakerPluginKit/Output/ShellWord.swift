import JuiceMakerCore
import JuicePrimitives

/// A word as a POSIX shell (bash, zsh, dash) reads it back as itself, for the commands
/// messages suggest (`juice subscribers retry 'my hook' --dead-letters`): left as it is
/// when no character in it is special to a shell, else in single quotes (a `'` inside
/// written `'\''`). A message still passes through `TerminalText` afterwards, which
/// escapes control characters.
package enum ShellWord {
    /// Characters that leave a word as it is: letters and digits (any script), and `_ - . / : @ % + = ,`.
    private static func isPlain(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII {
            return ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
                || "_-./:@%+=,".unicodeScalars.contains(scalar)
        }
        return scalar.properties.isAlphabetic || scalar.properties.numericType != nil
    }

    /// `word`, quoted for a shell when it needs it.
    package static func quoted(_ word: String) -> String {
        if !word.isEmpty, word.unicodeScalars.allSatisfy(isPlain) { return word }
        return "'" + word.replacingText("'", with: #"'\''"#) + "'"
    }
}
