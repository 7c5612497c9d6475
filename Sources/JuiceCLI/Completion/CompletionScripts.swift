/// The completion scripts `juice completions bash|zsh|fish` print. Each is a thin
/// shim: it passes the words typed so far to `juice completions complete --` and shows
/// what that prints, so the answers come from the command declarations (`Completer`) and
/// the scripts never need regenerating when a command or option changes.
///
/// The reply's first line says how to show it: `words`, `words-nospace` (the word goes
/// on, as `kiwi=`), or `files` (the shell completes file names itself); the candidates
/// follow, one per line.
enum CompletionScripts {
    static let bash = """
        # bash completion for juice (juice completions bash). Install:
        #   juice completions bash > ~/.local/share/bash-completion/completions/juice
        _juice() {
            local line="${COMP_LINE:0:COMP_POINT}"
            local -a words
            read -ra words <<< "$line"
            [[ "$line" == *[[:space:]] ]] && words+=("")
            local cur="${COMP_WORDS[COMP_CWORD]}"
            local IFS=$'\\n'
            local -a reply
            reply=($("${words[0]}" completions complete -- "${words[@]:1}" 2>/dev/null))
            case "${reply[0]}" in
                files) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- "$cur")) ;;
                words-nospace) compopt -o nospace 2>/dev/null; COMPREPLY=("${reply[@]:1}") ;;
                words) COMPREPLY=("${reply[@]:1}") ;;
                *) COMPREPLY=() ;;
            esac
        }
        complete -F _juice juice

        """

    static let zsh = """
        #compdef juice
        # zsh completion for juice (juice completions zsh). Install: save as _juice in a
        # directory on $fpath, e.g. juice completions zsh > ~/.zsh/completions/_juice
        _juice() {
            local -a reply
            reply=("${(@f)$(${words[1]} completions complete -- "${(@)words[2,CURRENT]}" 2>/dev/null)}")
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
            set -l current (commandline -ct)
            set -l reply ($tokens[1] completions complete -- $tokens[2..-1] "$current" 2>/dev/null)
            switch "$reply[1]"
                case files
                    __fish_complete_path "$current"
                case 'words*'
                    printf '%s\\n' $reply[2..-1]
            end
        end
        complete -c juice -f -a '(__juice_complete)'

        """
}
