/// The completion scripts `juice completions bash|zsh|fish` print. Each is a thin
/// shim: it passes the words typed so far to `juice completions complete --` and shows
/// what that prints, so the answers come from the command declarations (`Completer`) and
/// the scripts never need regenerating when a command or option changes.
///
/// The reply is records, each ended by NUL (a name may hold a newline, never a NUL):
/// the first says how to show it: `words`, `words-nospace` (the word goes on, as
/// `kiwi=`), or `files` (the shell completes file names itself); the candidates follow.
///
/// Offers are data, never code: each script reads the records without word splitting or
/// globbing and inserts each offer quoted for its shell (bash: `printf %q` when the offer
/// holds a character the shell treats specially; zsh: `compadd`'s own quoting; fish: its
/// own escaping), so any name arrives at `juice` as itself; fish alone cannot offer a
/// name with a tab (it starts an offer's description there), and leaves it out. bash reads the words typed
/// so far with backslash escapes removed (as its inserted offers are written), zsh with
/// `(Q)`, fish with `commandline -o`: none of them is evaluated.
enum CompletionScripts {
    static let bash = #"""
        # bash completion for juice (juice completions bash). Install:
        #   juice completions bash > ~/.local/share/bash-completion/completions/juice
        _juice() {
            local line="${COMP_LINE:0:COMP_POINT}"
            local -a words reply
            read -a words <<< "$line"
            [[ "$line" == *[[:space:]] ]] && words+=("")
            local cur="${COMP_WORDS[COMP_CWORD]}" word
            mapfile -t -d '' reply < <("${words[0]}" completions complete -- "${words[@]:1}" 2>/dev/null)
            COMPREPLY=()
            case "${reply[0]}" in
                files) compopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -f -- "$cur") ;;
                words|words-nospace)
                    [[ "${reply[0]}" == words-nospace ]] && compopt -o nospace 2>/dev/null
                    for word in "${reply[@]:1}"; do
                        case "$word" in
                            *[[:space:][:cntrl:]\'\"\\\$\`\!\&\;\|\<\>\(\)\{\}\[\]\*\?#\~\^]*) printf -v word '%q' "$word" ;;
                        esac
                        COMPREPLY+=("$word")
                    done ;;
            esac
        }
        complete -F _juice juice

        """#

    static let zsh = """
        #compdef juice
        # zsh completion for juice (juice completions zsh). Install: save as _juice in a
        # directory on $fpath, e.g. juice completions zsh > ~/.zsh/completions/_juice
        _juice() {
            local -a reply
            reply=(${(0)"$(${(Q)words[1]} completions complete -- "${(@Q)words[2,CURRENT]}" 2>/dev/null)"})
            case "$reply[1]" in
                files) _files ;;
                words) compadd -- "${(@)reply[2,-1]}" ;;
                words-nospace) compadd -S '' -- "${(@)reply[2,-1]}" ;;
            esac
        }
        if [ "$funcstack[1]" = "_juice" ]; then
            _juice "$@"
        else
            compdef _juice juice
        fi

        """

    static let fish = """
        # fish completion for juice (juice completions fish). Install:
        #   juice completions fish > ~/.config/fish/completions/juice.fish
        function __juice_complete
            set -l tokens (commandline -opc)
            set -l current (commandline -ct | string unescape)
            set -l reply ($tokens[1] completions complete -- $tokens[2..-1] "$current" 2>/dev/null | string split0)
            switch "$reply[1]"
                case files
                    __fish_complete_path "$current" | string join0
                case 'words*'
                    # fish reads a tab in an offer as the start of its description:
                    # a name with a tab is not offered rather than offered cut.
                    for offer in $reply[2..-1]
                        string match -q -- '*'\\t'*' $offer; or string join0 -- $offer
                    end
            end
        end
        complete -c juice -f -a '(__juice_complete | string split0)'

        """
}
